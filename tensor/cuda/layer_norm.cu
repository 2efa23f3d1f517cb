// Note [Layer norm kernels] on CUDA (launched from layer_norm.cc). A block
// per row for the statistics, the output and the input gradient (the row's
// Welford statistics, or its two gradient sums, merged in a fixed tree);
// the weight and bias gradients sum columns over pieces of rows, one
// partial per piece, combined in order by a second kernel: no atomics, no
// run-to-run variation. Half and bfloat16 accumulate in float.

#include <algorithm>

#include "tensor/cuda/elementwise.cuh"
#include "tensor/cuda/layer_norm_kernels.h"
#include "tensor/cuda/welford.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

constexpr int kRowThreads = 256;
constexpr int kColumns = 32;    // columns per block of the column sums
constexpr int kRowsPerStep = 8;  // rows a column block reads at once

template <typename T>
__global__ void layer_norm_kernel(const T* x, const T* w, const T* b, int64_t D, double eps,
                                  T* out, norm_acc_t<T>* mean_out, norm_acc_t<T>* rstd_out) {
  using A = norm_acc_t<T>;
  const int64_t row = blockIdx.x;
  const T* xr = x + row * D;
  WelfordState<A> s;
  for (int64_t i = threadIdx.x; i < D; i += blockDim.x) s.add(static_cast<A>(xr[i]));
  s = block_merge<kRowThreads>(s, threadIdx.x);
  const A mean = s.mean;
  const A rstd = static_cast<A>(1) / sqrt(s.m2 / static_cast<A>(D) + static_cast<A>(eps));
  if (threadIdx.x == 0) {
    mean_out[row] = mean;
    rstd_out[row] = rstd;
  }
  T* orow = out + row * D;
  for (int64_t i = threadIdx.x; i < D; i += blockDim.x) {
    A v = (static_cast<A>(xr[i]) - mean) * rstd;
    if (w != nullptr) v *= static_cast<A>(w[i]);
    if (b != nullptr) v += static_cast<A>(b[i]);
    orow[i] = static_cast<T>(v);
  }
}

// gx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = gy * w.
template <typename T>
__global__ void layer_norm_grad_input(const T* gy, const T* x, const norm_acc_t<T>* mean,
                                      const norm_acc_t<T>* rstd, const T* w, int64_t D, T* gx) {
  using A = norm_acc_t<T>;
  const int64_t row = blockIdx.x;
  const T* gr = gy + row * D;
  const T* xr = x + row * D;
  const A mu = mean[row], rs = rstd[row];
  A sum_g = 0, sum_gx = 0;
  for (int64_t i = threadIdx.x; i < D; i += blockDim.x) {
    const A g = static_cast<A>(gr[i]) * (w != nullptr ? static_cast<A>(w[i]) : A(1));
    sum_g += g;
    sum_gx += g * (static_cast<A>(xr[i]) - mu) * rs;
  }
  block_sum2<kRowThreads>(sum_g, sum_gx, threadIdx.x);
  const A inv_d = A(1) / static_cast<A>(D);
  T* out = gx + row * D;
  for (int64_t i = threadIdx.x; i < D; i += blockDim.x) {
    const A g = static_cast<A>(gr[i]) * (w != nullptr ? static_cast<A>(w[i]) : A(1));
    const A xhat = (static_cast<A>(xr[i]) - mu) * rs;
    out[i] = static_cast<T>(rs * (g - sum_g * inv_d - xhat * sum_gx * inv_d));
  }
}

// Partial column sums of gy * xhat (weight) and gy (bias) over one piece of
// rows: block (kColumns, kRowsPerStep), grid (column tiles, pieces).
template <typename T>
__global__ void layer_norm_grad_params_partial(const T* gy, const T* x, const norm_acc_t<T>* mean,
                                               const norm_acc_t<T>* rstd, int64_t M, int64_t D,
                                               int64_t pieces, norm_acc_t<T>* work) {
  using A = norm_acc_t<T>;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kColumns + threadIdx.x;
  const int64_t p = blockIdx.y;
  const int64_t rows = (M + pieces - 1) / pieces;
  const int64_t r0 = p * rows, r1 = min(M, r0 + rows);
  A gw = 0, gb = 0;
  if (col < D) {
    for (int64_t r = r0 + threadIdx.y; r < r1; r += kRowsPerStep) {
      const A g = static_cast<A>(gy[r * D + col]);
      gw += g * (static_cast<A>(x[r * D + col]) - mean[r]) * rstd[r];
      gb += g;
    }
  }
  __shared__ A sw[kRowsPerStep][kColumns + 1], sb[kRowsPerStep][kColumns + 1];
  sw[threadIdx.y][threadIdx.x] = gw;
  sb[threadIdx.y][threadIdx.x] = gb;
  __syncthreads();
  if (threadIdx.y == 0 && col < D) {
    A tw = 0, tb = 0;
    for (int k = 0; k < kRowsPerStep; ++k) {
      tw += sw[k][threadIdx.x];
      tb += sb[k][threadIdx.x];
    }
    work[p * D + col] = tw;
    work[pieces * D + p * D + col] = tb;
  }
}

template <typename T>
__global__ void layer_norm_grad_params_combine(const norm_acc_t<T>* work, int64_t D,
                                               int64_t pieces, T* gw, T* gb) {
  using A = norm_acc_t<T>;
  const int64_t col = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (col >= D) return;
  A tw = 0, tb = 0;
  for (int64_t p = 0; p < pieces; ++p) {
    tw += work[p * D + col];
    tb += work[pieces * D + p * D + col];
  }
  if (gw != nullptr) gw[col] = static_cast<T>(tw);
  if (gb != nullptr) gb[col] = static_cast<T>(tb);
}

}  // namespace

int64_t layer_norm_column_pieces(int64_t M, int64_t D) {
  // About 512 blocks in all, each piece at least 64 rows.
  const int64_t tiles = (D + kColumns - 1) / kColumns;
  int64_t pieces = std::max<int64_t>(1, 512 / std::max<int64_t>(tiles, 1));
  pieces = std::min(pieces, std::max<int64_t>(1, M / 64));
  return std::min<int64_t>(pieces, 65535);
}

cudaError_t launch_layer_norm(DType dtype, const void* x, const void* w, const void* b,
                              int64_t M, int64_t D, double eps, void* out, void* mean,
                              void* rstd) {
  if (M == 0) return cudaSuccess;
  if (M > 0x7fffffff) return cudaErrorInvalidValue;
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = norm_acc_t<T>;
    layer_norm_kernel<T><<<static_cast<unsigned>(M), kRowThreads, 0, current_stream()>>>(
        static_cast<const T*>(x), static_cast<const T*>(w), static_cast<const T*>(b), D, eps,
        static_cast<T*>(out), static_cast<A*>(mean), static_cast<A*>(rstd));
    return cudaGetLastError();
  });
}

cudaError_t launch_layer_norm_backward(DType dtype, const void* gy, const void* x,
                                       const void* mean, const void* rstd, const void* w,
                                       int64_t M, int64_t D, void* work, void* gx, void* gw,
                                       void* gb) {
  if (M > 0x7fffffff) return cudaErrorInvalidValue;
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = norm_acc_t<T>;
    const auto* g = static_cast<const T*>(gy);
    const auto* xx = static_cast<const T*>(x);
    const auto* mu = static_cast<const A*>(mean);
    const auto* rs = static_cast<const A*>(rstd);
    if (gx != nullptr && M > 0) {
      layer_norm_grad_input<T><<<static_cast<unsigned>(M), kRowThreads, 0, current_stream()>>>(
          g, xx, mu, rs, static_cast<const T*>(w), D, static_cast<T*>(gx));
      cudaError_t err = cudaGetLastError();
      if (err != cudaSuccess) return err;
    }
    if ((gw != nullptr || gb != nullptr) && D > 0) {
      const int64_t pieces = layer_norm_column_pieces(M, D);
      const unsigned tiles = static_cast<unsigned>((D + kColumns - 1) / kColumns);
      layer_norm_grad_params_partial<T>
          <<<dim3(tiles, static_cast<unsigned>(pieces)), dim3(kColumns, kRowsPerStep), 0,
             current_stream()>>>(g, xx, mu, rs, M, D, pieces, static_cast<A*>(work));
      cudaError_t err = cudaGetLastError();
      if (err != cudaSuccess) return err;
      layer_norm_grad_params_combine<T><<<grid_for(D), kBlockThreads, 0, current_stream()>>>(
          static_cast<const A*>(work), D, pieces, static_cast<T*>(gw), static_cast<T*>(gb));
    }
    return cudaGetLastError();
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
