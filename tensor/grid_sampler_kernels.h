#ifndef EMBER_TENSOR_GRID_SAMPLER_KERNELS_H_
#define EMBER_TENSOR_GRID_SAMPLER_KERNELS_H_

// The per-device kernel tables of grid_sampler_2d/3d (grid_sampler.cc;
// Note [Kernel tables]). Internal; the CUDA backend registers its kernels
// from tensor/cuda/. Both sides run grid_sampler_math.h's per-point code.

#include "tensor/grid_sampler_math.h"
#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

namespace ember {
namespace detail {

// input and grid as given (any strides, g's strides name them); out
// contiguous [N, C, (oD,) oH, oW] on their device.
using GridSamplerForwardFn = void (*)(const grid_sample::Geometry& g, const Tensor& input,
                                      const Tensor& grid, Tensor& out);
// grad_output contiguous like out; grad_input zeros (contiguous) or
// undefined when not wanted; grad_grid contiguous, every element written.
using GridSamplerBackwardFn = void (*)(const grid_sample::Geometry& g, const Tensor& grad_output,
                                       const Tensor& input, const Tensor& grid, Tensor& grad_input,
                                       Tensor& grad_grid);
EMBER_DECLARE_KERNEL_TABLE(grid_sampler_forward_stub, GridSamplerForwardFn);
EMBER_DECLARE_KERNEL_TABLE(grid_sampler_backward_stub, GridSamplerBackwardFn);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_GRID_SAMPLER_KERNELS_H_
