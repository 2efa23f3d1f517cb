#ifndef EMBER_NN_FUNCTIONAL_LOSS_H_
#define EMBER_NN_FUNCTIONAL_LOSS_H_

// Losses with reduction ember::kMean (default) / kSum / kNone:
//   F::cross_entropy(x, t, F::CrossEntropyFuncOptions().ignore_index(-100)
//                              .label_smoothing(0.1).reduction(ember::kMean))
// Class-index losses take input [N, C] or [N, C, d1, ...] (or [C]) and an
// int64 target [N] / [N, d1, ...] (or []).

#include <cstdint>

#include <functional>
#include <optional>

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {

// kl_div's reduction: 'batchmean', the sum over the batch size (the KL
// divergence as defined), beside kNone / kMean / kSum (libtorch's
// KLDivFuncOptions::reduction_t): `.reduction(ember::kBatchMean)`.
enum class BatchMean { kBatchMean };
inline constexpr BatchMean kBatchMean = BatchMean::kBatchMean;
class KLDivReduction {
 public:
  KLDivReduction(Reduction r) : reduction_(r) {}        // NOLINT(runtime/explicit)
  KLDivReduction(BatchMean) : batch_mean_(true) {}      // NOLINT(runtime/explicit)
  bool batch_mean() const { return batch_mean_; }
  // kSum for kBatchMean (then divided by the batch size).
  Reduction reduction() const { return reduction_; }

 private:
  Reduction reduction_ = kSum;
  bool batch_mean_ = false;
};

namespace nn {
namespace functional {

struct MSELossFuncOptions {
  /* implicit */ MSELossFuncOptions(Reduction reduction = kMean)  // NOLINT
      : reduction_(reduction) {}
  EMBER_ARG(Reduction, reduction);
};
Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {});

using L1LossFuncOptions = MSELossFuncOptions;
Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {});

struct SmoothL1LossFuncOptions {
  /* implicit */ SmoothL1LossFuncOptions(Reduction reduction = kMean)  // NOLINT
      : reduction_(reduction) {}
  EMBER_ARG(Reduction, reduction);
  EMBER_ARG(double, beta) = 1.0;
};
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options = {});
// libtorch 1.13's form, beta as a fourth argument: it is the beta used
// (libtorch's own ignores options.beta() there).
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options, double beta);

struct NLLLossFuncOptions {
  EMBER_ARG(Tensor, weight) = Tensor();  // [C], per-class
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(Reduction, reduction) = kMean;
};
// input holds log-probabilities.
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {});

struct CrossEntropyFuncOptions {
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(Reduction, reduction) = kMean;
  EMBER_ARG(double, label_smoothing) = 0.0;
};
// target: class indices (int64, input's shape without C) or class
// probabilities (floating, input's shape).
Tensor cross_entropy(const Tensor& input, const Tensor& target,
                     const CrossEntropyFuncOptions& options = {});

struct BinaryCrossEntropyFuncOptions {
  EMBER_ARG(Tensor, weight) = Tensor();  // broadcast to input
  EMBER_ARG(Reduction, reduction) = kMean;
};
// input holds probabilities in [0, 1]; log terms are clamped at -100.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options = {});

struct BinaryCrossEntropyWithLogitsFuncOptions {
  EMBER_ARG(Tensor, weight) = Tensor();      // broadcast to input
  EMBER_ARG(Tensor, pos_weight) = Tensor();  // broadcast over the last dim
  EMBER_ARG(Reduction, reduction) = kMean;
};
Tensor binary_cross_entropy_with_logits(
    const Tensor& input, const Tensor& target,
    const BinaryCrossEntropyWithLogitsFuncOptions& options = {});

// --- losses beyond the classification and regression basics -------------------------------
// Composites of public ops (their gradients come from autograd), except
// ctc_loss, whose recursion is the primitive _ctc_loss (tensor/ctc_loss.h).

struct KLDivFuncOptions {
  EMBER_ARG(KLDivReduction, reduction) = kMean;
  EMBER_ARG(bool, log_target) = false;
};
// input: log-probabilities; target: probabilities (log-probabilities with
// log_target). kMean averages over every element, as PyTorch 1.13 does
// (which warns that kBatchMean is the divergence).
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options = {});

struct HuberLossFuncOptions {
  /* implicit */ HuberLossFuncOptions(Reduction reduction = kMean)  // NOLINT
      : reduction_(reduction) {}
  EMBER_ARG(Reduction, reduction);
  EMBER_ARG(double, delta) = 1.0;
};
Tensor huber_loss(const Tensor& input, const Tensor& target,
                  const HuberLossFuncOptions& options = {});

struct CosineEmbeddingLossFuncOptions {
  EMBER_ARG(double, margin) = 0.0;
  EMBER_ARG(Reduction, reduction) = kMean;
};
// input1, input2 [N, D] with target [N] (or [D] with a 0-dim target) of 1
// (similar: 1 - cos) or -1 (dissimilar: max(0, cos - margin)).
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options = {});

struct MarginRankingLossFuncOptions {
  EMBER_ARG(double, margin) = 0.0;
  EMBER_ARG(Reduction, reduction) = kMean;
};
// max(0, -target * (input1 - input2) + margin), inputs of one dimension count.
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options = {});

struct TripletMarginLossFuncOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, swap) = false;
  EMBER_ARG(Reduction, reduction) = kMean;
};
// max(0, margin + d(a, p) - d(a, n)) with d the pairwise_distance; swap
// uses min(d(a, n), d(p, n)) as the negative distance.
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options = {});

struct HingeEmbeddingLossFuncOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(Reduction, reduction) = kMean;
};
// x where target is 1, max(0, margin - x) where it is -1 (any shapes that
// broadcast; other target values count both).
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                            const HingeEmbeddingLossFuncOptions& options = {});

struct SoftMarginLossFuncOptions {
  /* implicit */ SoftMarginLossFuncOptions(Reduction reduction = kMean)  // NOLINT
      : reduction_(reduction) {}
  EMBER_ARG(Reduction, reduction);
};
// log(1 + exp(-target * input)), target of 1 or -1.
Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                        const SoftMarginLossFuncOptions& options = {});

struct MultilabelSoftMarginLossFuncOptions {
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(Reduction, reduction) = kMean;
};
// -(t log sigmoid(x) + (1 - t) log sigmoid(-x)), weighted per class, then
// the mean over the last (class) dim: one value per sample before reduction.
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossFuncOptions& options = {});

struct MultiMarginLossFuncOptions {
  EMBER_ARG(int64_t, p) = 1;
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(Reduction, reduction) = kMean;
};
// Multi-class hinge loss: input [N, C] (or [C]), target [N] (or 0-dim) of
// class indices; per sample sum_{j != y} max(0, margin - x[y] + x[j])^p
// (times weight[y]) / C, p 1 or 2.
Tensor multi_margin_loss(const Tensor& input, const Tensor& target,
                         const MultiMarginLossFuncOptions& options = {});

struct MultilabelMarginLossFuncOptions {
  /* implicit */ MultilabelMarginLossFuncOptions(Reduction reduction = kMean)  // NOLINT
      : reduction_(reduction) {}
  EMBER_ARG(Reduction, reduction);
};
// Multi-label hinge loss: input [N, C] (or [C]); target of the same shape
// holding each sample's class indices up to the first -1; per sample
// sum over its classes j and the other classes i of max(0, 1 - (x[j] - x[i])) / C.
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultilabelMarginLossFuncOptions& options = {});

struct TripletMarginWithDistanceLossFuncOptions {
  using distance_function_t = std::function<Tensor(const Tensor&, const Tensor&)>;
  // None: pairwise_distance.
  EMBER_ARG(std::optional<distance_function_t>, distance_function) = std::nullopt;
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(bool, swap) = false;
  EMBER_ARG(Reduction, reduction) = kMean;
};
// triplet_margin_loss with any distance: max(0, margin + d(a, p) - d(a, n)).
Tensor triplet_margin_with_distance_loss(
    const Tensor& anchor, const Tensor& positive, const Tensor& negative,
    const TripletMarginWithDistanceLossFuncOptions& options = {});

struct PoissonNLLLossFuncOptions {
  EMBER_ARG(bool, log_input) = true;
  EMBER_ARG(bool, full) = false;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(Reduction, reduction) = kMean;
};
// log_input: exp(input) - target * input; else input - target * log(input
// + eps). full adds Stirling's approximation of log(target!) for target > 1.
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target,
                        const PoissonNLLLossFuncOptions& options = {});

struct GaussianNLLLossFuncOptions {
  EMBER_ARG(bool, full) = false;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(Reduction, reduction) = kMean;
};
// 0.5 * (log(var) + (input - target)^2 / var) (+ 0.5 * log(2 pi) with
// full). var: input's shape, or input's without its last dim, or that
// with a last dim of 1; entries below eps count as eps (the gradient still
// flows to var, as PyTorch clamps under no_grad).
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                         const GaussianNLLLossFuncOptions& options = {});

struct CTCLossFuncOptions {
  EMBER_ARG(int64_t, blank) = 0;
  EMBER_ARG(Reduction, reduction) = kMean;
  EMBER_ARG(bool, zero_infinity) = false;
};
// log_probs [T, N, C] (or [T, C] for one sequence) from log_softmax; targets
// [N, S] padded or the N targets concatenated (int64 or int32); lengths:
// integer tensors [N] (or 0-dim for one sequence). kMean divides each
// loss by its target length (at least 1) before averaging. zero_infinity:
// impossible alignments give 0 and no gradient instead of inf.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossFuncOptions& options = {});

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_LOSS_H_
