// Derivatives of tensor/special.h's ops, with PyTorch 1.13's formulas and
// node names. Each is written with public ops, so the gradients are
// themselves differentiable (lgamma -> digamma -> polygamma(1) -> ...).
#include <cmath>
#include <limits>

#include "autograd/derivatives.h"
#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/selection.h"
#include "tensor/special.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// sqrt(pi) / 2 * exp(erfinv(x)^2), from the saved result.
V erfinv_bw(const C& c, const V& g) {
  return {g[0] * (c.output(0) * c.output(0)).exp() * (0.5 * std::sqrt(M_PI))};
}
V lgamma_bw(const C& c, const V& g) { return {g[0] * digamma(c.input(0))}; }
V digamma_bw(const C& c, const V& g) { return {g[0] * polygamma(1, c.input(0))}; }
V polygamma_bw(const C& c, const V& g) { return {g[0] * polygamma(c.int_arg(0) + 1, c.input(0))}; }
V i0_bw(const C& c, const V& g) { return {g[0] * special_i1(c.input(0))}; }
// i1'(x) = i0(x) - i1(x) / x, 1/2 at 0 (|x| at most the dtype's epsilon).
V special_i1_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const double eps = x.dtype() == kDouble ? std::numeric_limits<double>::epsilon()
                                          : std::numeric_limits<float>::epsilon();
  const Tensor not_tiny = x.abs() > eps;
  const Tensor safe = where(not_tiny, x, Scalar(eps));
  const Tensor d = safe.i0() - c.output(0) / safe;
  return {g[0] * where(not_tiny, d, Scalar(0.5))};
}
// (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at 0.
V sinc_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const Tensor px = x * M_PI;
  const Tensor pxx = x * x * M_PI;
  const Tensor d = g[0] * (px * px.cos() - px.sin()) / pxx;
  return {where(pxx == 0, Scalar(0.0), d)};
}
// d/dself copysign(self, other) = result / self, 0 where self is 0;
// other's gradient is 0.
V copysign_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  V r(2);
  if (c.needs(0)) r[0] = g[0] * where(x == 0, Scalar(0.0), c.output(0) / x);
  if (c.needs(1)) r[1] = zeros_like(g[0]);
  return r;
}
V hypot_bw(const C& c, const V& g) {
  V r(2);
  if (c.needs(0)) r[0] = g[0] * c.input(0) / c.output(0);
  if (c.needs(1)) r[1] = g[0] * c.input(1) / c.output(0);
  return r;
}

// angle of a real number is piecewise constant (more_ops.h).
V angle_bw(const C&, const V& g) { return {zeros_like(g[0])}; }

// 1.13 records a node for nextafter whose backward raises.
constexpr char kNextafter[] = "nextafter";

EMBER_REGISTER_DERIVATIVES({"erfinv", "ErfinvBackward0", 0, true, erfinv_bw},
                           {"lgamma", "LgammaBackward0", kSaveSelf, false, lgamma_bw},
                           {"digamma", "DigammaBackward0", kSaveSelf, false, digamma_bw},
                           {"polygamma", "PolygammaBackward0", kSaveSelf, false, polygamma_bw},
                           {"i0", "I0Backward0", kSaveSelf, false, i0_bw},
                           {"special_i1", "SpecialI1Backward0", kSaveSelf, true, special_i1_bw},
                           {"sinc", "SincBackward0", kSaveSelf, false, sinc_bw},
                           {"copysign", "CopysignBackward0", kSaveSelf, true, copysign_bw},
                           {"copysign_scalar", "CopysignBackward1", kSaveSelf, true, copysign_bw},
                           {"hypot", "HypotBackward0", kSaveSelf | kSaveOther, true, hypot_bw},
                           {"angle", "AngleBackward0", 0, false, angle_bw},
                           {"nextafter", "NextafterBackward0", 0, false,
                            not_implemented<kNextafter>});

}  // namespace
}  // namespace autograd
}  // namespace ember
