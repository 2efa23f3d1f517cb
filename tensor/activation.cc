// The activations of nn_ops.h, each recorded once under its ATen name
// (GeluBackward0, EluBackward0...), the forward composed of public ops
// (which do not record below an OpScope: Note [Op recording]).
#include <cmath>

#include "tensor/autocast.h"
#include "tensor/autograd_hook.h"
#include "tensor/error.h"
#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"

namespace ember {

Tensor gelu(const Tensor& self, const std::string& approximate) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh",
              "approximate argument must be either none or tanh.");
  detail::OpScope scope(self);
  Tensor out;
  if (approximate == "none") {
    out = self * 0.5 * (1 + (self * M_SQRT1_2).erf());
  } else {
    const double k = std::sqrt(2.0 / M_PI);
    out = self * 0.5 * (1 + ((self + self * self * self * 0.044715) * k).tanh());
  }
  if (scope.active()) scope.record("gelu", {self}, {out}, {approximate});
  return out;
}

Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope) {
  detail::OpScope scope(self);
  Tensor out = where(self > 0, self, self * negative_slope);
  if (scope.active()) scope.record("leaky_relu", {self}, {out}, {negative_slope});
  return out;
}

namespace {

// x <= 0 ? (exp(x * input_scale) - 1) * alpha * scale : x * scale; the
// exponent sees x clamped to <= 0, so that no inf is made where the other
// branch is taken.
Tensor elu_forward(const Tensor& x, double alpha, double scale, double input_scale) {
  return where(x > 0, x * scale, (x.clamp_max(0) * input_scale).expm1() * (alpha * scale));
}

}  // namespace

Tensor elu(const Tensor& self, const Scalar& alpha, const Scalar& scale,
           const Scalar& input_scale) {
  EMBER_AUTOCAST_OPAQUE();
  detail::OpScope scope(self);
  Tensor out = elu_forward(self, alpha.toDouble(), scale.toDouble(), input_scale.toDouble());
  if (scope.active()) scope.record("elu", {self}, {out}, {alpha, scale, input_scale});
  return out;
}

Tensor celu(const Tensor& self, const Scalar& alpha) {
  const double a = alpha.toDouble();
  EMBER_CHECK(a != 0, "ZeroDivisionError: alpha cannot be 0 for CELU");
  EMBER_AUTOCAST_OPAQUE();
  detail::OpScope scope(self);
  Tensor out = elu_forward(self, a, 1.0, 1.0 / a);
  if (scope.active()) scope.record("celu", {self}, {out}, {alpha});
  return out;
}

Tensor silu(const Tensor& self) {
  detail::OpScope scope(self);
  Tensor out = self * self.sigmoid();
  if (scope.active()) scope.record("silu", {self}, {out});
  return out;
}

Tensor mish(const Tensor& self) {
  EMBER_AUTOCAST_OPAQUE();
  detail::OpScope scope(self);
  Tensor out = self * self.exp().log1p().tanh();
  if (scope.active()) scope.record("mish", {self}, {out});
  return out;
}

Tensor softplus(const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  EMBER_AUTOCAST(softplus, ::ember::softplus, self, beta, threshold);
  detail::OpScope scope(self);
  Tensor bx = self * beta;
  // Above the threshold log1p(exp(bx)) / beta is x to working precision
  // (and exp would overflow).
  Tensor out = where(bx > threshold, self, bx.clamp_max(threshold).exp().log1p() / beta);
  if (scope.active()) scope.record("softplus", {self}, {out}, {beta, threshold});
  return out;
}

Tensor log_sigmoid(const Tensor& self) {
  EMBER_AUTOCAST_OPAQUE();
  detail::OpScope scope(self);
  // min(x, 0) - log1p(exp(-|x|)): neither term overflows.
  Tensor out = self.clamp_max(0) - (-self.abs()).exp().log1p();
  if (scope.active()) scope.record("log_sigmoid", {self}, {out});
  return out;
}

Tensor hardtanh(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  detail::OpScope scope(self);
  Tensor out = self.clamp(min_val, max_val);
  if (scope.active()) scope.record("hardtanh", {self}, {out}, {min_val, max_val});
  return out;
}

Tensor hardsigmoid(const Tensor& self) {
  detail::OpScope scope(self);
  Tensor out = (self + 3).clamp(0, 6) / 6;
  if (scope.active()) scope.record("hardsigmoid", {self}, {out});
  return out;
}

Tensor hardswish(const Tensor& self) {
  detail::OpScope scope(self);
  Tensor out = self * (self + 3).clamp(0, 6) / 6;
  if (scope.active()) scope.record("hardswish", {self}, {out});
  return out;
}

Tensor softshrink(const Tensor& self, const Scalar& lambd) {
  const double l = lambd.toDouble();
  EMBER_CHECK(l >= 0, "lambda must be greater or equal to 0, but found to be ", l, ".");
  detail::OpScope scope(self);
  Tensor out = where(self > l, self - l, where(self < -l, self + l, Scalar(0)));
  if (scope.active()) scope.record("softshrink", {self}, {out}, {lambd});
  return out;
}

Tensor hardshrink(const Tensor& self, const Scalar& lambd) {
  const double l = lambd.toDouble();
  detail::OpScope scope(self);
  Tensor out = where((self >= -l).logical_and(self <= l), Scalar(0), self);
  if (scope.active()) scope.record("hardshrink", {self}, {out}, {lambd});
  return out;
}

Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  detail::OpScope scope(self);
  Tensor out = where(self <= threshold, value, self);
  if (scope.active()) scope.record("threshold", {self}, {out}, {threshold, value});
  return out;
}

Tensor prelu(const Tensor& self, const Tensor& weight) {
  EMBER_AUTOCAST(prelu, ::ember::prelu, self, weight);
  EMBER_CHECK(self.dim() > 0, "Not allow zero-dim input tensor.");
  const int64_t channels = self.dim() >= 2 ? self.size(1) : 1;
  EMBER_CHECK(weight.numel() == 1 || weight.numel() == channels,
              "Mismatch of parameter numbers and input channel size. Found parameter numbers = ",
              weight.numel(), " and channel size = ", channels, ".");
  detail::OpScope scope(self, weight);
  Tensor out = where(self > 0, self, self * detail::prelu_weight(weight, self.dim()));
  if (scope.active()) scope.record("prelu", {self, weight}, {out});
  return out;
}

namespace detail {

Tensor prelu_weight(const Tensor& weight, int64_t dim) {
  if (weight.numel() == 1) return weight.reshape({});
  DimVector s(dim, 1);
  s[1] = weight.numel();
  return weight.reshape(s);
}

}  // namespace detail

}  // namespace ember
