#ifndef EMBER_NN_ACTIVATION_H_
#define EMBER_NN_ACTIVATION_H_

// Activation layers: ReLU, LeakyReLU, GELU, Sigmoid, Tanh, Softmax,
// LogSoftmax (each calls its nn::functional op).

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

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_ACTIVATION_H_
