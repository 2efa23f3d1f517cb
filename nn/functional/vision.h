#ifndef EMBER_NN_FUNCTIONAL_VISION_H_
#define EMBER_NN_FUNCTIONAL_VISION_H_

// F::grid_sample and F::affine_grid, as libtorch 1.13's
// torch/nn/functional/vision.h (spatial transformer networks, warping
// augmentations):
//   Tensor grid = F::affine_grid(theta, {N, C, H, W}, /*align_corners=*/false);
//   Tensor y = F::grid_sample(x, grid, F::GridSampleFuncOptions()
//                                          .mode(ember::kBilinear)
//                                          .padding_mode(ember::kBorder)
//                                          .align_corners(false));
// mode: kBilinear (default), kNearest or kBicubic (4-D input only; libtorch's
// options type leaves bicubic out, Python's F.grid_sample takes it, and so
// does ember). padding_mode: ember::kZeros (default), kBorder or
// kReflection. Any other interpolate mode or pad mode raises Python's
// ValueError text. An unset align_corners warns as libtorch does and means
// false. The work is ATen's grid_sampler / affine_grid_generator
// (tensor/grid_sampler.h).

#include <cstdint>
#include <optional>

#include "nn/functional/options.h"
#include "nn/functional/upsampling.h"
#include "tensor/tensor.h"

namespace ember {

// grid_sample's padding beyond ember::kZeros (libtorch: torch::kBorder,
// torch::kReflection).
enum class GridSamplePadding { kZeros, kBorder, kReflection };
inline constexpr GridSamplePadding kBorder = GridSamplePadding::kBorder;
inline constexpr GridSamplePadding kReflection = GridSamplePadding::kReflection;

namespace nn {
namespace functional {

// padding_mode's value: ember::kZeros (a PadMode, kConstant; F::pad's other
// modes are rejected by grid_sample), kBorder or kReflection.
class GridSamplePaddingMode {
 public:
  GridSamplePaddingMode(GridSamplePadding p) : grid_(p) {}  // NOLINT(runtime/explicit)
  GridSamplePaddingMode(PadMode m) : pad_(m) {}             // NOLINT(runtime/explicit)
  // ATen's padding_mode (0 zeros, 1 border, 2 reflection); raises for a
  // pad mode other than kZeros.
  int64_t aten_value() const;

 private:
  std::optional<GridSamplePadding> grid_;
  PadMode pad_ = kZeros;
};

struct GridSampleFuncOptions {
  EMBER_ARG(InterpolateMode, mode) = kBilinear;
  EMBER_ARG(GridSamplePaddingMode, padding_mode) = kZeros;
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

// input [N, C, H_in, W_in] with grid [N, H_out, W_out, 2] -> [N, C, H_out,
// W_out]; 5-D input with grid [N, D_out, H_out, W_out, 3].
Tensor grid_sample(const Tensor& input, const Tensor& grid,
                   const GridSampleFuncOptions& options = {});

// theta [N, 2, 3] and size {N, C, H, W} -> grid [N, H, W, 2]; theta
// [N, 3, 4] and size {N, C, D, H, W} -> [N, D, H, W, 3]. theta floating.
Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners = false);

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_VISION_H_
