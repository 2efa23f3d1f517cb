// Unary elementwise ops. Floating functions (sqrt, exp, sin, sigmoid...)
// turn integer and bool input into the default float dtype; rounding ops are
// the identity on integers; bool input is refused where PyTorch refuses it.

#include <cmath>
#include <limits>
#include <type_traits>

#include "tensor/autocast.h"
#include "tensor/autograd_hook.h"
#include "tensor/dispatch.h"
#include "tensor/loops.h"
#include "tensor/math.h"
#include "tensor/math_kernels.h"
#include "tensor/select_bits.h"
#include "tensor/simd_math.h"

namespace ember {

#define EMBER_DEFINE_UNARY_TABLE(op) EMBER_DEFINE_KERNEL_TABLE(op##_kernel, IterKernelFn);
EMBER_UNARY_KERNEL_TABLES(EMBER_DEFINE_UNARY_TABLE)
#undef EMBER_DEFINE_UNARY_TABLE
EMBER_DEFINE_KERNEL_TABLE(round_decimals_kernel, IterScalarKernelFn);

namespace {

// --- floating functions: computed in float for half / bfloat16 --------------

// Note [Out-of-domain lanes]: libmvec (Note [Vectorized libm]) hands each
// lane outside a function's ordinary inputs (negative or zero for log, |x|
// above 1 for asin, NaN, infinities) to the scalar function, one call per
// lane: log of 65536 normal random floats, half of them negative, took
// 500 us against 32 us for positive ones (libtorch: 95 either way). What
// those lanes give is known, so each guard below calls the vector function
// on an ordinary value there (`ok` false) and selects the result instead.
// x is the opmath value; `f` the libm call (inlined, so the loop
// vectorizes); NaN input propagates. The ordinary value goes in by
// select_bits: with a plain `ok ? x : 1` GCC moves the select past the
// (pure) call, and every lane reaches libmvec as it was.
template <typename A, typename F>
[[gnu::always_inline]] inline A guarded_log(A x, F f) {  // log, log2, log10
  constexpr A kInf = std::numeric_limits<A>::infinity();
  const bool ok = (x > A(0)) & (x < kInf);
  const A r = f(detail::select_bits(ok, x, A(1)));
  const A other = x == A(0) ? -kInf : (x < A(0) ? std::numeric_limits<A>::quiet_NaN() : x);
  return ok ? r : other;
}

template <typename A>
[[gnu::always_inline]] inline A guarded_log1p(A x) {
  constexpr A kInf = std::numeric_limits<A>::infinity();
  const bool ok = (x > A(-1)) & (x < kInf);
  const A r = std::log1p(detail::select_bits(ok, x, A(1)));
  const A other = x == A(-1) ? -kInf : (x < A(-1) ? std::numeric_limits<A>::quiet_NaN() : x);
  return ok ? r : other;
}

template <typename A, typename F>
[[gnu::always_inline]] inline A guarded_unit(A x, F f) {  // asin, acos: NaN past |x| = 1
  const bool ok = std::fabs(x) <= A(1);
  const A r = f(detail::select_bits(ok, x, A(0.5)));
  return ok ? r : (x != x ? x : std::numeric_limits<A>::quiet_NaN());
}

template <typename A>
[[gnu::always_inline]] inline A guarded_acosh(A x) {
  constexpr A kInf = std::numeric_limits<A>::infinity();
  const bool ok = (x >= A(1)) & (x < kInf);
  const A r = std::acosh(detail::select_bits(ok, x, A(2)));
  return ok ? r : ((x == kInf) | (x != x) ? x : std::numeric_limits<A>::quiet_NaN());
}

template <typename A>
[[gnu::always_inline]] inline A guarded_atanh(A x) {
  const A ax = std::fabs(x);
  const bool ok = ax < A(1);
  const A r = std::atanh(detail::select_bits(ok, x, A(0.5)));
  const A other = ax == A(1) ? std::copysign(std::numeric_limits<A>::infinity(), x)
                             : (x != x ? x : std::numeric_limits<A>::quiet_NaN());
  return ok ? r : other;
}

#define EMBER_LIBM_(fn) [](auto v) { return std::fn(v); }

// Defines and registers <op>_cpu over the floating dtypes from an
// expression in `x` (of type acc_t, the opmath type); `name` is the kernel
// name PyTorch's "not implemented" error shows.
#define EMBER_FLOAT_UNARY_CPU_NAMED(op, name, expr)                                 \
  void op##_cpu(TensorIterator& iter) {                                            \
    EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), name, [&] {                 \
      using acc_t = opmath_t<scalar_t>;                                            \
      cpu_kernel(iter, [](scalar_t in) -> scalar_t {                               \
        const acc_t x = static_cast<acc_t>(in);                                    \
        return static_cast<acc_t>(expr);                                           \
      });                                                                          \
    });                                                                            \
  }                                                                                \
  EMBER_REGISTER_KERNEL(op##_kernel, kCPU, &op##_cpu);
#define EMBER_FLOAT_UNARY_CPU(op, expr) EMBER_FLOAT_UNARY_CPU_NAMED(op, #op "_cpu", expr)

EMBER_FLOAT_UNARY_CPU(sqrt, std::sqrt(x))
EMBER_FLOAT_UNARY_CPU(rsqrt, acc_t(1) / std::sqrt(x))
EMBER_FLOAT_UNARY_CPU(exp, std::exp(x))
EMBER_FLOAT_UNARY_CPU(exp2, std::exp2(x))
EMBER_FLOAT_UNARY_CPU(expm1, std::expm1(x))
EMBER_FLOAT_UNARY_CPU(log, guarded_log(x, EMBER_LIBM_(log)))
EMBER_FLOAT_UNARY_CPU(log2, guarded_log(x, EMBER_LIBM_(log2)))
EMBER_FLOAT_UNARY_CPU(log10, guarded_log(x, EMBER_LIBM_(log10)))
EMBER_FLOAT_UNARY_CPU(log1p, guarded_log1p(x))
EMBER_FLOAT_UNARY_CPU(sin, std::sin(x))
EMBER_FLOAT_UNARY_CPU(cos, std::cos(x))
EMBER_FLOAT_UNARY_CPU(tan, std::tan(x))
EMBER_FLOAT_UNARY_CPU(asin, guarded_unit(x, EMBER_LIBM_(asin)))
EMBER_FLOAT_UNARY_CPU(acos, guarded_unit(x, EMBER_LIBM_(acos)))
EMBER_FLOAT_UNARY_CPU(atan, std::atan(x))
EMBER_FLOAT_UNARY_CPU(sinh, std::sinh(x))
EMBER_FLOAT_UNARY_CPU(cosh, std::cosh(x))
EMBER_FLOAT_UNARY_CPU(tanh, std::tanh(x))
// 1 / (1 + e^-x) never overflows into NaN: for large -x, e^-x is inf and the
// result 0; for large x, e^-x is 0 and the result 1.
EMBER_FLOAT_UNARY_CPU(sigmoid, acc_t(1) / (acc_t(1) + std::exp(-x)))
EMBER_FLOAT_UNARY_CPU(erf, std::erf(x))
EMBER_FLOAT_UNARY_CPU(erfc, std::erfc(x))
EMBER_FLOAT_UNARY_CPU(asinh, std::asinh(x))
EMBER_FLOAT_UNARY_CPU(acosh, guarded_acosh(x))
EMBER_FLOAT_UNARY_CPU(atanh, guarded_atanh(x))
EMBER_FLOAT_UNARY_CPU(reciprocal, acc_t(1) / x)
// Integer input never reaches these (the op returns a copy); bool does, and
// gets PyTorch's "floor_vml_cpu" not implemented for 'Bool'.
EMBER_FLOAT_UNARY_CPU_NAMED(floor, "floor_vml_cpu", std::floor(x))
EMBER_FLOAT_UNARY_CPU_NAMED(ceil, "ceil_vml_cpu", std::ceil(x))
// nearbyint rounds half to even in the default rounding mode.
EMBER_FLOAT_UNARY_CPU_NAMED(round, "round_vml_cpu", std::nearbyint(x))
EMBER_FLOAT_UNARY_CPU_NAMED(trunc, "trunc_vml_cpu", std::trunc(x))
EMBER_FLOAT_UNARY_CPU(frac, x - std::trunc(x))
#undef EMBER_FLOAT_UNARY_CPU
#undef EMBER_LIBM_
#undef EMBER_FLOAT_UNARY_CPU_NAMED

// --- ops over every numeric dtype --------------------------------------------

void neg_cpu(TensorIterator& iter) {
  EMBER_DISPATCH_NUMERIC_TYPES(iter.common_dtype(), "neg_cpu", [&] {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return -a; });
  });
}

template <typename T>
T abs_value(T a) {
  if constexpr (std::is_unsigned<T>::value) {
    return a;
  } else if constexpr (std::is_integral<T>::value) {
    return a < 0 ? static_cast<T>(-a) : a;
  } else {
    return std::abs(static_cast<opmath_t<T>>(a));
  }
}

void abs_cpu(TensorIterator& iter) {
  EMBER_DISPATCH_NUMERIC_TYPES(iter.common_dtype(), "abs_cpu", [&] {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return abs_value(a); });
  });
}

void sign_cpu(TensorIterator& iter) {
  if (iter.common_dtype() == kBool) {
    cpu_kernel(iter, [](bool a) -> bool { return a; });
    return;
  }
  EMBER_DISPATCH_NUMERIC_TYPES(iter.common_dtype(), "sign_cpu", [&] {
    using acc_t = opmath_t<scalar_t>;
    // NaN compares false both ways and gets 0, as in PyTorch.
    cpu_kernel(iter, [](scalar_t in) -> scalar_t {
      const acc_t a = in;
      return static_cast<acc_t>((acc_t(0) < a) - (a < acc_t(0)));
    });
  });
}

// Reads any dtype, writes bool (the iterator's output dtype).
void logical_not_cpu(TensorIterator& iter) {
  EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), "logical_not_cpu", [&] {
    cpu_kernel(iter, [](scalar_t a) -> bool { return !cast_value<bool>(a); });
  });
}

void bitwise_not_cpu(TensorIterator& iter) {
  if (iter.common_dtype() == kBool) {
    cpu_kernel(iter, [](bool a) -> bool { return !a; });
    return;
  }
  EMBER_DISPATCH_INTEGRAL_TYPES(iter.common_dtype(), "bitwise_not_cpu", [&] {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return static_cast<scalar_t>(~a); });
  });
}

void round_decimals_cpu(TensorIterator& iter, const Scalar& decimals_s) {
  int64_t decimals = decimals_s.toLong();
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), "round_cpu", [&] {
    // As ATen's CPU kernel, in scalar_t: the power of ten and the scaled
    // value round to float16/bfloat16 before nearbyint (so bfloat16
    // round(-1.1484, 1) is -1.2031, not -1.1016). CUDA scales in float, as
    // ATen's CUDA kernel does.
    using acc_t = opmath_t<scalar_t>;
    const bool neg = decimals < 0;
    const acc_t ten_pow = static_cast<acc_t>(
        static_cast<scalar_t>(std::pow(10.0, static_cast<double>(neg ? -decimals : decimals))));
    cpu_kernel(iter, [ten_pow, neg](scalar_t a) -> scalar_t {
      auto rnd = [](acc_t v) { return static_cast<acc_t>(static_cast<scalar_t>(v)); };
      return neg ? std::nearbyint(rnd(acc_t(a) / ten_pow)) * ten_pow
                 : std::nearbyint(rnd(acc_t(a) * ten_pow)) / ten_pow;
    });
  });
}

EMBER_REGISTER_KERNEL(neg_kernel, kCPU, &neg_cpu);
EMBER_REGISTER_KERNEL(abs_kernel, kCPU, &abs_cpu);
EMBER_REGISTER_KERNEL(sign_kernel, kCPU, &sign_cpu);
EMBER_REGISTER_KERNEL(logical_not_kernel, kCPU, &logical_not_cpu);
EMBER_REGISTER_KERNEL(bitwise_not_kernel, kCPU, &bitwise_not_cpu);
EMBER_REGISTER_KERNEL(round_decimals_kernel, kCPU, &round_decimals_cpu);

// --- shape and dtype rules ----------------------------------------------------

// out = op(self); `out` undefined allocates. Floating ops promote integers.
// Records itself for autograd as `name` (Note [Op recording]).
Tensor unary_out(const char* name, const KernelTable<IterKernelFn>& table, const Tensor& out,
                 const Tensor& self, bool to_float) {
  auto fwd = [&] {
    IterConfig c;
    c.promote_integer_inputs_to_float = to_float;
    TensorIterator iter = TensorIterator::unary_op(out, self, c);
    table(iter.device_type())(iter);
    return iter.output();
  };
  if (!detail::input_requires_grad(self)) {
    profiler::RecordFunction range(name, profiler::op_kind(out), self);
    return fwd();
  }
  return detail::record_out_op(name, out, {self}, fwd, detail::no_args);
}

// floor / ceil / round / trunc: integers are already whole.
Tensor rounding_out(const char* name, const KernelTable<IterKernelFn>& table, const Tensor& out,
                    const Tensor& self) {
  if (is_integral(self.dtype(), /*include_bool=*/false)) {
    if (!out.defined()) return self.clone();
    return out;  // in place: nothing to do
  }
  return unary_out(name, table, out, self, false);
}

void check_neg(const Tensor& self) {
  EMBER_CHECK(self.dtype() != kBool,
              "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
              "to invert a mask, use the `~` or `logical_not()` operator instead.");
}

Tensor logical_not_out(const Tensor& out, const Tensor& self) {
  IterConfig c;
  c.output_dtype = kBool;
  c.check_output_cast = false;
  TensorIterator iter = TensorIterator::unary_op(out, self, c);
  logical_not_kernel(iter.device_type())(iter);
  return iter.output();
}

Tensor round_decimals_out(const Tensor& out, const Tensor& self, int64_t decimals) {
  TensorIterator iter = TensorIterator::unary_op(out, self);
  round_decimals_kernel(iter.device_type())(iter, decimals);
  return iter.output();
}

}  // namespace

// --- free functions and methods -------------------------------------------------

// Floating functions: integer and bool input become the default float dtype.
#define EMBER_FLOAT_UNARY_OP(op)                                                     \
  Tensor op(const Tensor& self) { return unary_out(#op, op##_kernel, Tensor(), self, true); } \
  EMBER_FLOAT_UNARY_METHODS(op)
#define EMBER_FLOAT_UNARY_METHODS(op)                                                \
  Tensor Tensor::op() const { return ember::op(*this); }                              \
  Tensor& Tensor::op##_() const {                                                           \
    unary_out(#op, op##_kernel, mut(), mut(), true);                                  \
    return mut();                                                                     \
  }
// On autocast's lists (Note [Autocast op lists]); in-place forms are not
// autocast, as in PyTorch.
#define EMBER_FLOAT_UNARY_OP_AUTOCAST(op)                                            \
  Tensor op(const Tensor& self) {                                                     \
    EMBER_AUTOCAST(op, ::ember::op, self);                                            \
    return unary_out(#op, op##_kernel, Tensor(), self, true);                         \
  }                                                                                   \
  EMBER_FLOAT_UNARY_METHODS(op)
EMBER_FLOAT_UNARY_OP(sqrt)
EMBER_FLOAT_UNARY_OP_AUTOCAST(rsqrt)
EMBER_FLOAT_UNARY_OP_AUTOCAST(exp)
EMBER_FLOAT_UNARY_OP(exp2)
EMBER_FLOAT_UNARY_OP_AUTOCAST(expm1)
EMBER_FLOAT_UNARY_OP_AUTOCAST(log)
EMBER_FLOAT_UNARY_OP_AUTOCAST(log2)
EMBER_FLOAT_UNARY_OP_AUTOCAST(log10)
EMBER_FLOAT_UNARY_OP_AUTOCAST(log1p)
EMBER_FLOAT_UNARY_OP(sin)
EMBER_FLOAT_UNARY_OP(cos)
EMBER_FLOAT_UNARY_OP_AUTOCAST(tan)
EMBER_FLOAT_UNARY_OP_AUTOCAST(asin)
EMBER_FLOAT_UNARY_OP_AUTOCAST(acos)
EMBER_FLOAT_UNARY_OP(atan)
EMBER_FLOAT_UNARY_OP_AUTOCAST(sinh)
EMBER_FLOAT_UNARY_OP_AUTOCAST(cosh)
EMBER_FLOAT_UNARY_OP(tanh)
EMBER_FLOAT_UNARY_OP(sigmoid)
EMBER_FLOAT_UNARY_OP(erf)
EMBER_FLOAT_UNARY_OP(erfc)
EMBER_FLOAT_UNARY_OP(asinh)
EMBER_FLOAT_UNARY_OP(acosh)
EMBER_FLOAT_UNARY_OP(atanh)
EMBER_FLOAT_UNARY_OP_AUTOCAST(reciprocal)
#undef EMBER_FLOAT_UNARY_OP
#undef EMBER_FLOAT_UNARY_OP_AUTOCAST
#undef EMBER_FLOAT_UNARY_METHODS

// Ops that keep the dtype (with `check` on `input` run first).
#define EMBER_SAME_TYPE_UNARY_OP(op, check)                                           \
  Tensor op(const Tensor& input) {                                                    \
    check;                                                                            \
    return unary_out(#op, op##_kernel, Tensor(), input, false);                       \
  }                                                                                   \
  Tensor Tensor::op() const { return ember::op(*this); }                              \
  Tensor& Tensor::op##_() const {                                                           \
    [[maybe_unused]] const Tensor& input = mut(); /* what `check` reads */            \
    check;                                                                            \
    unary_out(#op, op##_kernel, mut(), mut(), false);                                 \
    return mut();                                                                     \
  }
EMBER_SAME_TYPE_UNARY_OP(neg, check_neg(input))
EMBER_SAME_TYPE_UNARY_OP(abs, (void)0)
EMBER_SAME_TYPE_UNARY_OP(frac, (void)0)
EMBER_SAME_TYPE_UNARY_OP(sign, (void)0)
EMBER_SAME_TYPE_UNARY_OP(bitwise_not, (void)0)
#undef EMBER_SAME_TYPE_UNARY_OP

#define EMBER_ROUNDING_UNARY_OP(op)                                                   \
  Tensor op(const Tensor& self) { return rounding_out(#op, op##_kernel, Tensor(), self); } \
  Tensor Tensor::op() const { return ember::op(*this); }                              \
  Tensor& Tensor::op##_() const {                                                           \
    rounding_out(#op, op##_kernel, mut(), mut());                                     \
    return mut();                                                                     \
  }
EMBER_ROUNDING_UNARY_OP(floor)
EMBER_ROUNDING_UNARY_OP(ceil)
EMBER_ROUNDING_UNARY_OP(round)
EMBER_ROUNDING_UNARY_OP(trunc)
#undef EMBER_ROUNDING_UNARY_OP

Tensor round(const Tensor& self, int64_t decimals) {
  // RoundBackward1 in PyTorch: zero gradient.
  return detail::record_out_op(
      "round_decimals", Tensor(), {self}, [&] { return round_decimals_out(Tensor(), self, decimals); },
      detail::no_args);
}
Tensor Tensor::round(int64_t decimals) const { return ember::round(*this, decimals); }

Tensor logical_not(const Tensor& self) { return logical_not_out(Tensor(), self); }
Tensor Tensor::logical_not() const { return ember::logical_not(*this); }
Tensor& Tensor::logical_not_() const {
  logical_not_out(mut(), mut());
  return mut();
}

Tensor operator-(const Tensor& a) { return neg(a); }

}  // namespace ember
