// Derivatives of the activations of tensor/nn_ops.h (activation.cc) other
// than gelu and leaky_relu (nn.cc), as PyTorch's *_backward kernels compute
// them, written with public ops so that they differentiate again.
// Piecewise ones pass the gradient through where() on a mask, so a
// non-finite gradient never leaks through the branch not taken; the
// exponentials see their argument clamped to the branch they serve, so
// that the second derivative makes no inf * 0 either.
#include "autograd/derivatives.h"
#include "autograd/grad_mode.h"
#include "tensor/activation_kernels.h"
#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// g where mask, else 0.
Tensor pass_where(const Tensor& mask, const Tensor& g) { return where(mask, g, Scalar(0.0)); }

// Note [Fused CPU activation backwards]: one CPU loop where no graph is
// being built; undefined where the composition must run.
Tensor fused(detail::ActivationBackward kind, const Tensor& g, const Tensor& x, double a = 0,
             double b = 0) {
  if (GradMode::is_enabled()) return Tensor();
  return detail::activation_backward_cpu(kind, g, x, a, b);
}

// x > 0 ? g * scale : g * alpha * scale * input_scale * exp(x * input_scale)
Tensor elu_grad(const Tensor& g, const Tensor& x, double alpha, double scale,
                double input_scale) {
  Tensor neg = g * (x.clamp_max(0) * input_scale).exp() * (alpha * scale * input_scale);
  return where(x > 0, g * scale, neg);
}

// elu(self; alpha, scale, input_scale)
V elu_bw(const C& c, const V& g) {
  return {elu_grad(g[0], c.input(0), c.double_arg(0), c.double_arg(1), c.double_arg(2))};
}
// celu(self; alpha)
V celu_bw(const C& c, const V& g) {
  const double alpha = c.double_arg(0);
  return {elu_grad(g[0], c.input(0), alpha, 1.0, 1.0 / alpha)};
}
V silu_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  Tensor s = x.sigmoid();
  return {g[0] * s * (1 + x * (1 - s))};
}
// d/dx x tanh(sp(x)) = tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2), with
// softplus (whose own derivative is the sigmoid) for log1p(exp(x)).
V mish_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  Tensor t = softplus(x).tanh();
  return {g[0] * (t + x * x.sigmoid() * (1 - t * t))};
}
// softplus(self; beta, threshold)
V softplus_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  Tensor bx = x * c.scalar(0);
  return {where(bx > c.scalar(1), g[0], g[0] * bx.sigmoid())};
}
V log_sigmoid_bw(const C& c, const V& g) { return {g[0] * (-c.input(0)).sigmoid()}; }
// hardtanh(self; min_val, max_val): zero at the bounds, as PyTorch.
V hardtanh_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  if (Tensor r =
          fused(detail::ActivationBackward::kHardtanh, g[0], x, c.double_arg(0), c.double_arg(1));
      r.defined()) {
    return {r};
  }
  return {pass_where((x > c.scalar(0)).logical_and(x < c.scalar(1)), g[0])};
}
V hardsigmoid_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  if (Tensor r = fused(detail::ActivationBackward::kHardsigmoid, g[0], x); r.defined()) return {r};
  // 1.13's kernel multiplies by `1.0f / 6.0f`, a float constant, in every
  // dtype: float64 gradients are 0.1666666716337204, not 1/6.
  return {pass_where((x > -3).logical_and(x < 3), g[0] * static_cast<double>(1.0f / 6.0f))};
}
// PyTorch's hardswish_backward: 0 below -3, x / 3 + 1/2 on [-3, 3], 1
// above 3 (1.5 at x = 3, as derivatives.yaml, PyTorch 1.13's scalar loop and
// PyTorch 2.x; 1.13's vectorized loop alone gives 1 there).
V hardswish_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  if (Tensor r = fused(detail::ActivationBackward::kHardswish, g[0], x); r.defined()) return {r};
  return {pass_where(x >= -3, where(x <= 3, g[0] * (x / 3 + 0.5), g[0]))};
}
// softshrink / hardshrink(self; lambd): zero on [-lambd, lambd]. A NaN self
// gets 0, as 1.13's vectorized loop ((x < -l) | (x > l)) & g; its scalar
// loop (x >= -l && x <= l) ? 0 : g, which runs for short or non-contiguous
// tensors, passes g there, so 1.13's own answer at NaN depends on the length.
V shrink_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const double l = c.double_arg(0);
  if (Tensor r = fused(detail::ActivationBackward::kShrink, g[0], x, l); r.defined()) return {r};
  return {pass_where((x < -l).logical_or(x > l), g[0])};
}
// threshold(self; threshold, value)
// (a NaN self passes the gradient, as PyTorch's threshold_backward)
V threshold_bw(const C& c, const V& g) {
  if (!GradMode::is_enabled()) return {threshold_backward(g[0], c.input(0), c.scalar(0))};
  return {detail::threshold_backward_composed(g[0], c.input(0), c.scalar(0))};
}
// prelu(self, weight): the weight's gradient summed over every dim but the
// channel's (all of them for one weight).
V prelu_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const Tensor& w = c.input(1);
  Tensor pos = x > 0;
  V r(2);
  if (c.needs(0)) r[0] = where(pos, g[0], g[0] * detail::prelu_weight(w, x.dim()));
  if (c.needs(1)) {
    Tensor gw = pass_where(pos.logical_not(), g[0] * x);
    if (w.numel() == 1) {
      gw = gw.sum();
    } else {
      DimVector dims{0};
      for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
      gw = gw.sum(dims);
    }
    r[1] = gw.reshape(w.sizes());
  }
  return r;
}

EMBER_REGISTER_DERIVATIVES(
    {"elu", "EluBackward0", kSaveSelf, false, elu_bw},
    {"celu", "CeluBackward0", kSaveSelf, false, celu_bw},
    {"silu", "SiluBackward0", kSaveSelf, false, silu_bw},
    {"mish", "MishBackward0", kSaveSelf, false, mish_bw},
    {"softplus", "SoftplusBackward0", kSaveSelf, false, softplus_bw},
    {"log_sigmoid", "LogSigmoidBackward0", kSaveSelf, false, log_sigmoid_bw},
    {"hardtanh", "HardtanhBackward0", kSaveSelf, false, hardtanh_bw},
    {"hardsigmoid", "HardsigmoidBackward0", kSaveSelf, false, hardsigmoid_bw},
    {"hardswish", "HardswishBackward0", kSaveSelf, false, hardswish_bw},
    {"softshrink", "SoftshrinkBackward0", kSaveSelf, false, shrink_bw},
    {"hardshrink", "HardshrinkBackward0", kSaveSelf, false, shrink_bw},
    {"threshold", "ThresholdBackward0", kSaveSelf, false, threshold_bw},
    {"prelu", "PreluBackward0", kSaveSelf | kSaveOther, false, prelu_bw});

}  // namespace
}  // namespace autograd
}  // namespace ember
