#ifndef EMBER_NN_FUNCTIONAL_UPSAMPLING_H_
#define EMBER_NN_FUNCTIONAL_UPSAMPLING_H_

// F::interpolate, as PyTorch 1.13 (antialias aside):
//   F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{8, 8})
//                         .mode(ember::kBilinear).align_corners(false))
//   F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2}))
// input [N, C, *] with 1 (linear), 2 (bilinear, bicubic) or 3 (trilinear)
// spatial dims; nearest, nearest-exact and area take any of them. One
// size or scale factor stands for every spatial dim (where Python takes
// an int or a float). PyTorch's index arithmetic, in the input's precision
// (float for float and below): nearest takes floor(dst * scale), linear
// weights clamp the source at 0 unless align_corners, bicubic uses
// A = -0.75 and clamps its taps at the borders. The work is done by
// tensor/upsample.h's ops, as libtorch's F::interpolate calls them (their
// sized overloads: the result records UpsampleBilinear2DBackward0...; area
// is adaptive average pooling).

#include <optional>
#include <vector>

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {

// interpolate's mode (libtorch: torch::kNearest...).
enum class InterpolateMode { kNearest, kNearestExact, kLinear, kBilinear, kBicubic, kTrilinear, kArea };
inline constexpr InterpolateMode kNearest = InterpolateMode::kNearest;
inline constexpr InterpolateMode kNearestExact = InterpolateMode::kNearestExact;
inline constexpr InterpolateMode kLinear = InterpolateMode::kLinear;
inline constexpr InterpolateMode kBilinear = InterpolateMode::kBilinear;
inline constexpr InterpolateMode kBicubic = InterpolateMode::kBicubic;
inline constexpr InterpolateMode kTrilinear = InterpolateMode::kTrilinear;
inline constexpr InterpolateMode kArea = InterpolateMode::kArea;
// "nearest", "nearest-exact", "linear"..., as PyTorch spells it.
const char* interpolate_mode_name(InterpolateMode m);

namespace nn {
namespace functional {

struct InterpolateFuncOptions {
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(InterpolateMode, mode) = kNearest;
  // Unset: false for the interpolating modes; must stay unset for nearest,
  // nearest-exact and area.
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
  EMBER_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
};

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_UPSAMPLING_H_
