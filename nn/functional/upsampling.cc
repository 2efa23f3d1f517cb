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

// One output dim's taps: output j reads index[t][j] with weight[t][j].
struct Taps {
  std::vector<std::vector<int64_t>> index;
  std::vector<std::vector<double>> weight;  // empty: nearest (one tap, weight 1)
};

// PyTorch 1.13's area_pixel_compute_scale and area_pixel_compute_source_index
// (aten/src/ATen/native/UpSample.h), in the kernel's precision T.
template <typename T>
T area_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / (out - 1) : T(0);
  return scale && *scale > 0 ? static_cast<T>(1.0 / *scale) : static_cast<T>(in) / out;
}
template <typename T>
T source_index(T scale, int64_t dst, bool align_corners, bool cubic) {
  if (align_corners) return scale * dst;
  const T src = scale * (dst + static_cast<T>(0.5)) - static_cast<T>(0.5);
  return !cubic && src < T(0) ? T(0) : src;
}

// nearest_idx / nearest_exact_idx: the scale is always float there.
Taps nearest_taps(int64_t in, int64_t out, std::optional<double> scale, bool exact) {
  const float s = scale && *scale > 0 ? static_cast<float>(1.0 / *scale)
                                      : static_cast<float>(in) / static_cast<float>(out);
  Taps t;
  t.index.resize(1);
  for (int64_t j = 0; j < out; ++j) {
    int64_t i;
    if (exact) {
      i = static_cast<int64_t>(std::floor(static_cast<float>((j + 0.5) * s)));
    } else if (out == in) {
      i = j;
    } else if (out == 2 * in) {
      i = j >> 1;
    } else {
      i = static_cast<int64_t>(std::floor(j * s));
    }
    t.index[0].push_back(std::min(i, in - 1));
  }
  return t;
}

// compute_source_index_and_lambda.
template <typename T>
Taps linear_taps(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  const T s = area_scale<T>(in, out, align_corners, scale);
  Taps t;
  t.index.resize(2);
  t.weight.resize(2);
  for (int64_t j = 0; j < out; ++j) {
    int64_t i0 = j, i1 = j;
    T l1 = 0;
    if (out != in) {
      const T real = source_index<T>(s, j, align_corners, /*cubic=*/false);
      i0 = static_cast<int64_t>(real);
      i1 = i0 + (i0 < in - 1 ? 1 : 0);
      l1 = std::min(std::max(real - i0, T(0)), T(1));
    }
    t.index[0].push_back(i0);
    t.index[1].push_back(i1);
    t.weight[0].push_back(static_cast<T>(1) - l1);
    t.weight[1].push_back(l1);
  }
  return t;
}

// Keys' cubic convolution with A = -0.75 (get_cubic_upsample_coefficients),
// its four taps clamped into the input.
template <typename T>
Taps cubic_taps(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  const T s = area_scale<T>(in, out, align_corners, scale);
  const T a = -0.75;
  auto near = [a](T x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };          // |x| <= 1
  auto far = [a](T x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };     // 1 < |x| < 2
  Taps t;
  t.index.resize(4);
  t.weight.resize(4);
  for (int64_t j = 0; j < out; ++j) {
    const T real = source_index<T>(s, j, align_corners, /*cubic=*/true);
    const int64_t i = static_cast<int64_t>(std::floor(static_cast<float>(real)));
    const T x1 = real - i, x2 = T(1) - x1;
    const T w[4] = {far(static_cast<T>(x1 + 1.0)), near(x1), near(x2), far(static_cast<T>(x2 + 1.0))};
    for (int k = 0; k < 4; ++k) {
      t.index[k].push_back(std::max<int64_t>(std::min(i - 1 + k, in - 1), 0));
      t.weight[k].push_back(w[k]);
    }
  }
  return t;
}

// x resampled along `dim` by the taps.
Tensor apply_taps(const Tensor& x, int64_t dim, const Taps& taps) {
  Tensor result;
  DimVector along(x.dim(), 1);
  along[dim] = static_cast<int64_t>(taps.index[0].size());
  for (size_t k = 0; k < taps.index.size(); ++k) {
    Tensor term = x.index_select(dim, tensor(taps.index[k], kLong).to(x.device()));
    if (!taps.weight.empty()) {
      term = term * tensor(taps.weight[k], kDouble).to(x.options()).view(along);
    }
    result = result.defined() ? result + term : term;
  }
  return result;
}

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
  bool positive = true;
  for (int64_t i = 0; i < dim; ++i) positive = positive && in_sizes[i] > 0 && out_sizes[i] > 0;
  if (!positive) {
    static const char* kNames[] = {"D", "H", "W"};
    std::vector<std::string> ins, outs;
    for (int64_t i = 0; i < dim; ++i) {
      ins.push_back(absl::StrCat(kNames[3 - dim + i], ": ", in_sizes[i]));
      outs.push_back(absl::StrCat(kNames[3 - dim + i], ": ", out_sizes[i]));
    }
    EMBER_CHECK(false, "Input and output sizes should be greater than 0, but got input (",
                absl::StrJoin(ins, ", "), ") output (", absl::StrJoin(outs, ", "), ")");
  }
  const bool in_double = input.dtype() == kDouble;
  Tensor x = input;
  for (int64_t i = 0; i < dim; ++i) {
    const int64_t in = in_sizes[i], out = out_sizes[i];
    Taps taps;
    if (mode == kNearest || mode == kNearestExact) {
      taps = nearest_taps(in, out, scales[i], mode == kNearestExact);
    } else if (mode == kBicubic) {
      taps = in_double ? cubic_taps<double>(in, out, align_corners, scales[i])
                       : cubic_taps<float>(in, out, align_corners, scales[i]);
    } else {
      taps = in_double ? linear_taps<double>(in, out, align_corners, scales[i])
                       : linear_taps<float>(in, out, align_corners, scales[i]);
    }
    x = apply_taps(x, 2 + i, taps);
  }
  return x;
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
