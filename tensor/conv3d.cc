// 3-d convolution and its transpose on the 2-d kernels (Note [3-d
// convolution from 2-d] in conv3d.h).
#include "tensor/conv3d.h"

#include <array>
#include <vector>

#include "tensor/creation.h"
#include "tensor/nn_ops.h"
#include "tensor/shape.h"

namespace ember {
namespace {

// x [N, C, D, H, W] -> [N * OD, groups * KD * C / groups, H, W]: the
// depth window of each output depth as channels (group, kd, c / g).
Tensor depth_columns(const Tensor& x, int64_t groups, int64_t kd, int64_t od, int64_t stride,
                     int64_t padding, int64_t dilation) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(3), w = x.size(4);
  Tensor xp = x;
  if (padding > 0) {
    Tensor z = zeros({n, c, padding, h, w}, x.options());
    xp = cat({z, x, z}, 2);
  }
  const int64_t span = dilation * (kd - 1) + 1;
  // [N, C, OD, H, W, KD]
  Tensor win = xp.unfold(2, span, stride).slice(5, 0, span, dilation);
  return win.reshape({n, groups, c / groups, od, h, w, kd})
      .permute({0, 3, 1, 6, 2, 4, 5})
      .reshape({n * od, groups * kd * (c / groups), h, w});
}

// The adjoint of depth_columns: cols [N * OD, groups * KD * C / groups, H,
// W] summed into [N, C, D, H, W], tap (k, i) at depth i * stride + k *
// dilation of the padded input, then cropped by the padding.
Tensor depth_fold(const Tensor& cols, int64_t n, int64_t c, int64_t d, int64_t groups, int64_t kd,
                  int64_t od, int64_t stride, int64_t padding, int64_t dilation) {
  const int64_t h = cols.size(2), w = cols.size(3);
  Tensor taps = cols.reshape({n, od, groups, kd, c / groups, h, w})
                    .permute({0, 2, 4, 3, 1, 5, 6})
                    .reshape({n, c, kd * od, h, w});
  std::vector<int64_t> where;
  where.reserve(kd * od);
  for (int64_t k = 0; k < kd; ++k) {
    for (int64_t i = 0; i < od; ++i) where.push_back(i * stride + k * dilation);
  }
  Tensor index = tensor(where, kLong).to(cols.device());
  return zeros({n, c, d + 2 * padding, h, w}, cols.options())
      .index_add(2, index, taps)
      .narrow(2, padding, d);
}

// weight [C_out, C_in / g, KD, KH, KW] -> [C_out, KD * C_in / g, KH, KW].
Tensor weight_2d(const Tensor& weight) {
  return weight.permute({0, 2, 1, 3, 4})
      .reshape({weight.size(0), weight.size(2) * weight.size(1), weight.size(3), weight.size(4)});
}

}  // namespace

Tensor convolution3d_from_2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                             IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                             int64_t groups) {
  const int64_t n = input.size(0), co = weight.size(0), kd = weight.size(2);
  const int64_t span = dilation[0] * (kd - 1) + 1;
  const int64_t od = (input.size(2) + 2 * padding[0] - span) / stride[0] + 1;
  Tensor cols = depth_columns(input, groups, kd, od, stride[0], padding[0], dilation[0]);
  Tensor y = convolution(cols, weight_2d(weight), bias, {stride[1], stride[2]},
                         {padding[1], padding[2]}, {dilation[1], dilation[2]}, groups);
  return y.view({n, od, co, y.size(2), y.size(3)}).permute({0, 2, 1, 3, 4}).contiguous();
}

std::tuple<Tensor, Tensor, Tensor> convolution3d_from_2d_backward(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight, IntArrayRef stride,
    IntArrayRef padding, IntArrayRef dilation, int64_t groups, std::array<bool, 3> mask) {
  const int64_t n = input.size(0), c = input.size(1), co = weight.size(0), kd = weight.size(2);
  const int64_t od = grad_output.size(2);
  if (!mask[1]) {
    // Without the weight's gradient, no columns: the input's gradient is
    // the transpose of grad_output, with the output_padding that restores
    // the input's sizes (less than the stride).
    std::array<int64_t, 3> op;
    for (int64_t i = 0; i < 3; ++i) {
      const int64_t span = dilation[i] * (weight.size(2 + i) - 1) + 1;
      op[i] = input.size(2 + i) + 2 * padding[i] - span - (grad_output.size(2 + i) - 1) * stride[i];
    }
    Tensor gi = mask[0] ? conv_transpose3d_from_2d(grad_output, weight, Tensor(), stride, padding,
                                                   op, dilation, groups)
                        : Tensor();
    return {gi, Tensor(), mask[2] ? grad_output.sum({0, 2, 3, 4}) : Tensor()};
  }
  Tensor g2 = grad_output.permute({0, 2, 1, 3, 4})
                  .reshape({n * od, co, grad_output.size(3), grad_output.size(4)});
  Tensor cols = depth_columns(input, groups, kd, od, stride[0], padding[0], dilation[0]);
  auto [gcols, gw2, gb] =
      convolution_backward(g2, cols, weight_2d(weight), {stride[1], stride[2]},
                           {padding[1], padding[2]}, {dilation[1], dilation[2]}, groups, mask);
  Tensor gi;
  if (mask[0]) {
    gi = depth_fold(gcols, n, c, input.size(2), groups, kd, od, stride[0], padding[0], dilation[0]);
  }
  Tensor gw = gw2.reshape({co, kd, weight.size(1), weight.size(3), weight.size(4)})
                  .permute({0, 2, 1, 3, 4});
  return {gi, gw, mask[2] ? gb : Tensor()};
}

Tensor conv_transpose3d_from_2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                                IntArrayRef dilation, int64_t groups) {
  const int64_t n = input.size(0), ci = input.size(1), cog = weight.size(1);
  const int64_t co = cog * groups, kd = weight.size(2), id = input.size(2);
  const int64_t out_d =
      (id - 1) * stride[0] - 2 * padding[0] + dilation[0] * (kd - 1) + 1 + output_padding[0];
  // Output channels as (group, kd, c_out / g): each depth tap's 2-d result.
  Tensor w2 =
      weight.permute({0, 2, 1, 3, 4}).reshape({ci, kd * cog, weight.size(3), weight.size(4)});
  Tensor x = input.permute({0, 2, 1, 3, 4}).reshape({n * id, ci, input.size(3), input.size(4)});
  Tensor y =
      conv_transpose(x, w2, Tensor(), {stride[1], stride[2]}, {padding[1], padding[2]},
                     {output_padding[1], output_padding[2]}, {dilation[1], dilation[2]}, groups);
  Tensor result = depth_fold(y, n, co, out_d, groups, kd, id, stride[0], padding[0], dilation[0]);
  if (bias.defined()) result = result + bias.to(result.dtype()).view({1, co, 1, 1, 1});
  return result.contiguous();
}

std::tuple<Tensor, Tensor, Tensor> conv_transpose3d_from_2d_backward(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight, IntArrayRef stride,
    IntArrayRef padding, IntArrayRef output_padding, IntArrayRef dilation, int64_t groups,
    std::array<bool, 3> mask) {
  (void)output_padding;  // the sizes of grad_output and input carry it
  // The transpose's input gradient is the convolution of grad_output, whose
  // result is longer than the input where output_padding >= stride; its
  // weight gradient the convolution's, with grad_output as the input and
  // the input (zero-extended to that length) as the output's gradient.
  std::vector<int64_t> conv_out(input.sizes().begin(), input.sizes().end());
  bool longer = false;
  for (int64_t i = 0; i < 3; ++i) {
    const int64_t span = dilation[i] * (weight.size(2 + i) - 1) + 1;
    conv_out[2 + i] = (grad_output.size(2 + i) + 2 * padding[i] - span) / stride[i] + 1;
    longer = longer || conv_out[2 + i] != input.size(2 + i);
  }
  Tensor gi, gw, gb;
  if (mask[0]) {
    gi = convolution3d_from_2d(grad_output, weight, Tensor(), stride, padding, dilation, groups);
    for (int64_t i = 0; i < 3 && longer; ++i) gi = gi.narrow(2 + i, 0, input.size(2 + i));
  }
  if (mask[1]) {
    Tensor go = input;
    for (int64_t i = 0; i < 3 && longer; ++i) {
      std::vector<int64_t> zs(go.sizes().begin(), go.sizes().end());
      zs[2 + i] = conv_out[2 + i] - input.size(2 + i);
      go = cat({go, zeros(zs, go.options())}, 2 + i);
    }
    gw = std::get<1>(convolution3d_from_2d_backward(go, grad_output, weight, stride, padding,
                                                    dilation, groups, {false, true, false}));
  }
  if (mask[2]) gb = grad_output.sum({0, 2, 3, 4});
  return {gi, gw, gb};
}

}  // namespace ember
