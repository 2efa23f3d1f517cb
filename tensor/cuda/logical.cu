// logical_and/or/xor, bitwise_and/or/xor and isclose, as the CPU kernels in
// tensor/compare.cc. The logical and bitwise kernels pick the operation at
// run time (a uniform branch): one kernel per dtype serves all three.

#include <type_traits>

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

// Each operand is true when nonzero (NaN included), as cast_value<bool>.
template <typename T>
struct LogicalFn {
  LogicalOp op;
  __device__ bool operator()(T a_, T b_) const {
    const bool a = static_cast<opmath_t<T>>(a_) != opmath_t<T>(0);
    const bool b = static_cast<opmath_t<T>>(b_) != opmath_t<T>(0);
    switch (op) {
      case LogicalOp::kAnd: return a && b;
      case LogicalOp::kOr: return a || b;
      default: return a != b;
    }
  }
};

template <typename T>
struct BitwiseFn {
  LogicalOp op;
  __device__ T operator()(T a, T b) const {
    switch (op) {
      case LogicalOp::kAnd: return static_cast<T>(a & b);
      case LogicalOp::kOr: return static_cast<T>(a | b);
      default: return static_cast<T>(a ^ b);
    }
  }
};

__device__ __forceinline__ float abs_(float x) { return fabsf(x); }
__device__ __forceinline__ double abs_(double x) { return fabs(x); }
// A rounded product nvcc never contracts into an FMA with the following
// add (the CPU build does not contract either): isclose's answer is exact.
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }

// Note [isclose]: |a - b| <= atol + |rtol * b| with each step rounded to
// the compute type C (the dtype, or float / double for integral and bool
// inputs), as the CPU's isclose_value.
template <typename C, typename In>
struct IscloseFn {
  opmath_t<C> rtol, atol;  // already rounded to C
  bool equal_nan, exact_only;
  __device__ bool operator()(In a_in, In b_in) const {
    using A = opmath_t<C>;
    if (static_cast<opmath_t<In>>(a_in) == static_cast<opmath_t<In>>(b_in)) return true;
    const C a = static_cast<C>(static_cast<A>(a_in));
    const C b = static_cast<C>(static_cast<A>(b_in));
    if constexpr (!std::is_integral<In>::value) {
      if (equal_nan && is_nan(static_cast<A>(a)) && is_nan(static_cast<A>(b))) return true;
    }
    if (exact_only) return false;
    const C scaled = static_cast<C>(mul_rn(rtol, static_cast<A>(b)));
    const C allowed = static_cast<C>(atol + abs_(static_cast<A>(scaled)));
    const C actual =
        static_cast<C>(abs_(static_cast<A>(static_cast<C>(static_cast<A>(a) - static_cast<A>(b)))));
    const A act = static_cast<A>(actual);
    return !is_nan(act) && !is_inf(act) && act <= static_cast<A>(allowed);
  }
};

template <typename C, typename In>
cudaError_t isclose_as(const Elementwise& e, double rtol, double atol, bool equal_nan,
                       bool exact_only) {
  using A = opmath_t<C>;
  return run_binary<bool, In>(
      e, IscloseFn<C, In>{static_cast<A>(rtol), static_cast<A>(atol), equal_nan, exact_only});
}

}  // namespace

cudaError_t launch_logical(LogicalOp op, DType dtype, const Elementwise& e) {
  return dispatch<kAllKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_binary<bool, T>(e, LogicalFn<T>{op});
  });
}

cudaError_t launch_bitwise(LogicalOp op, DType dtype, const Elementwise& e) {
  return dispatch<kBoolKind | kIntegralKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_binary<T, T>(e, BitwiseFn<T>{op});
  });
}

cudaError_t launch_isclose(DType dtype, const Elementwise& e, double rtol, double atol,
                           bool equal_nan, bool exact_only, bool double_compute) {
  return dispatch<kAllKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral<T>::value) {
      return double_compute ? isclose_as<double, T>(e, rtol, atol, equal_nan, exact_only)
                            : isclose_as<float, T>(e, rtol, atol, equal_nan, exact_only);
    } else {
      return isclose_as<T, T>(e, rtol, atol, equal_nan, exact_only);
    }
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
