// Unary elementwise kernels: floating functions (computed in float for half
// and bfloat16), neg/abs, and clamp against a scalar (relu is clamp_min 0).

#include <type_traits>

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

// The float or double overload of each CUDA math function.
template <UnaryOp kOp>
__device__ __forceinline__ float math(float x) {
  switch (kOp) {
    case UnaryOp::kSqrt: return sqrtf(x);
    case UnaryOp::kRsqrt: return rsqrtf(x);
    case UnaryOp::kExp: return expf(x);
    case UnaryOp::kLog: return logf(x);
    case UnaryOp::kLog1p: return log1pf(x);
    case UnaryOp::kSin: return sinf(x);
    case UnaryOp::kCos: return cosf(x);
    case UnaryOp::kTanh: return tanhf(x);
    case UnaryOp::kSigmoid: return 1.0f / (1.0f + expf(-x));
    default: return 1.0f / x;  // kReciprocal
  }
}
template <UnaryOp kOp>
__device__ __forceinline__ double math(double x) {
  switch (kOp) {
    case UnaryOp::kSqrt: return sqrt(x);
    case UnaryOp::kRsqrt: return rsqrt(x);
    case UnaryOp::kExp: return exp(x);
    case UnaryOp::kLog: return log(x);
    case UnaryOp::kLog1p: return log1p(x);
    case UnaryOp::kSin: return sin(x);
    case UnaryOp::kCos: return cos(x);
    case UnaryOp::kTanh: return tanh(x);
    case UnaryOp::kSigmoid: return 1.0 / (1.0 + exp(-x));
    default: return 1.0 / x;
  }
}

template <typename T, UnaryOp kOp>
struct FloatingOp {
  __device__ T operator()(T a) const {
    return static_cast<T>(math<kOp>(static_cast<opmath_t<T>>(a)));
  }
};

template <typename T>
struct NegOp {
  __device__ T operator()(T a) const { return static_cast<T>(-static_cast<opmath_t<T>>(a)); }
};

template <typename T>
struct AbsOp {
  __device__ T operator()(T a) const {
    const opmath_t<T> x = static_cast<opmath_t<T>>(a);
    if constexpr (std::is_unsigned<T>::value) {
      return a;
    } else {
      return static_cast<T>(x < 0 ? -x : x);
    }
  }
};
struct BoolAbsOp {
  __device__ bool operator()(bool a) const { return a; }
};

// max(a, bound) / min(a, bound) as the CPU's clamp: NaN input stays NaN.
template <typename T, bool kMin>
struct ClampOp {
  opmath_t<T> bound;
  __device__ T operator()(T a) const {
    const opmath_t<T> x = static_cast<opmath_t<T>>(a);
    return static_cast<T>((kMin ? x < bound : bound < x) ? bound : x);
  }
};

template <UnaryOp kOp>
cudaError_t floating(DType dtype, const Elementwise& e) {
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_unary<T, T>(e, FloatingOp<T, kOp>{});
  });
}

template <bool kMin>
cudaError_t clamp(DType dtype, const Elementwise& e, double bound) {
  return dispatch<kNumericKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // The bound is first converted to the tensor's dtype, as on the CPU.
    const opmath_t<T> b = static_cast<opmath_t<T>>(static_cast<T>(bound));
    return run_unary<T, T>(e, ClampOp<T, kMin>{b});
  });
}

}  // namespace

cudaError_t launch_unary(UnaryOp op, DType dtype, const Elementwise& e, double scalar) {
  switch (op) {
    case UnaryOp::kNeg:
      return dispatch<kNumericKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_unary<T, T>(e, NegOp<T>{});
      });
    case UnaryOp::kAbs:
      if (dtype == DType::kBool) return run_unary<bool, bool>(e, BoolAbsOp{});
      return dispatch<kNumericKinds>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return run_unary<T, T>(e, AbsOp<T>{});
      });
    case UnaryOp::kSqrt: return floating<UnaryOp::kSqrt>(dtype, e);
    case UnaryOp::kRsqrt: return floating<UnaryOp::kRsqrt>(dtype, e);
    case UnaryOp::kExp: return floating<UnaryOp::kExp>(dtype, e);
    case UnaryOp::kLog: return floating<UnaryOp::kLog>(dtype, e);
    case UnaryOp::kLog1p: return floating<UnaryOp::kLog1p>(dtype, e);
    case UnaryOp::kSin: return floating<UnaryOp::kSin>(dtype, e);
    case UnaryOp::kCos: return floating<UnaryOp::kCos>(dtype, e);
    case UnaryOp::kTanh: return floating<UnaryOp::kTanh>(dtype, e);
    case UnaryOp::kSigmoid: return floating<UnaryOp::kSigmoid>(dtype, e);
    case UnaryOp::kReciprocal: return floating<UnaryOp::kReciprocal>(dtype, e);
    case UnaryOp::kClampMin: return clamp<true>(dtype, e, scalar);
    case UnaryOp::kClampMax: return clamp<false>(dtype, e, scalar);
  }
  return cudaErrorInvalidValue;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
