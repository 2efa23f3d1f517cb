#ifndef EMBER_TENSOR_GRID_SAMPLER_H_
#define EMBER_TENSOR_GRID_SAMPLER_H_

// grid_sampler and affine_grid_generator, ATen's ops behind
// F::grid_sample and F::affine_grid (nn/functional/vision.h), with
// libtorch 1.13's names, argument orders and checks:
//   grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)
// input [N, C, H, W] with grid [N, H_out, W_out, 2] (grid_sampler_2d), or
// input [N, C, D, H, W] with grid [N, D_out, H_out, W_out, 3]
// (grid_sampler_3d); the grid's last dim is (x, y[, z]) in [-1, 1].
// interpolation_mode: 0 bilinear, 1 nearest, 2 bicubic (4-D only);
// padding_mode: 0 zeros, 1 border, 2 reflection. float and double (the
// CPU dtypes of 1.13), input and grid of one dtype, any strides.
// Note [grid_sampler as 1.13 computes it] (grid_sampler_math.h) says how
// NaN and infinite grid values come out. Out-of-range modes raise, where
// 1.13 passes them through unchecked.
// On CUDA (tensor/cuda/grid_sampler.cu) the same per-point code runs one
// thread per output point; the backward adds into grad_input atomically,
// so, as PyTorch documents for its CUDA kernel, the order of that
// summation (and its rounding) varies from run to run.
//
// Recorded as grid_sampler_2d / grid_sampler_3d (GridSampler2DBackward0 /
// GridSampler3DBackward0); their backwards are recorded too but, as in
// 1.13, have no derivative ("derivative for aten::grid_sampler_2d_backward
// is not implemented" on double backward).

#include <array>
#include <cstdint>
#include <tuple>

#include "tensor/tensor.h"

namespace ember {

Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                    int64_t padding_mode, bool align_corners);
Tensor grid_sampler_2d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                       int64_t padding_mode, bool align_corners);
Tensor grid_sampler_3d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                       int64_t padding_mode, bool align_corners);
// (grad_input, grad_grid), each computed only where output_mask says
// (undefined otherwise). grad_input is contiguous, grad_grid too.
std::tuple<Tensor, Tensor> grid_sampler_2d_backward(const Tensor& grad_output, const Tensor& input,
                                                    const Tensor& grid, int64_t interpolation_mode,
                                                    int64_t padding_mode, bool align_corners,
                                                    std::array<bool, 2> output_mask);
std::tuple<Tensor, Tensor> grid_sampler_3d_backward(const Tensor& grad_output, const Tensor& input,
                                                    const Tensor& grid, int64_t interpolation_mode,
                                                    int64_t padding_mode, bool align_corners,
                                                    std::array<bool, 2> output_mask);

// theta [N, 2, 3] with size {N, C, H, W} -> grid [N, H, W, 2]; theta
// [N, 3, 4] with size {N, C, D, H, W} -> [N, D, H, W, 3]: the base grid
// (x, y[, z], 1) of linspace(-1, 1) (scaled by (n - 1) / n unless
// align_corners; 0 where a size is 1) times theta^T, by bmm in theta's
// dtype on theta's device, as 1.13's composite. Recorded as
// affine_grid_generator (AffineGridGeneratorBackward0).
Tensor affine_grid_generator(const Tensor& theta, IntArrayRef size, bool align_corners);
// grad [N, H, W, 2] or [N, D, H, W, 3] -> grad_theta [N, 2, 3] or [N, 3, 4]:
// base^T bmm grad, written with public ops (so it is differentiable).
Tensor affine_grid_generator_backward(const Tensor& grad, IntArrayRef size, bool align_corners);

}  // namespace ember

#endif  // EMBER_TENSOR_GRID_SAMPLER_H_
