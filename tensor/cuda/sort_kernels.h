// The launchers of sort.cu (a device radix sort of rows) and compact.cu
// (nonzero, masked_select, masked_scatter_: stream compaction), called from
// sort_cuda.cc. Shared by nvcc and the host compiler: raw pointers only.
// Every launch is on stream 0 (the current stream once ember has one).
// Internal to //tensor/cuda.

#ifndef EMBER_TENSOR_CUDA_SORT_KERNELS_H_
#define EMBER_TENSOR_CUDA_SORT_KERNELS_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "tensor/cuda/kernels.h"

namespace ember {
namespace cuda {
namespace kernels {

// Device memory for CUB's temporary storage and the sort's buffers, handed
// out by the host (ember's caching allocator, never cudaMalloc): get(n)
// returns n bytes on the current device, valid until the launcher returns
// (its work is ordered on the stream, as every temporary's). Throws on
// out of memory.
struct Scratch {
  void* (*alloc)(void* ctx, size_t bytes);
  void* ctx;
  void* get(size_t bytes) const { return alloc(ctx, bytes); }
};

// x: n_rows contiguous rows of len elements of dtype; values (dtype) and
// indices receive each row in the CPU sort's total order (NaN above every
// number, -0.0 equal to 0.0, ties by position; descending puts NaN first
// and still breaks ties by position). A stable LSD radix sort of
// order-preserving unsigned keys (1, 2, 4 or 8 bytes) with the row number
// in the key's high bits, or a second stable pass by row when a key has no
// room for it.
cudaError_t launch_sort_rows(DType dtype, const void* x, int64_t n_rows, int64_t len,
                             bool descending, void* values, int64_t* indices,
                             const Scratch& scratch);

// The first k (<= topk::kMaxK, topk_select.h) columns of launch_sort_rows's
// result, without sorting (Note [Small-k topk] in topk.cu): values (dtype)
// and indices are n_rows x k, contiguous. For rows of at most
// kTopkMaxLen elements (longer rows sort faster).
constexpr int64_t kTopkMaxLen = 65536;
cudaError_t launch_topk_rows(DType dtype, const void* x, int64_t n_rows, int64_t len, int k,
                             bool descending, void* values, int64_t* indices);

// Stable ascending sort of n int64 keys with int64 values (keys_out and
// values_out may not alias the inputs).
cudaError_t launch_sort_int64_pairs(const int64_t* keys, const int64_t* values, int64_t n,
                                    int64_t* keys_out, int64_t* values_out, const Scratch& scratch);

// --- stream compaction -------------------------------------------------------
// Element i of `flags` (elem_size bytes) is selected when its bits & mask
// are nonzero (all bits: integers and bool; all but the sign: floating, so
// -0.0 is zero and NaN is not). The n elements are cut in tiles of
// kCompactTile; launch_count_flags writes the inclusive scan of the tiles'
// counts to tile_offsets[compact_tiles(n)] (the last entry is the total),
// and the writers below place the k-th selected element (in order) at k.

constexpr int64_t kCompactTile = 4096;
inline int64_t compact_tiles(int64_t n) { return (n + kCompactTile - 1) / kCompactTile; }

cudaError_t launch_count_flags(const void* flags, int elem_size, uint64_t mask, int64_t n,
                               int64_t* tile_offsets, const Scratch& scratch);

// out: contiguous int64 [ndim, total]: the coordinates in `sizes` (row-major)
// of each selected position.
cudaError_t launch_nonzero_coords(const void* flags, int elem_size, uint64_t mask, int64_t n,
                                  const int64_t* tile_offsets, int ndim, const int64_t* sizes,
                                  int64_t total, int64_t* out);

// dst[k] = src[i] for the k-th true element i of the bool mask (select), or
// dst[i] = src[k] (scatter); elements of elem_size bytes.
cudaError_t launch_masked_compact(bool scatter, const bool* mask, int64_t n,
                                  const int64_t* tile_offsets, const void* src, void* dst,
                                  int elem_size);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_SORT_KERNELS_H_
