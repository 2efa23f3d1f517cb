// Pointwise ops beyond the four rules: pow, atan2, minimum/maximum,
// fmin/fmax, lerp, addcmul, addcdiv, clamp, clamp_min, clamp_max (and relu, on
// clamp_min's kernel).

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "tensor/autocast.h"
#include "tensor/autograd_hook.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/int_pow.h"
#include "tensor/loops.h"
#include "tensor/math.h"
#include "tensor/math_kernels.h"
#include "tensor/select_bits.h"
#include "tensor/simd_math.h"

namespace ember {

EMBER_DEFINE_KERNEL_TABLE(pow_tensor_tensor_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(pow_tensor_scalar_kernel, IterScalarKernelFn);
EMBER_DEFINE_KERNEL_TABLE(atan2_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(minimum_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(maximum_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(fmin_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(fmax_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(lerp_scalar_kernel, IterScalarKernelFn);
EMBER_DEFINE_KERNEL_TABLE(addcmul_kernel, IterScalarKernelFn);
EMBER_DEFINE_KERNEL_TABLE(addcdiv_kernel, IterScalarKernelFn);
EMBER_DEFINE_KERNEL_TABLE(clamp_scalar_kernel, IterTwoScalarKernelFn);
EMBER_DEFINE_KERNEL_TABLE(clamp_min_scalar_kernel, IterScalarKernelFn);
EMBER_DEFINE_KERNEL_TABLE(clamp_max_scalar_kernel, IterScalarKernelFn);
EMBER_DEFINE_KERNEL_TABLE(clamp_tensor_kernel, IterKernelFn);

namespace {

using detail::wrap_for;

using detail::powi;  // tensor/int_pow.h, shared with the CUDA kernel

// std::pow(a, b) for a loop that vectorizes through libmvec (Note
// [Vectorized libm]), which hands each lane with a negative base to the
// scalar pow, one call per lane (Note [Out-of-domain lanes], unary.cc):
// 65536 normal random floats to normal powers took 844 us, libtorch 362. A
// finite negative base to a finite power that is no integer is NaN, glibc's
// (x - x) / (x - x) (the default NaN); those lanes reach pow as 1^1 and
// take that NaN by select. Every other lane (integer powers of negative
// bases included) reaches pow as before.
template <typename A>
[[gnu::always_inline]] inline A pow_real(A a, A b) {
  constexpr A kInf = std::numeric_limits<A>::infinity();
  const bool nan_lane = (a < A(0)) & (a > -kInf) & (std::fabs(b) < kInf) & (b != std::trunc(b));
  const A r =
      std::pow(detail::select_bits(nan_lane, A(1), a), detail::select_bits(nan_lane, A(1), b));
  return nan_lane ? (a - a) / (a - a) : r;
}

void pow_tensor_tensor_cpu(TensorIterator& iter) {
  ScalarType dt = iter.common_dtype();
  if (is_integral(dt, /*include_bool=*/false)) {
    EMBER_DISPATCH_INTEGRAL_TYPES(dt, "pow", [&] {
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return powi(a, b); });
    });
    return;
  }
  EMBER_DISPATCH_FLOATING_TYPES(dt, "pow", [&] {
    using acc_t = opmath_t<scalar_t>;
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
      return static_cast<scalar_t>(pow_real(acc_t(a), acc_t(b)));
    });
  });
}

// PyTorch's fast paths for common exponents (they round differently from
// std::pow, so the same exponents take them here).
void pow_tensor_scalar_cpu(TensorIterator& iter, const Scalar& exp_s) {
  ScalarType dt = iter.common_dtype();
  if (is_integral(dt, /*include_bool=*/false)) {
    EMBER_DISPATCH_INTEGRAL_TYPES(dt, "pow", [&] {
      const scalar_t e = exp_s.to<scalar_t>();
      cpu_kernel(iter, [e](scalar_t a) -> scalar_t { return powi(a, e); });
    });
    return;
  }
  const double e = exp_s.toDouble();
  EMBER_DISPATCH_FLOATING_TYPES(dt, "pow", [&] {
    using acc_t = opmath_t<scalar_t>;
    if ((e == 0.5 || e == -0.5) && std::is_same<scalar_t, Half>::value) {
      // 1.13's float16 kernel has no sqrt fast path: C pow's signs and
      // infinities (pow(-inf, 0.5) = inf, pow(-0, 0.5) = 0, pow(-0, -0.5) =
      // inf, pow(-inf, -0.5) = 0), with sqrt's values elsewhere.
      const acc_t ee = static_cast<acc_t>(e);
      cpu_kernel(iter, [ee](scalar_t a) -> scalar_t { return std::pow(acc_t(a), ee); });
    } else if (e == 0.5) {
      cpu_kernel(iter, [](scalar_t a) -> scalar_t { return std::sqrt(acc_t(a)); });
    } else if (e == -0.5) {
      cpu_kernel(iter, [](scalar_t a) -> scalar_t { return acc_t(1) / std::sqrt(acc_t(a)); });
    } else if (e == -1.0) {
      cpu_kernel(iter, [](scalar_t a) -> scalar_t { return acc_t(1) / acc_t(a); });
    } else if (e == 2.0) {
      cpu_kernel(iter, [](scalar_t a) -> scalar_t { return acc_t(a) * acc_t(a); });
    } else if (e == 3.0) {
      cpu_kernel(iter, [](scalar_t a) -> scalar_t { return acc_t(a) * acc_t(a) * acc_t(a); });
    } else if (e == -2.0) {
      cpu_kernel(iter, [](scalar_t a) -> scalar_t { return acc_t(1) / (acc_t(a) * acc_t(a)); });
    } else if (e == 0.0) {
      // C pow's x ** 0 is 1 for every x, NaN included.
      cpu_kernel(iter, [](scalar_t) -> scalar_t { return scalar_t(1); });
    } else if constexpr (std::is_same<scalar_t, float>::value ||
                         std::is_same<scalar_t, double>::value) {
      // float ** number is evaluated in double and rounded once (1.13's
      // Sleef powf in float is within 1 ulp of it; measured: 2-40% of
      // random floats differ by an ulp, depending on the power). A negative
      // base would leave libmvec's vector pow for the scalar one lane by
      // lane (pow_real above): pow(x, -3) of normal random floats, which
      // pow -2's backward computes, took 1.5 ms for 65536 floats. An
      // integer power takes glibc's sign rule instead: pow(|a|, e), with
      // a's sign for an odd power (-0 and -inf included). float's small
      // powers (-4, -3, 4: what the backwards of -3, -2 and 5 need) are
      // products in double, rounded once to float: libmvec's double pow
      // costs 10 ns an element.
      if (std::trunc(e) == e && std::fabs(e) < 0x1p53) {
        if (std::is_same<scalar_t, float>::value && (e == -4 || e == -3 || e == 4)) {
          if (e == 4) {
            cpu_kernel(iter, [](scalar_t a) -> scalar_t {
              const double d = a, d2 = d * d;
              return static_cast<scalar_t>(d2 * d2);
            });
          } else if (e == -4) {
            cpu_kernel(iter, [](scalar_t a) -> scalar_t {
              const double d = a, d2 = d * d;
              return static_cast<scalar_t>(1.0 / (d2 * d2));
            });
          } else {
            cpu_kernel(iter, [](scalar_t a) -> scalar_t {
              const double d = a;
              return static_cast<scalar_t>(1.0 / (d * d * d));
            });
          }
        } else if (std::fmod(e, 2.0) != 0) {
          cpu_kernel(iter, [e](scalar_t a) -> scalar_t {
            const double d = static_cast<double>(a);
            return static_cast<scalar_t>(std::copysign(std::pow(std::fabs(d), e), d));
          });
        } else {
          cpu_kernel(iter, [e](scalar_t a) -> scalar_t {
            return static_cast<scalar_t>(std::pow(std::fabs(static_cast<double>(a)), e));
          });
        }
      } else {
        cpu_kernel(iter, [e](scalar_t a) -> scalar_t {
          return static_cast<scalar_t>(pow_real(static_cast<double>(a), e));
        });
      }
    } else {
      const acc_t ee = static_cast<acc_t>(static_cast<scalar_t>(e));
      cpu_kernel(iter, [ee](scalar_t a) -> scalar_t { return std::pow(acc_t(a), ee); });
    }
  });
}

void atan2_cpu(TensorIterator& iter) {
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), "atan2_cpu", [&] {
    using acc_t = opmath_t<scalar_t>;
    cpu_kernel(iter,
               [](scalar_t a, scalar_t b) -> scalar_t { return std::atan2(acc_t(a), acc_t(b)); });
  });
}

template <typename T>
bool is_nan_value(T v) {
  if constexpr (std::is_integral<T>::value) {
    return false;
  } else {
    return std::isnan(static_cast<opmath_t<T>>(v));
  }
}

// kMax selects maximum; kPropagateNan selects minimum/maximum over fmin/fmax.
template <bool kMax, bool kPropagateNan>
void min_max_cpu(TensorIterator& iter) {
  if (iter.common_dtype() == kBool) {
    cpu_kernel(iter, [](bool a, bool b) -> bool { return kMax ? (a || b) : (a && b); });
    return;
  }
  EMBER_DISPATCH_NUMERIC_TYPES(iter.common_dtype(), "minimum_maximum_cpu", [&] {
    if constexpr (std::is_integral<scalar_t>::value) {
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
        return kMax ? std::max(a, b) : std::min(a, b);
      });
    } else {
      using acc_t = opmath_t<scalar_t>;
      cpu_kernel(iter, [](scalar_t a_, scalar_t b_) -> scalar_t {
        acc_t a = a_, b = b_;
        if (kPropagateNan) {
          // A NaN a, else a NaN b, else std::max / std::min (ties give a),
          // as selects of the operands themselves: the branches kept the
          // float16/bfloat16 loops scalar (3x libtorch's time).
          const bool pick_b = (a == a) & ((b != b) | (kMax ? a < b : b < a));
          return static_cast<scalar_t>(pick_b ? b : a);
        }
        // fmax/fmin as selects GCC vectorizes (a libm call per element was
        // 1.6x behind libtorch): a NaN operand gives the other one, and
        // equal operands (+0 and -0 too) give a, as 1.13 does.
        const bool a_wins = kMax ? a >= b : a <= b;
        return b != b ? a : (a_wins ? a : b);
      });
    }
  });
}

void lerp_scalar_cpu(TensorIterator& iter, const Scalar& weight_s) {
  // float16 and bfloat16 in float, rounded once (PyTorch's opmath).
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), "lerp_kernel_scalar", [&] {
    using acc_t = opmath_t<scalar_t>;
    const acc_t w = weight_s.to<acc_t>();
    // The form that is exact at both ends (weight 0 and 1), branching on
    // weight < 0.5 as PyTorch 1.13 does (2.x: |weight| < 0.5; they differ
    // for weights below -0.5 where end - self is infinite).
    cpu_kernel(iter, [w](scalar_t self_, scalar_t end_) -> scalar_t {
      const acc_t self = self_, end = end_;
      return w < acc_t(0.5) ? self + w * (end - self) : end - (end - self) * (acc_t(1) - w);
    });
  });
}

void addcmul_cpu(TensorIterator& iter, const Scalar& value_s) {
  EMBER_DISPATCH_NUMERIC_TYPES(iter.common_dtype(), "addcmul_cpu_out", [&] {
    using acc_t = opmath_t<scalar_t>;
    const acc_t v = static_cast<acc_t>(value_s.to<scalar_t>());
    cpu_kernel(iter, [v](scalar_t s, scalar_t t1, scalar_t t2) -> scalar_t {
      return acc_t(s) + v * acc_t(t1) * acc_t(t2);
    });
  });
}

void addcdiv_cpu(TensorIterator& iter, const Scalar& value_s) {
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), "addcdiv_cpu_out", [&] {
    using acc_t = opmath_t<scalar_t>;
    const acc_t v = static_cast<acc_t>(value_s.to<scalar_t>());
    cpu_kernel(iter, [v](scalar_t s, scalar_t t1, scalar_t t2) -> scalar_t {
      return acc_t(s) + v * acc_t(t1) / acc_t(t2);
    });
  });
}

// std::min(std::max(a, lo), hi) keeps a NaN `a` (its comparisons are false).
void clamp_scalar_cpu(TensorIterator& iter, const Scalar& lo_s, const Scalar& hi_s) {
  EMBER_DISPATCH_NUMERIC_TYPES(iter.common_dtype(), "clamp_scalar_cpu", [&] {
    using acc_t = opmath_t<scalar_t>;
    const acc_t lo = static_cast<acc_t>(lo_s.to<scalar_t>());
    const acc_t hi = static_cast<acc_t>(hi_s.to<scalar_t>());
    cpu_kernel(iter, [lo, hi](scalar_t a) -> scalar_t {
      return std::min(std::max(acc_t(a), lo), hi);
    });
  });
}

void clamp_min_scalar_cpu(TensorIterator& iter, const Scalar& lo_s) {
  EMBER_DISPATCH_NUMERIC_TYPES(iter.common_dtype(), "clamp_min_scalar_cpu", [&] {
    using acc_t = opmath_t<scalar_t>;
    const acc_t lo = static_cast<acc_t>(lo_s.to<scalar_t>());
    cpu_kernel(iter, [lo](scalar_t a) -> scalar_t { return std::max(acc_t(a), lo); });
  });
}

void clamp_max_scalar_cpu(TensorIterator& iter, const Scalar& hi_s) {
  EMBER_DISPATCH_NUMERIC_TYPES(iter.common_dtype(), "clamp_max_scalar_cpu", [&] {
    using acc_t = opmath_t<scalar_t>;
    const acc_t hi = static_cast<acc_t>(hi_s.to<scalar_t>());
    cpu_kernel(iter, [hi](scalar_t a) -> scalar_t { return std::min(acc_t(a), hi); });
  });
}

// A NaN bound makes the result NaN.
void clamp_tensor_cpu(TensorIterator& iter) {
  EMBER_DISPATCH_NUMERIC_TYPES(iter.common_dtype(), "clamp_cpu", [&] {
    using acc_t = opmath_t<scalar_t>;
    cpu_kernel(iter, [](scalar_t a, scalar_t lo, scalar_t hi) -> scalar_t {
      if (is_nan_value(lo)) return lo;
      if (is_nan_value(hi)) return hi;
      return std::min(std::max(acc_t(a), acc_t(lo)), acc_t(hi));
    });
  });
}

EMBER_REGISTER_KERNEL(pow_tensor_tensor_kernel, kCPU, &pow_tensor_tensor_cpu);
EMBER_REGISTER_KERNEL(pow_tensor_scalar_kernel, kCPU, &pow_tensor_scalar_cpu);
EMBER_REGISTER_KERNEL(atan2_kernel, kCPU, &atan2_cpu);
EMBER_REGISTER_KERNEL(minimum_kernel, kCPU, (&min_max_cpu<false, true>));
EMBER_REGISTER_KERNEL(maximum_kernel, kCPU, (&min_max_cpu<true, true>));
EMBER_REGISTER_KERNEL(fmin_kernel, kCPU, (&min_max_cpu<false, false>));
EMBER_REGISTER_KERNEL(fmax_kernel, kCPU, (&min_max_cpu<true, false>));
EMBER_REGISTER_KERNEL(lerp_scalar_kernel, kCPU, &lerp_scalar_cpu);
EMBER_REGISTER_KERNEL(addcmul_kernel, kCPU, &addcmul_cpu);
EMBER_REGISTER_KERNEL(addcdiv_kernel, kCPU, &addcdiv_cpu);
EMBER_REGISTER_KERNEL(clamp_scalar_kernel, kCPU, &clamp_scalar_cpu);
EMBER_REGISTER_KERNEL(clamp_min_scalar_kernel, kCPU, &clamp_min_scalar_cpu);
EMBER_REGISTER_KERNEL(clamp_max_scalar_kernel, kCPU, &clamp_max_scalar_cpu);
EMBER_REGISTER_KERNEL(clamp_tensor_kernel, kCPU, &clamp_tensor_cpu);

// --- shape and dtype rules ----------------------------------------------------

Tensor binary(const KernelTable<IterKernelFn>& table, const Tensor& out, const Tensor& a,
              const Tensor& b, IterConfig config = {}) {
  TensorIterator iter = TensorIterator::binary_op(out, a, b, config);
  table(iter.device_type())(iter);
  return iter.output();
}

Tensor pow_scalar_out_impl(const Tensor& out, const Tensor& self, const Scalar& exp) {
  EMBER_CHECK(!(is_integral(self.dtype(), true) && exp.is_integral(true) && exp.toLong() < 0),
              "Integers to negative integer powers are not allowed.");
  IterConfig c;
  c.common_dtype = detail::result_type_with_scalar(self, exp);
  // PyTorch's structured-kernel wording for an in-place dtype change.
  EMBER_CHECK(!out.defined() || out.dtype() == *c.common_dtype, "Found dtype ",
              scalar_type_name(out.dtype()), " but expected ", scalar_type_name(*c.common_dtype));
  TensorIterator iter = TensorIterator::unary_op(out, self, c);
  if (!exp.is_bool() && exp.toDouble() == 0.0) {
    // x ** 0 is 1, NaN included.
    Tensor r = iter.output();
    r.fill_(1);
    return r;
  }
  if (!exp.is_bool() && exp.toDouble() == 1.0) {
    Tensor r = iter.output();
    if (!r.is_same(self)) r.copy_(self);
    return r;
  }
  pow_tensor_scalar_kernel(iter.device_type())(iter, exp);
  return iter.output();
}

void build_ternary(TensorIterator& iter, const Tensor& out, const Tensor& a, const Tensor& b,
                   const Tensor& c) {
  iter.add_output(out).add_input(a).add_input(b).add_input(c).build();
}

Tensor addcmul_out_impl(const Tensor& out, const Tensor& self, const Tensor& t1,
                        const Tensor& t2, const Scalar& value) {
  TensorIterator iter;
  build_ternary(iter, out, self, t1, t2);
  addcmul_kernel(iter.device_type())(iter, value);
  return iter.output();
}

Tensor addcdiv_out_impl(const Tensor& out, const Tensor& self, const Tensor& t1,
                        const Tensor& t2, const Scalar& value) {
  if (is_integral(t1.dtype(), true) && is_integral(t2.dtype(), true)) {
    throw Error(
        "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
        "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
        "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
        "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
        "addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
        "tensor2), for all dtypes.");
  }
  TensorIterator iter;
  build_ternary(iter, out, self, t1, t2);
  addcdiv_kernel(iter.device_type())(iter, value);
  return iter.output();
}

// clamp's result dtype: numbers take part in promotion, and an in-place
// clamp may not change self's dtype (PyTorch words this check with the
// TypeMeta name: "... desired output type long int").
ScalarType clamp_result_type(const Tensor& self, const std::optional<Scalar>& min,
                             const std::optional<Scalar>& max, bool in_place) {
  EMBER_CHECK(min || max, "torch.clamp: At least one of 'min' or 'max' must not be None");
  ScalarType rt = self.dtype();
  if (is_floating_point(rt)) return rt;
  // Promoting with one number, then the other, is promotion with both: a
  // number only ever raises the category.
  if (min) rt = detail::result_type_with_scalar(self, *min);
  if (max) {
    ScalarType with_max = detail::result_type_with_scalar(self, *max);
    rt = promote_types(rt, with_max);
  }
  EMBER_CHECK(!in_place || rt == self.dtype(), "result type ", scalar_type_name(rt),
              " can't be cast to the desired output type ", detail::typemeta_name(self.dtype()));
  return rt;
}

Tensor clamp_out_impl(const Tensor& out, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max) {
  IterConfig c;
  c.common_dtype = clamp_result_type(self, min, max, out.defined() && out.is_same(self));
  // Bounds become values of an integral result: they must fit it.
  const ScalarType rt = *c.common_dtype;
  if (!is_floating_point(rt)) {
    if (min) check_convertible(*min, rt);
    if (max) check_convertible(*max, rt);
  }
  TensorIterator iter = TensorIterator::unary_op(out, self, c);
  if (min && max) {
    clamp_scalar_kernel(iter.device_type())(iter, *min, *max);
  } else if (min) {
    clamp_min_scalar_kernel(iter.device_type())(iter, *min);
  } else {
    clamp_max_scalar_kernel(iter.device_type())(iter, *max);
  }
  return iter.output();
}

// Recorded forms (Note [Op recording]).
Tensor addcmul_out(const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
                   const Scalar& value) {
  return detail::record_out_op(
      "addcmul", out, {self, t1, t2}, [&] { return addcmul_out_impl(out, self, t1, t2, value); },
      [&] { return OpArgs{value}; });
}
Tensor addcdiv_out(const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
                   const Scalar& value) {
  return detail::record_out_op(
      "addcdiv", out, {self, t1, t2}, [&] { return addcdiv_out_impl(out, self, t1, t2, value); },
      [&] { return OpArgs{value}; });
}
Tensor pow_scalar_out(const Tensor& out, const Tensor& self, const Scalar& exp) {
  return detail::record_out_op(
      "pow", out, {self}, [&] { return pow_scalar_out_impl(out, self, exp); },
      [&] { return OpArgs{exp}; });
}
Tensor clamp_out(const Tensor& out, const Tensor& self, const std::optional<Scalar>& min,
                 const std::optional<Scalar>& max) {
  return detail::record_out_op(
      "clamp", out, {self}, [&] { return clamp_out_impl(out, self, min, max); }, [&] {
        return OpArgs{min ? OpArg(*min) : OpArg(), max ? OpArg(*max) : OpArg()};
      });
}
// relu is its own op for autograd (ReluBackward0: no gradient at 0, where
// clamp_min's passes it) with clamp_min's kernel.
Tensor relu_out(const Tensor& out, const Tensor& self) {
  EMBER_CHECK(self.dtype() != kBool, "Boolean inputs not supported for relu");
  return detail::record_out_op(
      "relu", out, {self}, [&] { return clamp_out_impl(out, self, Scalar(0), std::nullopt); },
      detail::no_args);
}
Tensor binary_rec(const char* name, const KernelTable<IterKernelFn>& table, const Tensor& out,
                  const Tensor& a, const Tensor& b, IterConfig config = {}) {
  return detail::record_out_op(
      name, out, {a, b}, [&] { return binary(table, out, a, b, config); }, detail::no_args);
}

}  // namespace

// --- free functions -----------------------------------------------------------

Tensor pow(const Tensor& self, const Tensor& exponent) {
  EMBER_AUTOCAST(pow, ::ember::pow, self, exponent);
  return binary_rec("pow_tensor", pow_tensor_tensor_kernel, Tensor(), self, exponent);
}
Tensor pow(const Tensor& self, const Scalar& exponent) {
  EMBER_AUTOCAST(pow, ::ember::pow, self, exponent);
  return pow_scalar_out(Tensor(), self, exponent);
}
Tensor pow(const Scalar& self, const Tensor& exponent) {
  EMBER_AUTOCAST(pow, ::ember::pow, self, exponent);
  // Row-major whatever the exponent's layout, as ATen's pow.Scalar.
  IterConfig c;
  c.row_major_outputs = true;
  return binary_rec("pow_scalar_self", pow_tensor_tensor_kernel, Tensor(),
                    wrapped_scalar_tensor(self), exponent, c);
}
Tensor atan2(const Tensor& self, const Tensor& other) {
  EMBER_AUTOCAST(atan2, ::ember::atan2, self, other);
  IterConfig c;
  c.promote_integer_inputs_to_float = true;
  return binary_rec("atan2", atan2_kernel, Tensor(), self, other, c);
}
Tensor minimum(const Tensor& self, const Tensor& other) {
  return binary_rec("minimum", minimum_kernel, Tensor(), self, other);
}
Tensor maximum(const Tensor& self, const Tensor& other) {
  return binary_rec("maximum", maximum_kernel, Tensor(), self, other);
}
Tensor fmin(const Tensor& self, const Tensor& other) {
  return binary_rec("fmin", fmin_kernel, Tensor(), self, other);
}
Tensor fmax(const Tensor& self, const Tensor& other) {
  return binary_rec("fmax", fmax_kernel, Tensor(), self, other);
}
static Tensor lerp_out(const Tensor& out, const Tensor& self, const Tensor& end,
                       const Scalar& weight) {
  EMBER_CHECK(self.dtype() == end.dtype(), "expected dtype ", detail::typemeta_name(self.dtype()),
              " for `end` but got dtype ", detail::typemeta_name(end.dtype()));
  return detail::record_out_op(
      "lerp", out, {self, end},
      [&] {
        TensorIterator iter = TensorIterator::binary_op(out, self, end);
        lerp_scalar_kernel(iter.device_type())(iter, weight);
        return iter.output();
      },
      [&] { return OpArgs{weight}; });
}
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight) {
  return lerp_out(Tensor(), self, end, weight);
}
Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
               const Scalar& value) {
  EMBER_AUTOCAST(addcmul, ::ember::addcmul, self, tensor1, tensor2, value);
  return addcmul_out(Tensor(), self, tensor1, tensor2, value);
}
Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
               const Scalar& value) {
  EMBER_AUTOCAST(addcdiv, ::ember::addcdiv, self, tensor1, tensor2, value);
  return addcdiv_out(Tensor(), self, tensor1, tensor2, value);
}
Tensor clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  return clamp_out(Tensor(), self, min, max);
}
Tensor clamp(const Tensor& self, const Tensor& min, const Tensor& max) {
  EMBER_CHECK(min.defined() || max.defined(),
              "torch.clamp: At least one of 'min' or 'max' must not be None");
  // One op for autograd (ClampBackward0) whichever bounds are given.
  return detail::record_out_op(
      "clamp_tensor", Tensor(), {self, min, max},
      [&] {
        if (!max.defined()) return maximum(self, min);
        if (!min.defined()) return minimum(self, max);
        TensorIterator iter;
        build_ternary(iter, Tensor(), self, min, max);
        clamp_tensor_kernel(iter.device_type())(iter);
        return iter.output();
      },
      detail::no_args);
}
// clamp_min / clamp_max are nodes of their own in PyTorch
// (ClampMinBackward0 / ClampMaxBackward0; clamp(min=...) is ClampBackward1).
Tensor clamp_min(const Tensor& self, const Scalar& min) {
  return detail::record_out_op(
      "clamp_min", Tensor(), {self},
      [&] { return clamp_out_impl(Tensor(), self, min, std::nullopt); },
      [&] { return OpArgs{min}; });
}
Tensor clamp_max(const Tensor& self, const Scalar& max) {
  return detail::record_out_op(
      "clamp_max", Tensor(), {self},
      [&] { return clamp_out_impl(Tensor(), self, std::nullopt, max); },
      [&] { return OpArgs{max}; });
}
Tensor relu(const Tensor& self) { return relu_out(Tensor(), self); }
Tensor square(const Tensor& self) { return pow(self, 2); }

// --- methods ------------------------------------------------------------------

Tensor Tensor::pow(const Tensor& exponent) const { return ember::pow(*this, exponent); }
Tensor Tensor::pow(const Scalar& exponent) const { return ember::pow(*this, exponent); }
Tensor& Tensor::pow_(const Tensor& exponent) const {
  binary_rec("pow_tensor", pow_tensor_tensor_kernel, mut(), mut(), exponent);
  return mut();
}
Tensor& Tensor::pow_(const Scalar& exponent) const {
  pow_scalar_out(mut(), mut(), exponent);
  return mut();
}
Tensor Tensor::atan2(const Tensor& other) const { return ember::atan2(*this, other); }
Tensor& Tensor::atan2_(const Tensor& other) const {
  IterConfig c;
  c.promote_integer_inputs_to_float = true;
  binary_rec("atan2", atan2_kernel, mut(), mut(), other, c);
  return mut();
}
Tensor Tensor::minimum(const Tensor& other) const { return ember::minimum(*this, other); }
Tensor Tensor::maximum(const Tensor& other) const { return ember::maximum(*this, other); }
Tensor Tensor::fmin(const Tensor& other) const { return ember::fmin(*this, other); }
Tensor Tensor::fmax(const Tensor& other) const { return ember::fmax(*this, other); }
Tensor Tensor::lerp(const Tensor& end, const Scalar& weight) const {
  return ember::lerp(*this, end, weight);
}
Tensor& Tensor::lerp_(const Tensor& end, const Scalar& weight) const {
  lerp_out(mut(), mut(), end, weight);
  return mut();
}
Tensor Tensor::addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return ember::addcmul(*this, t1, t2, value);
}
Tensor& Tensor::addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  addcmul_out(mut(), mut(), t1, t2, value);
  return mut();
}
Tensor Tensor::addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return ember::addcdiv(*this, t1, t2, value);
}
Tensor& Tensor::addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  addcdiv_out(mut(), mut(), t1, t2, value);
  return mut();
}
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return ember::clamp(*this, min, max);
}
Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) const {
  clamp_out(mut(), mut(), min, max);
  return mut();
}
Tensor Tensor::clamp(const Tensor& min, const Tensor& max) const {
  return ember::clamp(*this, min, max);
}
Tensor Tensor::clamp_min(const Scalar& min) const { return ember::clamp_min(*this, min); }
Tensor Tensor::clamp_max(const Scalar& max) const { return ember::clamp_max(*this, max); }
Tensor& Tensor::clamp_min_(const Scalar& min) const {
  detail::record_out_op(
      "clamp_min", mut(), {mut()}, [&] { return clamp_out_impl(mut(), mut(), min, std::nullopt); },
      [&] { return OpArgs{min}; });
  return mut();
}
Tensor& Tensor::clamp_max_(const Scalar& max) const {
  detail::record_out_op(
      "clamp_max", mut(), {mut()}, [&] { return clamp_out_impl(mut(), mut(), std::nullopt, max); },
      [&] { return OpArgs{max}; });
  return mut();
}
Tensor Tensor::relu() const { return ember::relu(*this); }
Tensor& Tensor::relu_() const {
  relu_out(mut(), mut());
  return mut();
}
Tensor Tensor::square() const { return ember::square(*this); }
Tensor& Tensor::square_() const { return pow_(2); }

}  // namespace ember
