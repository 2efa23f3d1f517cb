// cummax/cummin, logcumsumexp and searchsorted on the device (the CUDA
// entries of tensor/sort_ops_kernels.h's tables, registered by
// sort_ops_cuda.cc). One thread per row walks it in order with the CPU
// kernel's comparisons and types (tensor/sort_ops.cc), so cummax/cummin and
// searchsorted give the CPU's results bit for bit; logcumsumexp keeps the
// CPU's order and rounding, its exp/log1p are the device's (an ulp apart
// at most). A serial walk suits the rows these ops see (a few thousand
// long); a very long single row would want a parallel scan.

#include <type_traits>

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

// Half and bfloat16 compare and compute in float (opmath_t), as the CPU's
// key_t; is_nan is false for integers.
template <typename T>
__device__ __forceinline__ opmath_t<T> key(T x) {
  return static_cast<opmath_t<T>>(x);
}

// ATen's cummax_cummin_helper: a NaN, or a value at least (at most) the
// running one, takes its place and index.
template <typename T, bool kMax>
__global__ void cum_extreme_rows(const T* x, T* values, int64_t* indices, int64_t rows,
                                 int64_t len) {
  EMBER_GRID_LOOP(r, rows) {
    const T* xr = x + r * len;
    T best = xr[0];
    int64_t best_i = 0;
    for (int64_t i = 0; i < len; ++i) {
      const opmath_t<T> cur = key(xr[i]), b = key(best);
      if (is_nan(cur) || (!is_nan(b) && (kMax ? cur >= b : cur <= b))) {
        best = xr[i];
        best_i = i;
      }
      values[r * len + i] = best;
      indices[r * len + i] = best_i;
    }
  }
}

// ATen's _log_add_exp_helper (std::min / std::max spelled out): equal
// infinities give x, NaN propagates.
template <typename A>
__device__ __forceinline__ A log_add_exp(A x, A y) {
  const bool y_nan = y != y;
  const A lo = y_nan ? y : ((y < x) ? y : x);
  const A hi = y_nan ? y : ((x < y) ? y : x);
  if (lo != hi || isfinite(lo)) return log1p(exp(lo - hi)) + hi;
  return x;
}

// The running value is kept in T, as the CPU's.
template <typename T>
__global__ void logcumsumexp_rows(const T* x, T* y, int64_t rows, int64_t len) {
  using A = opmath_t<T>;
  EMBER_GRID_LOOP(r, rows) {
    T acc = from_opmath<T>(-A(INFINITY));
    for (int64_t i = 0; i < len; ++i) {
      acc = from_opmath<T>(log_add_exp(key(acc), key(x[r * len + i])));
      y[r * len + i] = acc;
    }
  }
}

// The CPU kernel's binary search (!(b >= v), NaN last); an out-of-range
// sorter index is recorded in bad[0..1] (flag, index) for the host to raise.
template <typename T, typename Out>
__global__ void searchsorted_values(const T* b, const T* v, const int64_t* sorter, Out* out,
                                    int64_t numel, int64_t n, int64_t row_len, bool per_row,
                                    bool right, unsigned long long* bad) {
  EMBER_GRID_LOOP(i, numel) {
    const int64_t base = per_row ? (i / row_len) * n : 0;
    const opmath_t<T> val = key(v[i]);
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      const int64_t mid = lo + ((hi - lo) >> 1);
      int64_t at = mid;
      if (sorter != nullptr) {
        at = sorter[base + mid];
        if (at < 0 || at >= n) {
          if (atomicCAS(bad, 0ULL, 1ULL) == 0ULL) bad[1] = static_cast<unsigned long long>(at);
          break;
        }
      }
      const opmath_t<T> m = key(b[base + at]);
      if (right ? !(m > val) : !(m >= val)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    out[i] = static_cast<Out>(lo);
  }
}

}  // namespace

cudaError_t launch_cum_extreme(bool is_max, DType dtype, const void* x, void* values,
                               int64_t* indices, int64_t rows, int64_t len) {
  if (rows == 0 || len == 0) return cudaSuccess;
  return dispatch<kAllKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = static_cast<const T*>(x);
    T* vp = static_cast<T*>(values);
    if (is_max) {
      cum_extreme_rows<T, true>
          <<<grid_for(rows), kBlockThreads, 0, current_stream()>>>(xp, vp, indices, rows, len);
    } else {
      cum_extreme_rows<T, false>
          <<<grid_for(rows), kBlockThreads, 0, current_stream()>>>(xp, vp, indices, rows, len);
    }
    return cudaGetLastError();
  });
}

cudaError_t launch_logcumsumexp(DType dtype, const void* x, void* y, int64_t rows, int64_t len) {
  if (rows == 0 || len == 0) return cudaSuccess;
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    logcumsumexp_rows<T><<<grid_for(rows), kBlockThreads, 0, current_stream()>>>(
        static_cast<const T*>(x), static_cast<T*>(y), rows, len);
    return cudaGetLastError();
  });
}

cudaError_t launch_searchsorted(DType dtype, bool out_int32, const void* boundaries,
                                const void* input, const int64_t* sorter, void* out, int64_t numel,
                                int64_t n, int64_t row_len, bool per_row, bool right,
                                unsigned long long* bad) {
  if (numel == 0) return cudaSuccess;
  return dispatch<kNumericKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* bp = static_cast<const T*>(boundaries);
    const T* vp = static_cast<const T*>(input);
    if (out_int32) {
      searchsorted_values<T, int32_t><<<grid_for(numel), kBlockThreads, 0, current_stream()>>>(
          bp, vp, sorter, static_cast<int32_t*>(out), numel, n, row_len, per_row, right, bad);
    } else {
      searchsorted_values<T, int64_t><<<grid_for(numel), kBlockThreads, 0, current_stream()>>>(
          bp, vp, sorter, static_cast<int64_t*>(out), numel, n, row_len, per_row, right, bad);
    }
    return cudaGetLastError();
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
