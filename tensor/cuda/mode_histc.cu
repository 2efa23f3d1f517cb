// mode and histc on the device (the CUDA entries of tensor/sort_ops_kernels.h's
// mode_kernel and histc_kernel, registered by sort_ops_cuda.cc), with the CPU
// kernels' results bit for bit (tensor/sort_ops.cc):
// - mode: one thread per row sorts (key, index) pairs with libstdc++'s
//   std::sort algorithm (introsort.h, Note [PyTorch's mode ties]) in a
//   device workspace, then walks the runs as the CPU does. A serial sort per
//   row suits mode's rows (up to some thousands); a very long single row
//   would want a parallel sort that still breaks ties the CPU's way.
// - histc: one thread per element finds the bin with the CPU's arithmetic
//   (interpolation rounded in the input's dtype, Note [histc's bins] in
//   tensor/sort_ops.cc) and counts it with an integer atomic; a second
//   kernel turns the counts into the CPU's per-block sums in the dtype.

#include <type_traits>

#include "tensor/cuda/elementwise.cuh"
#include "tensor/cuda/introsort.h"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
__global__ void mode_kernel(const T* x, T* values, int64_t* indices, opmath_t<T>* keys, int64_t* ix,
                            int64_t rows, int64_t len) {
  using K = opmath_t<T>;
  EMBER_GRID_LOOP(r, rows) {
    K* k = keys + r * len;
    int64_t* id = ix + r * len;
    for (int64_t i = 0; i < len; ++i) {
      k[i] = static_cast<K>(x[r * len + i]);
      id[i] = i;
    }
    introsort::sort(introsort::Pairs<K>{k, id}, len);
    K mode = K(0);
    int64_t mode_i = 0, run = 0, best = 0;
    for (int64_t i = 0; i < len; ++i) {
      ++run;
      if (i == len - 1 || k[i] != k[i + 1]) {
        if (run > best) {
          mode = k[i];
          mode_i = id[i];
          best = run;
        }
        run = 0;
      }
    }
    values[r] = from_opmath<T>(mode);
    indices[r] = mode_i;
  }
}

// The CPU loop's bin of each element (its arithmetic in opmath, each step
// rounded to T), counted in counts[block][bin] (block: the CPU's 32768-element
// chunk when `blocked`, else 0).
template <typename T>
__global__ void histc_count(const T* x, const T* edge_values, int64_t numel, int64_t bins,
                            bool blocked, unsigned int* counts) {
  using A = opmath_t<T>;
  auto rnd = [](A v) { return static_cast<A>(from_opmath<T>(v)); };
  const A left = static_cast<A>(edge_values[0]), right = static_cast<A>(edge_values[bins]);
  const A width = rnd(right - left), nbins = rnd(static_cast<A>(bins));
  EMBER_GRID_LOOP(i, numel) {
    const A e = static_cast<A>(x[i]);
    if (e < left || e > right) continue;
    int64_t pos = 0;
    if (e == e) {  // NaN lands in the first bin, as on the CPU
      pos = static_cast<int64_t>(rnd(rnd(rnd(e - left) / width) * nbins));
      if (pos == bins) pos -= 1;
    }
    atomicAdd(counts + (blocked ? i / kHistcBlock : 0) * bins + pos, 1u);
  }
}

// hist[j] = the CPU's sum over blocks of each block's count, the count
// kept in T (bfloat16 stops at 256) and every addition rounded to T.
template <typename T>
__global__ void histc_sum(const unsigned int* counts, int64_t n_blocks, int64_t bins, T* hist) {
  using A = opmath_t<T>;
  const A cap = std::is_same<T, __nv_bfloat16>::value ? A(256) : A(INFINITY);
  EMBER_GRID_LOOP(j, bins) {
    A acc = static_cast<A>(hist[j]);
    for (int64_t b = 0; b < n_blocks; ++b) {
      const A c = static_cast<A>(counts[b * bins + j]);
      acc = static_cast<A>(from_opmath<T>(acc + (c < cap ? c : cap)));
    }
    hist[j] = from_opmath<T>(acc);
  }
}

}  // namespace

cudaError_t launch_mode(DType dtype, const void* x, void* values, int64_t* indices, void* keys,
                        int64_t* ix, int64_t rows, int64_t len) {
  if (rows == 0 || len == 0) return cudaSuccess;
  return dispatch<kAllKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    mode_kernel<T><<<grid_for(rows), kBlockThreads, 0, current_stream()>>>(
        static_cast<const T*>(x), static_cast<T*>(values), indices, static_cast<opmath_t<T>*>(keys),
        ix, rows, len);
    return cudaGetLastError();
  });
}

cudaError_t launch_histc(DType dtype, const void* x, const void* edges, int64_t numel, int64_t bins,
                         int64_t n_blocks, unsigned int* counts, void* hist) {
  if (numel == 0) return cudaSuccess;
  if (dtype != DType::kFloat && dtype != DType::kDouble && dtype != DType::kBFloat16) {
    return cudaErrorInvalidValue;
  }
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same<T, __half>::value) {
      return cudaErrorInvalidValue;
    } else {
      histc_count<T><<<grid_for(numel), kBlockThreads, 0, current_stream()>>>(
          static_cast<const T*>(x), static_cast<const T*>(edges), numel, bins, n_blocks > 1,
          counts);
      histc_sum<T><<<grid_for(bins), kBlockThreads, 0, current_stream()>>>(counts, n_blocks, bins,
                                                                           static_cast<T*>(hist));
      return cudaGetLastError();
    }
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
