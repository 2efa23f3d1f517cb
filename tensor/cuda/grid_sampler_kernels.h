// The launchers of grid_sampler.cu (grid_sampler_2d/3d and their backwards
// on CUDA), called from grid_sampler_cuda.cc with raw pointers. Internal to
// //tensor/cuda.

#ifndef EMBER_TENSOR_CUDA_GRID_SAMPLER_KERNELS_H_
#define EMBER_TENSOR_CUDA_GRID_SAMPLER_KERNELS_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "tensor/cuda/kernels.h"
#include "tensor/grid_sampler_math.h"

namespace ember {
namespace cuda {
namespace kernels {

// input and grid by g's strides; out contiguous [N, C, (oD,) oH, oW]; all of
// `dtype` (float or double; others: cudaErrorInvalidValue).
cudaError_t launch_grid_sampler(DType dtype, const grid_sample::Geometry& g, const void* input,
                                const void* grid, void* out);

// grad_output contiguous like out; grad_input (null when not wanted)
// contiguous zeros, added to atomically; grad_grid contiguous, every element
// written.
cudaError_t launch_grid_sampler_backward(DType dtype, const grid_sample::Geometry& g,
                                         const void* grad_output, const void* input,
                                         const void* grid, void* grad_input, void* grad_grid);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_GRID_SAMPLER_KERNELS_H_
