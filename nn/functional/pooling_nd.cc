// The 1-d, 3-d and adaptive max poolings, written on //tensor's 2-d kernels.
//
// Note [Separable pooling]: a max or average over a box is a max or average
// over depth of the max or average over each (H, W) window, and PyTorch
// 1.13's window sizes, ceil_mode rule and divisors (count_include_pad or
// not) are products of per-dim ones; so a 3-d pool is a 2-d pool of each
// depth plane followed by a 2-d pool of kernel (KD, 1) across depth. For
// max, taking the first maximum of each stage picks the first maximum in
// (d, h, w) order, PyTorch's choice on ties, and the stages' indices
// combine into PyTorch's flat D*H*W index. Adaptive max pooling gathers
// each output's window (padded to the widest by repeating its last
// element, which changes neither the maximum nor the first index of it)
// and takes max over it, one dim at a time. Every stage is a recorded,
// differentiable op, so the gradients are the kernels' own and the ops run
// wherever the 2-d kernels and index_select do (CPU and CUDA).
#include <algorithm>
#include <array>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nn/functional/pooling.h"
#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/nn_ops.h"
#include "tensor/nn_util.h"

namespace ember {
namespace nn {
namespace functional {
namespace {

using ::ember::detail::bracketed;

// PyTorch 1.13's pooling_output_shape, its checks included.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation,
                    bool ceil_mode) {
  EMBER_CHECK(stride != 0, "stride should not be zero");
  EMBER_CHECK(pad <= k / 2, "pad should be at most half of kernel size, but got pad=", pad,
              " and kernel_size=", k);
  const int64_t num = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  // The last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

void check_1d_dims(const Tensor& input, const char* name) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "Expected 2 to 3 dimensions, but got ",
              input.dim(), "-dimensional tensor for argument #1 'self' (while checking arguments for ",
              name, ")");
}

// The checks of PyTorch's max_pool3d / avg_pool3d (pool3d_shape_check)
// and the output's (D, H, W). x is batched.
std::array<int64_t, 3> pool3d_output(const Tensor& x, const ExpandingArray<3>& k,
                                     const ExpandingArray<3>& s, const ExpandingArray<3>& p,
                                     const ExpandingArray<3>& d, bool ceil_mode, bool avg) {
  std::array<int64_t, 3> in{x.size(2), x.size(3), x.size(4)}, out;
  for (int i = 0; i < 3; ++i) out[i] = pooled_size(in[i], k[i], p[i], s[i], d[i], ceil_mode);
  EMBER_CHECK(k[0] > 0 && k[1] > 0 && k[2] > 0, "kernel size should be greater than zero, but got ",
              "kT: ", k[0], " kH: ", k[1], " kW: ", k[2]);
  EMBER_CHECK(s[0] > 0 && s[1] > 0 && s[2] > 0, "stride should be greater than zero, but got ",
              "dT: ", s[0], " dH: ", s[1], " dW: ", s[2]);
  EMBER_CHECK(d[0] > 0 && d[1] > 0 && d[2] > 0, "dilation should be greater than zero, but got ",
              "dilationT: ", d[0], " dilationH: ", d[1], " dilationW: ", d[2]);
  if (avg) {
    EMBER_CHECK(in[0] >= k[0] && in[1] >= k[1] && in[2] >= k[2], "input image (T: ", in[0],
                " H: ", in[1], " W: ", in[2], ") smaller than kernel size (kT: ", k[0],
                " kH: ", k[1], " kW: ", k[2], ")");
  }
  const int64_t c = x.size(1);
  EMBER_CHECK(out[0] >= 1 && out[1] >= 1 && out[2] >= 1, "Given input size: (", c, "x", in[0],
              "x", in[1], "x", in[2], "). Calculated output size: (", c, "x", out[0], "x",
              out[1], "x", out[2], "). Output size is too small");
  return out;
}

// x batched ([N, C, *]) from a batched or unbatched input of `spatial` dims.
Tensor batched(const Tensor& input, int64_t spatial) {
  return input.dim() == spatial + 1 ? input.unsqueeze(0) : input;
}
Tensor unbatched_like(const Tensor& out, const Tensor& input, int64_t spatial) {
  return input.dim() == spatial + 1 ? out.squeeze(0) : out;
}

// Adaptive max pooling of x along `dim` to `out` windows (Note [Separable
// pooling]): (values, indices along dim).
std::tuple<Tensor, Tensor> adaptive_max_along(const Tensor& x, int64_t dim, int64_t out) {
  const int64_t len = x.size(dim);
  std::vector<int64_t> starts(out), ends(out);
  int64_t width = 1;
  for (int64_t o = 0; o < out; ++o) {
    starts[o] = o * len / out;
    ends[o] = ((o + 1) * len + out - 1) / out;
    width = std::max(width, ends[o] - starts[o]);
  }
  std::vector<int64_t> taps;
  taps.reserve(out * width);
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t k = 0; k < width; ++k) taps.push_back(starts[o] + std::min(k, ends[o] - starts[o] - 1));
  }
  DimVector windows(x.sizes().begin(), x.sizes().end());
  windows[dim] = out;
  windows.insert(windows.begin() + dim + 1, width);
  Tensor g = x.index_select(dim, tensor(taps, kLong).to(x.device())).view(windows);
  auto [values, k] = g.max(dim + 1);
  DimVector along(x.dim(), 1);
  along[dim] = out;
  return {values, k + tensor(starts, kLong).to(x.device()).view(along)};
}

}  // namespace

// --- 1-d: views of the 2-d kernels -------------------------------------------------------

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                   const MaxPool1dFuncOptions& o) {
  // PyTorch 1.13's check_max_pool1d.
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3,
              "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
              "for input, but got:",
              bracketed(input.sizes()));
  const int64_t k = o.kernel_size()[0], s = o.stride()[0], p = o.padding()[0],
                d = o.dilation()[0];
  EMBER_CHECK(k > 0, "max_pool1d() kernel_size must be greater than zero, but got ", k);
  EMBER_CHECK(s > 0, "max_pool1d() stride must be greater than zero, but got ", s);
  EMBER_CHECK(p >= 0, "max_pool1d() padding must be non-negative, but got ", p);
  EMBER_CHECK(p <= k / 2,
              "max_pool1d() padding should be at most half of kernel size, but got padding=", p,
              " and kernel_size=", k);
  EMBER_CHECK(d > 0, "max_pool1d() dilation must be greater than zero, but got ", d);
  const int64_t ow = pooled_size(input.size(-1), k, p, s, d, o.ceil_mode());
  EMBER_CHECK(ow >= 0, "max_pool1d() Invalid computed output size: ", ow);
  if (ow == 0) {  // PyTorch returns an empty result where the 2-d kernel refuses
    DimVector sizes(input.sizes().begin(), input.sizes().end());
    sizes.back() = 0;
    return {empty(sizes, input.options()), empty(sizes, input.options().dtype(kLong))};
  }
  auto [out, idx] = ember::max_pool2d_with_indices(input.unsqueeze(-2), {1, k}, {1, s}, {0, p},
                                                   {1, d}, o.ceil_mode());
  return {out.squeeze(-2), idx.squeeze(-2)};
}

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options) {
  return std::get<0>(max_pool1d_with_indices(input, options));
}

Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& o) {
  check_1d_dims(input, "avg_pool1d");
  return ember::avg_pool2d(input.unsqueeze(-2), {1, o.kernel_size()[0]}, {1, o.stride()[0]},
                           {0, o.padding()[0]}, o.ceil_mode(), o.count_include_pad(),
                           o.divisor_override())
      .squeeze(-2);
}

Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& o) {
  check_1d_dims(input, "adaptive_avg_pool1d");
  return ember::adaptive_avg_pool2d(input.unsqueeze(-2), {1, o.output_size()[0]}).squeeze(-2);
}

// --- adaptive max ----------------------------------------------------------------------------

std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool1dFuncOptions& o) {
  check_1d_dims(input, "adaptive_max_pool1d");
  EMBER_CHECK(input.size(-1) > 0,
              "adaptive_max_pool1d(): Expected input to have non-zero size for non-batch "
              "dimensions, but input has sizes ",
              bracketed(input.sizes()), " with dimension ", input.dim() - 1, " being empty");
  EMBER_CHECK(o.output_size()[0] >= 0, "adaptive_max_pool1d: elements of output_size must be "
              "greater than or equal to 0 but received {", o.output_size()[0], "}");
  return adaptive_max_along(input, input.dim() - 1, o.output_size()[0]);
}

Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, options));
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& o) {
  const int64_t dims = input.dim();
  EMBER_CHECK(dims == 3 || dims == 4, "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: ",
              bracketed(input.sizes()));
  for (int64_t i = 1; i < dims; ++i) {
    EMBER_CHECK(input.size(i) > 0,
                "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
                "dimensions, but input has sizes ",
                bracketed(input.sizes()), " with dimension ", i, " being empty");
  }
  auto [rows, iw] = adaptive_max_along(input, dims - 1, o.output_size()[1]);
  auto [out, ih] = adaptive_max_along(rows, dims - 2, o.output_size()[0]);
  // The column each chosen row's maximum came from.
  Tensor col = iw.gather(dims - 2, ih);
  return {out, ih * input.size(-1) + col};
}

Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, options));
}

// --- 3-d: two 2-d stages ---------------------------------------------------------------------

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input,
                                                   const MaxPool3dFuncOptions& o) {
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5,
              "non-empty 4D or 5D (batch mode) tensor expected for input");
  Tensor x = batched(input, 3);
  const auto &k = o.kernel_size(), &s = o.stride(), &p = o.padding(), &d = o.dilation();
  const auto out = pool3d_output(x, k, s, p, d, o.ceil_mode(), /*avg=*/false);
  const int64_t n = x.size(0), c = x.size(1), depth = x.size(2), h = x.size(3), w = x.size(4);
  auto [planes, hw] =
      ember::max_pool2d_with_indices(x.reshape({n, c * depth, h, w}), {k[1], k[2]}, {s[1], s[2]},
                                     {p[1], p[2]}, {d[1], d[2]}, o.ceil_mode());
  const int64_t area = out[1] * out[2];
  auto [result, at] = ember::max_pool2d_with_indices(
      planes.view({n, c, depth, area}), {k[0], 1}, {s[0], 1}, {p[0], 0}, {d[0], 1}, o.ceil_mode());
  // `at` indexes (depth, oh * OW + ow) planes; the chosen depth's (h, w)
  // index is in `hw`.
  Tensor at_flat = at.reshape({n, c, out[0] * area});
  Tensor chosen_hw = hw.reshape({n, c, depth * area}).gather(2, at_flat);
  Tensor index = at_flat.floor_divide(area) * (h * w) + chosen_hw;
  DimVector sizes{n, c, out[0], out[1], out[2]};
  return {unbatched_like(result.view(sizes), input, 3),
          unbatched_like(index.view(sizes), input, 3)};
}

Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options) {
  return std::get<0>(max_pool3d_with_indices(input, options));
}

Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& o) {
  const std::optional<int64_t> divisor = o.divisor_override();
  EMBER_CHECK(!divisor || *divisor != 0, "divisor must be not zero");
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5,
              "non-empty 4D or 5D (batch mode) tensor expected for input");
  Tensor x = batched(input, 3);
  const auto &k = o.kernel_size(), &s = o.stride(), &p = o.padding();
  const auto out = pool3d_output(x, k, s, p, ExpandingArray<3>(1), o.ceil_mode(), /*avg=*/true);
  const int64_t n = x.size(0), c = x.size(1), depth = x.size(2);
  // With divisor_override, both stages sum and the override divides once.
  const std::optional<int64_t> stage_divisor =
      divisor ? std::optional<int64_t>(1) : std::nullopt;
  Tensor planes = ember::avg_pool2d(x.reshape({n, c * depth, x.size(3), x.size(4)}), {k[1], k[2]},
                                    {s[1], s[2]}, {p[1], p[2]}, o.ceil_mode(),
                                    o.count_include_pad(), stage_divisor);
  Tensor result = ember::avg_pool2d(planes.view({n, c, depth, out[1] * out[2]}), {k[0], 1},
                                    {s[0], 1}, {p[0], 0}, o.ceil_mode(), o.count_include_pad(),
                                    stage_divisor);
  if (divisor) result = result / static_cast<double>(*divisor);
  return unbatched_like(result.view({n, c, out[0], out[1], out[2]}), input, 3);
}

Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& o) {
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5,
              "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got ", bracketed(input.sizes()));
  for (int64_t i = 1; i < input.dim(); ++i) {
    EMBER_CHECK(input.size(i) > 0,
                "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch "
                "dimensions, but input has sizes ",
                bracketed(input.sizes()), " with dimension ", i, " being empty");
  }
  Tensor x = batched(input, 3);
  const auto& os = o.output_size();
  const int64_t n = x.size(0), c = x.size(1), depth = x.size(2);
  Tensor planes =
      ember::adaptive_avg_pool2d(x.reshape({n, c * depth, x.size(3), x.size(4)}), {os[1], os[2]});
  // Adaptive pooling of a dim onto its own length is the identity.
  Tensor result =
      ember::adaptive_avg_pool2d(planes.view({n, c, depth, os[1] * os[2]}), {os[0], os[1] * os[2]});
  return unbatched_like(result.view({n, c, os[0], os[1], os[2]}), input, 3);
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
