// Note [Fused gelu] on CUDA: PyTorch's gelu and gelu_backward formulas, one
// elementwise kernel each, in float for half/bfloat16 (rounded once); and
// Note [Fused relu backward]'s threshold_backward.

#include <cmath>
#include <type_traits>

#include "tensor/cuda/activation_kernels.h"
#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

constexpr double kBeta = M_SQRT2 * M_2_SQRTPI * 0.5;  // sqrt(2 / pi)
constexpr double kKappa = 0.044715;
constexpr double kAlpha = M_2_SQRTPI * M_SQRT1_2 * 0.5;  // 1 / sqrt(2 pi)

template <typename A>
__device__ __forceinline__ A erf_of(A x) {
  if constexpr (std::is_same<A, float>::value) {
    return erff(x);
  } else {
    return erf(x);
  }
}
template <typename A>
__device__ __forceinline__ A tanh_of(A x) {
  if constexpr (std::is_same<A, float>::value) {
    return tanhf(x);
  } else {
    return tanh(x);
  }
}
template <typename A>
__device__ __forceinline__ A exp_of(A x) {
  if constexpr (std::is_same<A, float>::value) {
    return expf(x);
  } else {
    return exp(x);
  }
}

template <typename T>
struct Gelu {
  bool tanh_approximation;
  __device__ T operator()(T in) const {
    using A = opmath_t<T>;
    const A x = static_cast<A>(in);
    if (tanh_approximation) {
      const A inner = static_cast<A>(kBeta) * (x + static_cast<A>(kKappa) * x * x * x);
      return static_cast<T>(A(0.5) * x * (A(1) + tanh_of(inner)));
    }
    return static_cast<T>(x * A(0.5) * (A(1) + erf_of(x * static_cast<A>(M_SQRT1_2))));
  }
};

template <typename T>
struct GeluBackward {
  bool tanh_approximation;
  __device__ T operator()(T grad, T in) const {
    using A = opmath_t<T>;
    const A x = static_cast<A>(in), g = static_cast<A>(grad);
    if (tanh_approximation) {
      const A x_sq = x * x;
      const A inner = static_cast<A>(kBeta) * (x + static_cast<A>(kKappa) * x_sq * x);
      const A t = tanh_of(inner);
      const A left = A(0.5) * x, right = A(1) + t;
      const A inner_derivative =
          static_cast<A>(kBeta) * (A(1) + A(3) * static_cast<A>(kKappa) * x_sq);
      return static_cast<T>(g * (A(0.5) * right + left * (A(1) - t * t) * inner_derivative));
    }
    const A cdf = A(0.5) * (A(1) + erf_of(x * static_cast<A>(M_SQRT1_2)));
    const A pdf = exp_of(A(-0.5) * x * x) * static_cast<A>(kAlpha);
    return static_cast<T>(g * (cdf + x * pdf));
  }
};

template <typename T>
struct ThresholdBackward {
  opmath_t<T> threshold;
  __device__ T operator()(T grad, T self) const {
    return static_cast<opmath_t<T>>(self) <= threshold ? T(0) : grad;
  }
};

}  // namespace

cudaError_t launch_threshold_backward(DType dtype, const Elementwise& e, ScalarBits threshold) {
  return dispatch<kNumericKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_binary<T, T>(
        e, ThresholdBackward<T>{static_cast<opmath_t<T>>(from_bits<T>(threshold))});
  });
}

cudaError_t launch_gelu(DType dtype, const Elementwise& e, bool tanh_approximation) {
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_unary<T, T>(e, Gelu<T>{tanh_approximation});
  });
}

cudaError_t launch_gelu_backward(DType dtype, const Elementwise& e, bool tanh_approximation) {
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_binary<T, T>(e, GeluBackward<T>{tanh_approximation});
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
