// The derivatives of the 3-d poolings and the adaptive max poolings
// (Note [Pooling nodes] in nn/functional/pooling_nd.cc), PyTorch 1.13's
// nodes and gradients. They are written with public ops (the 2-d pooling
// backward kernels, scatter_add), so they are differentiable again.
#include <optional>
#include <vector>

#include "autograd/derivatives.h"
#include "tensor/creation.h"
#include "tensor/nn_ops.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// The gradient of a max pooling over the trailing `spatial` dims of an
// input of sizes `in`: grad_output added at the flat indices of each plane,
// as 1.13's max_pool3d_with_indices_backward and adaptive_max_pool{2,3}d
// backward (+=, so a position chosen by several windows gets their sum). A
// channels-last index (adaptive_max_pool2d's of a channels-last input)
// gives a channels-last gradient, 1.13's input format. `empty`: the
// output positions (over the trailing dims, flat) that get no gradient,
// or undefined.
Tensor scatter_to_indices(const Tensor& grad, const Tensor& indices, IntArrayRef in,
                          int64_t spatial, const Tensor& empty = Tensor()) {
  const int64_t batch = static_cast<int64_t>(in.size()) - spatial;
  const int64_t planes = compute_numel(in.subspan(0, batch)),
                area = compute_numel(in.subspan(batch));
  const int64_t per_plane = planes == 0 ? 0 : indices.numel() / planes;
  Tensor idx = indices.reshape({planes, per_plane}), src = grad.reshape({planes, per_plane});
  if (empty.defined()) {
    idx = idx.masked_fill(empty, 0);
    src = src.masked_fill(empty, 0);
  }
  Tensor gx = zeros({planes, area}, grad.options()).scatter_add(1, idx, src).view(in);
  if (in.size() == 4 && indices.suggest_memory_format() == MemoryFormat::ChannelsLast) {
    gx = gx.contiguous(MemoryFormat::ChannelsLast);
  }
  return gx;
}

// Note [Empty pooling windows]: with dilation and padding, a max pooling
// window can hold padding only. Its value is -inf and its index (1.13's,
// which ember's forward reproduces) is its first tap: outside the plane, or
// where a dim's first tap runs past its end, a position of the next row or
// plane. 1.13's CPU backward adds the window's gradient there anyway (into
// another element, the next plane's memory, or past the end of the buffer
// for the last plane). The value does not depend on the input, so ember
// gives such a window no gradient. The windows of the spatial dims of
// `in` (outputs `out`) that are empty, flat [numel of out] bool on `device`;
// undefined when there are none.
Tensor empty_windows(IntArrayRef in, IntArrayRef out, const DimVector& stride,
                     const DimVector& padding, const DimVector& dilation, Device device) {
  const size_t dims = out.size();
  std::vector<std::vector<int64_t>> empty(dims);
  bool any = false;
  for (size_t i = 0; i < dims; ++i) {
    for (int64_t o = 0; o < out[i]; ++o) {
      int64_t tap = o * stride[i] - padding[i];
      while (tap < 0) tap += dilation[i];
      empty[i].push_back(tap >= in[i]);
      any |= tap >= in[i];
    }
  }
  if (!any) return Tensor();
  Tensor mask;
  for (size_t i = 0; i < dims; ++i) {
    DimVector shape(dims, 1);
    shape[i] = out[i];
    Tensor m = tensor(empty[i], kLong).view(shape).ne(0);
    mask = i == 0 ? m : mask.logical_or(m);
  }
  return mask.reshape({1, compute_numel(out)}).to(device);
}

V max_pool_bw(const C& c, const V& g, int64_t spatial, const Tensor& empty = Tensor()) {
  if (!g[0].defined()) return {Tensor()};
  return {scatter_to_indices(g[0], c.output(1), c.input_sizes(0), spatial, empty)};
}

// max_pool3d_with_indices(input; kernel, stride, padding, dilation, ceil).
// Only a dilated window can miss the input (padding <= kernel / 2).
V max_pool3d_bw(const C& c, const V& g) {
  const DimVector &s = c.dims(1), &p = c.dims(2), &d = c.dims(3);
  Tensor empty;
  if ((p[0] > 0 && d[0] > 1) || (p[1] > 0 && d[1] > 1) || (p[2] > 0 && d[2] > 1)) {
    IntArrayRef in = c.input_sizes(0), out = c.output(1).sizes();
    empty = empty_windows(in.subspan(in.size() - 3), out.subspan(out.size() - 3), s, p, d,
                          c.output(1).device());
  }
  return max_pool_bw(c, g, 3, empty);
}
// adaptive_max_pool{2,3}d(input; output_size): no window is empty.
V adaptive_max_pool2d_bw(const C& c, const V& g) { return max_pool_bw(c, g, 2); }
V adaptive_max_pool3d_bw(const C& c, const V& g) { return max_pool_bw(c, g, 3); }

// The 3-d average poolings are computed in two 2-d stages (Note [Separable
// pooling] in nn/functional/pooling_nd.cc): [N, C*D, H, W] pooled over
// (H, W), then [N, C, D, OH*OW] pooled over D. Their gradient is the
// stages' adjoints in reverse order. in: the input's sizes (4 or 5 dims);
// go: grad_output.
struct Stages {
  int64_t n, c, d, h, w, od, oh, ow;
};
Stages stages_of(IntArrayRef in, const Tensor& go) {
  const bool batched = in.size() == 5;
  const int64_t k = go.dim();
  return {batched ? in[0] : 1, in[in.size() - 4], in[in.size() - 3], in[in.size() - 2],
          in.back(),           go.size(k - 3),    go.size(k - 2),    go.size(k - 1)};
}

// avg_pool3d(input; kernel, stride, padding, ceil, count_include_pad,
// divisor). With a divisor, both stages sum and the divisor divides once.
V avg_pool3d_bw(const C& c, const V& g) {
  IntArrayRef in = c.input_sizes(0);
  const Stages s = stages_of(in, g[0]);
  const DimVector &k = c.dims(0), &st = c.dims(1), &p = c.dims(2);
  const bool ceil = c.bool_arg(3), count_pad = c.bool_arg(4);
  const std::optional<int64_t> divisor =
      c.has_arg(5) ? std::optional<int64_t>(c.int_arg(5)) : std::nullopt;
  const std::optional<int64_t> stage_divisor = divisor ? std::optional<int64_t>(1) : std::nullopt;
  Tensor t =
      avg_pool2d_backward(g[0].reshape({s.n, s.c, s.od, s.oh * s.ow}), {s.n, s.c, s.d, s.oh * s.ow},
                          {k[0], 1}, {st[0], 1}, {p[0], 0}, ceil, count_pad, stage_divisor);
  Tensor gx = avg_pool2d_backward(t.reshape({s.n, s.c * s.d, s.oh, s.ow}),
                                  {s.n, s.c * s.d, s.h, s.w}, {k[1], k[2]}, {st[1], st[2]},
                                  {p[1], p[2]}, ceil, count_pad, stage_divisor);
  if (divisor) gx = gx / static_cast<double>(*divisor);
  return {gx.reshape(in)};
}

// adaptive_avg_pool3d(input; output_size)
V adaptive_avg_pool3d_bw(const C& c, const V& g) {
  IntArrayRef in = c.input_sizes(0);
  // An empty output gives zeros in 1.13 (whose 2-d backward would raise).
  if (g[0].numel() == 0) return {zeros(in, g[0].options())};
  const Stages s = stages_of(in, g[0]);
  Tensor t = adaptive_avg_pool2d_backward(g[0].reshape({s.n, s.c, s.od, s.oh * s.ow}),
                                          {s.n, s.c, s.d, s.oh * s.ow});
  Tensor gx = adaptive_avg_pool2d_backward(t.reshape({s.n, s.c * s.d, s.oh, s.ow}),
                                           {s.n, s.c * s.d, s.h, s.w});
  return {gx.reshape(in)};
}

}  // namespace

// The max poolings read only their indices (1.13's nodes save result1).
EMBER_REGISTER_DERIVATIVES(
    {"max_pool3d_with_indices", "MaxPool3DWithIndicesBackward0", 0, true, max_pool3d_bw, false,
     /*unsaved_outputs=*/1},
    {"avg_pool3d", "AvgPool3DBackward0", 0, false, avg_pool3d_bw},
    {"adaptive_avg_pool3d", "AdaptiveAvgPool3DBackward0", 0, false, adaptive_avg_pool3d_bw},
    {"adaptive_max_pool2d", "AdaptiveMaxPool2DBackward0", 0, true, adaptive_max_pool2d_bw, false,
     /*unsaved_outputs=*/1},
    {"adaptive_max_pool3d", "AdaptiveMaxPool3DBackward0", 0, true, adaptive_max_pool3d_bw, false,
     /*unsaved_outputs=*/1});

}  // namespace autograd
}  // namespace ember
