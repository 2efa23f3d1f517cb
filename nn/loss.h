#ifndef EMBER_NN_LOSS_H_
#define EMBER_NN_LOSS_H_

// Loss modules: forward(input, target) calls the nn::functional loss with
// the module's options (libtorch: MSELossOptions is the functional's).
//   nn::CrossEntropyLoss loss(nn::CrossEntropyLossOptions().label_smoothing(0.1));
// Class weights (and BCEWithLogitsLoss's pos_weight) are buffers, as in
// PyTorch, so they follow to() and appear in state_dict().

#include <string>

#include "nn/functional/loss.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

using MSELossOptions = functional::MSELossFuncOptions;
using L1LossOptions = functional::L1LossFuncOptions;
using SmoothL1LossOptions = functional::SmoothL1LossFuncOptions;
using NLLLossOptions = functional::NLLLossFuncOptions;
using CrossEntropyLossOptions = functional::CrossEntropyFuncOptions;
using BCELossOptions = functional::BinaryCrossEntropyFuncOptions;
using BCEWithLogitsLossOptions = functional::BinaryCrossEntropyWithLogitsFuncOptions;
using KLDivLossOptions = functional::KLDivFuncOptions;
using HuberLossOptions = functional::HuberLossFuncOptions;
using CosineEmbeddingLossOptions = functional::CosineEmbeddingLossFuncOptions;
using MarginRankingLossOptions = functional::MarginRankingLossFuncOptions;
using TripletMarginLossOptions = functional::TripletMarginLossFuncOptions;
using PoissonNLLLossOptions = functional::PoissonNLLLossFuncOptions;
using GaussianNLLLossOptions = functional::GaussianNLLLossFuncOptions;
using CTCLossOptions = functional::CTCLossFuncOptions;
using HingeEmbeddingLossOptions = functional::HingeEmbeddingLossFuncOptions;
using SoftMarginLossOptions = functional::SoftMarginLossFuncOptions;
using MultiLabelSoftMarginLossOptions = functional::MultilabelSoftMarginLossFuncOptions;
using MultiMarginLossOptions = functional::MultiMarginLossFuncOptions;
using MultiLabelMarginLossOptions = functional::MultilabelMarginLossFuncOptions;
using TripletMarginWithDistanceLossOptions = functional::TripletMarginWithDistanceLossFuncOptions;

// One loss module per functional loss; Options must hold the loss's
// reduction.
template <typename Options>
class LossImpl : public Module {
 public:
  explicit LossImpl(const Options& options = {}) : options(options) {}
  Options options;
};

class MSELossImpl : public LossImpl<MSELossOptions> {
 public:
  using LossImpl::LossImpl;
  Tensor forward(const Tensor& input, const Tensor& target);
};
EMBER_MODULE(MSELoss);

class L1LossImpl : public LossImpl<L1LossOptions> {
 public:
  using LossImpl::LossImpl;
  Tensor forward(const Tensor& input, const Tensor& target);
};
EMBER_MODULE(L1Loss);

class SmoothL1LossImpl : public LossImpl<SmoothL1LossOptions> {
 public:
  using LossImpl::LossImpl;
  Tensor forward(const Tensor& input, const Tensor& target);
};
EMBER_MODULE(SmoothL1Loss);

class NLLLossImpl : public LossImpl<NLLLossOptions> {
 public:
  explicit NLLLossImpl(const NLLLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
};
EMBER_MODULE(NLLLoss);

class CrossEntropyLossImpl : public LossImpl<CrossEntropyLossOptions> {
 public:
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
};
EMBER_MODULE(CrossEntropyLoss);

class BCELossImpl : public LossImpl<BCELossOptions> {
 public:
  explicit BCELossImpl(const BCELossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
};
EMBER_MODULE(BCELoss);

class BCEWithLogitsLossImpl : public LossImpl<BCEWithLogitsLossOptions> {
 public:
  explicit BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
};
EMBER_MODULE(BCEWithLogitsLoss);

// The losses below print no options, as PyTorch's do.
class KLDivLossImpl : public LossImpl<KLDivLossOptions> {
 public:
  using LossImpl::LossImpl;
  Tensor forward(const Tensor& input, const Tensor& target);
};
EMBER_MODULE(KLDivLoss);

class HuberLossImpl : public LossImpl<HuberLossOptions> {
 public:
  using LossImpl::LossImpl;
  Tensor forward(const Tensor& input, const Tensor& target);
};
EMBER_MODULE(HuberLoss);

class PoissonNLLLossImpl : public LossImpl<PoissonNLLLossOptions> {
 public:
  using LossImpl::LossImpl;
  Tensor forward(const Tensor& log_input, const Tensor& target);
};
EMBER_MODULE(PoissonNLLLoss);

class CosineEmbeddingLossImpl : public LossImpl<CosineEmbeddingLossOptions> {
 public:
  using LossImpl::LossImpl;
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target);
};
EMBER_MODULE(CosineEmbeddingLoss);

class MarginRankingLossImpl : public LossImpl<MarginRankingLossOptions> {
 public:
  using LossImpl::LossImpl;
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target);
};
EMBER_MODULE(MarginRankingLoss);

class TripletMarginLossImpl : public LossImpl<TripletMarginLossOptions> {
 public:
  using LossImpl::LossImpl;
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative);
};
EMBER_MODULE(TripletMarginLoss);

class HingeEmbeddingLossImpl : public LossImpl<HingeEmbeddingLossOptions> {
 public:
  using LossImpl::LossImpl;
  Tensor forward(const Tensor& input, const Tensor& target);
};
EMBER_MODULE(HingeEmbeddingLoss);

class SoftMarginLossImpl : public LossImpl<SoftMarginLossOptions> {
 public:
  using LossImpl::LossImpl;
  Tensor forward(const Tensor& input, const Tensor& target);
};
EMBER_MODULE(SoftMarginLoss);

class MultiLabelSoftMarginLossImpl : public LossImpl<MultiLabelSoftMarginLossOptions> {
 public:
  explicit MultiLabelSoftMarginLossImpl(const MultiLabelSoftMarginLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
};
EMBER_MODULE(MultiLabelSoftMarginLoss);

class MultiMarginLossImpl : public LossImpl<MultiMarginLossOptions> {
 public:
  explicit MultiMarginLossImpl(const MultiMarginLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
};
EMBER_MODULE(MultiMarginLoss);

class MultiLabelMarginLossImpl : public LossImpl<MultiLabelMarginLossOptions> {
 public:
  using LossImpl::LossImpl;
  Tensor forward(const Tensor& input, const Tensor& target);
};
EMBER_MODULE(MultiLabelMarginLoss);

class TripletMarginWithDistanceLossImpl : public LossImpl<TripletMarginWithDistanceLossOptions> {
 public:
  using LossImpl::LossImpl;
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative);
};
EMBER_MODULE(TripletMarginWithDistanceLoss);

class GaussianNLLLossImpl : public LossImpl<GaussianNLLLossOptions> {
 public:
  using LossImpl::LossImpl;
  Tensor forward(const Tensor& input, const Tensor& target, const Tensor& var);
};
EMBER_MODULE(GaussianNLLLoss);

class CTCLossImpl : public LossImpl<CTCLossOptions> {
 public:
  using LossImpl::LossImpl;
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths);
};
EMBER_MODULE(CTCLoss);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_LOSS_H_
