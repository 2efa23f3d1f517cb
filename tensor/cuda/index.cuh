// Device-side pieces of the index kernels (index.cu, index_add.cu,
// scatter_reduce.cu; nvcc only): an IndexLoop's offsets, the checked read
// of an index value, and atomic updates of 1- and 2-byte types.

#ifndef EMBER_TENSOR_CUDA_INDEX_CUH_
#define EMBER_TENSOR_CUDA_INDEX_CUH_

#include <type_traits>

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {

// Element offsets of position i in dst, index and src.
__device__ __forceinline__ void index_offsets(const IndexLoop& l, int64_t i, int64_t* off) {
  off[0] = off[1] = off[2] = 0;
  for (int d = 0; d < l.ndim; ++d) {
    const int64_t size = l.sizes[d];
    const int64_t idx = i % size;
    i /= size;
#pragma unroll
    for (int t = 0; t < 3; ++t) off[t] += idx * l.strides[t][d];
  }
}

// The index value at `off`, wrapped when the loop allows negative values;
// false (and the first such value recorded in *err) when out of range.
__device__ __forceinline__ bool read_index(const IndexLoop& l, int64_t off, IndexErrorRecord* err,
                                           int64_t* v) {
  const int64_t raw = l.index[off];
  const int64_t w = (l.wrap && raw < 0) ? raw + l.bound : raw;
  if (w >= 0 && w < l.bound) {
    *v = w;
    return true;
  }
  if (atomicCAS(&err->flag, 0, 1) == 0) {
    err->check = l.check;
    err->value = raw;
    err->dim = l.dim;
    err->bound = l.bound;
  }
  return false;
}

// *p = f(*p) atomically for a 1- or 2-byte T, by compare-and-swap on the
// aligned 32-bit word that holds it (as PyTorch's atomics for small types).
template <typename T, typename F>
__device__ void atomic_update_small(T* p, F f) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2, "small types only");
  const size_t addr = reinterpret_cast<size_t>(p);
  unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~size_t{3});
  const unsigned shift = static_cast<unsigned>(addr & 3) * 8;
  const unsigned mask = ((1u << (sizeof(T) * 8)) - 1) << shift;
  unsigned old = *word, assumed;
  do {
    assumed = old;
    T cur;
    const auto bits =
        static_cast<typename std::conditional<sizeof(T) == 1, uint8_t, uint16_t>::type>(
            (assumed & mask) >> shift);
    memcpy(&cur, &bits, sizeof(T));
    const T next = f(cur);
    typename std::conditional<sizeof(T) == 1, uint8_t, uint16_t>::type nb;
    memcpy(&nb, &next, sizeof(T));
    old = atomicCAS(word, assumed, (assumed & ~mask) | (static_cast<unsigned>(nb) << shift));
  } while (assumed != old);
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_INDEX_CUH_
