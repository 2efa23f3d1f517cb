#ifndef EMBER_NN_FUNCTIONAL_ACTIVATION_H_
#define EMBER_NN_FUNCTIONAL_ACTIVATION_H_

// Activations of torch::nn::functional: relu, leaky_relu, gelu, sigmoid,
// tanh, softmax, log_softmax, elu, selu, celu, silu, mish, softplus,
// softsign, hardtanh, relu6, hardsigmoid, hardswish, prelu, logsigmoid,
// tanhshrink, softshrink, hardshrink, threshold, glu. The in-place forms
// (inplace(true), as PyTorch's inplace=True) write the result into the
// input through copy_ (its node is CopyBackwards, where PyTorch records the
// op's own in-place kernel; the gradients are the same).

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

// Randomized leaky ReLU: while training, each element <= 0 is scaled by a
// slope drawn uniformly from [lower, upper] (one draw per such element, in
// memory order, from the default CPU generator as ATen's
// rrelu_with_noise, so manual_seed gives PyTorch's slopes); otherwise
// leaky_relu with slope (lower + upper) / 2. CPU float and double tensors
// when training.
struct RReLUFuncOptions {
  EMBER_ARG(double, lower) = 1.0 / 8.0;
  EMBER_ARG(double, upper) = 1.0 / 3.0;
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(bool, inplace) = false;
};
Tensor rrelu(const Tensor& input, const RReLUFuncOptions& options = {});

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

// softmax(-input): libtorch's F::softmin(x, F::SoftminFuncOptions(dim)).
using SoftminFuncOptions = SoftmaxFuncOptions;
Tensor softmin(const Tensor& input, const SoftminFuncOptions& options);

using LogSoftmaxFuncOptions = SoftmaxFuncOptions;
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);

struct ELUFuncOptions {
  EMBER_ARG(double, alpha) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};
Tensor elu(const Tensor& input, const ELUFuncOptions& options = {});

struct SELUFuncOptions {
  /* implicit */ SELUFuncOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  EMBER_ARG(bool, inplace);
};
Tensor selu(const Tensor& input, const SELUFuncOptions& options = {});

struct CELUFuncOptions {
  EMBER_ARG(double, alpha) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};
Tensor celu(const Tensor& input, const CELUFuncOptions& options = {});

// libtorch's silu, mish, hardsigmoid and hardswish take no options; the
// bool is PyTorch's inplace.
Tensor silu(const Tensor& input, bool inplace = false);
Tensor mish(const Tensor& input, bool inplace = false);
Tensor hardsigmoid(const Tensor& input, bool inplace = false);
Tensor hardswish(const Tensor& input, bool inplace = false);

struct SoftplusFuncOptions {
  EMBER_ARG(double, beta) = 1.0;
  EMBER_ARG(double, threshold) = 20.0;
};
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {});

// x / (1 + |x|)
Tensor softsign(const Tensor& input);

struct HardtanhFuncOptions {
  EMBER_ARG(double, min_val) = -1.0;
  EMBER_ARG(double, max_val) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};
Tensor hardtanh(const Tensor& input, const HardtanhFuncOptions& options = {});

// hardtanh(x, 0, 6).
struct ReLU6FuncOptions {
  /* implicit */ ReLU6FuncOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  EMBER_ARG(bool, inplace);
};
Tensor relu6(const Tensor& input, const ReLU6FuncOptions& options = {});

// weight: one element, or one per channel (dim 1).
Tensor prelu(const Tensor& input, const Tensor& weight);

Tensor logsigmoid(const Tensor& input);
// x - tanh(x)
Tensor tanhshrink(const Tensor& input);

struct SoftshrinkFuncOptions {
  /* implicit */ SoftshrinkFuncOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT
  EMBER_ARG(double, lambda);
};
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {});

using HardshrinkFuncOptions = SoftshrinkFuncOptions;
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {});

// x <= threshold ? value : x.
struct ThresholdFuncOptions {
  ThresholdFuncOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  EMBER_ARG(double, threshold);
  EMBER_ARG(double, value);
  EMBER_ARG(bool, inplace) = false;
};
Tensor threshold(const Tensor& input, const ThresholdFuncOptions& options);

// The gated linear unit: input split in halves a, b along `dim`, a * sigmoid(b).
struct GLUFuncOptions {
  /* implicit */ GLUFuncOptions(int64_t dim = -1) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
};
Tensor glu(const Tensor& input, const GLUFuncOptions& options = {});

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_ACTIVATION_H_
