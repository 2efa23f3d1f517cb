// Unary kernels besides the floating functions: rounding (floor, ceil,
// round half to even, trunc, frac, round to decimals), sign, logical_not,
// bitwise_not and the value tests isnan/isinf/isfinite, each as its CPU
// kernel in tensor/unary.cc and tensor/compare.cc.
//
// The bool-valued tests share one kernel per dtype that picks the test at
// run time (a uniform branch), to keep the instantiations few.

#include <type_traits>

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <RoundOp kOp>
__device__ __forceinline__ float rounded(float x) {
  switch (kOp) {
    case RoundOp::kFloor: return floorf(x);
    case RoundOp::kCeil: return ceilf(x);
    case RoundOp::kRound: return rintf(x);  // half to even, as nearbyint
    case RoundOp::kTrunc: return truncf(x);
    default: return x - truncf(x);  // kFrac
  }
}
template <RoundOp kOp>
__device__ __forceinline__ double rounded(double x) {
  switch (kOp) {
    case RoundOp::kFloor: return floor(x);
    case RoundOp::kCeil: return ceil(x);
    case RoundOp::kRound: return rint(x);
    case RoundOp::kTrunc: return trunc(x);
    default: return x - trunc(x);
  }
}

template <typename T, RoundOp kOp>
struct RoundFn {
  __device__ T operator()(T a) const {
    return static_cast<T>(rounded<kOp>(static_cast<opmath_t<T>>(a)));
  }
};

template <RoundOp kOp>
cudaError_t round_op(DType dtype, const Elementwise& e) {
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_unary<T, T>(e, RoundFn<T, kOp>{});
  });
}

__device__ __forceinline__ float round_even(float x) { return rintf(x); }
__device__ __forceinline__ double round_even(double x) { return rint(x); }

template <typename T>
struct RoundDecimalsFn {
  opmath_t<T> ten_pow;
  bool neg;
  __device__ T operator()(T a) const {
    const opmath_t<T> x = static_cast<opmath_t<T>>(a);
    return static_cast<T>(neg ? round_even(x / ten_pow) * ten_pow
                              : round_even(x * ten_pow) / ten_pow);
  }
};

// (0 < x) - (x < 0) in the opmath type: NaN gives 0.
template <typename T>
struct SignFn {
  __device__ T operator()(T in) const {
    using acc = opmath_t<T>;
    const acc a = static_cast<acc>(in);
    if constexpr (std::is_unsigned<T>::value) {
      return static_cast<T>(acc(0) < a);
    } else {
      return static_cast<T>(static_cast<acc>((acc(0) < a) - (a < acc(0))));
    }
  }
};
struct BoolIdentityFn {
  __device__ bool operator()(bool a) const { return a; }
};

template <typename T>
struct BitwiseNotFn {
  __device__ T operator()(T a) const { return static_cast<T>(~a); }
};
struct BoolNotFn {
  __device__ bool operator()(bool a) const { return !a; }
};

// logical_not and the value tests: integers and bool are never NaN or
// infinite.
template <typename T>
struct TestFn {
  MiscUnaryOp op;
  __device__ bool operator()(T in) const {
    const opmath_t<T> x = static_cast<opmath_t<T>>(in);
    if (op == MiscUnaryOp::kLogicalNot) return !(x != opmath_t<T>(0));
    if constexpr (std::is_integral<T>::value) {
      return op == MiscUnaryOp::kIsfinite;
    } else {
      switch (op) {
        case MiscUnaryOp::kIsnan: return is_nan(x);
        case MiscUnaryOp::kIsinf: return is_inf(x);
        default: return !is_nan(x) && !is_inf(x);  // kIsfinite
      }
    }
  }
};

}  // namespace

cudaError_t launch_round(RoundOp op, DType dtype, const Elementwise& e) {
  switch (op) {
    case RoundOp::kFloor: return round_op<RoundOp::kFloor>(dtype, e);
    case RoundOp::kCeil: return round_op<RoundOp::kCeil>(dtype, e);
    case RoundOp::kRound: return round_op<RoundOp::kRound>(dtype, e);
    case RoundOp::kTrunc: return round_op<RoundOp::kTrunc>(dtype, e);
    case RoundOp::kFrac: return round_op<RoundOp::kFrac>(dtype, e);
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_round_decimals(DType dtype, const Elementwise& e, double ten_pow, bool neg) {
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // Converted to the opmath type as the CPU kernel does.
    return run_unary<T, T>(e, RoundDecimalsFn<T>{static_cast<opmath_t<T>>(ten_pow), neg});
  });
}

cudaError_t launch_misc_unary(MiscUnaryOp op, DType dtype, const Elementwise& e) {
  switch (op) {
    case MiscUnaryOp::kSign:
      if (dtype == DType::kBool) return run_unary<bool, bool>(e, BoolIdentityFn{});
      return dispatch<kNumericKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_unary<T, T>(e, SignFn<T>{});
      });
    case MiscUnaryOp::kBitwiseNot:
      if (dtype == DType::kBool) return run_unary<bool, bool>(e, BoolNotFn{});
      return dispatch<kIntegralKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_unary<T, T>(e, BitwiseNotFn<T>{});
      });
    case MiscUnaryOp::kLogicalNot:
    case MiscUnaryOp::kIsnan:
    case MiscUnaryOp::kIsinf:
    case MiscUnaryOp::kIsfinite:
      return dispatch<kAllKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_unary<bool, T>(e, TestFn<T>{op});
      });
  }
  return cudaErrorInvalidValue;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
