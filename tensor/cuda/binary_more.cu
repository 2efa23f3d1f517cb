// Binary kernels beyond binary.cu's: the rounding divisions and remainders
// (tensor/binary.cc), atan2 and fmax/fmin (tensor/pointwise.cc), each the
// CPU kernel's arithmetic in the same opmath type. fmod, floor and copysign
// are exact, so the rounding divisions and remainders match the CPU to the
// bit.

#include <type_traits>

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

__device__ __forceinline__ float fmod_(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double fmod_(double a, double b) { return fmod(a, b); }
__device__ __forceinline__ float trunc_(float a) { return truncf(a); }
__device__ __forceinline__ double trunc_(double a) { return trunc(a); }
__device__ __forceinline__ float floor_(float a) { return floorf(a); }
__device__ __forceinline__ double floor_(double a) { return floor(a); }
__device__ __forceinline__ float copysign_(float a, float b) { return copysignf(a, b); }
__device__ __forceinline__ double copysign_(double a, double b) { return copysign(a, b); }

// x < 0, without the compiler's warning for unsigned types.
template <typename T>
__device__ __forceinline__ bool is_neg(T x) {
  if constexpr (std::is_unsigned<T>::value) {
    return false;
  } else {
    return x < 0;
  }
}

// Integer divisions: a zero divisor flags the error (the host raises
// ZeroDivisionError) and writes 0.
template <typename T, DivModOp kOp>
struct IntDivFn {
  int32_t* zero_div;
  __device__ T operator()(T a, T b) const {
    if (b == 0) {
      *zero_div = 1;
      return T(0);
    }
    switch (kOp) {
      case DivModOp::kTrunc: return static_cast<T>(a / b);
      case DivModOp::kFloor:
        if (is_neg(a) != is_neg(b)) {
          const T q = static_cast<T>(a / b);
          const T r = static_cast<T>(a % b);
          return r ? static_cast<T>(q - 1) : q;
        }
        return static_cast<T>(a / b);
      case DivModOp::kRemainder: {
        T r = static_cast<T>(a % b);
        if (r != 0 && is_neg(r) != is_neg(b)) r = static_cast<T>(r + b);
        return r;
      }
      default: return static_cast<T>(a % b);  // kFmod
    }
  }
};

// PyTorch's div_floor_floating, as the CPU's div_floor_floating.
template <typename A>
__device__ __forceinline__ A div_floor_floating(A a, A b) {
  if (b == 0) return a / b;
  const A mod = fmod_(a, b);
  A div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= A(1);
  A floordiv;
  if (div != 0) {
    floordiv = floor_(div);
    if (div - floordiv > A(0.5)) floordiv += A(1);
  } else {
    floordiv = copysign_(A(0), a / b);
  }
  return floordiv;
}

template <typename T, DivModOp kOp>
struct FloatDivFn {
  __device__ T operator()(T a_, T b_) const {
    using A = opmath_t<T>;
    const A a = static_cast<A>(a_), b = static_cast<A>(b_);
    switch (kOp) {
      case DivModOp::kTrunc: {
        const T q = static_cast<T>(a / b);  // rounded to T before truncating, as the CPU
        return static_cast<T>(trunc_(static_cast<A>(q)));
      }
      case DivModOp::kFloor: return static_cast<T>(div_floor_floating<A>(a, b));
      case DivModOp::kRemainder: {
        A m = fmod_(a, b);
        if (m != 0 && ((b < 0) != (m < 0))) m += b;
        return static_cast<T>(m);
      }
      default: return static_cast<T>(fmod_(a, b));
    }
  }
};

template <DivModOp kOp>
cudaError_t div_op(DType dtype, const Elementwise& e, int32_t* zero_div) {
  return dispatch<kNumericKinds>(dtype, [&](auto tag) -> cudaError_t {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral<T>::value) {
      if (zero_div == nullptr) return cudaErrorInvalidValue;
      return run_binary<T, T>(e, IntDivFn<T, kOp>{zero_div});
    } else {
      return run_binary<T, T>(e, FloatDivFn<T, kOp>{});
    }
  });
}

__device__ __forceinline__ float atan2_(float a, float b) { return atan2f(a, b); }
__device__ __forceinline__ double atan2_(double a, double b) { return atan2(a, b); }

template <typename T>
struct Atan2Fn {
  __device__ T operator()(T a, T b) const {
    using A = opmath_t<T>;
    return static_cast<T>(atan2_(static_cast<A>(a), static_cast<A>(b)));
  }
};

// fmax / fmin: for floating types a NaN loses to a number (CUDA's fmax and
// fmin, as std::fmax / std::fmin); integers and bool as std::max / std::min.
template <typename T, bool kMax>
struct FminmaxFn {
  __device__ T operator()(T a, T b) const {
    using A = opmath_t<T>;
    if constexpr (std::is_same<T, bool>::value) {
      return kMax ? (a || b) : (a && b);
    } else if constexpr (std::is_integral<T>::value) {
      return kMax ? (a < b ? b : a) : (b < a ? b : a);
    } else if constexpr (std::is_same<A, float>::value) {
      const A x = static_cast<A>(a), y = static_cast<A>(b);
      return static_cast<T>(kMax ? fmaxf(x, y) : fminf(x, y));
    } else {
      return kMax ? fmax(a, b) : fmin(a, b);
    }
  }
};

}  // namespace

cudaError_t launch_div(DivModOp op, DType dtype, const Elementwise& e, int32_t* zero_div) {
  switch (op) {
    case DivModOp::kTrunc: return div_op<DivModOp::kTrunc>(dtype, e, zero_div);
    case DivModOp::kFloor: return div_op<DivModOp::kFloor>(dtype, e, zero_div);
    case DivModOp::kRemainder: return div_op<DivModOp::kRemainder>(dtype, e, zero_div);
    case DivModOp::kFmod: return div_op<DivModOp::kFmod>(dtype, e, zero_div);
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_binary_math(BinaryMathOp op, DType dtype, const Elementwise& e) {
  switch (op) {
    case BinaryMathOp::kAtan2:
      return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_binary<T, T>(e, Atan2Fn<T>{});
      });
    case BinaryMathOp::kFmax:
      return dispatch<kAllKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_binary<T, T>(e, FminmaxFn<T, true>{});
      });
    case BinaryMathOp::kFmin:
      return dispatch<kAllKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_binary<T, T>(e, FminmaxFn<T, false>{});
      });
  }
  return cudaErrorInvalidValue;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
