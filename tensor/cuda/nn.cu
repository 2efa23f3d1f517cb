// softmax / log_softmax and nll_loss (what a classifier's loss needs:
// cross_entropy is log_softmax + nll_loss) and max_pool2d. softmax over the
// last dim runs a block per row (its reads coalesce); over another dim one
// thread per line, adjacent threads reading adjacent columns. nll_loss and
// the pools run one thread per sample or output.

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

// The block's max (kMax) or sum of v, in every thread. `shared` holds one
// value per warp; the trailing barrier lets the caller reuse it.
template <bool kMax, typename A>
__device__ A block_all_reduce(A v, A* shared) {
  for (int s = 16; s > 0; s /= 2) {
    const A o = __shfl_xor_sync(0xffffffffu, v, s);
    v = kMax ? nan_max(v, o) : v + o;
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  v = shared[0];
  for (int w = 1; w < warps; ++w) v = kMax ? nan_max(v, shared[w]) : v + shared[w];
  __syncthreads();
  return v;
}

// Softmax over the last dim: one block per row.
template <typename T, bool kLog>
__global__ void softmax_rows(const T* x, T* y, int64_t rows, int64_t len) {
  using A = opmath_t<T>;
  __shared__ A shared[kBlockThreads / 32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * len;
    T* yr = y + row * len;
    A mx = -::cuda::std::numeric_limits<A>::infinity();
    for (int64_t l = threadIdx.x; l < len; l += blockDim.x) mx = nan_max(mx, static_cast<A>(xr[l]));
    mx = block_all_reduce<true>(mx, shared);
    A sum = 0;
    for (int64_t l = threadIdx.x; l < len; l += blockDim.x) {
      sum += exp_of(static_cast<A>(xr[l]) - mx);
    }
    sum = block_all_reduce<false>(sum, shared);
    const A norm = kLog ? log_of(sum) : A(1) / sum;
    for (int64_t l = threadIdx.x; l < len; l += blockDim.x) {
      const A d = static_cast<A>(xr[l]) - mx;
      yr[l] = static_cast<T>(kLog ? d - norm : exp_of(d) * norm);
    }
  }
}

template <typename T>
__global__ void nll_forward(const T* x, const int64_t* t, const T* w, T* loss, T* weight,
                            IndexErrorRecord* bad, int64_t n, int64_t c, int64_t k,
                            int64_t ignore) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n * k;
       i += int64_t{blockDim.x} * gridDim.x) {
    const int64_t s = i / k, kk = i % k, cls = t[i];
    T l = T(0), wt = T(0);
    if (cls != ignore) {
      if (cls < 0 || cls >= c) {
        if (atomicCAS(&bad->flag, 0, 1) == 0) {
          bad->check = kNllTargetCheck;
          bad->value = cls;
          bad->dim = 0;
          bad->bound = c;
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

template <typename T>
__global__ void max_pool_kernel(const T* x, T* out, int64_t* idx, PoolWindow p) {
  const int64_t total = p.planes * p.oh * p.ow;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{blockDim.x} * gridDim.x) {
    const int64_t ox = i % p.ow, oy = (i / p.ow) % p.oh, pl = i / (p.ow * p.oh);
    const T* in = x + pl * p.h * p.w;
    int64_t y0 = oy * p.sh - p.ph;
    const int64_t y1 = min(y0 + (p.kh - 1) * p.dh + 1, p.h);
    while (y0 < 0) y0 += p.dh;
    int64_t x0 = ox * p.sw - p.pw;
    const int64_t x1 = min(x0 + (p.kw - 1) * p.dw + 1, p.w);
    while (x0 < 0) x0 += p.dw;
    using A = opmath_t<T>;
    A m = -::cuda::std::numeric_limits<A>::infinity();
    int64_t best = y0 * p.w + x0;
    for (int64_t y = y0; y < y1; y += p.dh) {
      for (int64_t xx = x0; xx < x1; xx += p.dw) {
        const A v = static_cast<A>(in[y * p.w + xx]);
        if (v > m || v != v) {  // as the CPU kernel: a NaN wins (the last one)
          m = v;
          best = y * p.w + xx;
        }
      }
    }
    out[i] = static_cast<T>(m);
    idx[i] = best;
  }
}

template <typename T>
__global__ void max_pool_backward_kernel(const T* gy, const int64_t* idx, T* gx, int64_t planes,
                                         int64_t hw, int64_t ohw) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < planes * ohw;
       i += int64_t{blockDim.x} * gridDim.x) {
    // half / bfloat16: the hardware's 16-bit atomic add (sm_70 / sm_80 and
    // later); an input under several overlapping windows is rounded once
    // per window, where PyTorch's gathering kernel rounds once.
    // Note [Empty pooling windows] (autograd/derivatives/pooling.cc).
    if (idx[i] < 0 || idx[i] >= hw) continue;
    atomicAdd(gx + (i / ohw) * hw + idx[i], gy[i]);
  }
}

}  // namespace

cudaError_t launch_max_pool(DType dtype, const void* x, void* out, int64_t* idx,
                            const PoolWindow& p) {
  const int64_t total = p.planes * p.oh * p.ow;
  if (total == 0) return cudaSuccess;
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    max_pool_kernel<T><<<grid_for(total), kBlockThreads, 0, current_stream()>>>(
        static_cast<const T*>(x), static_cast<T*>(out), idx, p);
    return cudaGetLastError();
  };
  return dispatch<kFloatingKinds>(dtype, run);
}

cudaError_t launch_max_pool_backward(DType dtype, const void* gy, const int64_t* idx, void* gx,
                                     int64_t planes, int64_t hw, int64_t ohw) {
  if (planes * ohw == 0) return cudaSuccess;
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    max_pool_backward_kernel<T><<<grid_for(planes * ohw), kBlockThreads, 0, current_stream()>>>(
        static_cast<const T*>(gy), idx, static_cast<T*>(gx), planes, hw, ohw);
    return cudaGetLastError();
  };
  return dispatch<kFloatingKinds>(dtype, run);
}

cudaError_t launch_softmax(bool log, DType dtype, const void* x, void* y, int64_t outer,
                           int64_t len, int64_t inner) {
  if (outer * inner == 0) return cudaSuccess;
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = static_cast<const T*>(x);
    T* yp = static_cast<T*>(y);
    const unsigned row_blocks = static_cast<unsigned>(outer < 65536 ? outer : 65536);
    if (inner == 1 && log) {
      softmax_rows<T, true><<<row_blocks, kBlockThreads, 0, current_stream()>>>(xp, yp, outer, len);
    } else if (inner == 1) {
      softmax_rows<T, false>
          <<<row_blocks, kBlockThreads, 0, current_stream()>>>(xp, yp, outer, len);
    } else if (log) {
      softmax_lines<T, true><<<grid_for(outer * inner), kBlockThreads, 0, current_stream()>>>(
          xp, yp, outer, len, inner);
    } else {
      softmax_lines<T, false><<<grid_for(outer * inner), kBlockThreads, 0, current_stream()>>>(
          xp, yp, outer, len, inner);
    }
    return cudaGetLastError();
  });
}

// nll_loss is float and double only, as on the CPU.
cudaError_t launch_nll_forward(DType dtype, const void* x, const int64_t* t, const void* w,
                               void* loss, void* weight, IndexErrorRecord* bad, int64_t n,
                               int64_t c, int64_t k, int64_t ignore_index) {
  if (n * k == 0) return cudaSuccess;
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    nll_forward<T><<<grid_for(n * k), kBlockThreads, 0, current_stream()>>>(
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
    nll_backward<T><<<grid_for(n * k), kBlockThreads, 0, current_stream()>>>(
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
