// Note [Batch norm kernels] on CUDA (launched from batch_norm.cc): the
// per-channel statistics, the backward's two per-channel sums, and one
// elementwise kernel for both the forward's transform and the input
// gradient. Half and bfloat16 inputs accumulate in float and keep their
// dtype in the output, as PyTorch's CUDA batch norm.
//
// Reductions: a block per (channel, piece of rows); its threads are laid
// out 2-D (x over the HW positions of a row, y over rows), so no index is
// divided per element. Each block writes its partial result; a second
// kernel, one thread per channel, combines the pieces in order, so the
// results do not vary from run to run.

#include <algorithm>

#include "tensor/cuda/batch_norm_kernels.h"
#include "tensor/cuda/elementwise.cuh"
#include "tensor/cuda/welford.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

constexpr int kThreads = 256;

template <typename T>
using acc_t = norm_acc_t<T>;

// Threads: x over a row's HW positions, y over rows. blockDim.x * blockDim.y
// == kThreads.
__device__ __forceinline__ int flat_thread() { return threadIdx.y * blockDim.x + threadIdx.x; }

template <typename T>
__global__ void stats_partial(const T* x, BatchNormShape s, acc_t<T>* work) {
  using A = acc_t<T>;
  const int64_t c = blockIdx.x, p = blockIdx.y;
  const int64_t rows = (s.N + s.pieces - 1) / s.pieces;
  const int64_t n0 = p * rows, n1 = min(s.N, n0 + rows);
  WelfordState<A> st;
  for (int64_t r = n0 + threadIdx.y; r < n1; r += blockDim.y) {
    const T* row = x + (r * s.C + c) * s.HW;
    for (int64_t i = threadIdx.x; i < s.HW; i += blockDim.x) st.add(static_cast<A>(row[i]));
  }
  const int t = flat_thread();
  st = block_merge<kThreads>(st, t);
  if (t == 0) {
    const int64_t at = c * s.pieces + p;
    const int64_t stride = s.C * s.pieces;
    work[at] = st.mean;
    work[stride + at] = st.m2;
    work[2 * stride + at] = st.n;
  }
}

template <typename A>
__global__ void stats_combine(const A* work, BatchNormShape s, A* mean_out, A* var_out) {
  const int64_t c = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (c >= s.C) return;
  const int64_t stride = s.C * s.pieces;
  WelfordState<A> st;
  for (int64_t p = 0; p < s.pieces; ++p) {
    const int64_t at = c * s.pieces + p;
    st.merge(work[at], work[stride + at], work[2 * stride + at]);
  }
  mean_out[c] = st.mean;
  var_out[c] = st.n > A(0) ? st.m2 / st.n : A(NAN);
}

template <typename T>
__global__ void backward_partial(const T* gy, const T* x, const acc_t<T>* mean, BatchNormShape s,
                                 acc_t<T>* work) {
  using A = acc_t<T>;
  const int64_t c = blockIdx.x, p = blockIdx.y;
  const int64_t rows = (s.N + s.pieces - 1) / s.pieces;
  const int64_t n0 = p * rows, n1 = min(s.N, n0 + rows);
  const A mu = mean[c];
  A gsum = 0, dotp = 0;
  for (int64_t r = n0 + threadIdx.y; r < n1; r += blockDim.y) {
    const int64_t base = (r * s.C + c) * s.HW;
    for (int64_t i = threadIdx.x; i < s.HW; i += blockDim.x) {
      const A g = static_cast<A>(gy[base + i]);
      gsum += g;
      dotp += g * (static_cast<A>(x[base + i]) - mu);
    }
  }
  const int t = flat_thread();
  block_sum2<kThreads>(gsum, dotp, t);
  if (t == 0) {
    const int64_t at = c * s.pieces + p;
    work[at] = gsum;
    work[s.C * s.pieces + at] = dotp;
  }
}

template <typename A>
__global__ void backward_combine(const A* work, BatchNormShape s, A* gsum, A* dotp) {
  const int64_t c = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (c >= s.C) return;
  A g = 0, d = 0;
  for (int64_t p = 0; p < s.pieces; ++p) {
    g += work[c * s.pieces + p];
    d += work[s.C * s.pieces + c * s.pieces + p];
  }
  gsum[c] = g;
  dotp[c] = d;
}

// One block row per (n, c) plane would leave most threads idle for small
// HW; a flat grid-stride loop instead, with 32-bit index arithmetic where
// the tensor allows it.
template <typename T, typename I>
__global__ void affine_kernel(const T* u, const T* v, const acc_t<T>* a, const acc_t<T>* b,
                              const acc_t<T>* m, const acc_t<T>* d, I total, I HW, I C, T* out) {
  using A = acc_t<T>;
  for (I i = blockIdx.x * I(blockDim.x) + threadIdx.x; i < total; i += I(blockDim.x) * gridDim.x) {
    const I c = (i / HW) % C;
    A r = static_cast<A>(u[i]) * a[c] + d[c];
    if (v != nullptr) {
      const A centered = m != nullptr ? static_cast<A>(v[i]) - m[c] : static_cast<A>(v[i]);
      r += centered * b[c];
    }
    out[i] = static_cast<T>(r);
  }
}

dim3 reduce_block(int64_t HW) {
  int x = 32;
  while (x < kThreads && x < HW) x *= 2;
  return dim3(x, kThreads / x);
}

}  // namespace

int64_t batch_norm_pieces(int64_t N, int64_t C, int64_t HW, int multiprocessors) {
  const int64_t target = 4 * static_cast<int64_t>(multiprocessors > 0 ? multiprocessors : 1);
  int64_t pieces = (target + C - 1) / C;
  // A piece of at least a few thousand elements, and at most one per row.
  const int64_t min_rows = (4096 + HW - 1) / HW;
  pieces = std::min(pieces, (N + min_rows - 1) / min_rows);
  pieces = std::min(pieces, int64_t{65535});
  return std::max<int64_t>(std::min(pieces, N), 1);
}

cudaError_t launch_batch_norm_stats(DType dtype, const void* x, const BatchNormShape& s,
                                    void* work, void* mean, void* var) {
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = acc_t<T>;
    stats_partial<T>
        <<<dim3(static_cast<unsigned>(s.C), static_cast<unsigned>(s.pieces)), reduce_block(s.HW), 0,
           current_stream()>>>(static_cast<const T*>(x), s, static_cast<A*>(work));
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    stats_combine<A>
        <<<static_cast<unsigned>((s.C + kThreads - 1) / kThreads), kThreads, 0, current_stream()>>>(
            static_cast<const A*>(work), s, static_cast<A*>(mean), static_cast<A*>(var));
    return cudaGetLastError();
  });
}

cudaError_t launch_batch_norm_backward_reduce(DType dtype, const void* gy, const void* x,
                                              const void* mean, const BatchNormShape& s,
                                              void* work, void* gsum, void* dotp) {
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = acc_t<T>;
    backward_partial<T>
        <<<dim3(static_cast<unsigned>(s.C), static_cast<unsigned>(s.pieces)), reduce_block(s.HW), 0,
           current_stream()>>>(static_cast<const T*>(gy), static_cast<const T*>(x),
                               static_cast<const A*>(mean), s, static_cast<A*>(work));
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    backward_combine<A>
        <<<static_cast<unsigned>((s.C + kThreads - 1) / kThreads), kThreads, 0, current_stream()>>>(
            static_cast<const A*>(work), s, static_cast<A*>(gsum), static_cast<A*>(dotp));
    return cudaGetLastError();
  });
}

cudaError_t launch_batch_norm_affine(DType dtype, const void* u, const void* v, const void* a,
                                     const void* b, const void* m, const void* d,
                                     const BatchNormShape& s, void* out) {
  const int64_t total = s.N * s.C * s.HW;
  if (total == 0) return cudaSuccess;
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = acc_t<T>;
    const auto* pa = static_cast<const A*>(a);
    const auto* pb = static_cast<const A*>(b);
    const auto* pm = static_cast<const A*>(m);
    const auto* pd = static_cast<const A*>(d);
    if (total < (int64_t{1} << 31)) {
      affine_kernel<T, uint32_t><<<grid_for(total), kBlockThreads, 0, current_stream()>>>(
          static_cast<const T*>(u), static_cast<const T*>(v), pa, pb, pm, pd,
          static_cast<uint32_t>(total), static_cast<uint32_t>(s.HW), static_cast<uint32_t>(s.C),
          static_cast<T*>(out));
    } else {
      affine_kernel<T, int64_t><<<grid_for(total), kBlockThreads, 0, current_stream()>>>(
          static_cast<const T*>(u), static_cast<const T*>(v), pa, pb, pm, pd, total, s.HW, s.C,
          static_cast<T*>(out));
    }
    return cudaGetLastError();
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
