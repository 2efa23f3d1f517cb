// Device-side running statistics shared by the normalization kernels
// (batch_norm.cu, layer_norm.cu; nvcc only): the accumulation type, Welford's
// update, Chan's merge, and a block-wide merge through shared memory.

#ifndef EMBER_TENSOR_CUDA_WELFORD_CUH_
#define EMBER_TENSOR_CUDA_WELFORD_CUH_

#include <cuda_runtime.h>

#include <type_traits>

namespace ember {
namespace cuda {
namespace kernels {

// float for float, float16 and bfloat16; double for double.
template <typename T>
using norm_acc_t = std::conditional_t<std::is_same<T, double>::value, double, float>;

template <typename A>
__device__ __forceinline__ A fast_divide(A a, A b) {
  if constexpr (std::is_same<A, float>::value) {
    return __fdividef(a, b);
  } else {
    return a / b;
  }
}

// Running mean and sum of squared deviations over n values (n in A: the
// counts stay far below float's exact-integer limit per thread).
template <typename A>
struct WelfordState {
  A mean = 0, m2 = 0, n = 0;

  __device__ __forceinline__ void add(A v) {
    n += A(1);
    const A d = v - mean;
    mean += fast_divide(d, n);
    m2 += d * (v - mean);
  }
  // Chan's merge of b into this.
  __device__ __forceinline__ void merge(A mean_b, A m2_b, A n_b) {
    if (n_b == A(0)) return;
    const A total = n + n_b;
    const A d = mean_b - mean;
    const A w = n_b / total;
    mean += d * w;
    m2 += m2_b + d * d * n * w;
    n = total;
  }
};

// Merges every thread's state of a block of kThreads (a power of two)
// threads, flat index t, in a fixed tree; the result is returned to all.
template <int kThreads, typename A>
__device__ WelfordState<A> block_merge(WelfordState<A> s, int t) {
  __shared__ A sm[kThreads], s2[kThreads], sn[kThreads];
  sm[t] = s.mean;
  s2[t] = s.m2;
  sn[t] = s.n;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half >>= 1) {
    if (t < half) {
      WelfordState<A> a{sm[t], s2[t], sn[t]};
      a.merge(sm[t + half], s2[t + half], sn[t + half]);
      sm[t] = a.mean;
      s2[t] = a.m2;
      sn[t] = a.n;
    }
    __syncthreads();
  }
  WelfordState<A> r{sm[0], s2[0], sn[0]};
  __syncthreads();  // the arrays may be reused by the caller's next merge
  return r;
}

// The sums of two values over a block, in a fixed tree; returned to all.
template <int kThreads, typename A>
__device__ void block_sum2(A& a, A& b, int t) {
  __shared__ A sa[kThreads], sb[kThreads];
  sa[t] = a;
  sb[t] = b;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half >>= 1) {
    if (t < half) {
      sa[t] += sa[t + half];
      sb[t] += sb[t + half];
    }
    __syncthreads();
  }
  a = sa[0];
  b = sb[0];
  __syncthreads();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_WELFORD_CUH_
