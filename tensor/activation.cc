// The activations of nn_ops.h, each recorded once under its ATen name
// (GeluBackward0, EluBackward0...), the forward composed of public ops
// (which do not record below an OpScope: Note [Op recording]).
#include <cmath>
#include <limits>
#include <type_traits>

#include "tensor/activation_kernels.h"
#include "tensor/autocast.h"
#include "tensor/autograd_hook.h"
#include "tensor/dispatch.h"
#include "tensor/error.h"
#include "tensor/loops.h"
#include "tensor/math.h"
#include "tensor/math_kernels.h"
#include "tensor/nn_ops.h"
#include "tensor/record_function.h"
#include "tensor/reduce.h"
#include "tensor/select_bits.h"
#include "tensor/selection.h"
#include "tensor/simd_math.h"

namespace ember {

namespace {

// Note [Fused gelu]: PyTorch's formulas (GeluKernel.cpp), in acc_t.
constexpr double kBeta = M_SQRT2 * M_2_SQRTPI * 0.5;  // sqrt(2 / pi)
constexpr double kKappa = 0.044715;

template <typename A>
A gelu_value(A x, bool tanh_approximation) {
  if (tanh_approximation) {
    const A inner = static_cast<A>(kBeta) * (x + static_cast<A>(kKappa) * x * x * x);
    return A(0.5) * x * (A(1) + std::tanh(inner));
  }
  return x * A(0.5) * (A(1) + std::erf(x * static_cast<A>(M_SQRT1_2)));
}

template <typename A>
A gelu_derivative(A x, bool tanh_approximation) {
  if (tanh_approximation) {
    const A x_sq = x * x;
    const A inner = static_cast<A>(kBeta) * (x + static_cast<A>(kKappa) * x_sq * x);
    const A t = std::tanh(inner);
    const A left = A(0.5) * x, right = A(1) + t;
    const A left_derivative = A(0.5) * right;
    const A inner_derivative = static_cast<A>(kBeta) * (A(1) + A(3) * static_cast<A>(kKappa) * x_sq);
    return left_derivative + left * (A(1) - t * t) * inner_derivative;
  }
  const A cdf = A(0.5) * (A(1) + std::erf(x * static_cast<A>(M_SQRT1_2)));
  const A pdf = std::exp(A(-0.5) * x * x) * static_cast<A>(M_2_SQRTPI * M_SQRT1_2 * 0.5);
  return cdf + x * pdf;
}

// Exact GELU in float (and half and bfloat16, which compute in float) with
// cdf(x) = erfc(-x / sqrt 2) / 2, accurate in relative terms in both tails
// (1 + erf(x / sqrt 2) cancels for negative x). The loops vectorize
// through libmvec's erfcf and expf (Note [Vectorized libm]): 65536 floats
// in 66 us forward, 100 us backward, where vec_math.h's polynomial erfc
// took 170 and 220, within the same few ulp.
[[gnu::always_inline]] inline float gelu_exact_f(float x) {
  return x * 0.5f * std::erfc(x * -static_cast<float>(M_SQRT1_2));
}
[[gnu::always_inline]] inline float gelu_exact_derivative_f(float x) {
  const float cdf = 0.5f * std::erfc(x * -static_cast<float>(M_SQRT1_2));
  const float pdf = std::exp(-0.5f * x * x) * static_cast<float>(M_2_SQRTPI * M_SQRT1_2 * 0.5);
  return cdf + x * pdf;
}

void gelu_cpu(TensorIterator& iter, bool tanh_approximation) {
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), "GeluKernelImpl", [&] {
    using acc_t = opmath_t<scalar_t>;
    if constexpr (std::is_same<acc_t, float>::value) {
      if (!tanh_approximation) {
        // Inlined into each loop of cpu_kernel, or the loops stay scalar.
        cpu_kernel(
            iter, [](scalar_t x) __attribute__((always_inline))->scalar_t {
              return static_cast<scalar_t>(gelu_exact_f(static_cast<float>(x)));
            });
        return;
      }
    }
    // One loop per formula (no run-time flag in the loop), so that the
    // tanh one vectorizes (Note [Vectorized libm]).
    if (tanh_approximation) {
      cpu_kernel(iter, [](scalar_t x) -> scalar_t {
        return static_cast<scalar_t>(gelu_value(static_cast<acc_t>(x), true));
      });
    } else {
      cpu_kernel(iter, [](scalar_t x) -> scalar_t {
        return static_cast<scalar_t>(gelu_value(static_cast<acc_t>(x), false));
      });
    }
  });
}

void gelu_backward_cpu(TensorIterator& iter, bool tanh_approximation) {
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), "GeluBackwardKernelImpl", [&] {
    using acc_t = opmath_t<scalar_t>;
    if constexpr (std::is_same<acc_t, float>::value) {
      if (!tanh_approximation) {
        cpu_kernel(
            iter, [](scalar_t g, scalar_t x) __attribute__((always_inline))->scalar_t {
              return static_cast<scalar_t>(static_cast<float>(g) *
                                           gelu_exact_derivative_f(static_cast<float>(x)));
            });
        return;
      }
    }
    if (tanh_approximation) {
      cpu_kernel(iter, [](scalar_t g, scalar_t x) -> scalar_t {
        return static_cast<scalar_t>(static_cast<acc_t>(g) *
                                     gelu_derivative(static_cast<acc_t>(x), true));
      });
    } else {
      cpu_kernel(iter, [](scalar_t g, scalar_t x) -> scalar_t {
        return static_cast<scalar_t>(static_cast<acc_t>(g) *
                                     gelu_derivative(static_cast<acc_t>(x), false));
      });
    }
  });
}

void threshold_backward_cpu(TensorIterator& iter, const Scalar& threshold) {
  EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), "threshold_backward_cpu", [&] {
    const scalar_t th = threshold.to<scalar_t>();
    cpu_kernel(iter,
               [th](scalar_t g, scalar_t x) -> scalar_t { return x <= th ? scalar_t(0) : g; });
  });
}

bool is_tanh_approximation(const std::string& approximate) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh",
              "approximate argument must be either none or tanh.");
  return approximate == "tanh";
}

}  // namespace

namespace detail {
EMBER_DEFINE_KERNEL_TABLE(gelu_kernel, GeluFn);
EMBER_DEFINE_KERNEL_TABLE(gelu_backward_kernel, GeluFn);
EMBER_REGISTER_KERNEL(gelu_kernel, kCPU, &gelu_cpu);
EMBER_REGISTER_KERNEL(gelu_backward_kernel, kCPU, &gelu_backward_cpu);
EMBER_DEFINE_KERNEL_TABLE(threshold_backward_kernel, ThresholdBackwardFn);
EMBER_REGISTER_KERNEL(threshold_backward_kernel, kCPU, &threshold_backward_cpu);

Tensor threshold_backward_composed(const Tensor& grad_output, const Tensor& self,
                                   const Scalar& threshold) {
  return where(self <= threshold, Scalar(0.0), grad_output);
}
}  // namespace detail

namespace detail {

// Note [Fused CPU activation backwards]. Each element function repeats the
// composition in autograd/derivatives (activation.cc, composite.cc): the
// numbers converted to the dtype first, masks as the comparisons give them.
template <typename T>
void activation_backward_loop(TensorIterator& iter, ActivationBackward kind, double a, double b) {
  switch (kind) {
    case ActivationBackward::kHardswish:
      // pass_where(x >= -3, where(x <= 3, g * (x / 3 + 0.5), g))
      cpu_kernel(iter, [](T g, T x) -> T {
        const T inner = x <= T(3) ? g * (x / T(3) + T(0.5)) : g;
        return x >= T(-3) ? inner : T(0);
      });
      return;
    case ActivationBackward::kHardsigmoid: {
      // pass_where((x > -3) & (x < 3), g * (double)(1.0f / 6.0f))
      const T k = static_cast<T>(static_cast<double>(1.0f / 6.0f));
      cpu_kernel(iter, [k](T g, T x) -> T {
        const T scaled = g * k;  // unconditionally: a select GCC vectorizes
        return (x > T(-3)) & (x < T(3)) ? scaled : T(0);
      });
      return;
    }
    case ActivationBackward::kShrink: {
      // pass_where((x < -lambd) | (x > lambd), g)
      const T lo = static_cast<T>(-a), hi = static_cast<T>(a);
      cpu_kernel(iter, [lo, hi](T g, T x) -> T { return (x < lo) | (x > hi) ? g : T(0); });
      return;
    }
    case ActivationBackward::kHardtanh: {
      // pass_where((x > min_val) & (x < max_val), g)
      const T lo = static_cast<T>(a), hi = static_cast<T>(b);
      cpu_kernel(iter, [lo, hi](T g, T x) -> T { return (x > lo) & (x < hi) ? g : T(0); });
      return;
    }
    case ActivationBackward::kLogit: {
      // where((x < lo) | (x > 1 - lo), beyond,
      //       where((x == 0) | (x == 1), g * inf, g / (x * (1 - x))))
      const bool has_eps = b != 0;
      const T lo = static_cast<T>(has_eps ? a : 0.0),
              hi = static_cast<T>(1.0 - (has_eps ? a : 0.0));
      const T beyond = has_eps ? T(0) : std::numeric_limits<T>::quiet_NaN();
      const T inf = std::numeric_limits<T>::infinity();
      cpu_kernel(iter, [lo, hi, beyond, inf](T g, T x) -> T {
        const T slope = g / (x * (T(1) - x));
        const T inside = (x == T(0)) | (x == T(1)) ? g * inf : slope;
        return (x < lo) | (x > hi) ? beyond : inside;
      });
      return;
    }
    case ActivationBackward::kLeakyRelu: {
      // where(x > 0, g, g * negative_slope); the iterator is (self, grad)
      const T slope = static_cast<T>(a);
      cpu_kernel(iter, [slope](T x, T g) -> T {
        const T scaled = g * slope;
        return x > T(0) ? g : scaled;
      });
      return;
    }
  }
}

Tensor activation_backward_cpu(ActivationBackward kind, const Tensor& grad, const Tensor& self,
                               double a, double b) {
  if (!grad.is_cpu() || !self.is_cpu() || grad.dtype() != self.dtype() ||
      (self.dtype() != kFloat && self.dtype() != kDouble)) {
    return Tensor();
  }
  TensorIterator iter = kind == ActivationBackward::kLeakyRelu
                            ? TensorIterator::binary_op(Tensor(), self, grad)
                            : TensorIterator::binary_op(Tensor(), grad, self);
  if (self.dtype() == kFloat) {
    activation_backward_loop<float>(iter, kind, a, b);
  } else {
    activation_backward_loop<double>(iter, kind, a, b);
  }
  return iter.output();
}

}  // namespace detail

Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  if (!detail::threshold_backward_kernel.has(self.device().type())) {
    return detail::threshold_backward_composed(grad_output, self, threshold);
  }
  TensorIterator iter = TensorIterator::binary_op(Tensor(), grad_output, self);
  detail::threshold_backward_kernel(iter.device_type())(iter, threshold);
  return iter.output();
}

Tensor gelu(const Tensor& self, const std::string& approximate) {
  const bool tanh_approximation = is_tanh_approximation(approximate);
  profiler::RecordFunction prof_range("gelu", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  Tensor out;
  if (detail::gelu_kernel.has(self.device().type())) {
    TensorIterator iter = TensorIterator::unary_op(Tensor(), self);
    detail::gelu_kernel(iter.device_type())(iter, tanh_approximation);
    out = iter.output();
  } else if (!tanh_approximation) {  // a device without the fused kernel
    out = self * 0.5 * (1 + (self * M_SQRT1_2).erf());
  } else {
    out = self * 0.5 * (1 + ((self + self * self * self * kKappa) * kBeta).tanh());
  }
  if (scope.active()) scope.record("gelu", {self}, {out}, {approximate});
  return out;
}

namespace detail {
Tensor gelu_backward_composed(const Tensor& grad_output, const Tensor& self,
                              bool tanh_approximation) {
  if (!tanh_approximation) {
    Tensor cdf = (1 + (self * M_SQRT1_2).erf()) * 0.5;
    Tensor pdf = (self * self * -0.5).exp() * (0.5 * M_2_SQRTPI * M_SQRT1_2);
    return grad_output * (cdf + self * pdf);
  }
  Tensor t = ((self + self * self * self * kKappa) * kBeta).tanh();
  return grad_output *
         ((1 + t) * 0.5 + self * 0.5 * (1 - t * t) * kBeta * (1 + self * self * (3 * kKappa)));
}
}  // namespace detail

Tensor gelu_backward(const Tensor& grad_output, const Tensor& self,
                     const std::string& approximate) {
  const bool tanh_approximation = is_tanh_approximation(approximate);
  if (!detail::gelu_backward_kernel.has(self.device().type())) {
    return detail::gelu_backward_composed(grad_output, self, tanh_approximation);
  }
  TensorIterator iter = TensorIterator::binary_op(Tensor(), grad_output, self);
  detail::gelu_backward_kernel(iter.device_type())(iter, tanh_approximation);
  return iter.output();
}

namespace {

// PyTorch's kernels of these activations take floating dtypes only; the
// compositions here would promote an integer input to float instead.
void check_floating(const Tensor& self, const char* kernel) {
  if (!self.is_floating_point()) detail::throw_not_implemented(kernel, self.dtype());
}

// clamp(x, 0, 6) as ember's clamp computes it (NaN stays NaN).
template <typename T>
T clamp_0_6(T x) {
  const T lo = x < T(0) ? T(0) : x;
  return lo > T(6) ? T(6) : lo;
}

// Note [Fused CPU activations]: on CPU float32/float64 tensors the
// activations below are one loop, `f` applied to each element, instead of
// their composition of public ops (kept for the other devices and dtypes):
// leaky_relu's three passes took 28 us for 65536 floats where libtorch's
// kernel takes 9. `f` repeats the composition's arithmetic step for step in
// the tensor's dtype, with the numbers converted to it as the composition's
// scalar operands are, so the values are the same; the result's layout is
// the iterator's, as the composition's elementwise ops give it.
//
// `make(T{})` returns the element function for dtype T with its numbers
// already converted to T: a conversion from double inside the loop (loop-
// invariant as it is) kept GCC 12 from vectorizing it under
// -fno-trapping-math ("no vectype for stmt").
template <typename Make>
bool fused_cpu_activation(const Tensor& self, Tensor& out, Make make) {
  if (!self.is_cpu() || (self.dtype() != kFloat && self.dtype() != kDouble)) return false;
  TensorIterator iter = TensorIterator::unary_op(Tensor(), self);
  if (self.dtype() == kFloat) {
    const auto f = make(float{});
    cpu_kernel(iter, [f](float x) -> float { return f(x); });
  } else {
    const auto f = make(double{});
    cpu_kernel(iter, [f](double x) -> double { return f(x); });
  }
  out = iter.output();
  return true;
}

}  // namespace

Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope) {
  check_floating(self, "leaky_relu_cpu");
  profiler::RecordFunction prof_range("leaky_relu", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  Tensor out;
  const double slope = negative_slope.toDouble();
  if (!fused_cpu_activation(self, out, [slope](auto tag) {
        using T = decltype(tag);
        const T s = static_cast<T>(slope);
        return [s](T x) { return detail::select_bits(x > T(0), x, x * s); };
      })) {
    out = where(self > 0, self, self * negative_slope);
  }
  if (scope.active()) scope.record("leaky_relu", {self}, {out}, {negative_slope});
  return out;
}

namespace {

// x <= 0 ? (exp(x * input_scale) - 1) * alpha * scale : x * scale; the
// exponent sees x clamped to <= 0, so that no inf is made where the other
// branch is taken.
Tensor elu_forward(const Tensor& x, double alpha, double scale, double input_scale) {
  Tensor out;
  const double negative_scale = alpha * scale;
  if (fused_cpu_activation(x, out, [scale, input_scale, negative_scale](auto tag) {
        using T = decltype(tag);
        const T s = static_cast<T>(scale), is = static_cast<T>(input_scale);
        const T ns = static_cast<T>(negative_scale);
        return [s, is, ns](T v) {
          const T clamped = v > T(0) ? T(0) : v;  // clamp_max(0): NaN stays NaN
          const T negative = std::expm1(clamped * is) * ns;
          return v > T(0) ? v * s : negative;
        };
      })) {
    return out;
  }
  return where(x > 0, x * scale, (x.clamp_max(0) * input_scale).expm1() * (alpha * scale));
}

}  // namespace

Tensor elu(const Tensor& self, const Scalar& alpha, const Scalar& scale,
           const Scalar& input_scale) {
  check_floating(self, "elu_cpu");
  EMBER_AUTOCAST_OPAQUE();
  profiler::RecordFunction prof_range("elu", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  Tensor out = elu_forward(self, alpha.toDouble(), scale.toDouble(), input_scale.toDouble());
  if (scope.active()) scope.record("elu", {self}, {out}, {alpha, scale, input_scale});
  return out;
}

Tensor celu(const Tensor& self, const Scalar& alpha) {
  const double a = alpha.toDouble();
  EMBER_CHECK(a != 0, "ZeroDivisionError: alpha cannot be 0 for CELU");
  check_floating(self, "elu_cpu");
  EMBER_AUTOCAST_OPAQUE();
  profiler::RecordFunction prof_range("celu", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  Tensor out = elu_forward(self, a, 1.0, 1.0 / a);
  if (scope.active()) scope.record("celu", {self}, {out}, {alpha});
  return out;
}

Tensor silu(const Tensor& self) {
  check_floating(self, "silu_cpu");
  profiler::RecordFunction prof_range("silu", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  Tensor out = self * self.sigmoid();
  if (scope.active()) scope.record("silu", {self}, {out});
  return out;
}

Tensor mish(const Tensor& self) {
  check_floating(self, "mish_cpu");
  EMBER_AUTOCAST_OPAQUE();
  profiler::RecordFunction prof_range("mish", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  Tensor out;
  if (!fused_cpu_activation(self, out, [](auto tag) {
        using T = decltype(tag);
        return [](T x) { return x * std::tanh(std::log1p(std::exp(x))); };
      })) {
    out = self * self.exp().log1p().tanh();
  }
  if (scope.active()) scope.record("mish", {self}, {out});
  return out;
}

Tensor softplus(const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  check_floating(self, "softplus_cpu");
  EMBER_AUTOCAST(softplus, ::ember::softplus, self, beta, threshold);
  profiler::RecordFunction prof_range("softplus", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  // Above the threshold log1p(exp(bx)) / beta is x to working precision
  // (and exp would overflow).
  Tensor out;
  const double b = beta.toDouble(), th = threshold.toDouble();
  if (!fused_cpu_activation(self, out, [b, th](auto tag) {
        using T = decltype(tag);
        const T bt = static_cast<T>(b), tt = static_cast<T>(th);
        return [bt, tt](T x) {
          const T bx = x * bt;
          const T clamped = bx > tt ? tt : bx;  // clamp_max: NaN stays NaN
          const T soft = std::log1p(std::exp(clamped)) / bt;
          return bx > tt ? x : soft;
        };
      })) {
    Tensor bx = self * beta;
    out = where(bx > threshold, self, bx.clamp_max(threshold).exp().log1p() / beta);
  }
  if (scope.active()) scope.record("softplus", {self}, {out}, {beta, threshold});
  return out;
}

Tensor log_sigmoid(const Tensor& self) {
  check_floating(self, "log_sigmoid_cpu");
  EMBER_AUTOCAST_OPAQUE();
  profiler::RecordFunction prof_range("log_sigmoid", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  // min(x, 0) - log1p(exp(-|x|)): neither term overflows.
  // Row-major whatever self's layout, as PyTorch's log_sigmoid_forward.
  Tensor out;
  if (!fused_cpu_activation(self, out, [](auto tag) {
        using T = decltype(tag);
        return [](T x) {
          const T low = x > T(0) ? T(0) : x;  // clamp_max(0): NaN stays NaN
          return low - std::log1p(std::exp(-std::fabs(x)));
        };
      })) {
    out = self.clamp_max(0) - (-self.abs()).exp().log1p();
  }
  out = out.contiguous();
  if (scope.active()) scope.record("log_sigmoid", {self}, {out});
  return out;
}

// On integers a clamp in their dtype between the limits truncated to
// integers, as PyTorch's (its messages for bool and for negative limits of
// an unsigned dtype).
Tensor hardtanh(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  EMBER_CHECK(self.dtype() != kBool, "Bool inputs not supported for hardtanh");
  const bool integral = is_integral(self.dtype(), /*include_bool=*/false);
  const Scalar lo = integral ? Scalar(min_val.toLong()) : min_val;
  const Scalar hi = integral ? Scalar(max_val.toLong()) : max_val;
  EMBER_CHECK(self.dtype() != kByte || (lo.toLong() >= 0 && hi.toLong() >= 0),
              "cannot do hardtanh on an unsigned type with negative limits");
  profiler::RecordFunction prof_range("hardtanh", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  Tensor out = self.clamp(lo, hi);
  if (scope.active()) scope.record("hardtanh", {self}, {out}, {min_val, max_val});
  return out;
}

Tensor hardsigmoid(const Tensor& self) {
  check_floating(self, "hardsigmoid_cpu");
  profiler::RecordFunction prof_range("hardsigmoid", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  Tensor out;
  if (!fused_cpu_activation(self, out, [](auto tag) {
        using T = decltype(tag);
        return [](T x) { return clamp_0_6(x + T(3)) / T(6); };
      })) {
    out = (self + 3).clamp(0, 6) / 6;
  }
  if (scope.active()) scope.record("hardsigmoid", {self}, {out});
  return out;
}

Tensor hardswish(const Tensor& self) {
  check_floating(self, "hardswish_cpu");
  profiler::RecordFunction prof_range("hardswish", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  Tensor out;
  if (!fused_cpu_activation(self, out, [](auto tag) {
        using T = decltype(tag);
        return [](T x) { return x * clamp_0_6(x + T(3)) / T(6); };
      })) {
    out = self * (self + 3).clamp(0, 6) / 6;
  }
  if (scope.active()) scope.record("hardswish", {self}, {out});
  return out;
}

Tensor softshrink(const Tensor& self, const Scalar& lambd) {
  const double l = lambd.toDouble();
  EMBER_CHECK(l >= 0, "lambda must be greater or equal to 0, but found to be ", l, ".");
  check_floating(self, "softshrink_cpu");
  profiler::RecordFunction prof_range("softshrink", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  Tensor out;
  if (!fused_cpu_activation(self, out, [l](auto tag) {
        using T = decltype(tag);
        const T hi = static_cast<T>(l), lo = static_cast<T>(-l);
        return [hi, lo](T x) { return x > hi ? x - hi : (x < lo ? x + hi : T(0)); };
      })) {
    out = where(self > l, self - l, where(self < -l, self + l, Scalar(0)));
  }
  if (scope.active()) scope.record("softshrink", {self}, {out}, {lambd});
  return out;
}

Tensor hardshrink(const Tensor& self, const Scalar& lambd) {
  check_floating(self, "hardshrink_cpu");
  const double l = lambd.toDouble();
  profiler::RecordFunction prof_range("hardshrink", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  Tensor out;
  if (!fused_cpu_activation(self, out, [l](auto tag) {
        using T = decltype(tag);
        const T hi = static_cast<T>(l), lo = static_cast<T>(-l);
        return [hi, lo](T x) { return (x >= lo) & (x <= hi) ? T(0) : x; };
      })) {
    out = where((self >= -l).logical_and(self <= l), Scalar(0), self);
  }
  if (scope.active()) scope.record("hardshrink", {self}, {out}, {lambd});
  return out;
}

Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  if (self.dtype() == kBool) detail::throw_not_implemented("threshold_cpu", kBool);
  profiler::RecordFunction prof_range("threshold", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  Tensor out;
  const double th = threshold.toDouble(), v = value.toDouble();
  if (!fused_cpu_activation(self, out, [th, v](auto tag) {
        using T = decltype(tag);
        const T t = static_cast<T>(th), w = static_cast<T>(v);
        return [t, w](T x) { return x <= t ? w : x; };
      })) {
    out = where(self <= threshold, value, self);
  }
  if (scope.active()) scope.record("threshold", {self}, {out}, {threshold, value});
  return out;
}

Tensor prelu(const Tensor& self, const Tensor& weight) {
  EMBER_AUTOCAST(prelu, ::ember::prelu, self, weight);
  // As 1.13's prelu_cpu: a single weight takes any input, a 0-dim one too.
  if (weight.numel() != 1) {
    EMBER_CHECK(self.dim() > 0, "Not allow zero-dim input tensor.");
    const int64_t channels = self.dim() >= 2 ? self.size(1) : 1;
    EMBER_CHECK(weight.numel() == channels,
                "Mismatch of parameter numbers and input channel size. Found parameter numbers = ",
                weight.numel(), " and channel size = ", channels, ".");
  }
  profiler::RecordFunction prof_range("prelu", profiler::RangeKind::kOp, self, weight);
  detail::OpScope scope(self, weight);
  // 1.13's result is laid out as suggest_memory_format (a transposed input
  // gives a contiguous result, a channels-last one a channels-last result).
  Tensor out = where(self > 0, self, self * detail::prelu_weight(weight, self.dim()))
                   .contiguous(self.suggest_memory_format());
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
