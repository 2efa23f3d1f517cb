// Derivatives of tensor/composite_ops.h's ops that PyTorch 1.13 records as
// one node, with 1.13's formulas (tools/autograd/derivatives.yaml and
// FunctionsManual.cpp): the composition runs below autograd, so these,
// not the composition's chain rule, decide the gradient (NaN and infinity
// included) and the node's name.
#include <cmath>
#include <limits>

#include "autograd/derivatives.h"
#include "autograd/grad_mode.h"
#include "tensor/activation_kernels.h"
#include "tensor/composite_ops.h"
#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/selection.h"
#include "tensor/shape.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// nansum(self; dims, keepdim): the gradient where self is not NaN (a
// product, so a NaN or infinite gradient stays NaN there: an all-NaN
// slice's nanmean has a NaN gradient, as 1.13's).
V nansum_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const Tensor gx = unsqueeze_to(g[0], c.dims(0), x.sizes(), c.bool_arg(1)).expand(x.sizes());
  return {gx * x.isnan().logical_not()};
}
V nan_to_num_bw(const C& c, const V& g) { return {g[0] * c.input(0).isfinite()}; }
// logaddexp: grad / (1 + exp(other - self)) and grad / (1 + exp(self - other)).
V logaddexp_bw(const C& c, const V& g) {
  const Tensor &a = c.input(0), &b = c.input(1);
  return {c.needs(0) ? g[0] / ((b - a).exp() + 1) : Tensor(),
          c.needs(1) ? g[0] / ((a - b).exp() + 1) : Tensor()};
}
V logaddexp2_bw(const C& c, const V& g) {
  const Tensor &a = c.input(0), &b = c.input(1);
  return {c.needs(0) ? g[0] / (pow(2, b - a) + 1) : Tensor(),
          c.needs(1) ? g[0] / (pow(2, a - b) + 1) : Tensor()};
}
// xlogy: self gets xlogy(grad, other), 0 where self == 0 and other <= 0;
// other gets grad * self / other.
V xlogy_bw(const C& c, const V& g) {
  const Tensor &x = c.input(0), &y = c.input(1);
  return {c.needs(0) ? xlogy(g[0], y).masked_fill((x == 0).logical_and(y <= 0), 0) : Tensor(),
          c.needs(1) ? g[0] * x / y : Tensor()};
}
V xlogy_scalar_other_bw(const C& c, const V& g) {
  const Scalar y = c.scalar(0);
  const Tensor r = xlogy(g[0], y);
  return {y.toDouble() > 0 ? r : r.masked_fill(c.input(0) == 0, 0)};
}
V xlogy_scalar_self_bw(const C& c, const V& g) { return {g[0] * c.scalar(0) / c.input(0)}; }
V deg2rad_bw(const C&, const V& g) {
  return {g[0] * 0.017453292519943295769236907684886127134428718885417};
}
V rad2deg_bw(const C&, const V& g) {
  return {g[0] * 57.295779513082320876798154814105170332405472466564};
}
// sgn of real numbers: 1.13's gradient is zeros (an efficient zero tensor),
// NaN and infinite inputs included.
V sgn_bw(const C&, const V& g) { return {zeros_like(g[0])}; }
// logit(self; eps): grad / (x (1 - x)) inside [lo, hi] (lo = eps, or 0),
// grad * inf at exactly 0 and 1; outside, NaN without eps and 0 with it;
// NaN stays NaN. That is 1.13's scalar loop; its vectorized loop divides
// at 0 and 1 (-0 flips the infinity's sign) and gives 0 for NaN with eps.
// Under create_graph, 1.13's differentiable form, without the infinities'
// branch (whose gradient, 0 * inf, would be NaN).
V logit_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const bool has_eps = c.has_arg(0);
  const double lo = has_eps ? c.double_arg(0) : 0.0;
  const Scalar beyond(has_eps ? 0.0 : std::numeric_limits<double>::quiet_NaN());
  if (!GradMode::is_enabled()) {
    // Note [Fused CPU activation backwards] (tensor/activation_kernels.h).
    Tensor r = detail::activation_backward_cpu(detail::ActivationBackward::kLogit, g[0], x, lo,
                                               has_eps ? 1.0 : 0.0);
    if (r.defined()) return {r};
  }
  const Tensor slope = g[0] / (x * (1 - x));
  if (GradMode::is_enabled()) return {where((x >= lo).logical_and(x <= 1 - lo), slope, beyond)};
  const Tensor at_ends = (x == 0).logical_or(x == 1);
  return {where((x < lo).logical_or(x > 1 - lo), beyond,
                where(at_ends, g[0] * std::numeric_limits<double>::infinity(), slope))};
}
// lerp(self, end, weight): grad * (1 - weight), grad * weight,
// grad * (end - self).
V lerp_tensor_bw(const C& c, const V& g) {
  const Tensor &a = c.input(0), &b = c.input(1), &w = c.input(2);
  return {c.needs(0) ? g[0] * (1 - w) : Tensor(), c.needs(1) ? g[0] * w : Tensor(),
          c.needs(2) ? g[0] * (b - a) : Tensor()};
}
// linalg_cross(self, other; dim): cross(other, grad) and cross(grad, self).
V linalg_cross_bw(const C& c, const V& g) {
  const int64_t d = c.int_arg(0);
  return {c.needs(0) ? cross(c.input(1), g[0], d) : Tensor(),
          c.needs(1) ? cross(g[0], c.input(0), d) : Tensor()};
}
// baddbmm(self, batch1, batch2; beta, alpha): grad * beta (grad itself when
// beta is 1), grad @ batch2^T * alpha, batch1^T @ grad * alpha.
V baddbmm_bw(const C& c, const V& g) {
  const Scalar beta = c.scalar(0), alpha = c.scalar(1);
  const Tensor &b1 = c.input(1), &b2 = c.input(2);
  return {c.needs(0) ? (beta.toDouble() == 1 ? g[0] : g[0] * beta) : Tensor(),
          c.needs(1) ? g[0].bmm(b2.transpose(1, 2)) * alpha : Tensor(),
          c.needs(2) ? b1.transpose(1, 2).bmm(g[0]) * alpha : Tensor()};
}

// _weight_norm_interface(v, g; dim) -> (w, norms): 1.13's
// _weight_norm_differentiable_backward. Under create_graph the norms are
// recomputed from v, so that the second derivative sees their dependence
// on v (1.13 treats the saved norms as constants there).
V weight_norm_interface_bw(const C& c, const V& g) {
  const Tensor& v = c.input(0);
  const int64_t dim = c.int_arg(0);
  const Tensor norms = GradMode::is_enabled() ? norm_except_dim(v, 2, dim) : c.output(1);
  auto [gv, gg] = _weight_norm_interface_backward(g[0].contiguous(), v, c.input(1), norms, dim);
  return {c.needs(0) ? gv : Tensor(), c.needs(1) ? gg : Tensor()};
}

}  // namespace

EMBER_REGISTER_DERIVATIVES(
    {"nansum", "NansumBackward0", kSaveSelf, false, nansum_bw},
    {"nan_to_num", "NanToNumBackward0", kSaveSelf, false, nan_to_num_bw},
    {"logaddexp", "LogaddexpBackward0", kSaveSelf | kSaveOther, false, logaddexp_bw},
    {"logaddexp2", "Logaddexp2Backward0", kSaveSelf | kSaveOther, false, logaddexp2_bw},
    {"xlogy", "XlogyBackward0", kSaveSelf | kSaveOther, false, xlogy_bw},
    {"xlogy_scalar_other", "XlogyBackward2", kSaveSelf, false, xlogy_scalar_other_bw},
    {"xlogy_scalar_self", "XlogyBackward1", kSaveSelf, false, xlogy_scalar_self_bw},
    {"deg2rad", "Deg2RadBackward0", 0, false, deg2rad_bw},
    {"rad2deg", "Rad2DegBackward0", 0, false, rad2deg_bw},
    {"sgn", "SgnBackward0", 0, false, sgn_bw},
    {"logit", "LogitBackward0", kSaveSelf, false, logit_bw},
    {"lerp_tensor", "LerpBackward1", kSaveAll, false, lerp_tensor_bw},
    {"linalg_cross", "LinalgCrossBackward0", kSaveSelf | kSaveOther, false, linalg_cross_bw},
    {"baddbmm", "BaddbmmBackward0", kSaveOther | kSaveThird, false, baddbmm_bw},
    {"_weight_norm_interface", "WeightNormInterfaceBackward0", kSaveSelf | kSaveOther, true,
     weight_norm_interface_bw, false, /*unsaved_outputs=*/1, /*nondifferentiable_outputs=*/2});

}  // namespace autograd
}  // namespace ember
