// Binary arithmetic: add, sub, mul, div (true, trunc, floor), remainder,
// fmod, floor_divide, and the arithmetic operators. See Note [Elementwise
// engine] for broadcasting and promotion, Note [Kernel tables] for dispatch.

#include <cmath>

#include "tensor/autograd_hook.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/guarded_loop.h"
#include "tensor/loops.h"
#include "tensor/math.h"
#include "tensor/math_kernels.h"

namespace ember {

EMBER_DEFINE_KERNEL_TABLE(add_kernel, IterScalarKernelFn);
EMBER_DEFINE_KERNEL_TABLE(mul_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(div_true_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(div_trunc_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(div_floor_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(remainder_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(fmod_kernel, IterKernelFn);

namespace detail {

ScalarType result_type_with_scalar(const Tensor& self, const Scalar& s) {
  // Same as result_type(self, wrapped_scalar_tensor(s)) without the tensor:
  // a number only changes the category (bool < integral < floating).
  ScalarType t = self.dtype();
  if (is_floating_point(t)) return t;
  ScalarType st = s.is_floating_point() ? get_default_dtype() : s.type();
  if (t == kBool || is_floating_point(st)) return promote_types(t, st);
  return t;
}

Tensor wrap_scalar(const Scalar& s, ScalarType dtype) {
  Tensor t = empty({}, TensorOptions(dtype));
  EMBER_DISPATCH_ALL_TYPES(dtype, "wrap_scalar", [&] { *t.data_ptr<scalar_t>() = s.to<scalar_t>(); });
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

const char* typemeta_name(ScalarType t) {
  switch (t) {
    case kBool: return "bool";
    case kByte: return "unsigned char";
    case kChar: return "signed char";
    case kShort: return "short int";
    case kInt: return "int";
    case kLong: return "long int";
    case kHalf: return "c10::Half";
    case kBFloat16: return "c10::BFloat16";
    case kFloat: return "float";
    case kDouble: return "double";
    default: return scalar_type_name(t);
  }
}

}  // namespace detail

namespace {

using detail::wrap_for;

IterConfig float_config() {
  IterConfig c;
  c.promote_integer_inputs_to_float = true;
  return c;
}

[[noreturn]] void throw_zero_division() { throw Error("ZeroDivisionError"); }

// --- CPU kernels ------------------------------------------------------------

void add_cpu(TensorIterator& iter, const Scalar& alpha_s) {
  if (iter.common_dtype() == kBool) {
    const bool alpha = alpha_s.toBool();
    cpu_kernel(iter, [alpha](bool a, bool b) -> bool { return a || (alpha && b); });
    return;
  }
  EMBER_DISPATCH_NUMERIC_TYPES(iter.common_dtype(), "add_cpu/sub_cpu", [&] {
    if (!alpha_s.is_floating_point() && alpha_s.toLong() == 1) {
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return a + b; });
    } else {
      const scalar_t alpha = alpha_s.to<scalar_t>();
      // alpha * b is rounded to scalar_t first, as PyTorch's kernel does.
      cpu_kernel(iter,
                 [alpha](scalar_t a, scalar_t b) -> scalar_t { return a + scalar_t(alpha * b); });
    }
  });
}

void mul_cpu(TensorIterator& iter) {
  if (iter.common_dtype() == kBool) {
    cpu_kernel(iter, [](bool a, bool b) -> bool { return a && b; });
    return;
  }
  EMBER_DISPATCH_NUMERIC_TYPES(iter.common_dtype(), "mul_cpu", [&] {
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return a * b; });
  });
}

void div_true_cpu(TensorIterator& iter) {
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), "div_true_cpu", [&] {
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return a / b; });
  });
}

void div_trunc_cpu(TensorIterator& iter) {
  ScalarType dt = iter.common_dtype();
  if (is_integral(dt, /*include_bool=*/false)) {
    EMBER_DISPATCH_INTEGRAL_TYPES(dt, "div_trunc_cpu", [&] {
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
        if (b == 0) throw_zero_division();
        return a / b;
      });
    });
    return;
  }
  EMBER_DISPATCH_FLOATING_TYPES(dt, "div_trunc_cpu", [&] {
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
      const scalar_t q = a / b;  // rounded to scalar_t before truncating, as in PyTorch
      return std::trunc(static_cast<opmath_t<scalar_t>>(q));
    });
  });
}

template <typename T>
T div_floor_integer(T a, T b) {
  if (b == 0) throw_zero_division();
  if ((a < 0) != (b < 0)) {
    const T q = a / b;
    const T r = a % b;
    return r ? q - 1 : q;
  }
  return a / b;
}

// PyTorch's div_floor_floating: floor(a / b) computed from fmod so that the
// quotient is exact where a / b would round across an integer. `mod` is
// fmod(a, b); every step is a select, so that the guarded fast path below
// vectorizes.
template <typename T>
T div_floor_from_mod(T a, T b, T mod) {
  T div = (a - mod) / b;
  div = (mod != 0 && (b < 0) != (mod < 0)) ? div - T(1) : div;
  T floordiv = std::floor(div);
  floordiv = div - floordiv > T(0.5) ? floordiv + T(1) : floordiv;
  return div != 0 ? floordiv : std::copysign(T(0), a / b);
}

// remainder takes the divisor's sign: fmod's result moved by one divisor.
template <typename T>
T remainder_from_mod(T b, T mod) {
  return mod != 0 && (b < 0) != (mod < 0) ? mod + b : mod;
}

// Note [Exact fmod by division]: for finite a and b with 0 < |b| and
// |a| < 2^52 |b|, fmod(a, b) in double without a loop. q = trunc(a / b) is
// an integer of at most 52 bits, the true quotient's integer part or one
// more in magnitude (a / b only rounds up to an integer, never down across
// one). a - q b is then less than |b| in magnitude and a multiple of the
// smaller of a's and b's last bits, so it fits in 53 bits: the fma computes
// it exactly. Where q was one too many, that remainder has the wrong sign
// and adding b (toward a's sign) gives the true one, again exactly (fmod's
// result is representable). copysign gives zero a's sign. Float inputs go
// through the same double computation; the result converts back exactly.
// The same arithmetic gives NaN wherever fmod does (b = 0, an infinite a,
// a NaN); what it gets wrong is a finite a over an infinite b (fmod: a)
// and quotients of 2^52 and more, which libm computes.
// (`&` and `|`, not `&&` and `||`: branches would keep the loop scalar.)
inline bool fmod_by_division_ok(double a, double b) {
  const double fa = std::fabs(a), fb = std::fabs(b);
  const bool libm = (fa < HUGE_VAL) & ((fb == HUGE_VAL) | ((b != 0) & (fa >= 0x1p52 * fb)));
  return !libm;
}

inline double fmod_by_division(double a, double b) {
  const double q = std::trunc(a / b);
  double r = std::fma(-q, b, a);
  r = r != 0 && (r < 0) != (a < 0) ? r + std::copysign(b, a) : r;
  return std::copysign(r, a);
}

// Runs `f(a, b, mod)` with mod = fmod(a, b) over float and double inputs
// (Note [Guarded fast paths]); the exact path is libm's fmod.
template <typename T, typename F>
void fmod_family_cpu(TensorIterator& iter, const F& f) {
  detail::cpu_kernel_guarded<T>(
      iter, [](T a, T b) { return fmod_by_division_ok(a, b); },
      [f](T a, T b) { return f(a, b, static_cast<T>(fmod_by_division(a, b))); },
      [f](T a, T b) { return f(a, b, static_cast<T>(std::fmod(a, b))); });
}

// Dispatches the floating dtypes: float and double through
// fmod_family_cpu, half and bfloat16 in float (their fmod computed as a
// double's, exact either way, then f in float), guarded the same way:
// fmodf element by element took 10x libtorch's time for bfloat16.
template <typename F>
void fmod_family_floating(TensorIterator& iter, const char* name, const F& f) {
  const ScalarType dt = iter.common_dtype();
  if (dt == kFloat) return fmod_family_cpu<float>(iter, f);
  if (dt == kDouble) return fmod_family_cpu<double>(iter, f);
  EMBER_DISPATCH_FLOATING_TYPES(dt, name, [&] {
    using acc_t = opmath_t<scalar_t>;
    detail::cpu_kernel_guarded<scalar_t>(
        iter,
        [](scalar_t a, scalar_t b) {
          return fmod_by_division_ok(static_cast<acc_t>(a), static_cast<acc_t>(b));
        },
        [f](scalar_t a, scalar_t b) -> scalar_t {
          const acc_t x = a, y = b;
          return f(x, y, static_cast<acc_t>(fmod_by_division(x, y)));
        },
        [f](scalar_t a, scalar_t b) -> scalar_t {
          const acc_t x = a, y = b;
          return f(x, y, static_cast<acc_t>(std::fmod(x, y)));
        });
  });
}

void div_floor_cpu(TensorIterator& iter) {
  ScalarType dt = iter.common_dtype();
  if (is_integral(dt, /*include_bool=*/false)) {
    EMBER_DISPATCH_INTEGRAL_TYPES(dt, "div_floor_cpu", [&] {
      cpu_kernel(iter,
                 [](scalar_t a, scalar_t b) -> scalar_t { return div_floor_integer(a, b); });
    });
    return;
  }
  fmod_family_floating(iter, "div_floor_cpu", [](auto a, auto b, auto mod) {
    // b == 0 gives a / b (an infinity or NaN), as in PyTorch.
    return b == 0 ? a / b : div_floor_from_mod(a, b, mod);
  });
}

void remainder_cpu(TensorIterator& iter) {
  ScalarType dt = iter.common_dtype();
  if (is_integral(dt, /*include_bool=*/false)) {
    EMBER_DISPATCH_INTEGRAL_TYPES(dt, "remainder_cpu", [&] {
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
        if (b == 0) throw_zero_division();
        scalar_t r = a % b;
        if (r != 0 && ((r < 0) != (b < 0))) r += b;
        return r;
      });
    });
    return;
  }
  fmod_family_floating(iter, "remainder_cpu",
                       [](auto, auto b, auto mod) { return remainder_from_mod(b, mod); });
}

void fmod_cpu(TensorIterator& iter) {
  ScalarType dt = iter.common_dtype();
  if (is_integral(dt, /*include_bool=*/false)) {
    EMBER_DISPATCH_INTEGRAL_TYPES(dt, "fmod_cpu", [&] {
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
        if (b == 0) throw_zero_division();
        return a % b;
      });
    });
    return;
  }
  fmod_family_floating(iter, "fmod_cpu", [](auto, auto, auto mod) { return mod; });
}

EMBER_REGISTER_KERNEL(add_kernel, kCPU, &add_cpu);
EMBER_REGISTER_KERNEL(mul_kernel, kCPU, &mul_cpu);
EMBER_REGISTER_KERNEL(div_true_kernel, kCPU, &div_true_cpu);
EMBER_REGISTER_KERNEL(div_trunc_kernel, kCPU, &div_trunc_cpu);
EMBER_REGISTER_KERNEL(div_floor_kernel, kCPU, &div_floor_cpu);
EMBER_REGISTER_KERNEL(remainder_kernel, kCPU, &remainder_cpu);
EMBER_REGISTER_KERNEL(fmod_kernel, kCPU, &fmod_cpu);

// --- shape and dtype rules ----------------------------------------------------

void alpha_check(ScalarType dtype, const Scalar& alpha) {
  EMBER_CHECK(!alpha.is_bool() || dtype == kBool,
              "Boolean alpha only supported for Boolean results.");
  EMBER_CHECK(is_floating_point(dtype) || alpha.is_integral(/*include_bool=*/true),
              "For integral input tensors, argument alpha must not be a floating point number.");
  check_convertible(alpha, dtype);
}

// A number operand: a bool one is PyTorch's "with a bool tensor" error.
void sub_check(const Tensor& self, const Scalar& other) {
  EMBER_CHECK(self.dtype() != kBool && !other.is_bool(),
              "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
              "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}

void sub_check(const Tensor& self, const Tensor& other) {
  EMBER_CHECK(self.dtype() != kBool || other.dtype() != kBool,
              "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
              "or `logical_xor()` operator instead.");
  EMBER_CHECK(self.dtype() != kBool && other.dtype() != kBool,
              "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
              "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}

// out = self + alpha * other into `out` (undefined: allocated).
// Each *_out records itself for autograd (Note [Op recording]); `out` is
// undefined (functional) or self (in place).
Tensor add_out(const Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  auto fwd = [&] {
    TensorIterator iter = TensorIterator::binary_op(out, self, other);
    alpha_check(iter.common_dtype(), alpha);
    add_kernel(iter.device_type())(iter, alpha);
    return iter.output();
  };
  if (!detail::input_requires_grad(self) && !detail::input_requires_grad(other)) {
    profiler::RecordFunction range("add", profiler::op_kind(out), self, other);
    return fwd();
  }
  return detail::record_out_op("add", out, {self, other}, fwd, [&] { return OpArgs{alpha}; });
}

Tensor sub_out(const Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha,
               const char* name = "sub") {
  sub_check(self, other);
  auto fwd = [&] {
    TensorIterator iter = TensorIterator::binary_op(out, self, other);
    alpha_check(iter.common_dtype(), alpha);
    add_kernel(iter.device_type())(iter, -alpha);
    return iter.output();
  };
  return detail::record_out_op(name, out, {self, other}, fwd, [&] { return OpArgs{alpha}; });
}

Tensor binary_out_impl(const KernelTable<IterKernelFn>& table, const Tensor& out,
                       const Tensor& self, const Tensor& other, IterConfig config = {}) {
  TensorIterator iter = TensorIterator::binary_op(out, self, other, config);
  table(iter.device_type())(iter);
  return iter.output();
}

Tensor binary_out(const char* name, const KernelTable<IterKernelFn>& table, const Tensor& out,
                  const Tensor& self, const Tensor& other, IterConfig config = {}) {
  return detail::record_out_op(
      name, out, {self, other}, [&] { return binary_out_impl(table, out, self, other, config); },
      detail::no_args);
}

Tensor div_out(const Tensor& out, const Tensor& self, const Tensor& other,
               const std::string& rounding_mode) {
  auto fwd = [&] {
    if (rounding_mode.empty()) {
      return binary_out_impl(div_true_kernel, out, self, other, float_config());
    }
    if (rounding_mode == "trunc") return binary_out_impl(div_trunc_kernel, out, self, other);
    if (rounding_mode == "floor") return binary_out_impl(div_floor_kernel, out, self, other);
    throw Error(absl::StrCat(
        "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
        rounding_mode, "'"));
  };
  // Rounding divisions are another node in PyTorch (DivBackward2).
  return detail::record_out_op(rounding_mode.empty() ? "div" : "div_rounding", out, {self, other},
                               fwd, [&] { return OpArgs{rounding_mode}; });
}

}  // namespace

// --- free functions -----------------------------------------------------------

Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return add_out(Tensor(), self, other, alpha);
}
Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return add_out(Tensor(), self, wrap_for(self, other), alpha);
}
Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return sub_out(Tensor(), self, other, alpha);
}
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  sub_check(self, other);
  return sub_out(Tensor(), self, wrap_for(self, other), alpha);
}
Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  sub_check(self, other);
  // PyTorch's node for scalar - tensor is RsubBackward1.
  return sub_out(Tensor(), wrap_for(self, other), self, alpha, "rsub");
}
Tensor mul(const Tensor& self, const Tensor& other) {
  return binary_out("mul", mul_kernel, Tensor(), self, other);
}
Tensor mul(const Tensor& self, const Scalar& other) {
  return binary_out("mul", mul_kernel, Tensor(), self, wrap_for(self, other));
}
Tensor div(const Tensor& self, const Tensor& other, const std::string& rounding_mode) {
  return div_out(Tensor(), self, other, rounding_mode);
}
Tensor div(const Tensor& self, const Scalar& other, const std::string& rounding_mode) {
  return div_out(Tensor(), self, wrap_for(self, other), rounding_mode);
}
Tensor true_divide(const Tensor& self, const Tensor& other) { return div(self, other); }
Tensor true_divide(const Tensor& self, const Scalar& other) { return div(self, other); }
Tensor remainder(const Tensor& self, const Tensor& other) {
  return binary_out("remainder", remainder_kernel, Tensor(), self, other);
}
// A Scalar divisor records its own op: PyTorch names the node
// RemainderBackward0 / FmodBackward0 there, and ...Backward1 for a tensor.
Tensor remainder(const Tensor& self, const Scalar& other) {
  return binary_out("remainder_scalar", remainder_kernel, Tensor(), self, wrap_for(self, other));
}
Tensor remainder(const Scalar& self, const Tensor& other) {
  return binary_out("remainder", remainder_kernel, Tensor(), wrapped_scalar_tensor(self), other);
}
Tensor fmod(const Tensor& self, const Tensor& other) {
  return binary_out("fmod", fmod_kernel, Tensor(), self, other);
}
Tensor fmod(const Tensor& self, const Scalar& other) {
  return binary_out("fmod_scalar", fmod_kernel, Tensor(), self, wrap_for(self, other));
}
Tensor floor_divide(const Tensor& self, const Tensor& other) {
  return binary_out("floor_divide", div_floor_kernel, Tensor(), self, other);
}
Tensor floor_divide(const Tensor& self, const Scalar& other) {
  return binary_out("floor_divide", div_floor_kernel, Tensor(), self, wrap_for(self, other));
}

// --- methods ------------------------------------------------------------------

Tensor Tensor::add(const Tensor& other, const Scalar& alpha) const {
  return ember::add(*this, other, alpha);
}
Tensor Tensor::add(const Scalar& other, const Scalar& alpha) const {
  return ember::add(*this, other, alpha);
}
Tensor& Tensor::add_(const Tensor& other, const Scalar& alpha) const {
  add_out(mut(), mut(), other, alpha);
  return mut();
}
Tensor& Tensor::add_(const Scalar& other, const Scalar& alpha) const {
  add_out(mut(), mut(), wrap_for(mut(), other), alpha);
  return mut();
}
Tensor Tensor::sub(const Tensor& other, const Scalar& alpha) const {
  return ember::sub(*this, other, alpha);
}
Tensor Tensor::sub(const Scalar& other, const Scalar& alpha) const {
  return ember::sub(*this, other, alpha);
}
Tensor& Tensor::sub_(const Tensor& other, const Scalar& alpha) const {
  sub_out(mut(), mut(), other, alpha);
  return mut();
}
Tensor& Tensor::sub_(const Scalar& other, const Scalar& alpha) const {
  sub_check(mut(), other);
  sub_out(mut(), mut(), wrap_for(mut(), other), alpha);
  return mut();
}
Tensor Tensor::mul(const Tensor& other) const { return ember::mul(*this, other); }
Tensor Tensor::mul(const Scalar& other) const { return ember::mul(*this, other); }
Tensor& Tensor::mul_(const Tensor& other) const {
  binary_out("mul", mul_kernel, mut(), mut(), other);
  return mut();
}
Tensor& Tensor::mul_(const Scalar& other) const {
  binary_out("mul", mul_kernel, mut(), mut(), wrap_for(mut(), other));
  return mut();
}
Tensor Tensor::div(const Tensor& other, const std::string& rounding_mode) const {
  return ember::div(*this, other, rounding_mode);
}
Tensor Tensor::div(const Scalar& other, const std::string& rounding_mode) const {
  return ember::div(*this, other, rounding_mode);
}
Tensor& Tensor::div_(const Tensor& other, const std::string& rounding_mode) const {
  div_out(mut(), mut(), other, rounding_mode);
  return mut();
}
Tensor& Tensor::div_(const Scalar& other, const std::string& rounding_mode) const {
  div_out(mut(), mut(), wrap_for(mut(), other), rounding_mode);
  return mut();
}
Tensor Tensor::remainder(const Tensor& other) const { return ember::remainder(*this, other); }
Tensor Tensor::remainder(const Scalar& other) const { return ember::remainder(*this, other); }
Tensor& Tensor::remainder_(const Tensor& other) const {
  binary_out("remainder", remainder_kernel, mut(), mut(), other);
  return mut();
}
Tensor& Tensor::remainder_(const Scalar& other) const {
  binary_out("remainder_scalar", remainder_kernel, mut(), mut(), wrap_for(mut(), other));
  return mut();
}
Tensor Tensor::fmod(const Tensor& other) const { return ember::fmod(*this, other); }
Tensor Tensor::fmod(const Scalar& other) const { return ember::fmod(*this, other); }
Tensor& Tensor::fmod_(const Tensor& other) const {
  binary_out("fmod", fmod_kernel, mut(), mut(), other);
  return mut();
}
Tensor& Tensor::fmod_(const Scalar& other) const {
  binary_out("fmod_scalar", fmod_kernel, mut(), mut(), wrap_for(mut(), other));
  return mut();
}
Tensor& Tensor::floor_divide_(const Tensor& other) const {
  binary_out("floor_divide", div_floor_kernel, mut(), mut(), other);
  return mut();
}
Tensor& Tensor::floor_divide_(const Scalar& other) const {
  binary_out("floor_divide", div_floor_kernel, mut(), mut(), wrap_for(mut(), other));
  return mut();
}
Tensor Tensor::floor_divide(const Tensor& other) const {
  return ember::floor_divide(*this, other);
}
Tensor Tensor::floor_divide(const Scalar& other) const {
  return ember::floor_divide(*this, other);
}

// --- operators ----------------------------------------------------------------

Tensor operator+(const Tensor& a, const Tensor& b) { return add_out(Tensor(), a, b, 1); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
// A number on the left: Python's rsub, true division and remainder (tensor.h).
Tensor operator-(const Scalar& a, const Tensor& b) { return rsub(b, a); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
Tensor operator/(const Scalar& a, const Tensor& b) {
  return div_out(Tensor(), wrap_for(b, a), b, "");
}
Tensor operator%(const Tensor& a, const Tensor& b) { return remainder(a, b); }
Tensor operator%(const Tensor& a, const Scalar& b) { return remainder(a, b); }
Tensor operator%(const Scalar& a, const Tensor& b) { return remainder(a, b); }
Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
Tensor& operator+=(Tensor& a, const Scalar& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
Tensor& operator-=(Tensor& a, const Scalar& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
Tensor& operator*=(Tensor& a, const Scalar& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
Tensor& operator/=(Tensor& a, const Scalar& b) { return a.div_(b); }

}  // namespace ember
