#include "nn/functional/vision.h"

#include <algorithm>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "tensor/dim.h"
#include "tensor/error.h"
#include "tensor/grid_sampler.h"

namespace ember {
namespace nn {
namespace functional {

int64_t GridSamplePaddingMode::aten_value() const {
  if (grid_.has_value()) return static_cast<int64_t>(*grid_);
  EMBER_CHECK_VALUE(
      pad_ == kZeros,
      "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
      "'reflection', but got: '",
      pad_mode_name(pad_), "'");
  return 0;
}

Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options) {
  const InterpolateMode mode = options.mode();
  EMBER_CHECK_VALUE(mode == kBilinear || mode == kNearest || mode == kBicubic,
                    "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
                    "'bicubic', but got: '",
                    interpolate_mode_name(mode), "'");
  const int64_t padding = options.padding_mode().aten_value();
  const int64_t mode_enum = mode == kBilinear ? 0 : mode == kNearest ? 1 : 2;
  if (!options.align_corners().has_value()) {
    std::cerr << "Warning: Default grid_sample and affine_grid behavior has changed to "
                 "align_corners=False since 1.3.0. Please specify align_corners=True if the old "
                 "behavior is desired. See the documentation of grid_sample for details. "
                 "(function grid_sample)"
              << std::endl;
  }
  return grid_sampler(input, grid, mode_enum, padding, options.align_corners().value_or(false));
}

// Python's F.affine_grid checks, with its texts and classes (ValueError;
// the unsupported size is Python's NotImplementedError, an ember::Error
// here). libtorch's texts differ only in how they print dtype and sizes.
Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners) {
  EMBER_CHECK_VALUE(theta.is_floating_point(),
                    "Expected theta to have floating point type, but got torch.",
                    dtype_name(theta.dtype()));
  const std::string sizes = detail::sizes_str(size);
  if (size.size() == 4) {
    EMBER_CHECK_VALUE(theta.dim() == 3 && theta.size(-2) == 2 && theta.size(-1) == 3,
                      "Expected a batch of 2D affine matrices of shape Nx2x3 for size ", sizes,
                      ". Got torch.Size(", detail::sizes_str(theta.sizes()), ").");
  } else if (size.size() == 5) {
    EMBER_CHECK_VALUE(theta.dim() == 3 && theta.size(-2) == 3 && theta.size(-1) == 4,
                      "Expected a batch of 3D affine matrices of shape Nx3x4 for size ", sizes,
                      ". Got torch.Size(", detail::sizes_str(theta.sizes()), ").");
  } else {
    EMBER_CHECK(false,
                "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                "respectively. Got size ",
                sizes, ".");
  }
  EMBER_CHECK_VALUE(*std::min_element(size.begin(), size.end()) > 0,
                    "Expected non-zero, positive output size. Got ", sizes);
  return affine_grid_generator(theta, size, align_corners);
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
