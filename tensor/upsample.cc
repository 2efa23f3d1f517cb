// Upsampling as 1.13's kernels compute it (aten/src/ATen/native/UpSample*.cpp),
// one spatial dim at a time: each output index along a dim reads a few
// input indices ("taps") with weights, so the forward is index_select and
// weighted sums, and the backward its adjoint, index_add of the weighted
// gradient. Both run on any device.
#include "tensor/upsample.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/nn_util.h"
#include "tensor/parallel.h"
#include "tensor/record_function.h"
#include "tensor/shape.h"

namespace ember {
namespace detail {
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
  auto near = [a](T x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };       // |x| <= 1
  auto far = [a](T x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };  // 1 < |x| < 2
  Taps t;
  t.index.resize(4);
  t.weight.resize(4);
  for (int64_t j = 0; j < out; ++j) {
    const T real = source_index<T>(s, j, align_corners, /*cubic=*/true);
    const int64_t i = static_cast<int64_t>(std::floor(static_cast<float>(real)));
    const T x1 = real - i, x2 = T(1) - x1;
    const T w[4] = {far(static_cast<T>(x1 + 1.0)), near(x1), near(x2),
                    far(static_cast<T>(x2 + 1.0))};
    for (int k = 0; k < 4; ++k) {
      t.index[k].push_back(std::max<int64_t>(std::min(i - 1 + k, in - 1), 0));
      t.weight[k].push_back(w[k]);
    }
  }
  return t;
}

// The taps of spatial dim i (double precision for double tensors, float
// otherwise, as the kernels' opmath).
Taps taps_of(const UpsampleOp& op, int64_t i, int64_t in, int64_t out, bool in_double) {
  const std::optional<double> scale = op.scales[i];
  switch (op.mode) {
    case UpsampleMode::kNearest:
    case UpsampleMode::kNearestExact:
      return nearest_taps(in, out, scale, op.mode == UpsampleMode::kNearestExact);
    case UpsampleMode::kLinear:
      return in_double ? linear_taps<double>(in, out, op.align_corners, scale)
                       : linear_taps<float>(in, out, op.align_corners, scale);
    case UpsampleMode::kCubic:
      return in_double ? cubic_taps<double>(in, out, op.align_corners, scale)
                       : cubic_taps<float>(in, out, op.align_corners, scale);
  }
  return {};
}

// [1, .., n, .., 1]: a per-index vector along `dim` of a `ndim`-d tensor.
Tensor along(const std::vector<double>& v, int64_t dim, int64_t ndim, const TensorOptions& o) {
  DimVector s(ndim, 1);
  s[dim] = static_cast<int64_t>(v.size());
  return tensor(v, kDouble).to(o).view(s);
}

// x resampled along `dim` by the taps.
Tensor apply_taps(const Tensor& x, int64_t dim, const Taps& taps) {
  Tensor result;
  for (size_t k = 0; k < taps.index.size(); ++k) {
    Tensor term = x.index_select(dim, tensor(taps.index[k], kLong).to(x.device()));
    if (!taps.weight.empty()) term = term * along(taps.weight[k], dim, x.dim(), x.options());
    result = result.defined() ? result + term : term;
  }
  return result;
}

// Note [Upsampling on the CPU]: apply_taps is about six ops per tap (index
// and weight tensors, index_select, a product, a sum), so a small bicubic
// image took 48. On the CPU, float and double, one loop per dim does the
// same arithmetic: for each element the first tap's product, then each
// further tap's product added, every product and sum rounded to the dtype
// on its own (contraction into FMAs off, as the composition's separate ops
// have it). The result is row-major, as index_select's of a row-major x.
template <typename T>
__attribute__((optimize("fp-contract=off"))) void taps_rows(const T* xp, T* op, int64_t in,
                                                            int64_t out, int64_t inner,
                                                            const int64_t* const* idx,
                                                            const T* const* w, int64_t ntaps,
                                                            int64_t lo, int64_t hi) {
  for (int64_t row = lo; row < hi;) {
    // Output rows j0 .. j1 - 1 of outer index o.
    const int64_t o = row / out, j0 = row % out, j1 = std::min(out, j0 + (hi - row));
    const T* base = xp + o * in * inner;
    if (inner == 1) {
      // The last dim: the taps gathered along the output row.
      T* dst = op + o * out;
      for (int64_t j = j0; j < j1; ++j) {
        if (w == nullptr) {
          dst[j] = base[idx[0][j]];
          continue;
        }
        T acc = base[idx[0][j]] * w[0][j];
        for (int64_t k = 1; k < ntaps; ++k) acc = acc + base[idx[k][j]] * w[k][j];
        dst[j] = acc;
      }
    } else {
      for (int64_t j = j0; j < j1; ++j) {
        T* dst = op + (o * out + j) * inner;
        const T* s0 = base + idx[0][j] * inner;
        if (w == nullptr) {
          std::copy(s0, s0 + inner, dst);
          continue;
        }
        // Eight at a time (a fixed-length loop that -O2 vectorizes), the
        // taps in order for each element.
        int64_t i = 0;
        for (; i + 8 <= inner; i += 8) {
          T acc[8];
          const T w0 = w[0][j];
          for (int l = 0; l < 8; ++l) acc[l] = s0[i + l] * w0;
          for (int64_t k = 1; k < ntaps; ++k) {
            const T* sk = base + idx[k][j] * inner + i;
            const T wk = w[k][j];
            for (int l = 0; l < 8; ++l) acc[l] = acc[l] + sk[l] * wk;
          }
          for (int l = 0; l < 8; ++l) dst[i + l] = acc[l];
        }
        for (; i < inner; ++i) {
          T acc = s0[i] * w[0][j];
          for (int64_t k = 1; k < ntaps; ++k) acc = acc + base[idx[k][j] * inner + i] * w[k][j];
          dst[i] = acc;
        }
      }
    }
    row += j1 - j0;
  }
}

// apply_taps on the CPU (float, double); undefined elsewhere.
Tensor apply_taps_cpu(const Tensor& input, int64_t dim, const Taps& taps) {
  if (!input.is_cpu() || (input.dtype() != kFloat && input.dtype() != kDouble)) return Tensor();
  const Tensor x = input.contiguous();
  const int64_t in = x.size(dim), out = static_cast<int64_t>(taps.index[0].size());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= x.size(d);
  for (int64_t d = dim + 1; d < x.dim(); ++d) inner *= x.size(d);
  DimVector sizes(x.sizes().begin(), x.sizes().end());
  sizes[dim] = out;
  Tensor r = empty(sizes, x.options());
  if (r.numel() == 0) return r;
  std::vector<const int64_t*> idx;
  for (const std::vector<int64_t>& v : taps.index) idx.push_back(v.data());
  EMBER_DISPATCH_FLOAT_DOUBLE(x.dtype(), "upsample_cpu", [&] {
    using T = scalar_t;
    std::vector<std::vector<T>> wt;
    for (const std::vector<double>& v : taps.weight) wt.emplace_back(v.begin(), v.end());
    std::vector<const T*> w;
    for (const std::vector<T>& v : wt) w.push_back(v.data());
    const T* xp = x.data_ptr<T>();
    T* op = r.data_ptr<T>();
    const int64_t ntaps = static_cast<int64_t>(idx.size());
    parallel_for(0, outer * out, std::max<int64_t>(1, (int64_t{1} << 15) / (inner * ntaps)),
                 [&](int64_t lo, int64_t hi) {
                   taps_rows(xp, op, in, out, inner, idx.data(), w.empty() ? nullptr : w.data(),
                             ntaps, lo, hi);
                 });
  });
  return r;
}

// apply_taps' adjoint: g (of size out along dim) scattered back to `in`.
Tensor apply_taps_adjoint(const Tensor& g, int64_t dim, const Taps& taps, int64_t in) {
  DimVector sizes(g.sizes().begin(), g.sizes().end());
  sizes[dim] = in;
  Tensor result = zeros(sizes, g.options());
  for (size_t k = 0; k < taps.index.size(); ++k) {
    const Tensor term =
        taps.weight.empty() ? g : g * along(taps.weight[k], dim, g.dim(), g.options());
    result.index_add_(dim, tensor(taps.index[k], kLong).to(g.device()), term);
  }
  return result;
}

const char* const kDimName[] = {"D", "H", "W"};

// upsample_{1,2,3}d_common_check.
void check_sizes(const UpsampleOp& op, IntArrayRef input_size, IntArrayRef output_size) {
  const int64_t dims = op.dims;
  EMBER_CHECK(static_cast<int64_t>(output_size.size()) == dims,
              "It is expected output_size equals to ", dims, ", but got size ", output_size.size());
  EMBER_CHECK(static_cast<int64_t>(input_size.size()) == dims + 2,
              "It is expected input_size equals to ", dims + 2, ", but got size ",
              input_size.size());
  bool positive = true;
  for (int64_t i = 0; i < dims; ++i) {
    positive = positive && input_size[2 + i] > 0 && output_size[i] > 0;
  }
  if (!positive) {
    std::vector<std::string> ins, outs;
    for (int64_t i = 0; i < dims; ++i) {
      ins.push_back(absl::StrCat(kDimName[3 - dims + i], ": ", input_size[2 + i]));
      outs.push_back(absl::StrCat(kDimName[3 - dims + i], ": ", output_size[i]));
    }
    EMBER_CHECK(false, "Input and output sizes should be greater than 0, but got input (",
                absl::StrJoin(ins, ", "), ") output (", absl::StrJoin(outs, ", "), ")");
  }
}

// The recorded op's name (1.13's), and the node's through the table.
const char* op_name(const UpsampleOp& op, bool backward) {
  // [mode][dims - 1][backward][vec]; nullptr where 1.13 has no such op.
  static const char* const kNames[4][3][2][2] = {
      {{{"upsample_nearest1d", "upsample_nearest1d.vec"},
        {"upsample_nearest1d_backward", "upsample_nearest1d_backward.vec"}},
       {{"upsample_nearest2d", "upsample_nearest2d.vec"},
        {"upsample_nearest2d_backward", "upsample_nearest2d_backward.vec"}},
       {{"upsample_nearest3d", "upsample_nearest3d.vec"},
        {"upsample_nearest3d_backward", "upsample_nearest3d_backward.vec"}}},
      {{{"_upsample_nearest_exact1d", "_upsample_nearest_exact1d.vec"},
        {"_upsample_nearest_exact1d_backward", "_upsample_nearest_exact1d_backward.vec"}},
       {{"_upsample_nearest_exact2d", "_upsample_nearest_exact2d.vec"},
        {"_upsample_nearest_exact2d_backward", "_upsample_nearest_exact2d_backward.vec"}},
       {{"_upsample_nearest_exact3d", "_upsample_nearest_exact3d.vec"},
        {"_upsample_nearest_exact3d_backward", "_upsample_nearest_exact3d_backward.vec"}}},
      {{{"upsample_linear1d", "upsample_linear1d.vec"},
        {"upsample_linear1d_backward", "upsample_linear1d_backward.vec"}},
       {{"upsample_bilinear2d", "upsample_bilinear2d.vec"},
        {"upsample_bilinear2d_backward", "upsample_bilinear2d_backward.vec"}},
       {{"upsample_trilinear3d", "upsample_trilinear3d.vec"},
        {"upsample_trilinear3d_backward", "upsample_trilinear3d_backward.vec"}}},
      {{{nullptr, nullptr}, {nullptr, nullptr}},
       {{"upsample_bicubic2d", "upsample_bicubic2d.vec"},
        {"upsample_bicubic2d_backward", "upsample_bicubic2d_backward.vec"}},
       {{nullptr, nullptr}, {nullptr, nullptr}}}};
  return kNames[static_cast<int>(op.mode)][op.dims - 1][backward][op.vec];
}

// The arguments a recorded upsample op keeps for its derivative
// (autograd/derivatives/upsample.cc reads them back in this order).
OpArgs record_args(const UpsampleOp& op, IntArrayRef output_size, IntArrayRef input_size) {
  OpArgs args = {Scalar(static_cast<int64_t>(op.mode)),
                 Scalar(op.dims),
                 Scalar(op.vec),
                 Scalar(op.align_corners),
                 DimVector(output_size.begin(), output_size.end()),
                 DimVector(input_size.begin(), input_size.end())};
  for (const std::optional<double>& s : op.scales) {
    args.push_back(s ? OpArg(Scalar(*s)) : OpArg(std::monostate()));
  }
  return args;
}

}  // namespace

Tensor upsample(const Tensor& input, const UpsampleOp& op, IntArrayRef output_size) {
  const char* name = op_name(op, /*backward=*/false);
  profiler::RecordFunction prof_range(name, profiler::RangeKind::kOp, input);
  check_sizes(op, input.sizes(), output_size);
  EMBER_CHECK(input.numel() != 0 || input.size(1) != 0, "Non-empty ", op.dims + 2,
              "D data tensor expected but got a tensor with sizes ", bracketed(input.sizes()));
  OpScope scope(input);
  const bool in_double = input.dtype() == kDouble;
  // 1.13's CPU kernels write their result in the input's suggested format,
  // bicubic's aside.
  const MemoryFormat format = op.mode == UpsampleMode::kCubic || input.dim() < 4
                                  ? MemoryFormat::Contiguous
                                  : input.suggest_memory_format();
  // A channels-last result on the CPU: the taps applied to the input seen
  // as [N, spatial..., C] (row-major for a channels-last input), whose
  // result seen as [N, C, spatial...] is the channels-last result, with no
  // layout copies (Note [Upsampling on the CPU]).
  Tensor x = input;
  int64_t first = 2;  // x's first spatial dim
  if (format != MemoryFormat::Contiguous && input.is_cpu() &&
      (input.dtype() == kFloat || input.dtype() == kDouble)) {
    DimVector to_last{0};
    for (int64_t d = 2; d < input.dim(); ++d) to_last.push_back(d);
    to_last.push_back(1);
    x = input.permute(to_last);
    first = 1;
  }
  for (int64_t i = 0; i < op.dims; ++i) {
    const Taps taps = taps_of(op, i, input.size(2 + i), output_size[i], in_double);
    Tensor r = apply_taps_cpu(x, first + i, taps);
    x = r.defined() ? r : apply_taps(x, first + i, taps);
  }
  if (first == 1) {
    DimVector back{0, x.dim() - 1};
    for (int64_t d = 1; d < x.dim() - 1; ++d) back.push_back(d);
    x = x.permute(back);
  }
  x = x.contiguous(format);
  if (scope.active()) scope.record(name, {input}, {x}, record_args(op, output_size, input.sizes()));
  return x;
}

Tensor upsample_backward(const Tensor& grad_output, const UpsampleOp& op, IntArrayRef output_size,
                         IntArrayRef input_size) {
  const char* name = op_name(op, /*backward=*/true);
  profiler::RecordFunction prof_range(name, profiler::RangeKind::kOp, grad_output);
  check_sizes(op, input_size, output_size);
  EMBER_CHECK(grad_output.dim() == op.dims + 2, "Expected grad_output to be a tensor of dimension ",
              op.dims + 2, " but got: dimension ", grad_output.dim());
  for (int64_t i = 0; i < op.dims + 2; ++i) {
    const int64_t want = i < 2 ? input_size[i] : output_size[i - 2];
    EMBER_CHECK(grad_output.size(i) == want,
                "Expected grad_output to have the same shape as "
                "output; output.size(",
                i, ") = ", want, " but got grad_output.size(", i, ") = ", grad_output.size(i));
  }
  OpScope scope(grad_output);
  const bool in_double = grad_output.dtype() == kDouble;
  Tensor g = grad_output;
  for (int64_t i = op.dims - 1; i >= 0; --i) {
    const int64_t in = input_size[2 + i];
    g = apply_taps_adjoint(g, 2 + i, taps_of(op, i, in, output_size[i], in_double), in);
  }
  g = g.contiguous();
  if (scope.active()) {
    scope.record(name, {grad_output}, {g}, record_args(op, output_size, input_size));
  }
  return g;
}

}  // namespace detail

namespace {

using detail::UpsampleMode;
using detail::UpsampleOp;

Tensor sized(const Tensor& self, UpsampleMode mode, int64_t dims, IntArrayRef output_size,
             bool align_corners, std::vector<std::optional<double>> scales) {
  UpsampleOp op;
  op.mode = mode;
  op.dims = dims;
  op.align_corners = align_corners;
  op.scales = std::move(scales);
  return detail::upsample(self, op, output_size);
}

// The .vec overloads: upsample's compute_output_size and get_scale_value.
Tensor vec(const Tensor& input, UpsampleMode mode, int64_t dims, const UpsampleSize& output_size,
           bool align_corners, const UpsampleScales& scale_factors) {
  EMBER_CHECK(output_size.has_value() != scale_factors.has_value(),
              "Must specify exactly one of output_size and scale_factors");
  UpsampleOp op;
  op.mode = mode;
  op.dims = dims;
  op.vec = true;
  op.align_corners = align_corners;
  op.scales.assign(dims, std::nullopt);
  if (output_size) return detail::upsample(input, op, *output_size);
  EMBER_CHECK(static_cast<int64_t>(scale_factors->size()) == dims,
              "It is expected scale_factors equals to ", dims, ", but got size ",
              scale_factors->size());
  EMBER_CHECK(input.dim() == dims + 2, "It is expected input_size equals to ", dims + 2,
              ", but got size ", input.dim());
  std::vector<int64_t> size;
  for (int64_t i = 0; i < dims; ++i) {
    const double f = (*scale_factors)[i];
    size.push_back(static_cast<int64_t>(std::floor(static_cast<double>(input.size(2 + i)) * f)));
    op.scales[i] = f;
  }
  return detail::upsample(input, op, size);
}

}  // namespace

Tensor upsample_nearest1d(const Tensor& self, IntArrayRef output_size,
                          std::optional<double> scales) {
  return sized(self, UpsampleMode::kNearest, 1, output_size, false, {scales});
}
Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size,
                          std::optional<double> scales_h, std::optional<double> scales_w) {
  return sized(self, UpsampleMode::kNearest, 2, output_size, false, {scales_h, scales_w});
}
Tensor upsample_nearest3d(const Tensor& self, IntArrayRef output_size,
                          std::optional<double> scales_d, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  return sized(self, UpsampleMode::kNearest, 3, output_size, false, {scales_d, scales_h, scales_w});
}
Tensor _upsample_nearest_exact1d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales) {
  return sized(self, UpsampleMode::kNearestExact, 1, output_size, false, {scales});
}
Tensor _upsample_nearest_exact2d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales_h, std::optional<double> scales_w) {
  return sized(self, UpsampleMode::kNearestExact, 2, output_size, false, {scales_h, scales_w});
}
Tensor _upsample_nearest_exact3d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales_d, std::optional<double> scales_h,
                                 std::optional<double> scales_w) {
  return sized(self, UpsampleMode::kNearestExact, 3, output_size, false,
               {scales_d, scales_h, scales_w});
}
Tensor upsample_linear1d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                         std::optional<double> scales) {
  return sized(self, UpsampleMode::kLinear, 1, output_size, align_corners, {scales});
}
Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                           std::optional<double> scales_h, std::optional<double> scales_w) {
  return sized(self, UpsampleMode::kLinear, 2, output_size, align_corners, {scales_h, scales_w});
}
Tensor upsample_bicubic2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                          std::optional<double> scales_h, std::optional<double> scales_w) {
  return sized(self, UpsampleMode::kCubic, 2, output_size, align_corners, {scales_h, scales_w});
}
Tensor upsample_trilinear3d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                            std::optional<double> scales_d, std::optional<double> scales_h,
                            std::optional<double> scales_w) {
  return sized(self, UpsampleMode::kLinear, 3, output_size, align_corners,
               {scales_d, scales_h, scales_w});
}

Tensor upsample_nearest1d(const Tensor& input, const UpsampleSize& output_size,
                          const UpsampleScales& scale_factors) {
  return vec(input, UpsampleMode::kNearest, 1, output_size, false, scale_factors);
}
Tensor upsample_nearest2d(const Tensor& input, const UpsampleSize& output_size,
                          const UpsampleScales& scale_factors) {
  return vec(input, UpsampleMode::kNearest, 2, output_size, false, scale_factors);
}
Tensor upsample_nearest3d(const Tensor& input, const UpsampleSize& output_size,
                          const UpsampleScales& scale_factors) {
  return vec(input, UpsampleMode::kNearest, 3, output_size, false, scale_factors);
}
Tensor _upsample_nearest_exact1d(const Tensor& input, const UpsampleSize& output_size,
                                 const UpsampleScales& scale_factors) {
  return vec(input, UpsampleMode::kNearestExact, 1, output_size, false, scale_factors);
}
Tensor _upsample_nearest_exact2d(const Tensor& input, const UpsampleSize& output_size,
                                 const UpsampleScales& scale_factors) {
  return vec(input, UpsampleMode::kNearestExact, 2, output_size, false, scale_factors);
}
Tensor _upsample_nearest_exact3d(const Tensor& input, const UpsampleSize& output_size,
                                 const UpsampleScales& scale_factors) {
  return vec(input, UpsampleMode::kNearestExact, 3, output_size, false, scale_factors);
}
Tensor upsample_linear1d(const Tensor& input, const UpsampleSize& output_size, bool align_corners,
                         const UpsampleScales& scale_factors) {
  return vec(input, UpsampleMode::kLinear, 1, output_size, align_corners, scale_factors);
}
Tensor upsample_bilinear2d(const Tensor& input, const UpsampleSize& output_size, bool align_corners,
                           const UpsampleScales& scale_factors) {
  return vec(input, UpsampleMode::kLinear, 2, output_size, align_corners, scale_factors);
}
Tensor upsample_bicubic2d(const Tensor& input, const UpsampleSize& output_size, bool align_corners,
                          const UpsampleScales& scale_factors) {
  return vec(input, UpsampleMode::kCubic, 2, output_size, align_corners, scale_factors);
}
Tensor upsample_trilinear3d(const Tensor& input, const UpsampleSize& output_size,
                            bool align_corners, const UpsampleScales& scale_factors) {
  return vec(input, UpsampleMode::kLinear, 3, output_size, align_corners, scale_factors);
}

}  // namespace ember
