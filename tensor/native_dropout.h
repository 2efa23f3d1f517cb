#ifndef EMBER_TENSOR_NATIVE_DROPOUT_H_
#define EMBER_TENSOR_NATIVE_DROPOUT_H_

// at::native_dropout and at::native_dropout_backward (libtorch 1.13):
//
//   auto [out, mask] = native_dropout(x, /*p=*/0.1, /*train=*/true);
//
// In training (train true or nullopt) each element is kept with probability
// 1 - p: mask (bool, x's sizes) says which, and out = x * mask * scale with
// scale = 1 / (1 - p) (0 when p = 1). Not training: out is a copy of x and
// mask all true. An empty x gives (x, empty_like(x)). The node is
// NativeDropoutBackward0; its gradient is native_dropout_backward(grad,
// mask, scale) = grad * mask * scale (NativeDropoutBackwardBackward0).
//
// On the CPU these are PyTorch's composite ops, with its numbers after
// manual_seed: the mask is bernoulli_(1 - p) of a bool tensor laid out as x.
// On CUDA, one fused pass draws the mask and writes out (and one reads the
// mask for the backward), as PyTorch's fused dropout; mask then takes x's
// layout (Note [Fused dropout] in native_dropout.cc). nn::functional::
// dropout uses it on CUDA for 0 < p < 1, as at::dropout does.
//
// Deliberate differences:
// - With train = nullopt (which trains), the gradient is grad * mask *
//   scale; PyTorch 1.13's derivative uses scale 1 there (its formula tests
//   `!train.has_value() || !train.value()`), a gradient off by 1 / (1 - p).
// - On CUDA a non-floating x takes the composite ops (PyTorch's fused
//   kernel raises "not implemented for 'Long'").

#include <optional>
#include <tuple>

#include "tensor/tensor.h"

namespace ember {

std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train);
Tensor native_dropout_backward(const Tensor& grad_output, const Tensor& mask, double scale);

}  // namespace ember

#endif  // EMBER_TENSOR_NATIVE_DROPOUT_H_
