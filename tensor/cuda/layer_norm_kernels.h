// Note [Layer norm kernels] on CUDA: the launchers of layer_norm.cu, called
// from layer_norm.cc with raw pointers. Internal to //tensor/cuda.

#ifndef EMBER_TENSOR_CUDA_LAYER_NORM_KERNELS_H_
#define EMBER_TENSOR_CUDA_LAYER_NORM_KERNELS_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "tensor/cuda/kernels.h"

namespace ember {
namespace cuda {
namespace kernels {

// x, out: contiguous [M, D] in `dtype`; w, b: [D] in `dtype` or null;
// mean, rstd: [M] in the accumulation type (float; double for double).
cudaError_t launch_layer_norm(DType dtype, const void* x, const void* w, const void* b,
                              int64_t M, int64_t D, double eps, void* out, void* mean,
                              void* rstd);

// gx (may be null): [M, D]; gw, gb (each may be null): [D], in `dtype`.
// `work` holds 2 * D * layer_norm_column_pieces(M, D) accumulation-type
// values when gw or gb is asked for.
cudaError_t launch_layer_norm_backward(DType dtype, const void* gy, const void* x,
                                       const void* mean, const void* rstd, const void* w,
                                       int64_t M, int64_t D, void* work, void* gx, void* gw,
                                       void* gb);

// How many pieces of rows the weight and bias gradients' column sums use.
int64_t layer_norm_column_pieces(int64_t M, int64_t D);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_LAYER_NORM_KERNELS_H_
