// Note [Batch norm kernels] on CUDA: the launchers of batch_norm.cu, called
// from batch_norm.cc with raw pointers. Internal to //tensor/cuda.

#ifndef EMBER_TENSOR_CUDA_BATCH_NORM_KERNELS_H_
#define EMBER_TENSOR_CUDA_BATCH_NORM_KERNELS_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "tensor/cuda/kernels.h"

namespace ember {
namespace cuda {
namespace kernels {

// A contiguous [N, C, HW] input. Each channel's N rows are cut into
// `pieces` ranges of rows, one block each, so that few channels still fill
// the GPU; a second kernel combines a channel's pieces in order.
struct BatchNormShape {
  int64_t N, C, HW;
  int64_t pieces;
};

// How many pieces per channel: about four blocks per multiprocessor in
// all, at most one per row.
int64_t batch_norm_pieces(int64_t N, int64_t C, int64_t HW, int multiprocessors);

// Per channel: mean and biased variance (Welford within a thread, Chan's
// merge across threads and pieces), written to mean[C] and var[C] in the
// accumulation type (float; double for double inputs). `work` holds
// 3 * C * pieces accumulation-type values.
cudaError_t launch_batch_norm_stats(DType dtype, const void* x, const BatchNormShape& s,
                                    void* work, void* mean, void* var);

// Per channel: gsum = sum(gy) and dotp = sum(gy * (x - mean)). `work`
// holds 2 * C * pieces accumulation-type values.
cudaError_t launch_batch_norm_backward_reduce(DType dtype, const void* gy, const void* x,
                                              const void* mean, const BatchNormShape& s,
                                              void* work, void* gsum, void* dotp);

// out = u * a[c] + (v - m[c]) * b[c] + d[c] over [N, C, HW] (v, m, b may
// be null: no second term; m null: v uncentered), per-channel vectors in
// the accumulation type, u, v and out in `dtype`.
cudaError_t launch_batch_norm_affine(DType dtype, const void* u, const void* v, const void* a,
                                     const void* b, const void* m, const void* d,
                                     const BatchNormShape& s, void* out);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_BATCH_NORM_KERNELS_H_
