// Note [Fused attention] on CUDA (launched from attention.cc). One thread
// per query row (forward, and the query gradient) or per key row (the key
// and value gradients); key/value (or query/output-gradient) rows are
// staged through shared memory a tile at a time, every thread of the block
// reading the same tile. The forward keeps the online-softmax running max,
// sum and output row in registers; the backward recomputes each
// probability from the saved logsumexp. No atomics: every gradient row is
// written by one thread, so results do not depend on scheduling.
// Accumulation in float for float, double for double.

#include <cmath>

#include "tensor/cuda/attention_kernels.h"
#include "tensor/cuda/kernels.h"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

constexpr int kRows = 64;  // threads (rows) per block

template <typename T>
struct Tile {
  static constexpr int kRows = sizeof(T) == 8 ? 16 : 32;  // staged rows per tile
};

template <typename T>
__device__ __forceinline__ T neg_inf() {
  return -static_cast<T>(INFINITY);
}

template <typename T>
__device__ __forceinline__ T mask_at(const T* mask, const FlashGeometry& g, int64_t b, int64_t h,
                                     int64_t i, int64_t j) {
  return mask == nullptr ? T(0) : mask[b * g.m_bs + h * g.m_hs + i * g.m_rs + j * g.m_cs];
}

// Copies `rows` rows of `width` from src (row stride rs) into dst
// [rows][D], all threads of the block together.
template <typename T, int D>
__device__ void stage(const T* src, int64_t rs, int rows, int64_t width, T* dst) {
  for (int idx = threadIdx.x; idx < rows * D; idx += blockDim.x) {
    const int r = idx / D, e = idx % D;
    dst[idx] = e < width ? src[r * rs + e] : T(0);
  }
}

template <typename T, int D>
__global__ void flash_forward_kernel(FlashGeometry g, const T* q, const T* k, const T* v,
                                     const T* mask, T* out, T* lse) {
  constexpr int kTile = Tile<T>::kRows;
  __shared__ T ks[kTile * D];
  __shared__ T vs[kTile * D];
  const int64_t bh = blockIdx.y, b = bh / g.H, h = bh % g.H;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kRows + threadIdx.x;
  const bool active = i < g.L;
  const T scale = static_cast<T>(g.scale);
  T qr[D], acc[D];
  const T* qrow = q + b * g.q_bs + h * g.q_hs + i * g.q_rs;
#pragma unroll
  for (int e = 0; e < D; ++e) {
    qr[e] = (active && e < g.E) ? qrow[e] : T(0);
    acc[e] = T(0);
  }
  T m = neg_inf<T>(), l = T(0);
  const int64_t last_row = min(g.L, static_cast<int64_t>(blockIdx.x + 1) * kRows) - 1;
  const int64_t s_end = g.causal ? min(g.S, last_row + 1) : g.S;
  const T* kh = k + b * g.k_bs + h * g.k_hs;
  const T* vh = v + b * g.v_bs + h * g.v_hs;
  for (int64_t j0 = 0; j0 < s_end; j0 += kTile) {
    const int cols = static_cast<int>(min(static_cast<int64_t>(kTile), s_end - j0));
    stage<T, D>(kh + j0 * g.k_rs, g.k_rs, cols, g.E, ks);
    stage<T, D>(vh + j0 * g.v_rs, g.v_rs, cols, g.Ev, vs);
    __syncthreads();
    if (active) {
      for (int jj = 0; jj < cols; ++jj) {
        const int64_t j = j0 + jj;
        if (g.causal && j > i) break;
        T s = T(0);
#pragma unroll
        for (int e = 0; e < D; ++e) s += qr[e] * ks[jj * D + e];
        s = s * scale + mask_at(mask, g, b, h, i, j);
        if (s == neg_inf<T>()) continue;
        const T m_new = max(m, s);
        const T corr = exp(m - m_new);  // 0 while m is -inf
        const T p = exp(s - m_new);
        l = l * corr + p;
#pragma unroll
        for (int e = 0; e < D; ++e) acc[e] = acc[e] * corr + p * vs[jj * D + e];
        m = m_new;
      }
    }
    __syncthreads();
  }
  if (!active) return;
  T* orow = out + (bh * g.L + i) * g.Ev;
  const T inv = l > T(0) ? T(1) / l : T(0);
#pragma unroll
  for (int e = 0; e < D; ++e) {
    if (e < g.Ev) orow[e] = acc[e] * inv;
  }
  lse[bh * g.L + i] = l > T(0) ? m + log(l) : neg_inf<T>();
}

// The query gradient, one thread per query row, and delta_i = <dO_i, O_i>
// for the key/value kernel.
template <typename T, int D>
__global__ void flash_backward_q_kernel(FlashGeometry g, const T* go, const T* q, const T* k,
                                        const T* v, const T* mask, const T* out, const T* lse,
                                        T* delta, T* gq) {
  constexpr int kTile = Tile<T>::kRows;
  __shared__ T ks[kTile * D];
  __shared__ T vs[kTile * D];
  const int64_t bh = blockIdx.y, b = bh / g.H, h = bh % g.H;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kRows + threadIdx.x;
  const bool active = i < g.L;
  const T scale = static_cast<T>(g.scale);
  T qr[D], dor[D], dq[D];
  const T* qrow = q + b * g.q_bs + h * g.q_hs + i * g.q_rs;
  const T* gorow = go + (bh * g.L + i) * g.Ev;
  const T* orow = out + (bh * g.L + i) * g.Ev;
  T d = T(0);
#pragma unroll
  for (int e = 0; e < D; ++e) {
    qr[e] = (active && e < g.E) ? qrow[e] : T(0);
    dor[e] = (active && e < g.Ev) ? gorow[e] : T(0);
    if (active && e < g.Ev) d += dor[e] * orow[e];
    dq[e] = T(0);
  }
  const T li = active ? lse[bh * g.L + i] : neg_inf<T>();
  const int64_t last_row = min(g.L, static_cast<int64_t>(blockIdx.x + 1) * kRows) - 1;
  const int64_t s_end = g.causal ? min(g.S, last_row + 1) : g.S;
  const T* kh = k + b * g.k_bs + h * g.k_hs;
  const T* vh = v + b * g.v_bs + h * g.v_hs;
  for (int64_t j0 = 0; j0 < s_end; j0 += kTile) {
    const int cols = static_cast<int>(min(static_cast<int64_t>(kTile), s_end - j0));
    stage<T, D>(kh + j0 * g.k_rs, g.k_rs, cols, g.E, ks);
    stage<T, D>(vh + j0 * g.v_rs, g.v_rs, cols, g.Ev, vs);
    __syncthreads();
    if (active && li != neg_inf<T>()) {
      for (int jj = 0; jj < cols; ++jj) {
        const int64_t j = j0 + jj;
        if (g.causal && j > i) break;
        T s = T(0), dp = T(0);
#pragma unroll
        for (int e = 0; e < D; ++e) {
          s += qr[e] * ks[jj * D + e];
          dp += dor[e] * vs[jj * D + e];
        }
        const T p = exp(s * scale + mask_at(mask, g, b, h, i, j) - li);
        const T ds = p * (dp - d) * scale;
#pragma unroll
        for (int e = 0; e < D; ++e) dq[e] += ds * ks[jj * D + e];
      }
    }
    __syncthreads();
  }
  if (!active) return;
  delta[bh * g.L + i] = d;
  T* gqrow = gq + (bh * g.L + i) * g.E;
#pragma unroll
  for (int e = 0; e < D; ++e) {
    if (e < g.E) gqrow[e] = dq[e];
  }
}

// The key and value gradients, one thread per key row j, over the query
// rows staged a tile at a time with their output gradients.
template <typename T, int D>
__global__ void flash_backward_kv_kernel(FlashGeometry g, const T* go, const T* q, const T* k,
                                         const T* v, const T* mask, const T* lse,
                                         const T* delta, T* gk, T* gv) {
  constexpr int kTile = Tile<T>::kRows;
  __shared__ T qs[kTile * D];
  __shared__ T dos[kTile * D];
  __shared__ T ls[kTile], ds_[kTile];
  const int64_t bh = blockIdx.y, b = bh / g.H, h = bh % g.H;
  const int64_t j = static_cast<int64_t>(blockIdx.x) * kRows + threadIdx.x;
  const bool active = j < g.S;
  const T scale = static_cast<T>(g.scale);
  T kr[D], vr[D], dk[D], dv[D];
  const T* krow = k + b * g.k_bs + h * g.k_hs + j * g.k_rs;
  const T* vrow = v + b * g.v_bs + h * g.v_hs + j * g.v_rs;
#pragma unroll
  for (int e = 0; e < D; ++e) {
    kr[e] = (active && e < g.E) ? krow[e] : T(0);
    vr[e] = (active && e < g.Ev) ? vrow[e] : T(0);
    dk[e] = T(0);
    dv[e] = T(0);
  }
  // Causal: query rows before the block's first key see none of its keys.
  const int64_t first_key = static_cast<int64_t>(blockIdx.x) * kRows;
  const int64_t i_begin = g.causal ? min(g.L, first_key) / kTile * kTile : 0;
  const T* qh = q + b * g.q_bs + h * g.q_hs;
  for (int64_t i0 = i_begin; i0 < g.L; i0 += kTile) {
    const int rows = static_cast<int>(min(static_cast<int64_t>(kTile), g.L - i0));
    stage<T, D>(qh + i0 * g.q_rs, g.q_rs, rows, g.E, qs);
    stage<T, D>(go + (bh * g.L + i0) * g.Ev, g.Ev, rows, g.Ev, dos);
    for (int r = threadIdx.x; r < rows; r += blockDim.x) {
      ls[r] = lse[bh * g.L + i0 + r];
      ds_[r] = delta[bh * g.L + i0 + r];
    }
    __syncthreads();
    if (active) {
      for (int ii = 0; ii < rows; ++ii) {
        const int64_t i = i0 + ii;
        if ((g.causal && j > i) || ls[ii] == neg_inf<T>()) continue;
        T s = T(0), dp = T(0);
#pragma unroll
        for (int e = 0; e < D; ++e) {
          s += qs[ii * D + e] * kr[e];
          dp += dos[ii * D + e] * vr[e];
        }
        const T p = exp(s * scale + mask_at(mask, g, b, h, i, j) - ls[ii]);
        const T dsc = p * (dp - ds_[ii]) * scale;
#pragma unroll
        for (int e = 0; e < D; ++e) {
          dv[e] += p * dos[ii * D + e];
          dk[e] += dsc * qs[ii * D + e];
        }
      }
    }
    __syncthreads();
  }
  if (!active) return;
  T* gkrow = gk + (bh * g.S + j) * g.E;
  T* gvrow = gv + (bh * g.S + j) * g.Ev;
#pragma unroll
  for (int e = 0; e < D; ++e) {
    if (e < g.E) gkrow[e] = dk[e];
    if (e < g.Ev) gvrow[e] = dv[e];
  }
}

dim3 grid_over(int64_t rows, const FlashGeometry& g) {
  return dim3(static_cast<unsigned>((rows + kRows - 1) / kRows), static_cast<unsigned>(g.B * g.H));
}

template <typename T, int D>
cudaError_t forward(const FlashGeometry& g, const void* q, const void* k, const void* v,
                    const void* mask, void* out, void* lse) {
  flash_forward_kernel<T, D><<<grid_over(g.L, g), kRows, 0, current_stream()>>>(
      g, static_cast<const T*>(q), static_cast<const T*>(k), static_cast<const T*>(v),
      static_cast<const T*>(mask), static_cast<T*>(out), static_cast<T*>(lse));
  return cudaGetLastError();
}

template <typename T, int D>
cudaError_t backward(const FlashGeometry& g, const void* go, const void* q, const void* k,
                     const void* v, const void* mask, const void* out, const void* lse,
                     void* delta, void* gq, void* gk, void* gv) {
  flash_backward_q_kernel<T, D><<<grid_over(g.L, g), kRows, 0, current_stream()>>>(
      g, static_cast<const T*>(go), static_cast<const T*>(q), static_cast<const T*>(k),
      static_cast<const T*>(v), static_cast<const T*>(mask), static_cast<const T*>(out),
      static_cast<const T*>(lse), static_cast<T*>(delta), static_cast<T*>(gq));
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  flash_backward_kv_kernel<T, D><<<grid_over(g.S, g), kRows, 0, current_stream()>>>(
      g, static_cast<const T*>(go), static_cast<const T*>(q), static_cast<const T*>(k),
      static_cast<const T*>(v), static_cast<const T*>(mask), static_cast<const T*>(lse),
      static_cast<const T*>(delta), static_cast<T*>(gk), static_cast<T*>(gv));
  return cudaGetLastError();
}

// The head-dim bucket: 32 or 64 (kFlashMaxHeadDim).
bool small_heads(const FlashGeometry& g) { return g.E <= 32 && g.Ev <= 32; }

}  // namespace

// Whether the grid can hold the call: B * H blocks in y (at most 65535).
bool fits(const FlashGeometry& g) {
  return g.E <= kFlashMaxHeadDim && g.Ev <= kFlashMaxHeadDim && g.B * g.H <= 65535;
}

cudaError_t launch_flash_forward(bool is_double, const FlashGeometry& g, const void* q,
                                 const void* k, const void* v, const void* mask, void* out,
                                 void* lse) {
  if (!fits(g)) return cudaErrorInvalidValue;
  if (is_double) {
    return small_heads(g) ? forward<double, 32>(g, q, k, v, mask, out, lse)
                          : forward<double, 64>(g, q, k, v, mask, out, lse);
  }
  return small_heads(g) ? forward<float, 32>(g, q, k, v, mask, out, lse)
                        : forward<float, 64>(g, q, k, v, mask, out, lse);
}

cudaError_t launch_flash_backward(bool is_double, const FlashGeometry& g, const void* go,
                                  const void* q, const void* k, const void* v, const void* mask,
                                  const void* out, const void* lse, void* delta, void* gq,
                                  void* gk, void* gv) {
  if (!fits(g)) return cudaErrorInvalidValue;
  if (is_double) {
    return small_heads(g) ? backward<double, 32>(g, go, q, k, v, mask, out, lse, delta, gq, gk, gv)
                          : backward<double, 64>(g, go, q, k, v, mask, out, lse, delta, gq, gk, gv);
  }
  return small_heads(g) ? backward<float, 32>(g, go, q, k, v, mask, out, lse, delta, gq, gk, gv)
                        : backward<float, 64>(g, go, q, k, v, mask, out, lse, delta, gq, gk, gv);
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
