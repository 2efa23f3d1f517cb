// x[indices] and index_put_ without accumulate (one walk that moves bytes:
// instantiated per element size, Note [CUDA kernels by element size]), and
// the keys of index_put_ with accumulate (index_put_accumulate.cu sorts and
// sums them). One thread per position; each checks its index values on the
// device (Note [Device-side index checks], index_ops.cc).

#include "tensor/cuda/advanced_index_kernels.h"
#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

// self's and other's offsets of position i, the index values included;
// false (and the first bad value recorded in *err) when one is out of range.
__device__ __forceinline__ bool advanced_offsets(const AdvancedIndexLoop& l, int64_t i,
                                                 IndexErrorRecord* err, int64_t* self_off,
                                                 int64_t* other_off) {
  int64_t coord[kMaxLoopDims];
  int64_t s = 0, o = 0;
#pragma unroll
  for (int d = 0; d < kMaxLoopDims; ++d) {
    if (d >= l.ndim) break;
    const int64_t c = i % l.sizes[d];
    i /= l.sizes[d];
    coord[d] = c;
    s += c * l.self_strides[d];
    o += c * l.other_strides[d];
  }
  for (int k = 0; k < l.nindex; ++k) {
    int64_t at = 0;
#pragma unroll
    for (int d = 0; d < kMaxLoopDims; ++d) {
      if (d >= l.ndim) break;
      at += coord[d] * l.index_strides[k][d];
    }
    const int64_t raw = l.index[k][at];
    const int64_t size = l.indexed_sizes[k];
    const int64_t v = raw < 0 ? raw + size : raw;
    if (v < 0 || v >= size) {
      if (atomicCAS(&err->flag, 0, 1) == 0) {
        err->check = l.check;
        err->value = raw;
        err->dim = l.indexed_dims[k];
        err->bound = size;
      }
      return false;
    }
    s += v * l.indexed_strides[k];
  }
  *self_off = s;
  *other_off = o;
  return true;
}

template <typename T, bool kPut>
__global__ void advanced_index_kernel(AdvancedIndexLoop l, IndexErrorRecord* err) {
  T* self = static_cast<T*>(l.self);
  T* other = static_cast<T*>(l.other);
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < l.numel;
       i += int64_t{blockDim.x} * gridDim.x) {
    int64_t s, o;
    if (!advanced_offsets(l, i, err, &s, &o)) continue;
    if constexpr (kPut) {
      self[s] = other[o];
    } else {
      other[o] = self[s];
    }
  }
}

__global__ void index_put_keys_kernel(AdvancedIndexLoop l, uint64_t sentinel, uint64_t* keys,
                                      int64_t* perm, IndexErrorRecord* err) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < l.numel;
       i += int64_t{blockDim.x} * gridDim.x) {
    int64_t s, o;
    keys[i] = advanced_offsets(l, i, err, &s, &o) ? static_cast<uint64_t>(s) : sentinel;
    perm[i] = i;
  }
}

template <typename T>
cudaError_t move_as(bool put, const AdvancedIndexLoop& l, IndexErrorRecord* err) {
  if (put) {
    advanced_index_kernel<T, true>
        <<<grid_for(l.numel), kBlockThreads, 0, current_stream()>>>(l, err);
  } else {
    advanced_index_kernel<T, false>
        <<<grid_for(l.numel), kBlockThreads, 0, current_stream()>>>(l, err);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_advanced_index(bool put, int elem_size, const AdvancedIndexLoop& l,
                                  IndexErrorRecord* err) {
  if (l.numel == 0) return cudaSuccess;
  switch (elem_size) {
    case 1:
      return move_as<uint8_t>(put, l, err);
    case 2:
      return move_as<uint16_t>(put, l, err);
    case 4:
      return move_as<uint32_t>(put, l, err);
    case 8:
      return move_as<uint64_t>(put, l, err);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t launch_index_put_keys(const AdvancedIndexLoop& l, uint64_t sentinel, uint64_t* keys,
                                  int64_t* perm, IndexErrorRecord* err) {
  if (l.numel == 0) return cudaSuccess;
  index_put_keys_kernel<<<grid_for(l.numel), kBlockThreads, 0, current_stream()>>>(l, sentinel,
                                                                                   keys, perm, err);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
