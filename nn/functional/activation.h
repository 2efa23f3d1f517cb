#ifndef EMBER_NN_FUNCTIONAL_ACTIVATION_H_
#define EMBER_NN_FUNCTIONAL_ACTIVATION_H_

// Activations of torch::nn::functional: relu, leaky_relu, gelu, sigmoid,
// tanh, softmax, log_softmax.

#include <cstdint>
#include <optional>
#include <string>

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace functional {

struct ReLUFuncOptions {
  /* implicit */ ReLUFuncOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  EMBER_ARG(bool, inplace);
};
Tensor relu(const Tensor& input, const ReLUFuncOptions& options = {});

struct LeakyReLUFuncOptions {
  EMBER_ARG(double, negative_slope) = 1e-2;
  EMBER_ARG(bool, inplace) = false;
};
Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options = {});

// approximate: "none" (erf) or "tanh".
struct GELUFuncOptions {
  EMBER_ARG(std::string, approximate) = "none";
};
Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {});

Tensor sigmoid(const Tensor& input);
Tensor tanh(const Tensor& input);

struct SoftmaxFuncOptions {
  /* implicit */ SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);

using LogSoftmaxFuncOptions = SoftmaxFuncOptions;
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_ACTIVATION_H_
