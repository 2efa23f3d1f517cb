#ifndef EMBER_NN_FUNCTIONAL_LOSS_H_
#define EMBER_NN_FUNCTIONAL_LOSS_H_

// Losses with reduction ember::kMean (default) / kSum / kNone:
//   F::cross_entropy(x, t, F::CrossEntropyFuncOptions().ignore_index(-100)
//                              .label_smoothing(0.1).reduction(ember::kMean))
// Class-index losses take input [N, C] or [N, C, d1, ...] (or [C]) and an
// int64 target [N] / [N, d1, ...] (or []).

#include <cstdint>

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {
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

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_LOSS_H_
