// Device-side pieces shared by the reduction kernels (reduce.cu,
// reduce_stats.cu; nvcc only): input offsets and how a reduction is split
// over blocks.

#ifndef EMBER_TENSOR_CUDA_REDUCE_CUH_
#define EMBER_TENSOR_CUDA_REDUCE_CUH_

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {

// Element offset of position `idx` (row-major) over `nd` dims.
__device__ __forceinline__ int64_t offset_of(int64_t idx, int nd, const int64_t* sizes,
                                             const int64_t* strides) {
  int64_t off = 0;
  for (int d = nd - 1; d >= 0; --d) {  // outermost first in the arrays
    off += (idx % sizes[d]) * strides[d];
    idx /= sizes[d];
  }
  return off;
}

// Pieces per output: one block per output when there are enough outputs to
// fill the GPU, else up to 1024 pieces of at least 16K elements. Depends on
// the geometry only, so a result is the same from run to run.
inline int64_t splits_for(const Reduction& r) {
  if (r.nout >= 1024) return 1;
  int64_t s = r.nred / 16384;
  s = s < 1 ? 1 : (s > 1024 ? 1024 : s);
  const int64_t per_output_cap = 4096 / (r.nout > 0 ? r.nout : 1);
  return s < per_output_cap ? s : (per_output_cap > 0 ? per_output_cap : 1);
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_REDUCE_CUH_
