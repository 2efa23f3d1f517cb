#ifndef EMBER_TENSOR_UPSAMPLE_H_
#define EMBER_TENSOR_UPSAMPLE_H_

// ATen 1.13's upsample ops (nn::functional::interpolate calls them), each
// recorded as its own node as PyTorch's:
//   upsample_bilinear2d(x, {8, 8}, /*align_corners=*/false)   // UpsampleBilinear2DBackward0
//   upsample_bilinear2d(x, std::nullopt, false, std::vector<double>{2, 2})
//                                                              // the .vec overload: ...Backward1
// The first form takes the output size and one optional scale per spatial
// dim (the scale the kernel maps coordinates with; absent: in / out); the
// .vec form takes either the output size or the scale factors (the size
// is then floor(in * factor) and the factors are the kernel's scales), as
// Python's F.interpolate calls it. Each *_backward is the op's adjoint,
// recorded too (double backward: Upsample*BackwardBackward0/1).
//
// Results keep a channels-last input channels-last (nearest, nearest-exact,
// linear, bilinear, trilinear; bicubic is contiguous), as 1.13's CPU
// kernels; gradients are contiguous. Values are 1.13's: the same source
// indices and weights, computed in the kernel's precision (float for
// anything but double), applied one spatial dim after the other.

#include <cstdint>
#include <optional>
#include <vector>

#include "tensor/array_ref.h"
#include "tensor/tensor.h"

namespace ember {

using UpsampleScales = std::optional<std::vector<double>>;
using UpsampleSize = std::optional<std::vector<int64_t>>;

Tensor upsample_nearest1d(const Tensor& self, IntArrayRef output_size,
                          std::optional<double> scales = std::nullopt);
Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size,
                          std::optional<double> scales_h = std::nullopt,
                          std::optional<double> scales_w = std::nullopt);
Tensor upsample_nearest3d(const Tensor& self, IntArrayRef output_size,
                          std::optional<double> scales_d = std::nullopt,
                          std::optional<double> scales_h = std::nullopt,
                          std::optional<double> scales_w = std::nullopt);
Tensor _upsample_nearest_exact1d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales = std::nullopt);
Tensor _upsample_nearest_exact2d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales_h = std::nullopt,
                                 std::optional<double> scales_w = std::nullopt);
Tensor _upsample_nearest_exact3d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales_d = std::nullopt,
                                 std::optional<double> scales_h = std::nullopt,
                                 std::optional<double> scales_w = std::nullopt);
Tensor upsample_linear1d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                         std::optional<double> scales = std::nullopt);
Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                           std::optional<double> scales_h = std::nullopt,
                           std::optional<double> scales_w = std::nullopt);
Tensor upsample_bicubic2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                          std::optional<double> scales_h = std::nullopt,
                          std::optional<double> scales_w = std::nullopt);
Tensor upsample_trilinear3d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                            std::optional<double> scales_d = std::nullopt,
                            std::optional<double> scales_h = std::nullopt,
                            std::optional<double> scales_w = std::nullopt);

// The .vec overloads: exactly one of output_size and scale_factors.
Tensor upsample_nearest1d(const Tensor& input, const UpsampleSize& output_size,
                          const UpsampleScales& scale_factors);
Tensor upsample_nearest2d(const Tensor& input, const UpsampleSize& output_size,
                          const UpsampleScales& scale_factors);
Tensor upsample_nearest3d(const Tensor& input, const UpsampleSize& output_size,
                          const UpsampleScales& scale_factors);
Tensor _upsample_nearest_exact1d(const Tensor& input, const UpsampleSize& output_size,
                                 const UpsampleScales& scale_factors);
Tensor _upsample_nearest_exact2d(const Tensor& input, const UpsampleSize& output_size,
                                 const UpsampleScales& scale_factors);
Tensor _upsample_nearest_exact3d(const Tensor& input, const UpsampleSize& output_size,
                                 const UpsampleScales& scale_factors);
Tensor upsample_linear1d(const Tensor& input, const UpsampleSize& output_size, bool align_corners,
                         const UpsampleScales& scale_factors);
Tensor upsample_bilinear2d(const Tensor& input, const UpsampleSize& output_size, bool align_corners,
                           const UpsampleScales& scale_factors);
Tensor upsample_bicubic2d(const Tensor& input, const UpsampleSize& output_size, bool align_corners,
                          const UpsampleScales& scale_factors);
Tensor upsample_trilinear3d(const Tensor& input, const UpsampleSize& output_size,
                            bool align_corners, const UpsampleScales& scale_factors);

namespace detail {

// What the ops above share, and what their derivatives (autograd's
// derivatives/upsample.cc) call: one spatial rank and resampling mode.
enum class UpsampleMode : int { kNearest, kNearestExact, kLinear, kCubic };

struct UpsampleOp {
  UpsampleMode mode = UpsampleMode::kNearest;
  int64_t dims = 1;                           // spatial dims: 1, 2 or 3
  bool vec = false;                           // recorded as the .vec overload (...Backward1)
  bool align_corners = false;                 // linear and cubic only
  std::vector<std::optional<double>> scales;  // one per spatial dim
};

// The op on `input` ([N, C, *spatial] or, as 1.13, any leading dims) to
// `output_size` spatial sizes.
Tensor upsample(const Tensor& input, const UpsampleOp& op, IntArrayRef output_size);
// Its adjoint: grad_output's spatial sizes are output_size, the result's
// input_size (the whole input shape).
Tensor upsample_backward(const Tensor& grad_output, const UpsampleOp& op, IntArrayRef output_size,
                         IntArrayRef input_size);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_UPSAMPLE_H_
