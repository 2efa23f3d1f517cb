#ifndef EMBER_NN_FUNCTIONAL_NORMALIZATION_H_
#define EMBER_NN_FUNCTIONAL_NORMALIZATION_H_

// batch_norm and layer_norm.

#include <cstdint>
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

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_NORMALIZATION_H_
