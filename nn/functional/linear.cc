#include "nn/functional/linear.h"

#include "tensor/autocast.h"
#include "tensor/linalg.h"
#include "tensor/math.h"

namespace ember {
namespace nn {
namespace functional {

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  EMBER_AUTOCAST(linear, ::ember::nn::functional::linear, input, weight, bias);
  // PyTorch 1.13's aten::linear: addmm for 2-D input with bias, else matmul
  // (+ bias), so grad_fn names match (AddmmBackward0 / MmBackward0 / ...).
  if (input.dim() == 2 && bias.defined()) return ember::addmm(bias, input, weight.t());
  // And the fused path for contiguous 3-D input: view, addmm, view.
  if (input.dim() == 3 && bias.defined() && input.is_contiguous()) {
    const int64_t b = input.size(0), t = input.size(1);
    Tensor out = ember::addmm(bias, input.view({b * t, input.size(2)}), weight.t());
    return out.view({b, t, out.size(1)});
  }
  Tensor out = ember::matmul(input, weight.t());
  if (bias.defined()) out = out + bias;
  return out;
}

Tensor flatten(const Tensor& input, int64_t start_dim, int64_t end_dim) {
  return input.flatten(start_dim, end_dim);
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
