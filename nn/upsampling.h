#ifndef EMBER_NN_UPSAMPLING_H_
#define EMBER_NN_UPSAMPLING_H_

// Upsample (F::interpolate as a layer), Fold and Unfold (F::fold /
// F::unfold):
//   nn::Upsample up(nn::UpsampleOptions().scale_factor(std::vector<double>{2})
//                       .mode(ember::kBilinear).align_corners(false));
//   nn::Unfold patches(nn::UnfoldOptions({3, 3}).padding(1));

#include <string>

#include "nn/functional/fold.h"
#include "nn/functional/upsampling.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

// interpolate's options without recompute_scale_factor (Upsample never
// recomputes it, as PyTorch's).
struct UpsampleOptions {
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(InterpolateMode, mode) = kNearest;
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

class UpsampleImpl : public Module {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input);
  // One size or factor prints as Python's int or float, several as a tuple.
  std::string extra_repr() const override;
  UpsampleOptions options;
};
EMBER_MODULE(Upsample);

using FoldOptions = functional::FoldFuncOptions;
using UnfoldOptions = functional::UnfoldFuncOptions;

class FoldImpl : public Module {
 public:
  explicit FoldImpl(const FoldOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  FoldOptions options;
};
EMBER_MODULE(Fold);

class UnfoldImpl : public Module {
 public:
  explicit UnfoldImpl(const UnfoldOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  UnfoldOptions options;
};
EMBER_MODULE(Unfold);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_UPSAMPLING_H_
