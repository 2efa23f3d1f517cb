#ifndef EMBER_NN_FUNCTIONAL_NORMALIZATION_H_
#define EMBER_NN_FUNCTIONAL_NORMALIZATION_H_

// batch_norm, layer_norm, group_norm, instance_norm, local_response_norm
// and normalize.

#include <cstdint>
#include <optional>
#include <vector>

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace functional {

struct BatchNormFuncOptions {
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};
// input [N, C, *]. Training: normalizes with the batch's statistics and,
// where running_mean / running_var are defined, updates them in place
// (running = (1 - momentum) * running + momentum * batch, the variance
// unbiased). Eval: normalizes with the running statistics.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options = {});

struct LayerNormFuncOptions {
  /* implicit */ LayerNormFuncOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(double, eps) = 1e-5;
};
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);

// input [N, C, *] normalized over each group of C / num_groups channels
// (and every other dim but the batch); weight and bias [C] (optional).
struct GroupNormFuncOptions {
  /* implicit */ GroupNormFuncOptions(int64_t num_groups)  // NOLINT
      : num_groups_(num_groups) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(double, eps) = 1e-5;
};
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);

// Local response normalization across channels: x / (k + alpha / size *
// sum of x^2 over `size` neighbouring channels)^beta, as PyTorch's
// composite over avg_pool (input [N, C, *], at least 3-D).
struct LocalResponseNormFuncOptions {
  /* implicit */ LocalResponseNormFuncOptions(int64_t size) : size_(size) {}  // NOLINT
  EMBER_ARG(int64_t, size);
  EMBER_ARG(double, alpha) = 1e-4;
  EMBER_ARG(double, beta) = 0.75;
  EMBER_ARG(double, k) = 1.;
};
Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& options);

// input / max(||input||_p over dim, eps), the norm expanded over dim, as
// PyTorch's torch.nn.functional.normalize (its node is DivBackward0 over
// ExpandBackward0). With `out`, the quotient is written there.
//   F::normalize(x, F::NormalizeFuncOptions().p(1).dim(-1))
struct NormalizeFuncOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-12;
  EMBER_ARG(std::optional<Tensor>, out) = std::nullopt;
};
Tensor normalize(const Tensor& input, NormalizeFuncOptions options = {});

// input [N, C, *] normalized per sample and channel over the other dims,
// as ATen's instance_norm: batch_norm of the input seen as [1, N * C, *],
// with weight, bias and running statistics repeated per sample. With
// use_input_stats the batch's statistics normalize and the running ones
// (if given) are updated in place with their average over the samples;
// without, the running ones normalize (both must be given).
struct InstanceNormFuncOptions {
  EMBER_ARG(Tensor, running_mean) = Tensor();
  EMBER_ARG(Tensor, running_var) = Tensor();
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(bool, use_input_stats) = true;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};
Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_NORMALIZATION_H_
