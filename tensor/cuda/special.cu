// The kernels of tensor/special.h's ops and reduce_ops.h's igamma/igammac:
// the arithmetic is tensor/special_math.h's, the same code the CPU kernels
// run, in the same opmath type (half and bfloat16 in float), so the devices
// agree to rounding (the CUDA math library's sin/exp/lgamma differ from
// glibc's by an ulp or so).

#include <type_traits>

#include "tensor/cuda/elementwise.cuh"
#include "tensor/special_math.h"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
struct SpecialFn {
  SpecialOp op;
  int64_t n;  // polygamma's order
  __device__ T operator()(T in) const {
    using A = opmath_t<T>;
    const A x = static_cast<A>(in);
    switch (op) {
      case SpecialOp::kErfinv:
        return static_cast<T>(special::erfinv(x));
      case SpecialOp::kLgamma:
        return static_cast<T>(lgamma(x));
      case SpecialOp::kDigamma:
        return static_cast<T>(special::digamma(x));
      case SpecialOp::kI0:
        return static_cast<T>(special::i0(x));
      case SpecialOp::kI1:
        return static_cast<T>(special::i1(x));
      case SpecialOp::kSinc:
        return static_cast<T>(special::sinc(x));
      default:
        return static_cast<T>(special::polygamma(n, x));  // kPolygamma
    }
  }
};

template <typename T>
struct SignbitFn {
  __device__ bool operator()(T in) const {
    if constexpr (std::is_same<T, bool>::value || std::is_unsigned<T>::value) {
      return false;
    } else if constexpr (std::is_integral<T>::value) {
      return in < 0;
    } else {
      return signbit(static_cast<opmath_t<T>>(in));
    }
  }
};

template <typename T>
struct FloatBinaryFn {
  SpecialBinaryOp op;
  __device__ T operator()(T a_in, T b_in) const {
    using A = opmath_t<T>;
    const A a = static_cast<A>(a_in), b = static_cast<A>(b_in);
    switch (op) {
      case SpecialBinaryOp::kCopysign:
        return static_cast<T>(copysign(a, b));
      case SpecialBinaryOp::kHypot:
        return static_cast<T>(hypot(a, b));
      case SpecialBinaryOp::kIgamma:
        return static_cast<T>(special::igamma(a, b));
      case SpecialBinaryOp::kIgammac:
        return static_cast<T>(special::igammac(a, b));
      default:  // kNextafter
        if constexpr (std::is_same<T, __nv_bfloat16>::value) {
          return static_cast<T>(special::nextafter_bfloat16(a, b));
        } else {
          return static_cast<T>(nextafter(a, b));
        }
    }
  }
};

template <typename T>
struct IntBinaryFn {
  SpecialBinaryOp op;
  __device__ T operator()(T a, T b) const {
    switch (op) {
      case SpecialBinaryOp::kGcd:
        return special::gcd(a, b);
      case SpecialBinaryOp::kLcm:
        return special::lcm(a, b);
      case SpecialBinaryOp::kLshift:
        return special::shift_left(a, b);
      default:
        return special::shift_right(a, b);  // kRshift
    }
  }
};

}  // namespace

cudaError_t launch_special(SpecialOp op, int64_t n, DType dtype, const Elementwise& e) {
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_unary<T, T>(e, SpecialFn<T>{op, n});
  });
}

cudaError_t launch_signbit(DType dtype, const Elementwise& e) {
  return dispatch<kAllKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_unary<bool, T>(e, SignbitFn<T>{});
  });
}

cudaError_t launch_special_binary(SpecialBinaryOp op, DType dtype, const Elementwise& e) {
  switch (op) {
    case SpecialBinaryOp::kCopysign:
    case SpecialBinaryOp::kHypot:
    case SpecialBinaryOp::kIgamma:
    case SpecialBinaryOp::kIgammac:
      return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_binary<T, T>(e, FloatBinaryFn<T>{op});
      });
    case SpecialBinaryOp::kNextafter:
      if (dtype == DType::kHalf) return cudaErrorInvalidValue;  // as PyTorch 1.13
      return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_binary<T, T>(e, FloatBinaryFn<T>{op});
      });
    default:
      return dispatch<kIntegralKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_binary<T, T>(e, IntBinaryFn<T>{op});
      });
  }
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
