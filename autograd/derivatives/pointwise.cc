// Derivatives of elementwise ops (binary.cc, unary.cc, pointwise.cc,
// selection.cc's where/masked_fill, copy.cc's conversions). Broadcasting and
// dtype are undone by the node (derivatives.h).
#include <cmath>

#include "autograd/derivatives.h"
#include "autograd/grad_mode.h"
#include "tensor/activation_kernels.h"
#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/selection.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// g * mask, where a false mask gives 0 even for non-finite g.
Tensor masked(const Tensor& g, const Tensor& mask) { return where(mask, g, Scalar(0.0)); }

V add_bw(const C& c, const V& g) { return {g[0], c.needs(1) ? g[0] * c.scalar(0) : Tensor()}; }
V sub_bw(const C& c, const V& g) { return {g[0], c.needs(1) ? g[0] * (-c.scalar(0)) : Tensor()}; }
V mul_bw(const C& c, const V& g) {
  return {c.needs(0) ? g[0] * c.input(1) : Tensor(), c.needs(1) ? g[0] * c.input(0) : Tensor()};
}
// div with rounding_mode trunc / floor: zero almost everywhere.
V div_rounding_bw(const C& c, const V& g) {
  return {c.needs(0) ? zeros_like(g[0]) : Tensor(), c.needs(1) ? zeros_like(g[0]) : Tensor()};
}
V div_bw(const C& c, const V& g) {
  const Tensor& a = c.input(0);
  const Tensor& b = c.input(1);
  return {c.needs(0) ? g[0] / b : Tensor(), c.needs(1) ? -g[0] * a / (b * b) : Tensor()};
}
V neg_bw(const C&, const V& g) { return {-g[0]}; }
V zero_bw(const C&, const V& g) { return {zeros_like(g[0])}; }
V identity_bw(const C&, const V& g) { return {g[0]}; }
V abs_bw(const C& c, const V& g) { return {g[0] * c.input(0).sign()}; }
V sqrt_bw(const C& c, const V& g) { return {g[0] / (c.output(0) * 2)}; }
V rsqrt_bw(const C& c, const V& g) { return {g[0] * c.output(0).pow(3) * (-0.5)}; }
V exp_bw(const C& c, const V& g) { return {g[0] * c.output(0)}; }
V exp2_bw(const C& c, const V& g) { return {g[0] * c.output(0) * std::log(2.0)}; }
V expm1_bw(const C& c, const V& g) { return {g[0] * (c.output(0) + 1)}; }
V log_bw(const C& c, const V& g) { return {g[0] / c.input(0)}; }
V log2_bw(const C& c, const V& g) { return {g[0] / (c.input(0) * std::log(2.0))}; }
V log10_bw(const C& c, const V& g) { return {g[0] / (c.input(0) * std::log(10.0))}; }
V log1p_bw(const C& c, const V& g) { return {g[0] / (c.input(0) + 1)}; }
V sin_bw(const C& c, const V& g) { return {g[0] * c.input(0).cos()}; }
V cos_bw(const C& c, const V& g) { return {g[0] * -c.input(0).sin()}; }
V tan_bw(const C& c, const V& g) { return {g[0] * (c.output(0) * c.output(0) + 1)}; }
V asin_bw(const C& c, const V& g) { return {g[0] * (1 - c.input(0) * c.input(0)).rsqrt()}; }
V acos_bw(const C& c, const V& g) { return {-g[0] * (1 - c.input(0) * c.input(0)).rsqrt()}; }
V atan_bw(const C& c, const V& g) { return {g[0] / (c.input(0) * c.input(0) + 1)}; }
V sinh_bw(const C& c, const V& g) { return {g[0] * c.input(0).cosh()}; }
V cosh_bw(const C& c, const V& g) { return {g[0] * c.input(0).sinh()}; }
V tanh_bw(const C& c, const V& g) { return {g[0] * (1 - c.output(0) * c.output(0))}; }
V sigmoid_bw(const C& c, const V& g) { return {g[0] * c.output(0) * (1 - c.output(0))}; }
// Note [Fused relu backward]: one kernel, unless the gradient will itself
// be differentiated (then the same rule from recorded ops).
V relu_bw(const C& c, const V& g) {
  if (!GradMode::is_enabled()) return {threshold_backward(g[0], c.output(0), 0)};
  return {detail::threshold_backward_composed(g[0], c.output(0), 0)};
}
V erf_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  return {g[0] * (-(x * x)).exp() * (2.0 / std::sqrt(M_PI))};
}
V erfc_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  return {g[0] * (-(x * x)).exp() * (-2.0 / std::sqrt(M_PI))};
}
V asinh_bw(const C& c, const V& g) { return {g[0] * (c.input(0) * c.input(0) + 1).rsqrt()}; }
V acosh_bw(const C& c, const V& g) { return {g[0] * (c.input(0) * c.input(0) - 1).rsqrt()}; }
V atanh_bw(const C& c, const V& g) { return {g[0] / (1 - c.input(0) * c.input(0))}; }
V reciprocal_bw(const C& c, const V& g) { return {-g[0] * c.output(0) * c.output(0)}; }

// pow(self, scalar exponent)
V pow_bw(const C& c, const V& g) {
  const Scalar e = c.scalar(0);
  if (e.toDouble() == 0.0) return {zeros_like(g[0])};
  return {g[0] * (c.input(0).pow(e.toDouble() - 1.0) * e)};  // 1.13's grouping
}
// pow(self, exponent tensor)
V pow_tensor_bw(const C& c, const V& g) {
  const Tensor& a = c.input(0);
  const Tensor& b = c.input(1);
  V r(2);
  // 1.13's pow_backward_self / pow_backward_exponent, grouped as theirs.
  if (c.needs(0)) r[0] = masked(g[0] * (b * a.pow(b - 1)), b != 0);
  if (c.needs(1)) {
    // d/db a^b = a^b log a, taken as 0 where a == 0 and b >= 0. A number
    // base (pow(2, x), a wrapped 0-dim tensor) takes its log as a double,
    // as PyTorch's pow_backward_exponent: log() of a wrapped number alone
    // would be computed in the default float dtype.
    const Tensor log_a = a.unsafeGetTensorImpl()->is_wrapped_number()
                             ? full({}, std::log(a.item<double>()), kDouble)
                             : a.log();
    // (a == 0 and b >= 0 is false for a NaN b: NaN's gradient stays NaN.)
    r[1] = g[0] * masked(c.output(0) * log_a, (a == 0).logical_and(b >= 0).logical_not());
  }
  return r;
}
V clamp_min_bw(const C& c, const V& g) { return {masked(g[0], c.input(0) >= c.scalar(0))}; }
V clamp_max_bw(const C& c, const V& g) { return {masked(g[0], c.input(0) <= c.scalar(0))}; }
V clamp_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  Tensor mask = ones_like(x, kBool);
  if (c.has_arg(0)) mask = mask.logical_and(x >= c.scalar(0));
  if (c.has_arg(1)) mask = mask.logical_and(x <= c.scalar(1));
  return {masked(g[0], mask)};
}
V clamp_tensor_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const Tensor& lo = c.input(1);
  const Tensor& hi = c.input(2);
  Tensor in_range = ones_like(x, kBool);
  if (lo.defined()) in_range = in_range.logical_and(x >= lo);
  if (hi.defined()) in_range = in_range.logical_and(x <= hi);
  V r(3);
  if (c.needs(0)) r[0] = masked(g[0], in_range);
  if (c.needs(1)) {
    Tensor m = x < lo;
    // 1.13: min gets no gradient where min >= max (max wins there).
    if (hi.defined()) m = m.logical_and(lo < hi);
    r[1] = masked(g[0], m);
  }
  if (c.needs(2)) {
    Tensor m = x > hi;
    if (lo.defined()) m = m.logical_or(lo > hi);
    r[2] = masked(g[0], m);
  }
  return r;
}
// maximum / minimum: ties split the gradient, as PyTorch 1.13 does
// (where(a == b, g / 2, g), zeroed where the other side wins): a NaN on
// either side gives both sides the whole gradient.
V max_min_bw(const C& c, const V& g, bool is_max) {
  const Tensor& a = c.input(0);
  const Tensor& b = c.input(1);
  Tensor split = where(a == b, g[0] / 2, g[0]);
  V r(2);
  if (c.needs(0)) r[0] = split.masked_fill(is_max ? a < b : a > b, 0);
  if (c.needs(1)) r[1] = split.masked_fill(is_max ? a > b : a < b, 0);
  return r;
}
V maximum_bw(const C& c, const V& g) { return max_min_bw(c, g, true); }
V minimum_bw(const C& c, const V& g) { return max_min_bw(c, g, false); }
V atan2_bw(const C& c, const V& g) {
  const Tensor& a = c.input(0);
  const Tensor& b = c.input(1);
  Tensor recip = 1 / (a * a + b * b);
  return {c.needs(0) ? g[0] * b * recip : Tensor(), c.needs(1) ? -g[0] * a * recip : Tensor()};
}
V lerp_bw(const C& c, const V& g) {
  const double w = c.double_arg(0);
  return {g[0] * (1.0 - w), g[0] * w};
}
V addcmul_bw(const C& c, const V& g) {
  const Scalar v = c.scalar(0);
  return {g[0], c.needs(1) ? g[0] * c.input(2) * v : Tensor(),
          c.needs(2) ? g[0] * c.input(1) * v : Tensor()};
}
V addcdiv_bw(const C& c, const V& g) {
  const Scalar v = c.scalar(0);
  const Tensor& t1 = c.input(1);
  const Tensor& t2 = c.input(2);
  // 1.13's grouping: grad * (value / t2) and -grad * (value * t1 / (t2 * t2)),
  // value / t2 as C++'s Scalar / Tensor (t2's dtype filled, then divided).
  return {g[0], c.needs(1) ? g[0] * empty_like(t2).fill_(v).div_(t2) : Tensor(),
          c.needs(2) ? -g[0] * (t1 * v / (t2 * t2)) : Tensor()};
}
// where(condition, self, other)
V where_bw(const C& c, const V& g) {
  const Tensor& cond = c.input(0);
  return {Tensor(), c.needs(1) ? where(cond, g[0], Scalar(0.0)) : Tensor(),
          c.needs(2) ? where(cond, Scalar(0.0), g[0]) : Tensor()};
}
V masked_fill_bw(const C& c, const V& g) { return {g[0].masked_fill(c.input(1), 0), Tensor()}; }
V masked_fill_tensor_bw(const C& c, const V& g) {
  const Tensor& mask = c.input(1);
  return {c.needs(0) ? g[0].masked_fill(mask, 0) : Tensor(), Tensor(),
          c.needs(2) ? masked(g[0], mask).sum() : Tensor()};
}
// remainder / fmod: self - other * floor(self / other) (trunc for fmod).
V remainder_bw(const C& c, const V& g) {
  return {g[0], c.needs(1) ? -g[0] * c.input(0).div(c.input(1), "floor") : Tensor()};
}
V fmod_bw(const C& c, const V& g) {
  return {g[0], c.needs(1) ? -g[0] * c.input(0).div(c.input(1), "trunc") : Tensor()};
}
V scalar_divisor_bw(const C&, const V& g) { return {g[0], Tensor()}; }
// fmax / fmin: the gradient goes to the chosen operand (self on ties; the
// other where self is NaN).
V fmax_fmin_bw(const C& c, const V& g, bool is_max) {
  const Tensor& a = c.input(0);
  const Tensor& b = c.input(1);
  Tensor self_wins = (is_max ? a >= b : a <= b).logical_or(b.isnan());
  return {c.needs(0) ? masked(g[0], self_wins) : Tensor(),
          c.needs(1) ? masked(g[0], self_wins.logical_not()) : Tensor()};
}
V fmax_bw(const C& c, const V& g) { return fmax_fmin_bw(c, g, true); }
V fmin_bw(const C& c, const V& g) { return fmax_fmin_bw(c, g, false); }
// fill_(self, value tensor): self is overwritten by the value.
V fill_tensor_bw(const C& c, const V& g) {
  return {c.needs(0) ? zeros_like(g[0]) : Tensor(), c.needs(1) ? g[0].sum() : Tensor()};
}
// to(): the gradient goes back to the source's device (the node casts the
// dtype back).
V to_bw(const C& c, const V& g) { return {g[0].to(Device(c.str(0)))}; }
// copy_(self, src): self is overwritten.
V copy_bw(const C& c, const V& g) {
  return {c.needs(0) ? zeros_like(g[0]) : Tensor(),
          c.needs(1) ? g[0].to(Device(c.str(0))) : Tensor()};
}

EMBER_REGISTER_DERIVATIVES(
    {"add", "AddBackward0", 0, false, add_bw}, {"sub", "SubBackward0", 0, false, sub_bw},
    {"mul", "MulBackward0", kSaveSelf | kSaveOther, false, mul_bw},
    {"div", "DivBackward0", kSaveSelf | kSaveOther, false, div_bw},
    {"div_rounding", "DivBackward2", 0, false, div_rounding_bw},
    {"rsub", "RsubBackward1", 0, false, sub_bw}, {"neg", "NegBackward0", 0, false, neg_bw},
    {"abs", "AbsBackward0", kSaveSelf, false, abs_bw}, {"sqrt", "SqrtBackward0", 0, true, sqrt_bw},
    {"rsqrt", "RsqrtBackward0", 0, true, rsqrt_bw}, {"exp", "ExpBackward0", 0, true, exp_bw},
    {"exp2", "Exp2Backward0", 0, true, exp2_bw}, {"expm1", "Expm1Backward0", 0, true, expm1_bw},
    {"log", "LogBackward0", kSaveSelf, false, log_bw},
    {"log2", "Log2Backward0", kSaveSelf, false, log2_bw},
    {"log10", "Log10Backward0", kSaveSelf, false, log10_bw},
    {"log1p", "Log1PBackward0", kSaveSelf, false, log1p_bw},
    {"sin", "SinBackward0", kSaveSelf, false, sin_bw},
    {"cos", "CosBackward0", kSaveSelf, false, cos_bw}, {"tan", "TanBackward0", 0, true, tan_bw},
    {"asin", "AsinBackward0", kSaveSelf, false, asin_bw},
    {"acos", "AcosBackward0", kSaveSelf, false, acos_bw},
    {"atan", "AtanBackward0", kSaveSelf, false, atan_bw},
    {"sinh", "SinhBackward0", kSaveSelf, false, sinh_bw},
    {"cosh", "CoshBackward0", kSaveSelf, false, cosh_bw},
    {"tanh", "TanhBackward0", 0, true, tanh_bw},
    {"sigmoid", "SigmoidBackward0", 0, true, sigmoid_bw},
    {"relu", "ReluBackward0", 0, true, relu_bw}, {"erf", "ErfBackward0", kSaveSelf, false, erf_bw},
    {"erfc", "ErfcBackward0", kSaveSelf, false, erfc_bw},
    {"asinh", "AsinhBackward0", kSaveSelf, false, asinh_bw},
    {"acosh", "AcoshBackward0", kSaveSelf, false, acosh_bw},
    {"atanh", "AtanhBackward0", kSaveSelf, false, atanh_bw},
    {"reciprocal", "ReciprocalBackward0", 0, true, reciprocal_bw},
    {"floor", "FloorBackward0", 0, false, zero_bw}, {"ceil", "CeilBackward0", 0, false, zero_bw},
    {"round", "RoundBackward0", 0, false, zero_bw},
    {"round_decimals", "RoundBackward1", 0, false, zero_bw},
    {"trunc", "TruncBackward0", 0, false, zero_bw}, {"sign", "SignBackward0", 0, false, zero_bw},
    {"frac", "FracBackward0", 0, false, identity_bw},
    {"pow", "PowBackward0", kSaveSelf, false, pow_bw},
    {"pow_tensor", "PowBackward1", kSaveSelf | kSaveOther, true, pow_tensor_bw},
    // pow(Scalar self, Tensor exponent): libtorch's and torch.pow(2, x)'s
    // node (Python's `2 ** x` records PowBackward1 over a wrapped number).
    {"pow_scalar_self", "PowBackward2", kSaveSelf | kSaveOther, true, pow_tensor_bw},
    {"clamp", "ClampBackward1", kSaveSelf, false, clamp_bw},
    {"clamp_min", "ClampMinBackward0", kSaveSelf, false, clamp_min_bw},
    {"clamp_max", "ClampMaxBackward0", kSaveSelf, false, clamp_max_bw},
    {"clamp_tensor", "ClampBackward0", kSaveAll, false, clamp_tensor_bw},
    {"maximum", "MaximumBackward0", kSaveSelf | kSaveOther, false, maximum_bw},
    {"minimum", "MinimumBackward0", kSaveSelf | kSaveOther, false, minimum_bw},
    {"atan2", "Atan2Backward0", kSaveSelf | kSaveOther, false, atan2_bw},
    {"lerp", "LerpBackward0", 0, false, lerp_bw},
    {"addcmul", "AddcmulBackward0", kSaveOther | kSaveThird, false, addcmul_bw},
    {"addcdiv", "AddcdivBackward0", kSaveOther | kSaveThird, false, addcdiv_bw},
    {"where", "WhereBackward0", kSaveSelf, false, where_bw},
    {"masked_fill", "MaskedFillBackward0", kSaveOther, false, masked_fill_bw},
    {"masked_fill_tensor", "MaskedFillBackward1", kSaveOther, false, masked_fill_tensor_bw},
    {"to", "ToCopyBackward0", 0, false, to_bw}, {"clone", "CloneBackward0", 0, false, identity_bw},
    {"copy_", "CopyBackwards", 0, false, copy_bw}, {"fill_", "FillBackward2", 0, false, zero_bw},
    {"fill_tensor_", "FillBackward3", 0, false, fill_tensor_bw},
    {"zero_", "ZeroBackward0", 0, false, zero_bw},
    {"uniform_", "UniformBackward0", 0, false, zero_bw},
    {"normal_", "NormalBackward0", 0, false, zero_bw},
    {"bernoulli_", "BernoulliBackward2", 0, false, zero_bw},
    {"random_", "RandomBackward0", 0, false, zero_bw},
    {"exponential_", "ExponentialBackward0", 0, false, zero_bw},
    {"cauchy_", "CauchyBackward0", 0, false, zero_bw},
    {"log_normal_", "LogNormalBackward0", 0, false, zero_bw},
    {"geometric_", "GeometricBackward0", 0, false, zero_bw},
    {"remainder", "RemainderBackward1", kSaveSelf | kSaveOther, false, remainder_bw},
    {"remainder_scalar", "RemainderBackward0", 0, false, scalar_divisor_bw},
    {"fmod", "FmodBackward1", kSaveSelf | kSaveOther, false, fmod_bw},
    {"fmod_scalar", "FmodBackward0", 0, false, scalar_divisor_bw},
    {"fmax", "FmaxBackward0", kSaveSelf | kSaveOther, false, fmax_bw},
    {"fmin", "FminBackward0", kSaveSelf | kSaveOther, false, fmin_bw});

// tensor/distributions.h: a sample's gradient is zero, as 1.13's
// (binomial is recorded without an entry: NotImplemented).
V poisson_bw(const C& c, const V& g) { return {zeros(c.input_sizes(0), g[0].options())}; }
EMBER_REGISTER_DERIVATIVES({"poisson", "PoissonBackward0", 0, false, poisson_bw});

}  // namespace
}  // namespace autograd
}  // namespace ember
