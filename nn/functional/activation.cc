#include "nn/functional/activation.h"

#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"

namespace ember {
namespace nn {
namespace functional {

Tensor relu(const Tensor& input, const ReLUFuncOptions& options) {
  if (options.inplace()) {
    Tensor t = input;
    return t.relu_();
  }
  return ember::relu(input);
}

Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options) {
  Tensor r = ember::leaky_relu(input, options.negative_slope());
  if (options.inplace()) {
    // In place through copy_ (CopyBackwards), not PyTorch's leaky_relu_.
    Tensor t = input;
    return t.copy_(r);
  }
  return r;
}

Tensor gelu(const Tensor& input, const GELUFuncOptions& options) {
  return ember::gelu(input, options.approximate());
}

Tensor sigmoid(const Tensor& input) { return ember::sigmoid(input); }
Tensor tanh(const Tensor& input) { return ember::tanh(input); }

Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return ember::softmax(input, options.dim(), options.dtype());
}
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  return ember::log_softmax(input, options.dim(), options.dtype());
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
