#ifndef EMBER_NN_ACTIVATION_H_
#define EMBER_NN_ACTIVATION_H_

// Activation layers: ReLU, LeakyReLU, GELU, Sigmoid, Tanh, Softmax,
// LogSoftmax, ELU, SELU, CELU, SiLU, Mish, Softplus, Softsign, Hardtanh,
// ReLU6, Hardsigmoid, Hardswish, PReLU, LogSigmoid, Tanhshrink, Softshrink,
// Hardshrink, Threshold, GLU (each calls its nn::functional op). Their printed
// form is PyTorch's for the values PyTorch's defaults have: Softplus and
// Threshold print integral values as ints (Softplus(beta=1, threshold=20)),
// the others as floats (Hardtanh(min_val=-1.0, max_val=1.0)).

#include <cstdint>
#include <string>

#include "nn/functional/activation.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

using ReLUOptions = functional::ReLUFuncOptions;
using LeakyReLUOptions = functional::LeakyReLUFuncOptions;
using GELUOptions = functional::GELUFuncOptions;

struct SoftmaxOptions {
  /* implicit */ SoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
};
using LogSoftmaxOptions = SoftmaxOptions;

class ReLUImpl : public Module {
 public:
  explicit ReLUImpl(const ReLUOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  ReLUOptions options;
};
EMBER_MODULE(ReLU);

class LeakyReLUImpl : public Module {
 public:
  explicit LeakyReLUImpl(const LeakyReLUOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  LeakyReLUOptions options;
};
EMBER_MODULE(LeakyReLU);

struct RReLUOptions {
  EMBER_ARG(double, lower) = 1.0 / 8.0;
  EMBER_ARG(double, upper) = 1.0 / 3.0;
  EMBER_ARG(bool, inplace) = false;
};
// Random slopes while training, their mean in eval mode (functional::rrelu).
class RReLUImpl : public Module {
 public:
  explicit RReLUImpl(const RReLUOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  RReLUOptions options;
};
EMBER_MODULE(RReLU);

class GELUImpl : public Module {
 public:
  explicit GELUImpl(const GELUOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  GELUOptions options;
};
EMBER_MODULE(GELU);

class SigmoidImpl : public Module {
 public:
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Sigmoid);

class TanhImpl : public Module {
 public:
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Tanh);

// The dim is required, as in libtorch (PyTorch's dim=None guesses one).
class SoftmaxImpl : public Module {
 public:
  explicit SoftmaxImpl(const SoftmaxOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  SoftmaxOptions options;
};
EMBER_MODULE(Softmax);

class LogSoftmaxImpl : public Module {
 public:
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  LogSoftmaxOptions options;
};
EMBER_MODULE(LogSoftmax);

using SoftminOptions = SoftmaxOptions;
class SoftminImpl : public Module {
 public:
  explicit SoftminImpl(const SoftminOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  SoftminOptions options;
};
EMBER_MODULE(Softmin);

// Softmax over the channels of a (C, H, W) or (N, C, H, W) input.
class Softmax2dImpl : public Module {
 public:
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Softmax2d);

using ELUOptions = functional::ELUFuncOptions;
using SELUOptions = functional::SELUFuncOptions;
using CELUOptions = functional::CELUFuncOptions;
using SoftplusOptions = functional::SoftplusFuncOptions;
using HardtanhOptions = functional::HardtanhFuncOptions;
using ReLU6Options = functional::ReLU6FuncOptions;
using SoftshrinkOptions = functional::SoftshrinkFuncOptions;
using HardshrinkOptions = functional::HardshrinkFuncOptions;
using ThresholdOptions = functional::ThresholdFuncOptions;
using GLUOptions = functional::GLUFuncOptions;

// A module holding `Options` and calling one functional op with them.
#define EMBER_OPTIONS_ACTIVATION(Name, Opts)                        \
  class Name##Impl : public Module {                                 \
   public:                                                           \
    explicit Name##Impl(const Opts& options = {}) : options(options) {} \
    Tensor forward(const Tensor& input);                             \
    std::string extra_repr() const override;                         \
    Opts options;                                                    \
  };                                                                 \
  EMBER_MODULE(Name)

EMBER_OPTIONS_ACTIVATION(ELU, ELUOptions);
EMBER_OPTIONS_ACTIVATION(SELU, SELUOptions);
EMBER_OPTIONS_ACTIVATION(CELU, CELUOptions);
EMBER_OPTIONS_ACTIVATION(Softplus, SoftplusOptions);
EMBER_OPTIONS_ACTIVATION(ReLU6, ReLU6Options);
EMBER_OPTIONS_ACTIVATION(Softshrink, SoftshrinkOptions);
EMBER_OPTIONS_ACTIVATION(Hardshrink, HardshrinkOptions);
EMBER_OPTIONS_ACTIVATION(GLU, GLUOptions);
#undef EMBER_OPTIONS_ACTIVATION

// Checks min_val <= max_val (PyTorch asserts it without a message).
class HardtanhImpl : public Module {
 public:
  explicit HardtanhImpl(const HardtanhOptions& options = {});
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  HardtanhOptions options;
};
EMBER_MODULE(Hardtanh);

class ThresholdImpl : public Module {
 public:
  ThresholdImpl(double threshold, double value) : ThresholdImpl(ThresholdOptions(threshold, value)) {}
  explicit ThresholdImpl(const ThresholdOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  ThresholdOptions options;
};
EMBER_MODULE(Threshold);

// SiLU, Mish, Hardsigmoid, Hardswish: PyTorch's inplace as the one
// argument (libtorch's have none).
#define EMBER_INPLACE_ACTIVATION(Name)                                   \
  class Name##Impl : public Module {                                      \
   public:                                                                \
    explicit Name##Impl(bool inplace = false) : inplace(inplace) {}       \
    Tensor forward(const Tensor& input);                                  \
    std::string extra_repr() const override;                              \
    bool inplace;                                                         \
  };                                                                      \
  EMBER_MODULE(Name)

EMBER_INPLACE_ACTIVATION(SiLU);
EMBER_INPLACE_ACTIVATION(Mish);
EMBER_INPLACE_ACTIVATION(Hardsigmoid);
EMBER_INPLACE_ACTIVATION(Hardswish);
#undef EMBER_INPLACE_ACTIVATION

#define EMBER_PLAIN_ACTIVATION(Name)       \
  class Name##Impl : public Module {        \
   public:                                  \
    Tensor forward(const Tensor& input);    \
  };                                        \
  EMBER_MODULE(Name)

EMBER_PLAIN_ACTIVATION(Softsign);
EMBER_PLAIN_ACTIVATION(LogSigmoid);
EMBER_PLAIN_ACTIVATION(Tanhshrink);
#undef EMBER_PLAIN_ACTIVATION

struct PReLUOptions {
  EMBER_ARG(int64_t, num_parameters) = 1;
  EMBER_ARG(double, init) = 0.25;
};

// A learnable slope: weight [num_parameters], filled with init; one slope
// for every channel or one per channel (dim 1).
class PReLUImpl : public Module {
 public:
  explicit PReLUImpl(const PReLUOptions& options = {});
  Tensor forward(const Tensor& input);
  void reset_parameters();
  std::string extra_repr() const override;
  PReLUOptions options;
  Tensor weight;
};
EMBER_MODULE(PReLU);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_ACTIVATION_H_
