// Derivatives of the nn ops (tensor/nn_ops.h). Formulas that need a
// dedicated kernel call the op's *_backward from //tensor, which is itself
// a recorded op with its derivative here (Note [Differentiable backward
// kernels] in tensor/nn_ops.h), written with the forward and backward ops
// again: double and higher backward work through every op of this file.
// The others are written with public ops.
#include <cmath>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "autograd/derivatives.h"
#include "autograd/grad_mode.h"
#include "tensor/activation_kernels.h"
#include "tensor/batch_norm_kernels.h"
#include "tensor/copy.h"
#include "tensor/creation.h"
#include "tensor/ctc_loss.h"
#include "tensor/empty.h"
#include "tensor/grid_sampler.h"
#include "tensor/im2col.h"
#include "tensor/layer_norm_kernels.h"
#include "tensor/math.h"
#include "tensor/native_dropout.h"
#include "tensor/nn_ops.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"
#include "tensor/shape.h"
#include "tensor/trilinear.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// [1, C, 1, ...]: a per-channel vector against an input of `dim` dims.
Tensor per_channel(const Tensor& v, int64_t dim) {
  DimVector s(dim, 1);
  s[1] = v.numel();
  return v.reshape(s);
}

Tensor add_defined(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  return b.defined() ? a + b : a;
}

// convolution(input, weight, bias; stride, padding, dilation, groups)
V convolution_bw(const C& c, const V& g) {
  auto [gi, gw, gb] =
      convolution_backward(g[0], c.input(0), c.input(1), c.dims(0), c.dims(1), c.dims(2),
                           c.int_arg(3), {c.needs(0), c.needs(1), c.needs(2)});
  return {gi, gw, gb};
}

// convolution_backward(grad_output, input, weight; stride, padding,
// dilation, groups) -> (grad_input, grad_weight, grad_bias), PyTorch's
// _convolution_double_backward. grad_input is bilinear in (grad_output,
// weight), grad_weight in (grad_output, input), grad_bias linear in
// grad_output, so with ggI, ggW, ggb the gradients of the three results:
//   grad_output: conv(ggI, W) + conv(I, ggW) + ggb on each channel;
//   weight: the weight gradient of conv(ggI, W) against grad_output;
//   input: the input gradient of conv(I, ggW) against grad_output.
// Results the op left out, and results nobody differentiated (a penalty on
// the input's gradient leaves ggW and ggb unused), come undefined: each
// term is skipped rather than computed on zeros.
V convolution_backward_bw(const C& c, const V& g) {
  const Tensor& go = c.input(0);
  const Tensor& x = c.input(1);
  const Tensor& w = c.input(2);
  const Tensor& ggi = g[0];
  const Tensor& ggw = g[1];
  const Tensor& ggb = g[2];
  const DimVector &stride = c.dims(0), &padding = c.dims(1), &dilation = c.dims(2);
  const int64_t groups = c.int_arg(3);
  V r(3);
  if (c.needs(0)) {
    Tensor ggo;
    if (ggi.defined()) ggo = convolution(ggi, w, ggb, stride, padding, dilation, groups);
    if (ggw.defined()) {
      Tensor b = ggi.defined() ? Tensor() : ggb;  // the bias term once
      ggo = add_defined(ggo, convolution(x, ggw, b, stride, padding, dilation, groups));
    }
    if (!ggo.defined() && ggb.defined()) ggo = per_channel(ggb, go.dim()).expand(go.sizes());
    r[0] = ggo;
  }
  if (c.needs(1) && ggw.defined()) {
    r[1] = std::get<0>(convolution_backward(go, x, ggw, stride, padding, dilation, groups,
                                            {true, false, false}));
  }
  if (c.needs(2) && ggi.defined()) {
    r[2] = std::get<1>(convolution_backward(go, ggi, w, stride, padding, dilation, groups,
                                            {false, true, false}));
  }
  return r;
}

// conv_transpose(input, weight, bias; stride, padding, output_padding,
// dilation, groups) (Note [Transposed convolution] in tensor/nn_ops.h): y is
// the input-gradient of a convolution of y's shape for grad_output x, so
//   input: the convolution of grad y with the weight;
//   weight: that convolution's weight gradient, with input grad y and
//     grad_output x;
//   bias: grad y summed per channel.
// With output_padding >= stride (allowed below the dilation) the
// convolution of y's shape has more outputs than x: the gradient drops the
// extra ones and the weight gradient sees x padded with zeros.
V conv_transpose_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const Tensor& w = c.input(1);
  const Tensor& gy = g[0];
  const DimVector &stride = c.dims(0), &padding = c.dims(1), &dilation = c.dims(3);
  const int64_t groups = c.int_arg(4);
  const int64_t k = static_cast<int64_t>(stride.size());
  DimVector conv_out(x.sizes().begin(), x.sizes().end());
  bool longer = false;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t span = dilation[i] * (w.size(2 + i) - 1) + 1;
    conv_out[2 + i] = (gy.size(2 + i) + 2 * padding[i] - span) / stride[i] + 1;
    longer = longer || conv_out[2 + i] != x.size(2 + i);
  }
  V r(3);
  if (c.needs(0)) {
    Tensor gx = convolution(gy, w, Tensor(), stride, padding, dilation, groups);
    for (int64_t i = 0; i < k && longer; ++i) gx = gx.narrow(2 + i, 0, x.size(2 + i));
    r[0] = gx;
  }
  if (c.needs(1)) {
    Tensor go = x;
    for (int64_t i = 0; i < k && longer; ++i) {
      DimVector zs(go.sizes().begin(), go.sizes().end());
      zs[2 + i] = conv_out[2 + i] - x.size(2 + i);
      go = cat({go, zeros(zs, go.options())}, 2 + i);
    }
    r[1] = std::get<1>(
        convolution_backward(go, gy, w, stride, padding, dilation, groups, {false, true, false}));
  }
  if (c.needs(2)) {
    DimVector dims{0};
    for (int64_t d = 2; d < gy.dim(); ++d) dims.push_back(d);
    r[2] = gy.sum(dims);
  }
  return r;
}

std::optional<int64_t> opt_int(const C& c, size_t i) {
  if (!c.has_arg(i)) return std::nullopt;
  return c.int_arg(i);
}

// max_pool2d_with_indices(input; kernel, stride, padding, dilation, ceil)
// The pooling gradients take the input's memory format, as PyTorch's (max
// pooling's backward op reads it from the indices; the avg poolings' ops get
// only the input's sizes, so their derivatives save the input for it, as
// PyTorch's avg_pool2d_backward takes self).
V max_pool2d_bw(const C& c, const V& g) {
  return {max_pool2d_with_indices_backward(g[0], c.input_sizes(0), c.output(1))};
}
// avg_pool2d(input; kernel, stride, padding, ceil, count_include_pad, divisor)
V avg_pool2d_bw(const C& c, const V& g) {
  return {detail::in_layout_of_input(
      avg_pool2d_backward(g[0], c.input_sizes(0), c.dims(0), c.dims(1), c.dims(2), c.bool_arg(3),
                          c.bool_arg(4), opt_int(c, 5)),
      c.input(0))};
}
V adaptive_avg_pool2d_bw(const C& c, const V& g) {
  return {detail::in_layout_of_input(adaptive_avg_pool2d_backward(g[0], c.input_sizes(0)),
                                     c.input(0))};
}

// The pooling backwards are linear in grad_output (their only
// differentiable input), so each derivative is the adjoint map:
// max_pool2d_with_indices_backward(grad_output, indices; input_sizes)
// scatters into the argmax positions, so it gathers from them (PyTorch's
// max_pool_double_backward).
// An index outside the plane (an empty window's) got nothing, so it gives
// nothing back (Note [Empty pooling windows] in derivatives/pooling.cc).
V max_pool2d_backward_bw(const C& c, const V& g) {
  const Tensor& idx = c.input(1);
  const int64_t d = idx.dim() - 2;
  Tensor gg = g[0].flatten(d), at = idx.flatten(d);
  Tensor outside = at.ge(gg.size(d));
  return {gg.gather(d, at.masked_fill(outside, 0)).masked_fill(outside, 0).reshape(idx.sizes()),
          Tensor()};
}
// avg_pool2d_backward(grad_output; input_sizes, kernel, stride, padding,
// ceil, count_include_pad, divisor) is the transpose of avg_pool2d.
V avg_pool2d_backward_bw(const C& c, const V& g) {
  return {avg_pool2d(g[0], c.dims(1), c.dims(2), c.dims(3), c.bool_arg(4), c.bool_arg(5),
                     opt_int(c, 6))};
}
// adaptive_avg_pool2d_backward(grad_output; input_sizes)
V adaptive_avg_pool2d_backward_bw(const C& c, const V& g) {
  IntArrayRef out = c.input_sizes(0);
  return {adaptive_avg_pool2d(g[0], {out[out.size() - 2], out.back()})};
}

V gelu_bw(const C& c, const V& g) {
  // Note [Fused gelu]: one kernel, unless the gradient will itself be
  // differentiated (then the same formula from recorded ops).
  if (!GradMode::is_enabled()) return {gelu_backward(g[0], c.input(0), c.str(0))};
  return {detail::gelu_backward_composed(g[0], c.input(0), c.str(0) == "tanh")};
}
V leaky_relu_bw(const C& c, const V& g) {
  if (!GradMode::is_enabled()) {
    // Note [Fused CPU activation backwards] (tensor/activation_kernels.h).
    Tensor r = detail::activation_backward_cpu(detail::ActivationBackward::kLeakyRelu, g[0],
                                               c.input(0), c.double_arg(0));
    if (r.defined()) return {r};
  }
  return {where(c.input(0) > 0, g[0], g[0] * c.scalar(0))};
}

// The biased mean and 1 / sqrt(var + eps) of x over `dims`, kept, computed
// with recorded ops (Note [Norm statistics under create_graph]).
std::pair<Tensor, Tensor> batch_stats(const Tensor& x, IntArrayRef dims, double eps) {
  Tensor mean = x.mean(dims, /*keepdim=*/true);
  Tensor centered = x - mean;
  return {mean, (centered * centered).mean(dims, /*keepdim=*/true).add(eps).rsqrt()};
}

// native_batch_norm(input, weight, bias; training, eps) ->
// (out, mean, invstd): in eval mode mean/invstd are the running ones.
V batch_norm_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const Tensor& w = c.input(1);
  const int64_t nd = x.dim();
  const bool training = c.bool_arg(0);
  DimVector dims{0};
  for (int64_t d = 2; d < nd; ++d) dims.push_back(d);
  Tensor mean = per_channel(c.output(1), nd), invstd = per_channel(c.output(2), nd);
  if (training && GradMode::is_enabled()) {
    // Note [Norm statistics under create_graph]: the saved mean and invstd
    // are outputs without a graph of their own; a gradient that will itself
    // be differentiated needs them as functions of x, so they are recomputed
    // here with recorded ops (a backward without create_graph skips this).
    std::tie(mean, invstd) = batch_stats(x, dims, c.double_arg(1));
  }
  const Tensor& gy = g[0];
  V r(3);
  if (training && !GradMode::is_enabled()) {
    // The same gradient in six passes over the input instead of ten, as
    // PyTorch's CPU kernel: with centered = x - mean, dotp = sum(gy *
    // centered) and gsum = sum(gy) per channel,
    //   grad_input = k1 * gy + k2 * centered + k3,
    //   k1 = invstd * w, k2 = -k1 * invstd^2 * dotp / m, k3 = -k1 * gsum / m.
    const double m = static_cast<double>(x.numel() / x.size(1));
    Tensor istd = c.output(2);
    if (detail::batch_norm_kernels_apply(x) &&
        istd.dtype() == (x.dtype() == kDouble ? kDouble : kFloat)) {
      // Note [Batch norm kernels]: two passes, the gradient in x's dtype.
      const MemoryFormat layout = detail::batch_norm_layout(x);
      const Tensor go = gy.to(x.dtype()).contiguous(layout);
      const TensorOptions acc = istd.options();
      Tensor gsum = empty({x.size(1)}, acc), dotp = empty({x.size(1)}, acc);
      detail::batch_norm_backward_reduce_kernel(x.device().type())(go, x, c.output(1), gsum, dotp);
      if (c.needs(0)) {
        Tensor k1 = w.defined() ? istd * w.to(acc.dtype()) : istd;
        Tensor k2 = k1 * istd * istd * dotp * (-1.0 / m);
        Tensor k3 = k1 * gsum * (-1.0 / m);
        r[0] = empty(x.sizes(), x.options().memory_format(layout));
        detail::batch_norm_affine_kernel(x.device().type())(go, x, k1, k2, c.output(1), k3, r[0]);
      }
      if (c.needs(1)) r[1] = istd * dotp;
      if (c.needs(2)) r[2] = gsum;
      return r;
    }
    Tensor centered = x - mean;
    Tensor gsum = gy.sum(dims);
    Tensor dotp = (gy * centered).sum(dims);
    if (c.needs(0)) {
      Tensor k1 = w.defined() ? istd * w : istd;
      Tensor k2 = k1 * istd * istd * dotp * (-1.0 / m);
      Tensor k3 = k1 * gsum * (-1.0 / m);
      r[0] = addcmul(addcmul(per_channel(k3, nd), centered, per_channel(k2, nd)), gy,
                     per_channel(k1, nd));
    }
    if (c.needs(1)) r[1] = istd * dotp;
    if (c.needs(2)) r[2] = gsum;
    return r;
  }
  Tensor xhat = (x - mean) * invstd;
  Tensor gsum = gy.sum(dims);
  Tensor gxhat_sum = (gy * xhat).sum(dims);
  if (c.needs(0)) {
    Tensor scale = invstd;
    if (w.defined()) scale = scale * per_channel(w, nd);
    if (training) {
      const double m = static_cast<double>(x.numel() / x.size(1));
      r[0] = scale * (gy - per_channel(gsum, nd) / m - xhat * per_channel(gxhat_sum, nd) / m);
    } else {
      r[0] = detail::in_layout_of_input(gy * scale, x);  // PyTorch's: the input's format
    }
  }
  if (c.needs(1)) r[1] = gxhat_sum;
  if (c.needs(2)) r[2] = gsum;
  return r;
}

// conv_tbc(self, weight, bias; pad): 1.13's conv_tbc_backward, all three.
V conv_tbc_bw(const C& c, const V& g) {
  auto [gi, gw, gb] = conv_tbc_backward(g[0], c.input(0), c.input(1), c.input(2), c.int_arg(0));
  return {gi, gw, gb};
}

// native_layer_norm(input, weight, bias; normalized_shape, eps) -> (out, mean, rstd)
V layer_norm_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const Tensor& w = c.input(1);
  const int64_t k = static_cast<int64_t>(c.dims(0).size());
  DimVector norm_dims, lead_dims;
  for (int64_t d = 0; d < x.dim(); ++d) (d < x.dim() - k ? lead_dims : norm_dims).push_back(d);
  Tensor mean = c.output(1), rstd = c.output(2);
  if (!GradMode::is_enabled() && detail::layer_norm_kernels_apply(x, w, Tensor()) &&
      mean.dtype() == (x.dtype() == kDouble ? kDouble : kFloat)) {
    // Note [Layer norm kernels]: the three gradients in two kernels.
    V r(3);
    if (c.needs(0)) r[0] = empty(x.sizes(), x.options());
    if (c.needs(1) && w.defined()) r[1] = empty(w.sizes(), w.options());
    if (c.needs(2)) r[2] = empty(c.input_sizes(2), x.options());
    detail::layer_norm_backward_kernel(x.device().type())(g[0].to(x.dtype()).contiguous(), x,
                                                          mean, rstd, w, r[0], r[1], r[2]);
    return r;
  }
  if (GradMode::is_enabled()) {  // Note [Norm statistics under create_graph]
    std::tie(mean, rstd) = batch_stats(x, norm_dims, c.double_arg(1));
  }
  Tensor xhat = (x - mean) * rstd;
  const Tensor& gy = g[0];
  V r(3);
  if (c.needs(0)) {
    Tensor gxhat = w.defined() ? gy * w : gy;
    r[0] = rstd * (gxhat - gxhat.mean(norm_dims, true) - xhat * (gxhat * xhat).mean(norm_dims, true));
  }
  auto lead_sum = [&](const Tensor& t) { return lead_dims.empty() ? t : t.sum(lead_dims); };
  if (c.needs(1)) r[1] = lead_sum(gy * xhat);
  if (c.needs(2)) r[2] = lead_sum(gy);
  return r;
}

// native_group_norm(input, weight, bias; group, eps, N, C, HxW) -> (out,
// mean, rstd): the layer norm of each sample's group of channels (input
// read as [N, C, HxW]), then the per-channel affine map. The statistics'
// gradients (1.13's infinitely_differentiable_native_group_norm_backward):
// mean's spreads evenly over its group, rstd's is -rstd^3 (x - mean) / M.
// Unused outputs' gradients come undefined.
V group_norm_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const Tensor& w = c.input(1);
  const int64_t groups = c.int_arg(0), n = c.int_arg(2), ch = c.int_arg(3), hxw = c.int_arg(4);
  const Tensor xg = x.reshape({n, groups, ch / groups * hxw});
  const double m = static_cast<double>(xg.size(2));
  const DimVector last{2};
  Tensor mean, rstd;
  {
    // Note [Norm statistics under create_graph]: recorded only when the
    // gradient will be differentiated again.
    std::optional<NoGradGuard> no_grad;
    if (!GradMode::is_enabled()) no_grad.emplace();
    std::tie(mean, rstd) = batch_stats(xg, last, c.double_arg(1));
  }
  const Tensor xh = (xg - mean) * rstd;
  V r(3);
  if (g[0].defined()) {
    const Tensor gy = g[0].reshape({n, ch, hxw});
    if (c.needs(0)) {
      const Tensor gxhat = (w.defined() ? gy * w.reshape({ch, 1}) : gy).reshape(xg.sizes());
      r[0] = rstd * (gxhat - gxhat.mean(last, true) - xh * (gxhat * xh).mean(last, true));
    }
    const Tensor xhat = xh.reshape({n, ch, hxw});
    if (c.needs(1) && w.defined()) r[1] = (gy * xhat).sum({0, 2});
    if (c.needs(2)) r[2] = gy.sum({0, 2});
  }
  if (c.needs(0)) {
    if (g[1].defined()) {
      const Tensor gm = g[1].reshape({n, groups, 1}) / m;
      r[0] = r[0].defined() ? r[0] + gm : gm.expand(xg.sizes());
    }
    if (g[2].defined()) {
      const Tensor gr = g[2].reshape({n, groups, 1}) * -(rstd * rstd * rstd) * (xg - mean) / m;
      r[0] = r[0].defined() ? r[0] + gr : gr;
    }
    if (r[0].defined()) r[0] = r[0].reshape(x.sizes());
  }
  return r;
}

// embedding(weight, indices; padding_idx)
V embedding_bw(const C& c, const V& g) {
  return {embedding_backward(g[0], c.input(1), c.input_sizes(0)[0], c.int_arg(0)), Tensor()};
}

// nll_loss(input, target, weight; reduction, ignore_index) -> (loss, total_weight)
V nll_loss_bw(const C& c, const V& g) {
  return {nll_loss_backward(g[0], c.input(0), c.input(1), c.input(2), c.int_arg(0), c.int_arg(1),
                            c.output(1)),
          Tensor(), Tensor()};
}
// nll_loss_backward(grad_output, input, target, weight; reduction,
// ignore_index) is linear in grad_output and picks -weight[t] * grad_output
// (over total_weight for 'mean') into the target positions: its adjoint is
// the loss itself of the incoming gradient, with the same target, weight,
// reduction and ignore_index. It does not depend on input's values (zero,
// as PyTorch gives it).
V nll_loss_backward_bw(const C& c, const V& g) {
  V r(4);
  if (c.needs(0)) {
    r[0] = std::get<0>(nll_loss_forward(g[0], c.input(2), c.input(3), c.int_arg(0), c.int_arg(1)));
  }
  if (c.needs(1)) r[1] = zeros_like(g[0]);
  return r;
}

// _ctc_loss(log_probs, targets; input_lengths, target_lengths, blank,
// zero_infinity) -> (neg_log_likelihood, log_alpha): only the first
// output is differentiable, as in PyTorch.
V ctc_loss_bw(const C& c, const V& g) {
  return {_ctc_loss_backward(g[0], c.input(0), c.input(1), c.dims(0), c.dims(1), c.output(0),
                             c.output(1), c.int_arg(2), c.int_arg(3) != 0),
          Tensor()};
}

// The gradient of a loss's reduction, to multiply the elementwise one by.
Tensor reduced_grad(const C& c, const Tensor& g, int64_t reduction) {
  if (reduction != loss_reduction::kMean) return g;
  int64_t n = 1;
  for (int64_t s : c.input_sizes(0)) n *= s;
  return g / static_cast<double>(n);
}

V mse_loss_bw(const C& c, const V& g) {
  Tensor gl = (c.input(0) - c.input(1)) * 2 * reduced_grad(c, g[0], c.int_arg(0));
  return {gl, c.needs(1) ? -gl : Tensor()};
}
V smooth_l1_loss_bw(const C& c, const V& g) {
  const double beta = c.double_arg(1);
  Tensor d = c.input(0) - c.input(1);
  Tensor dl = beta == 0 ? d.sign() : where(d.abs() < beta, d / beta, d.sign());
  Tensor gl = dl * reduced_grad(c, g[0], c.int_arg(0));
  return {gl, c.needs(1) ? -gl : Tensor()};
}
// 1.13's huber_loss_backward: the difference clamped to [-delta, delta]
// (args: reduction, delta).
V huber_loss_bw(const C& c, const V& g) {
  const double delta = c.double_arg(1);
  const Tensor d = c.input(0) - c.input(1);
  const Tensor dl = where(d <= -delta, Scalar(-delta), where(d >= delta, Scalar(delta), d));
  Tensor gl = dl * reduced_grad(c, g[0], c.int_arg(0));
  return {gl, c.needs(1) ? -gl : Tensor()};
}
// binary_cross_entropy(input, target, weight; reduction): 1.13's
// binary_cross_entropy_backward (on the squeezed operands, as the forward:
// Note [Binary cross entropy as 1.13 computes it]) and
// binary_cross_entropy_target_backward (-logit(input)).
V bce_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const Tensor& t = c.input(1);
  const Tensor& w = c.input(2);
  const bool mean = c.int_arg(0) == loss_reduction::kMean;
  V r(3);
  if (c.needs(0)) {
    const Tensor xs = x.squeeze(), ts = t.squeeze();
    Tensor gx =
        detail::on_squeezed(x, g[0].squeeze() * (xs - ts) / ((1 - xs) * xs).clamp_min(1e-12));
    if (w.defined()) gx = gx * w;
    r[0] = mean ? gx / static_cast<double>(x.numel()) : gx;
  }
  if (c.needs(1)) {
    Tensor gt = -x.logit() * g[0];
    if (w.defined()) gt = gt * w;
    r[1] = mean ? gt / static_cast<double>(t.numel()) : gt;
  }
  return r;
}
// binary_cross_entropy_with_logits(input, target, weight, pos_weight; reduction)
V bce_logits_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const Tensor& t = c.input(1);
  const Tensor& pw = c.input(3);
  Tensor gr = reduced_grad(c, g[0], c.int_arg(0));
  if (c.input(2).defined()) gr = gr * c.input(2);
  Tensor softplus_neg = (-x.abs()).exp().log1p() + (-x).clamp_min(0);
  V r(4);
  if (c.needs(0)) {
    Tensor s = x.sigmoid();
    r[0] = gr * (pw.defined() ? ((pw - 1) * t + 1) * s - pw * t : s - t);
  }
  if (c.needs(1)) r[1] = gr * (pw.defined() ? (pw - 1) * softplus_neg - x : -x);
  if (c.needs(3)) r[3] = gr * t * softplus_neg;
  return r;
}

// Note [Pads are single nodes] (nn/functional/padding.cc).
constexpr uint32_t kPadIndices = kSaveOther | kSaveThird | kSaveFourth;
// `t` along `dim` with `before` / `after` zeros added, or removed when
// negative.
Tensor pad_or_crop(Tensor t, int64_t dim, int64_t before, int64_t after) {
  if (before < 0 || after < 0) {
    const int64_t start = before < 0 ? -before : 0;
    const int64_t stop = after < 0 ? t.size(dim) + after : t.size(dim);
    t = t.narrow(dim, start, stop - start);
  }
  std::vector<Tensor> parts;
  auto zeros_of = [&](int64_t n) {
    std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
    shape[dim] = n;
    parts.push_back(zeros(shape, t.options()));
  };
  if (before > 0) zeros_of(before);
  parts.push_back(t);
  if (after > 0) zeros_of(after);
  return parts.size() == 1 ? t : cat(parts, dim);
}
// constant_pad_nd(self; pad, value): PyTorch's constant_pad_nd(grad, -pad).
V constant_pad_nd_bw(const C& c, const V& g) {
  const DimVector& p = c.dims(0);
  Tensor gi = g[0];
  for (size_t k = 0; k < p.size() / 2; ++k) {
    gi = pad_or_crop(gi, gi.dim() - 1 - static_cast<int64_t>(k), -p[2 * k], -p[2 * k + 1]);
  }
  return {gi};
}
// reflection_pad / replication_pad(self, positions along the last padded
// dims, last dim first): each output's gradient added back into the
// position it read, dim by dim in reverse.
V indexed_pad_bw(const C& c, const V& g) {
  Tensor gi = g[0];
  const IntArrayRef in = c.input_sizes(0);
  const int64_t npad = static_cast<int64_t>(c.num_inputs()) - 1;
  for (int64_t k = npad - 1; k >= 0; --k) {
    const int64_t dim = static_cast<int64_t>(in.size()) - 1 - k;
    std::vector<int64_t> shape(gi.sizes().begin(), gi.sizes().end());
    shape[dim] = in[dim];
    gi = zeros(shape, gi.options()).index_add_(dim, c.input(1 + k), gi);
  }
  V r(c.num_inputs());
  r[0] = gi;
  return r;
}

// native_dropout (args: p, train): grad * mask * scale, PyTorch's scale
// (1 when not training). Under create_graph, as 1.13, the composite
// infinitely_differentiable_native_dropout_backward (node MulBackward0).
V native_dropout_bw(const C& c, const V& g) {
  const double p = c.double_arg(0);
  const double scale = !c.bool_arg(1) ? 1. : (p == 1 ? 0. : 1. / (1. - p));
  if (GradMode::is_enabled()) return {g[0] * (c.output(1).to(g[0].dtype()) * scale)};
  return {native_dropout_backward(g[0], c.output(1), scale)};
}

// native_dropout_backward(grad, mask) (args: scale): linear in grad; the
// mask is not differentiable.
V native_dropout_backward_bw(const C& c, const V& g) {
  return {native_dropout_backward(g[0], c.input(1), c.double_arg(0)), Tensor()};
}

// grid_sampler_2d/3d(input, grid; interpolation_mode, padding_mode,
// align_corners): their backward kernels, which are recorded but have no
// derivative, as in 1.13.
V grid_sampler_2d_bw(const C& c, const V& g) {
  auto [gi, gg] = grid_sampler_2d_backward(g[0], c.input(0), c.input(1), c.int_arg(0), c.int_arg(1),
                                           c.bool_arg(2), {c.needs(0), c.needs(1)});
  return {gi, gg};
}
V grid_sampler_3d_bw(const C& c, const V& g) {
  auto [gi, gg] = grid_sampler_3d_backward(g[0], c.input(0), c.input(1), c.int_arg(0), c.int_arg(1),
                                           c.bool_arg(2), {c.needs(0), c.needs(1)});
  return {gi, gg};
}

// im2col(self; kernel_size, dilation, padding, stride) and col2im(self;
// output_size, kernel_size, ...): each the other's adjoint.
V im2col_bw(const C& c, const V& g) {
  const IntArrayRef sizes = c.input_sizes(0);
  return {col2im(g[0], {sizes[sizes.size() - 2], sizes[sizes.size() - 1]}, c.dims(0), c.dims(1),
                 c.dims(2), c.dims(3))};
}
V col2im_bw(const C& c, const V& g) {
  return {im2col(g[0], c.dims(1), c.dims(2), c.dims(3), c.dims(4))};
}

// _trilinear(i1, i2, i3; expand1, expand2, expand3, sumdim, unroll_dim):
// linear in each input, whose gradient is _trilinear with the incoming
// gradient in its place (its missing dims are sumdim's) summed over the
// input's expanded dims (1.13's _trilinear_backward).
V trilinear_bw(const C& c, const V& g) {
  const Tensor &i1 = c.input(0), &i2 = c.input(1), &i3 = c.input(2);
  const DimVector &e1 = c.dims(0), &e2 = c.dims(1), &e3 = c.dims(2), &sd = c.dims(3);
  V r(3);
  if (c.needs(0)) r[0] = _trilinear(g[0], i2, i3, sd, e2, e3, e1);
  if (c.needs(1)) r[1] = _trilinear(i1, g[0], i3, e1, sd, e3, e2);
  if (c.needs(2)) r[2] = _trilinear(i1, i2, g[0], e1, e2, sd, e3);
  return r;
}

// affine_grid_generator(theta; size, align_corners): linear in theta.
V affine_grid_generator_bw(const C& c, const V& g) {
  return {affine_grid_generator_backward(g[0], c.dims(0), c.bool_arg(1))};
}

EMBER_REGISTER_DERIVATIVES(
    {"grid_sampler_2d", "GridSampler2DBackward0", kSaveSelf | kSaveOther, false,
     grid_sampler_2d_bw},
    {"grid_sampler_3d", "GridSampler3DBackward0", kSaveSelf | kSaveOther, false,
     grid_sampler_3d_bw},
    {"affine_grid_generator", "AffineGridGeneratorBackward0", 0, false, affine_grid_generator_bw},
    {"im2col", "Im2ColBackward0", 0, false, im2col_bw},
    {"col2im", "Col2ImBackward0", 0, false, col2im_bw},
    {"_trilinear", "TrilinearBackward0", kSaveAll, false, trilinear_bw},
    {"native_dropout", "NativeDropoutBackward0", 0, true, native_dropout_bw, false,
     /*unsaved_outputs=*/1},
    {"native_dropout_backward", "NativeDropoutBackwardBackward0", kSaveOther, false,
     native_dropout_backward_bw},
    {"convolution", "ConvolutionBackward0", kSaveSelf | kSaveOther, false, convolution_bw},
    {"convolution_backward", "ConvolutionBackwardBackward0", kSaveAll, false,
     convolution_backward_bw, /*undefined_grads=*/true},
    {"conv_transpose", "ConvolutionBackward0", kSaveSelf | kSaveOther, false, conv_transpose_bw},
    {"conv_tbc", "ConvTbcBackward0", kSaveAll, false, conv_tbc_bw},
    {"max_pool2d_with_indices", "MaxPool2DWithIndicesBackward0", 0, true, max_pool2d_bw},
    {"max_pool2d_with_indices_backward", "MaxPool2DWithIndicesBackwardBackward0", kSaveOther, false,
     max_pool2d_backward_bw},
    {"avg_pool2d", "AvgPool2DBackward0", kSaveSelf, false, avg_pool2d_bw},
    {"avg_pool2d_backward", "AvgPool2DBackwardBackward0", 0, false, avg_pool2d_backward_bw},
    {"adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", kSaveSelf, false, adaptive_avg_pool2d_bw},
    {"adaptive_avg_pool2d_backward", "AdaptiveAvgPool2DBackwardBackward0", 0, false,
     adaptive_avg_pool2d_backward_bw},
    {"gelu", "GeluBackward0", kSaveSelf, false, gelu_bw},
    {"leaky_relu", "LeakyReluBackward0", kSaveSelf, false, leaky_relu_bw},
    {"native_batch_norm", "NativeBatchNormBackward0", kSaveSelf | kSaveOther, true, batch_norm_bw,
     false, /*unsaved_outputs=*/1},
    {"native_layer_norm", "NativeLayerNormBackward0", kSaveSelf | kSaveOther, true, layer_norm_bw,
     false, /*unsaved_outputs=*/1},
    {"native_group_norm", "NativeGroupNormBackward0", kSaveSelf | kSaveOther, false, group_norm_bw,
     /*undefined_grads=*/true},
    {"embedding", "EmbeddingBackward0", kSaveOther, false, embedding_bw},
    {"nll_loss", "NllLossBackward0", kSaveAll, true, nll_loss_bw},
    {"nll_loss2d", "NllLoss2DBackward0", kSaveAll, true, nll_loss_bw},
    {"nll_loss_backward", "NllLossBackwardBackward0", kSaveThird | kSaveFourth, false,
     nll_loss_backward_bw},
    {"nll_loss2d_backward", "NllLoss2DBackwardBackward0", kSaveThird | kSaveFourth, false,
     nll_loss_backward_bw},
    {"_ctc_loss", "CtcLossBackward0", kSaveAll, true, ctc_loss_bw},
    {"mse_loss", "MseLossBackward0", kSaveAll, false, mse_loss_bw},
    {"smooth_l1_loss", "SmoothL1LossBackward0", kSaveAll, false, smooth_l1_loss_bw},
    {"huber_loss", "HuberLossBackward0", kSaveAll, false, huber_loss_bw},
    {"binary_cross_entropy", "BinaryCrossEntropyBackward0", kSaveAll, false, bce_bw},
    {"binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0", kSaveAll, false,
     bce_logits_bw},
    {"constant_pad_nd", "ConstantPadNdBackward0", 0, false, constant_pad_nd_bw},
    {"reflection_pad1d", "ReflectionPad1DBackward0", kPadIndices, false, indexed_pad_bw},
    {"reflection_pad2d", "ReflectionPad2DBackward0", kPadIndices, false, indexed_pad_bw},
    {"reflection_pad3d", "ReflectionPad3DBackward0", kPadIndices, false, indexed_pad_bw},
    {"replication_pad1d", "ReplicationPad1DBackward0", kPadIndices, false, indexed_pad_bw},
    {"replication_pad2d", "ReplicationPad2DBackward0", kPadIndices, false, indexed_pad_bw},
    {"replication_pad3d", "ReplicationPad3DBackward0", kPadIndices, false, indexed_pad_bw});

}  // namespace
}  // namespace autograd
}  // namespace ember
