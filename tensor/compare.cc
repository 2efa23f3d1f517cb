// Comparisons, logical and bitwise ops, NaN/inf tests, isclose / allclose /
// equal, and their operators. Comparisons and logical ops promote their
// inputs to a common dtype and write bool.

#include <cmath>
#include <type_traits>

#include "tensor/dispatch.h"
#include "tensor/loops.h"
#include "tensor/math.h"
#include "tensor/math_kernels.h"

namespace ember {

EMBER_DEFINE_KERNEL_TABLE(eq_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(ne_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(lt_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(le_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(gt_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(ge_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(logical_and_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(logical_or_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(logical_xor_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(bitwise_and_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(bitwise_or_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(bitwise_xor_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(isnan_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(isinf_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(isfinite_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(isclose_kernel, IscloseKernelFn);

namespace {

using detail::wrap_for;

// Comparisons of half / bfloat16 go through float (their implicit
// conversion), the others compare natively.
#define EMBER_COMPARE_CPU(op, expr)                                         \
  void op##_cpu(TensorIterator& iter) {                                    \
    EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), #op "_cpu", [&] {        \
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return expr; }); \
    });                                                                    \
  }                                                                        \
  EMBER_REGISTER_KERNEL(op##_kernel, kCPU, &op##_cpu);
EMBER_COMPARE_CPU(eq, a == b)
EMBER_COMPARE_CPU(ne, a != b)
EMBER_COMPARE_CPU(lt, a < b)
EMBER_COMPARE_CPU(le, a <= b)
EMBER_COMPARE_CPU(gt, a > b)
EMBER_COMPARE_CPU(ge, a >= b)
#undef EMBER_COMPARE_CPU

// Logical ops without short-circuit branches, and bool operands read as
// their bytes (0 or 1): GCC 12 vectorizes neither `&&` nor a loop that
// loads `bool`, and on random masks the branches mispredict (logical_and
// of two random 65536-element masks took 190 us; vectorized, 5 us).
#define EMBER_LOGICAL_CPU(op, sym)                                         \
  void op##_cpu(TensorIterator& iter) {                                    \
    if (iter.common_dtype() == kBool) {                                    \
      cpu_kernel(iter, [](uint8_t a, uint8_t b) -> uint8_t {               \
        return static_cast<uint8_t>(static_cast<uint8_t>(a != 0)           \
                                        sym static_cast<uint8_t>(b != 0)); \
      });                                                                  \
      return;                                                              \
    }                                                                      \
    EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), #op "_cpu", [&] {        \
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool {                \
        return (static_cast<uint8_t>(cast_value<bool>(a))                  \
                    sym static_cast<uint8_t>(cast_value<bool>(b))) != 0;   \
      });                                                                  \
    });                                                                    \
  }                                                                        \
  EMBER_REGISTER_KERNEL(op##_kernel, kCPU, &op##_cpu);
EMBER_LOGICAL_CPU(logical_and, &)
EMBER_LOGICAL_CPU(logical_or, |)
EMBER_LOGICAL_CPU(logical_xor, ^)
#undef EMBER_LOGICAL_CPU

#define EMBER_BITWISE_CPU(op, sym)                                                               \
  void op##_cpu(TensorIterator& iter) {                                                          \
    if (iter.common_dtype() == kBool) {                                                          \
      cpu_kernel(iter,                                                                           \
                 [](uint8_t a, uint8_t b) -> uint8_t { return static_cast<uint8_t>(a sym b); }); \
      return;                                                                                    \
    }                                                                                            \
    EMBER_DISPATCH_INTEGRAL_TYPES(iter.common_dtype(), #op "_cpu", [&] {                         \
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {                                  \
        return static_cast<scalar_t>(a sym b);                                                   \
      });                                                                                        \
    });                                                                                          \
  }                                                                                              \
  EMBER_REGISTER_KERNEL(op##_kernel, kCPU, &op##_cpu);
EMBER_BITWISE_CPU(bitwise_and, &)
EMBER_BITWISE_CPU(bitwise_or, |)
EMBER_BITWISE_CPU(bitwise_xor, ^)
#undef EMBER_BITWISE_CPU

// Value tests: integers are never NaN or infinite.
#define EMBER_TEST_CPU(op, int_result, expr)                                            \
  void op##_cpu(TensorIterator& iter) {                                      \
    EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), #op "_cpu", [&] {          \
      cpu_kernel(iter, [](scalar_t in) -> bool {                             \
        if constexpr (std::is_integral<scalar_t>::value) {                   \
          return int_result;                                                 \
        } else {                                                             \
          const opmath_t<scalar_t> x = in;                                   \
          return expr;                                                       \
        }                                                                    \
      });                                                                    \
    });                                                                      \
  }                                                                          \
  EMBER_REGISTER_KERNEL(op##_kernel, kCPU, &op##_cpu);
EMBER_TEST_CPU(isnan, false, std::isnan(x))
EMBER_TEST_CPU(isinf, false, std::isinf(x))
EMBER_TEST_CPU(isfinite, true, std::isfinite(x))
#undef EMBER_TEST_CPU

// Note [isclose]: PyTorch computes |a - b| <= atol + |rtol * b| as separate
// tensor ops, rounding each step to the dtype; T is that dtype (the
// default float dtype for integer inputs).
template <typename T, typename In>
bool isclose_value(In a_in, In b_in, T rtol, T atol, bool equal_nan, bool exact_only) {
  const bool eq = a_in == b_in;
  if (eq) return true;
  const T a = static_cast<T>(static_cast<opmath_t<T>>(a_in));
  const T b = static_cast<T>(static_cast<opmath_t<T>>(b_in));
  using acc_t = opmath_t<T>;
  if constexpr (!std::is_integral<In>::value) {
    if (equal_nan && std::isnan(acc_t(a)) && std::isnan(acc_t(b))) return true;
  }
  if (exact_only) return false;
  const T scaled = static_cast<T>(acc_t(rtol) * acc_t(b));
  const T allowed = static_cast<T>(acc_t(atol) + std::abs(acc_t(scaled)));
  const T actual = static_cast<T>(std::abs(acc_t(static_cast<T>(acc_t(a) - acc_t(b)))));
  return std::isfinite(acc_t(actual)) && acc_t(actual) <= acc_t(allowed);
}

template <typename T>
void isclose_loop(TensorIterator& iter, double rtol_d, double atol_d, bool equal_nan) {
  const bool exact_only = rtol_d == 0 && atol_d == 0;
  EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), "isclose", [&] {
    using compute_t = std::conditional_t<std::is_integral<scalar_t>::value, T, scalar_t>;
    const compute_t rtol = static_cast<compute_t>(rtol_d);
    const compute_t atol = static_cast<compute_t>(atol_d);
    cpu_kernel(iter, [=](scalar_t a, scalar_t b) -> bool {
      return isclose_value<compute_t>(a, b, rtol, atol, equal_nan, exact_only);
    });
  });
}

void isclose_cpu(TensorIterator& iter, double rtol, double atol, bool equal_nan) {
  if (get_default_dtype() == kDouble) {
    isclose_loop<double>(iter, rtol, atol, equal_nan);
  } else {
    isclose_loop<float>(iter, rtol, atol, equal_nan);
  }
}
EMBER_REGISTER_KERNEL(isclose_kernel, kCPU, &isclose_cpu);

// --- shape and dtype rules ----------------------------------------------------

Tensor compare(const KernelTable<IterKernelFn>& table, const Tensor& a, const Tensor& b) {
  TensorIterator iter = TensorIterator::comparison_op(Tensor(), a, b);
  table(iter.device_type())(iter);
  return iter.output();
}

Tensor bitwise(const KernelTable<IterKernelFn>& table, const Tensor& a, const Tensor& b) {
  TensorIterator iter = TensorIterator::binary_op(Tensor(), a, b);
  table(iter.device_type())(iter);
  return iter.output();
}

Tensor value_test(const KernelTable<IterKernelFn>& table, const Tensor& self) {
  IterConfig c;
  c.output_dtype = kBool;
  TensorIterator iter = TensorIterator::unary_op(Tensor(), self, c);
  table(iter.device_type())(iter);
  return iter.output();
}

// True when every element of a bool tensor is set. A device tensor (the
// result of isclose / eq on CUDA) is read on the host.
bool all_true(const Tensor& t) {
  const Tensor c = t.is_cpu() ? t.contiguous() : t.to(Device(kCPU)).contiguous();
  const bool* p = c.data_ptr<bool>();
  for (int64_t i = 0, n = c.numel(); i < n; ++i) {
    if (!p[i]) return false;
  }
  return true;
}

}  // namespace

// --- free functions -----------------------------------------------------------

#define EMBER_COMPARE_OP(op)                                                       \
  Tensor op(const Tensor& self, const Tensor& other) {                             \
    return compare(op##_kernel, self, other);                                      \
  }                                                                                \
  Tensor op(const Tensor& self, const Scalar& other) {                             \
    return compare(op##_kernel, self, wrap_for(self, other));                      \
  }                                                                                \
  Tensor Tensor::op(const Tensor& other) const { return ember::op(*this, other); } \
  Tensor Tensor::op(const Scalar& other) const { return ember::op(*this, other); } \
  Tensor& Tensor::op##_(const Tensor& other) const {                                     \
    return assign_result_(ember::op(mut(), other), #op "_");                       \
  }                                                                                \
  Tensor& Tensor::op##_(const Scalar& other) const {                                     \
    return assign_result_(ember::op(mut(), other), #op "_");                       \
  }
EMBER_COMPARE_OP(eq)
EMBER_COMPARE_OP(ne)
EMBER_COMPARE_OP(lt)
EMBER_COMPARE_OP(le)
EMBER_COMPARE_OP(gt)
EMBER_COMPARE_OP(ge)
#undef EMBER_COMPARE_OP

#define EMBER_LOGICAL_OP(op)                                                       \
  Tensor op(const Tensor& self, const Tensor& other) {                             \
    return compare(op##_kernel, self, other);                                      \
  }                                                                                \
  Tensor Tensor::op(const Tensor& other) const { return ember::op(*this, other); } \
  Tensor& Tensor::op##_(const Tensor& other) const {                                     \
    return assign_result_(ember::op(mut(), other), #op "_");                       \
  }
EMBER_LOGICAL_OP(logical_and)
EMBER_LOGICAL_OP(logical_or)
EMBER_LOGICAL_OP(logical_xor)
#undef EMBER_LOGICAL_OP

#define EMBER_BITWISE_OP(op)                                                       \
  Tensor op(const Tensor& self, const Tensor& other) {                             \
    return bitwise(op##_kernel, self, other);                                      \
  }                                                                                \
  Tensor op(const Tensor& self, const Scalar& other) {                             \
    return bitwise(op##_kernel, self, wrap_for(self, other));                      \
  }                                                                                \
  Tensor Tensor::op(const Tensor& other) const { return ember::op(*this, other); } \
  Tensor& Tensor::op##_(const Tensor& other) const {                                     \
    return assign_result_(ember::op(mut(), other), #op "_");                       \
  }
EMBER_BITWISE_OP(bitwise_and)
EMBER_BITWISE_OP(bitwise_or)
EMBER_BITWISE_OP(bitwise_xor)
#undef EMBER_BITWISE_OP

Tensor isnan(const Tensor& self) { return value_test(isnan_kernel, self); }
Tensor isinf(const Tensor& self) { return value_test(isinf_kernel, self); }
Tensor isfinite(const Tensor& self) { return value_test(isfinite_kernel, self); }
Tensor Tensor::isnan() const { return ember::isnan(*this); }
Tensor Tensor::isinf() const { return ember::isinf(*this); }
Tensor Tensor::isfinite() const { return ember::isfinite(*this); }

Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol,
               bool equal_nan) {
  EMBER_CHECK(self.dtype() == other.dtype(), scalar_type_name(self.dtype()), " did not match ",
              scalar_type_name(other.dtype()));
  EMBER_CHECK(rtol >= 0, "rtol must be greater than or equal to zero, but got ", rtol);
  EMBER_CHECK(atol >= 0, "atol must be greater than or equal to zero, but got ", atol);
  TensorIterator iter = TensorIterator::comparison_op(Tensor(), self, other);
  isclose_kernel(iter.device_type())(iter, rtol, atol, equal_nan);
  return iter.output();
}
bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol,
              bool equal_nan) {
  return all_true(isclose(self, other, rtol, atol, equal_nan));
}
namespace {
// eq's element rule (NaN unequal, 0.0 == -0.0; half and bfloat16 as float)
// over two contiguous runs, in blocks without early exits, so that the
// compiler vectorizes them, stopping at the first block that differs.
template <typename T>
bool equal_contiguous(const T* a, const T* b, int64_t n) {
  constexpr int64_t kBlock = 64;
  auto same = [](T x, T y) {
    if constexpr (std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value) {
      return static_cast<float>(x) == static_cast<float>(y);
    } else {
      return x == y;
    }
  };
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    int differ = 0;
    for (int64_t j = 0; j < kBlock; ++j) differ |= same(a[i + j], b[i + j]) ? 0 : 1;
    if (differ != 0) return false;
  }
  for (; i < n; ++i) {
    if (!same(a[i], b[i])) return false;
  }
  return true;
}
}  // namespace

bool equal(const Tensor& self, const Tensor& other) {
  if (!self.is_same_size(other)) return false;
  // Contiguous CPU tensors of one dtype: compared in place, stopping at the
  // first difference as 1.13's cpu_equal does (eq allocated a bool tensor:
  // 20 times libtorch's time).
  if (self.is_cpu() && other.is_cpu() && self.dtype() == other.dtype() && !self.is_quantized() &&
      !other.is_quantized() && self.is_contiguous() && other.is_contiguous()) {
    bool result = true;
    EMBER_DISPATCH_ALL_TYPES(self.dtype(), "equal_cpu", [&] {
      result =
          equal_contiguous(self.data_ptr<scalar_t>(), other.data_ptr<scalar_t>(), self.numel());
    });
    return result;
  }
  return all_true(eq(self, other));
}
Tensor Tensor::isclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return ember::isclose(*this, other, rtol, atol, equal_nan);
}
bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return ember::allclose(*this, other, rtol, atol, equal_nan);
}
bool Tensor::equal(const Tensor& other) const { return ember::equal(*this, other); }

// --- operators ----------------------------------------------------------------

Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator==(const Tensor& a, const Scalar& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator!=(const Tensor& a, const Scalar& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<(const Tensor& a, const Scalar& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator<=(const Tensor& a, const Scalar& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>(const Tensor& a, const Scalar& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator>=(const Tensor& a, const Scalar& b) { return ge(a, b); }
Tensor operator==(const Scalar& a, const Tensor& b) { return eq(b, a); }
Tensor operator!=(const Scalar& a, const Tensor& b) { return ne(b, a); }
Tensor operator<(const Scalar& a, const Tensor& b) { return gt(b, a); }
Tensor operator<=(const Scalar& a, const Tensor& b) { return ge(b, a); }
Tensor operator>(const Scalar& a, const Tensor& b) { return lt(b, a); }
Tensor operator>=(const Scalar& a, const Tensor& b) { return le(b, a); }
Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }
Tensor operator&(const Tensor& a, const Scalar& b) { return bitwise_and(a, b); }
Tensor operator&(const Scalar& a, const Tensor& b) { return bitwise_and(b, a); }
Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }
Tensor operator|(const Tensor& a, const Scalar& b) { return bitwise_or(a, b); }
Tensor operator|(const Scalar& a, const Tensor& b) { return bitwise_or(b, a); }
Tensor operator^(const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }
Tensor operator^(const Tensor& a, const Scalar& b) { return bitwise_xor(a, b); }
Tensor operator^(const Scalar& a, const Tensor& b) { return bitwise_xor(b, a); }
Tensor operator~(const Tensor& a) { return bitwise_not(a); }
Tensor operator!(const Tensor& a) { return logical_not(a); }

}  // namespace ember
