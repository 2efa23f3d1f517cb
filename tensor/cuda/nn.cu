// softmax / log_softmax and nll_loss: what a classifier's loss needs
// (cross_entropy is log_softmax + nll_loss). One thread per line or per
// sample: simple and right for class counts up to a few thousand; long
// rows would want a block per row (not done yet).

#include <cuda/std/limits>

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename A>
__device__ __forceinline__ A exp_of(A x) {
  if constexpr (sizeof(A) == 4) {
    return expf(x);
  } else {
    return exp(x);
  }
}
template <typename A>
__device__ __forceinline__ A log_of(A x) {
  if constexpr (sizeof(A) == 4) {
    return logf(x);
  } else {
    return log(x);
  }
}

template <typename T, bool kLog>
__global__ void softmax_lines(const T* x, T* y, int64_t outer, int64_t len, int64_t inner) {
  using A = opmath_t<T>;
  for (int64_t line = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; line < outer * inner;
       line += int64_t{blockDim.x} * gridDim.x) {
    const int64_t o = line / inner, j = line % inner;
    const T* xr = x + o * len * inner + j;
    T* yr = y + o * len * inner + j;
    A mx = -::cuda::std::numeric_limits<A>::infinity();
    for (int64_t l = 0; l < len; ++l) {
      const A v = static_cast<A>(xr[l * inner]);
      mx = (v > mx || v != v) ? v : mx;
    }
    A sum = 0;
    for (int64_t l = 0; l < len; ++l) sum += exp_of(static_cast<A>(xr[l * inner]) - mx);
    const A norm = kLog ? log_of(sum) : A(1) / sum;
    for (int64_t l = 0; l < len; ++l) {
      const A d = static_cast<A>(xr[l * inner]) - mx;
      yr[l * inner] = static_cast<T>(kLog ? d - norm : exp_of(d) * norm);
    }
  }
}

template <typename T>
__global__ void nll_forward(const T* x, const int64_t* t, const T* w, T* loss, T* weight,
                            int64_t* bad, int64_t n, int64_t c, int64_t k, int64_t ignore) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n * k;
       i += int64_t{blockDim.x} * gridDim.x) {
    const int64_t s = i / k, kk = i % k, cls = t[i];
    T l = T(0), wt = T(0);
    if (cls != ignore) {
      if (cls < 0 || cls >= c) {
        if (atomicCAS(reinterpret_cast<unsigned long long*>(bad), 0ULL, 1ULL) == 0ULL) {
          bad[1] = cls;
        }
      } else {
        wt = w ? w[cls] : T(1);
        l = -wt * x[(s * c + cls) * k + kk];
      }
    }
    loss[i] = l;
    weight[i] = wt;
  }
}

template <typename T>
__global__ void nll_backward(const T* gy, bool per_element, const T* divisor, const int64_t* t,
                             const T* w, T* gx, int64_t n, int64_t c, int64_t k, int64_t ignore) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n * k;
       i += int64_t{blockDim.x} * gridDim.x) {
    const int64_t s = i / k, kk = i % k, cls = t[i];
    if (cls == ignore || cls < 0 || cls >= c) continue;
    const T g = per_element ? gy[i] : (divisor ? gy[0] / divisor[0] : gy[0]);
    gx[(s * c + cls) * k + kk] = -(w ? w[cls] : T(1)) * g;
  }
}

}  // namespace

cudaError_t launch_softmax(bool log, DType dtype, const void* x, void* y, int64_t outer,
                           int64_t len, int64_t inner) {
  if (outer * inner == 0) return cudaSuccess;
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = static_cast<const T*>(x);
    T* yp = static_cast<T*>(y);
    if (log) {
      softmax_lines<T, true><<<grid_for(outer * inner), kBlockThreads>>>(xp, yp, outer, len, inner);
    } else {
      softmax_lines<T, false><<<grid_for(outer * inner), kBlockThreads>>>(xp, yp, outer, len, inner);
    }
    return cudaGetLastError();
  });
}

// nll_loss is float and double only, as on the CPU.
cudaError_t launch_nll_forward(DType dtype, const void* x, const int64_t* t, const void* w,
                               void* loss, void* weight, int64_t* bad, int64_t n, int64_t c,
                               int64_t k, int64_t ignore_index) {
  if (n * k == 0) return cudaSuccess;
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    nll_forward<T><<<grid_for(n * k), kBlockThreads>>>(
        static_cast<const T*>(x), t, static_cast<const T*>(w), static_cast<T*>(loss),
        static_cast<T*>(weight), bad, n, c, k, ignore_index);
    return cudaGetLastError();
  };
  if (dtype == DType::kFloat) return run(Tag<float>{});
  if (dtype == DType::kDouble) return run(Tag<double>{});
  return cudaErrorInvalidValue;
}

cudaError_t launch_nll_backward(DType dtype, const void* gy, bool per_element,
                                const void* divisor, const int64_t* t, const void* w, void* gx,
                                int64_t n, int64_t c, int64_t k, int64_t ignore_index) {
  if (n * k == 0) return cudaSuccess;
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    nll_backward<T><<<grid_for(n * k), kBlockThreads>>>(
        static_cast<const T*>(gy), per_element, static_cast<const T*>(divisor), t,
        static_cast<const T*>(w), static_cast<T*>(gx), n, c, k, ignore_index);
    return cudaGetLastError();
  };
  if (dtype == DType::kFloat) return run(Tag<float>{});
  if (dtype == DType::kDouble) return run(Tag<double>{});
  return cudaErrorInvalidValue;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
