#ifndef EMBER_TENSOR_CUDA_ADVANCED_INDEX_KERNELS_H_
#define EMBER_TENSOR_CUDA_ADVANCED_INDEX_KERNELS_H_

// Launchers of the advanced-indexing kernels (advanced_index.cu,
// index_put_accumulate.cu) for x[indices] and index_put_ (Note [Advanced
// indexing on devices], tensor/index_kernels.h; the host side is
// advanced_index.cc). Shared by nvcc and the host compiler: raw pointers
// and coalesced geometry only.

#include "tensor/cuda/kernels.h"

namespace ember {
namespace cuda {
namespace kernels {

// Index tensors one loop can take (PyTorch takes up to its 25 dims; more
// than 16 indexed dims is rejected on the host).
constexpr int kMaxIndexTensors = 16;

// A walk over `ndim` dims (dim 0 fastest; strides in elements). Per
// position p: self's offset is self_strides . p plus, for each index tensor
// k, v_k * indexed_strides[k], where v_k = index[k][index_strides[k] . p]
// (+ indexed_sizes[k] when negative); a v_k out of [0, indexed_sizes[k])
// records `check` (ember::detail::IndexCheck) for dim indexed_dims[k] and
// moves nothing there. `other` steps with other_strides.
struct AdvancedIndexLoop {
  int ndim = 0;
  int nindex = 0;
  int32_t check = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxLoopDims];
  int64_t self_strides[kMaxLoopDims];
  int64_t other_strides[kMaxLoopDims];
  int64_t index_strides[kMaxIndexTensors][kMaxLoopDims];
  const int64_t* index[kMaxIndexTensors];
  int64_t indexed_sizes[kMaxIndexTensors];
  int64_t indexed_strides[kMaxIndexTensors];
  int64_t indexed_dims[kMaxIndexTensors];
  void* self = nullptr;
  void* other = nullptr;
};

// put false: other[p] = self[...] (x[indices]); put true: self[...] =
// other[p] (index_put_; with repeated indices one write wins, which one
// varies). Moves bytes: one kernel per element size (1, 2, 4 or 8).
cudaError_t launch_advanced_index(bool put, int elem_size, const AdvancedIndexLoop& l,
                                  IndexErrorRecord* err);

// index_put_ with accumulate, deterministically (PyTorch's CUDA
// index_put_with_sort): (1) launch_index_put_keys: for each position j of B
// (l walks B's dims only, self_strides all 0), keys[j] = self's offset of
// the indexed dims (`sentinel` when a value is out of range) and perm[j] = j;
// (2) sort_index_put_keys: a stable radix sort of (keys, perm) by key, keys
// below 2^end_bit; (3) launch_index_put_accumulate: one thread per (run of
// equal keys, position of the other dims) adds its values in the order of
// their positions j, as the CPU's loop does, so the result is the CPU's.
cudaError_t launch_index_put_keys(const AdvancedIndexLoop& l, uint64_t sentinel, uint64_t* keys,
                                  int64_t* perm, IndexErrorRecord* err);
// temp == nullptr: sets *temp_bytes to the scratch size needed and sorts
// nothing.
cudaError_t sort_index_put_keys(void* temp, size_t* temp_bytes, const uint64_t* keys_in,
                                uint64_t* keys_out, const int64_t* perm_in, int64_t* perm_out,
                                int n, int end_bit);

struct IndexPutAccumulateLoop {
  // The non-indexed dims: self's and values' strides (dim 0 fastest).
  int ndim = 0;
  int64_t n_rest = 1;
  int64_t sizes[kMaxLoopDims];
  int64_t self_strides[kMaxLoopDims];
  int64_t values_strides[kMaxLoopDims];
  // B's dims (dim 0 fastest, sizes' product n_b): values' strides, to find
  // the value of position perm[s].
  int b_ndim = 0;
  int64_t n_b = 1;
  int64_t b_sizes[kMaxLoopDims];
  int64_t b_strides[kMaxLoopDims];
  const uint64_t* keys = nullptr;  // sorted
  const int64_t* perm = nullptr;
  uint64_t sentinel = 0;
  void* self = nullptr;
  const void* values = nullptr;
};
// self[rest + key] = (...(self[...] + v_first) + ...) + v_last, each
// addition rounded as the CPU's (half and bfloat16 in float; integers wrap;
// bool: or).
cudaError_t launch_index_put_accumulate(DType dtype, const IndexPutAccumulateLoop& l);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_ADVANCED_INDEX_KERNELS_H_
