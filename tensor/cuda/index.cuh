// Device-side pieces of the index kernels (index.cu, index_add.cu; nvcc
// only): an IndexLoop's offsets and the checked read of an index value.

#ifndef EMBER_TENSOR_CUDA_INDEX_CUH_
#define EMBER_TENSOR_CUDA_INDEX_CUH_

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

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_INDEX_CUH_
