#include "nn/functional/upsampling.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nn/functional/pooling.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/upsample.h"

namespace ember {

const char* interpolate_mode_name(InterpolateMode m) {
  switch (m) {
    case kNearest: return "nearest";
    case kNearestExact: return "nearest-exact";
    case kLinear: return "linear";
    case kBilinear: return "bilinear";
    case kBicubic: return "bicubic";
    case kTrilinear: return "trilinear";
    case kArea: return "area";
  }
  return "";
}

namespace nn {
namespace functional {
namespace {

// Python's repr of a tuple of ints or floats, as the ValueErrors print
// size and scale_factor.
std::string py_tuple_of(const std::vector<int64_t>& v) {
  return absl::StrCat("(", absl::StrJoin(v, ", "), v.size() == 1 ? ",)" : ")");
}
std::string py_tuple_of(const std::vector<double>& v) {
  std::vector<std::string> parts;
  for (double d : v) {
    std::string s = absl::StrCat(d);
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    parts.push_back(s);
  }
  return absl::StrCat("(", absl::StrJoin(parts, ", "), v.size() == 1 ? ",)" : ")");
}

// The spatial dims a mode needs (0: any of 1, 2, 3).
int64_t spatial_dims_of(InterpolateMode m) {
  switch (m) {
    case kLinear: return 1;
    case kBilinear: case kBicubic: return 2;
    case kTrilinear: return 3;
    default: return 0;
  }
}

}  // namespace

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& o) {
  const InterpolateMode mode = o.mode();
  const bool resamples = mode == kNearest || mode == kArea || mode == kNearestExact;
  EMBER_CHECK_VALUE(!resamples || !o.align_corners().has_value(),
                    "align_corners option can only be set with the interpolating modes: "
                    "linear | bilinear | bicubic | trilinear");
  const bool align_corners = o.align_corners().value_or(false);
  const int64_t dim = input.dim() - 2;
  std::vector<int64_t> in_sizes(input.sizes().begin() + std::min<int64_t>(2, input.dim()),
                                input.sizes().end());
  std::vector<int64_t> out_sizes;
  std::vector<std::optional<double>> scales(std::max<int64_t>(dim, 0));
  EMBER_CHECK_VALUE(!(o.size() && o.scale_factor()),
                    "only one of size or scale_factor should be defined");
  EMBER_CHECK_VALUE(o.size() || o.scale_factor(), "either size or scale_factor should be defined");
  EMBER_CHECK_VALUE(!(o.recompute_scale_factor().value_or(false) && o.size()),
                    "recompute_scale_factor is not meaningful with an explicit size.");
  if (o.size()) {
    const std::vector<int64_t>& size = *o.size();
    EMBER_CHECK_VALUE(size.size() == 1 || static_cast<int64_t>(size.size()) == dim,
                      "Input and output must have the same number of spatial dimensions, but got "
                      "input with spatial dimensions of [", absl::StrJoin(in_sizes, ", "),
                      "] and output size of ", py_tuple_of(size),
                      ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                      "size in (o1, o2, ...,oK) format.");
    for (int64_t i = 0; i < dim; ++i) out_sizes.push_back(size[size.size() == 1 ? 0 : i]);
  } else {
    const std::vector<double>& factor = *o.scale_factor();
    EMBER_CHECK_VALUE(factor.size() == 1 || static_cast<int64_t>(factor.size()) == dim,
                      "Input and scale_factor must have the same number of spatial dimensions, "
                      "but got input with spatial dimensions of [", absl::StrJoin(in_sizes, ", "),
                      "] and scale_factor of shape ", py_tuple_of(factor),
                      ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                      "scale_factor in (s1, s2, ...,sK) format.");
    // "area" always recomputes; otherwise the kernels get the factors.
    const bool recompute = o.recompute_scale_factor().value_or(false) || mode == kArea;
    for (int64_t i = 0; i < dim; ++i) {
      const double f = factor[factor.size() == 1 ? 0 : i];
      out_sizes.push_back(static_cast<int64_t>(std::floor(static_cast<double>(in_sizes[i]) * f)));
      if (!recompute) scales[i] = f;
    }
  }
  const int64_t needs = spatial_dims_of(mode);
  if (dim >= 1 && dim <= 3 && needs != 0 && needs != dim && !(mode == kBicubic && dim != 2)) {
    EMBER_CHECK(false, "Got ", input.dim(), "D input, but ", interpolate_mode_name(mode),
                " mode needs ", needs + 2, "D input");
  }
  EMBER_CHECK(dim >= 1 && dim <= 3 && (needs == 0 || needs == dim),
              "Input Error: Only 3D, 4D and 5D input Tensors supported (got ", input.dim(),
              "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
              "nearest-exact (got ", interpolate_mode_name(mode), ")");
  if (mode == kArea) {
    if (dim == 1) return adaptive_avg_pool1d(input, out_sizes[0]);
    if (dim == 2) return adaptive_avg_pool2d(input, {out_sizes[0], out_sizes[1]});
    return adaptive_avg_pool3d(input, {out_sizes[0], out_sizes[1], out_sizes[2]});
  }
  detail::UpsampleOp op;
  op.mode = mode == kNearest        ? detail::UpsampleMode::kNearest
            : mode == kNearestExact ? detail::UpsampleMode::kNearestExact
            : mode == kBicubic      ? detail::UpsampleMode::kCubic
                                    : detail::UpsampleMode::kLinear;
  op.dims = dim;
  op.align_corners = align_corners;
  op.scales = scales;
  // libtorch's F::interpolate calls the sized overloads (...Backward0).
  return detail::upsample(input, op, out_sizes);
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
