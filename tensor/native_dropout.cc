// Note [Fused dropout]: PyTorch's at::dropout on CUDA (0 < p < 1, not in
// place, not feature dropout) calls native_dropout, whose kernel draws the
// mask and scales the input in one pass and keeps the mask as bool for the
// backward: 9 bytes of traffic per float element instead of the 24 of
// bernoulli_, div_ and mul over a float noise tensor. Devices that register
// a dropout_kernel (tensor/random_kernel.h; CUDA) take that path: out and
// mask are allocated like x (empty_like's preserve_format), one Philox
// offset is reserved from the device's default generator, and element i
// in row-major order is kept when the float uniform of word i % 4 of the
// draw at counter (i / 4, offset) is below 1 - p: exactly the mask that
// bernoulli_(1 - p) of a bool tensor would draw from the same state (Note
// [Device random numbers] in random.cc), CUDA graph capture included. The
// CPU runs PyTorch 1.13's composite ops, which give its numbers.

#include "tensor/native_dropout.h"

#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/math.h"
#include "tensor/random.h"
#include "tensor/random_kernel.h"

namespace ember {
namespace {

bool fused(const Tensor& t) {
  return !t.is_cpu() && is_floating_point(t.dtype()) &&
         detail::dropout_kernel.has(t.device().type());
}

}  // namespace

std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p,
                                          std::optional<bool> train) {
  if (input.numel() == 0) return {input, empty_like(input)};
  detail::OpScope scope(input);
  const bool training = !train.has_value() || *train;
  Tensor out, mask;
  if (training) {
    const double keep = 1. - p;
    EMBER_CHECK(keep >= 0 && keep <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", keep);
    const double scale = keep == 0 ? 0. : 1. / keep;
    mask = empty_like(input, TensorOptions(kBool));
    if (fused(input)) {
      out = empty_like(input);
      detail::RandomFill draw;
      draw.kind = detail::RandomKind::kBernoulli;
      draw.a = keep;
      detail::reserve_device_draw(draw, detail::default_generator_for(input.device()));
      detail::dropout_kernel(input.device())(input, mask, out, scale, &draw);
    } else {
      mask.bernoulli_(keep);
      out = input.mul(mask).mul_(scale);
    }
  } else {
    mask = ones_like(input, TensorOptions(kBool));
    out = input.clone();
  }
  if (scope.active()) {
    // The training flag as given: PyTorch 1.13's backward scales by 1 when
    // train is nullopt (native_dropout.h).
    scope.record("native_dropout", {input}, {out, mask}, {Scalar(p), Scalar(training)});
  }
  return {out, mask};
}

Tensor native_dropout_backward(const Tensor& grad_output, const Tensor& mask, double scale) {
  detail::OpScope scope(grad_output);
  Tensor r;
  if (fused(grad_output) && mask.dtype() == kBool && mask.sizes() == grad_output.sizes() &&
      mask.device() == grad_output.device()) {
    r = empty_like(grad_output);
    Tensor m = mask;
    detail::dropout_kernel(grad_output.device())(grad_output, m, r, scale, nullptr);
  } else {
    r = grad_output.mul(mask).mul_(scale);
  }
  if (scope.active()) {
    scope.record("native_dropout_backward", {grad_output, mask}, {r}, {Scalar(scale)});
  }
  return r;
}

}  // namespace ember
