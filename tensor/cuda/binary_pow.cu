// pow: tensor ** tensor and tensor ** number, as the CPU kernels in
// tensor/pointwise.cc. Integer powers are exact (by squaring, wrapping on
// overflow); a floating number exponent takes the CPU's fast paths for the
// same exponents (they round differently from pow), and float and double
// tensors ** a number are evaluated in double, as on the CPU.

#include <type_traits>

#include "tensor/cuda/elementwise.cuh"
#include "tensor/int_pow.h"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

using ::ember::detail::powi;  // tensor/int_pow.h, shared with the CPU kernel

__device__ __forceinline__ float pow_(float a, float b) { return powf(a, b); }
__device__ __forceinline__ double pow_(double a, double b) { return pow(a, b); }
__device__ __forceinline__ float sqrt_(float a) { return sqrtf(a); }
__device__ __forceinline__ double sqrt_(double a) { return sqrt(a); }

template <typename T>
struct PowFn {
  __device__ T operator()(T a, T b) const {
    if constexpr (std::is_integral<T>::value) {
      return powi(a, b);
    } else {
      using A = opmath_t<T>;
      return static_cast<T>(pow_(static_cast<A>(a), static_cast<A>(b)));
    }
  }
};

template <typename T>
struct PowIntScalarFn {
  T e;
  __device__ T operator()(T a) const { return powi(a, e); }
};

// The floating exponent's path, picked once on the host (a uniform branch
// in the kernel instead of one kernel per path).
enum class PowPath : int { kSqrt, kRsqrt, kReciprocal, kSquare, kCube, kRsquare, kGeneral };

template <typename T>
struct PowFloatScalarFn {
  PowPath path;
  double e;                // float and double: pow in double, as the CPU
  opmath_t<T> e_in_dtype;  // half and bfloat16: pow in float, of the rounded exponent
  __device__ T operator()(T in) const {
    using A = opmath_t<T>;
    const A a = static_cast<A>(in);
    switch (path) {
      case PowPath::kSqrt: return static_cast<T>(sqrt_(a));
      case PowPath::kRsqrt: return static_cast<T>(A(1) / sqrt_(a));
      case PowPath::kReciprocal: return static_cast<T>(A(1) / a);
      case PowPath::kSquare: return static_cast<T>(a * a);
      case PowPath::kCube: return static_cast<T>(a * a * a);
      case PowPath::kRsquare: return static_cast<T>(A(1) / (a * a));
      default:
        if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
          return static_cast<T>(pow(static_cast<double>(a), e));
        } else {
          return static_cast<T>(pow_(a, e_in_dtype));
        }
    }
  }
};

PowPath pow_path(double e) {
  if (e == 0.5) return PowPath::kSqrt;
  if (e == -0.5) return PowPath::kRsqrt;
  if (e == -1.0) return PowPath::kReciprocal;
  if (e == 2.0) return PowPath::kSquare;
  if (e == 3.0) return PowPath::kCube;
  if (e == -2.0) return PowPath::kRsquare;
  return PowPath::kGeneral;
}

}  // namespace

cudaError_t launch_pow(DType dtype, const Elementwise& e) {
  return dispatch<kNumericKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_binary<T, T>(e, PowFn<T>{});
  });
}

cudaError_t launch_pow_scalar(DType dtype, const Elementwise& e, ScalarBits int_exp, double exp,
                              double exp_in_dtype) {
  return dispatch<kNumericKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral<T>::value) {
      return run_unary<T, T>(e, PowIntScalarFn<T>{from_bits<T>(int_exp)});
    } else {
      // float16 ** +-0.5 is pow, as on the CPU (tensor/pointwise.cc).
      PowPath path = pow_path(exp);
      if (std::is_same<T, __half>::value && (path == PowPath::kSqrt || path == PowPath::kRsqrt)) {
        path = PowPath::kGeneral;
      }
      return run_unary<T, T>(
          e, PowFloatScalarFn<T>{path, exp, static_cast<opmath_t<T>>(exp_in_dtype)});
    }
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
