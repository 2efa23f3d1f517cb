// 3-d convolution and its transpose on the 2-d kernels (Note [3-d
// convolution from 2-d] in conv3d.h).
#include "nn/functional/conv3d.h"

#include <array>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensor/autograd_hook.h"
#include "tensor/conv3d.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/nn_ops.h"
#include "tensor/nn_util.h"
#include "tensor/scalar.h"

namespace ember {
namespace nn {
namespace functional {
namespace detail {
namespace {

using ::ember::detail::bracketed;

// "(2 x 3 x 4)", as PyTorch prints per-channel sizes.
std::string by(const std::array<int64_t, 3>& v) { return absl::StrCat("(", absl::StrJoin(v, " x "), ")"); }

// The checks of PyTorch's convolution that hold for both directions,
// before anything is reshaped (the 2-d kernels would name 4-d sizes).
void check_common(const Tensor& input, const Tensor& weight, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  EMBER_CHECK(weight.dim() == 5, "expected stride to be a single integer value or a list of ",
              weight.dim() - 2, " values to match the convolution dimensions, but got stride=",
              bracketed(stride));
  EMBER_CHECK(input.dim() == 5, "Expected 5-dimensional input for 5-dimensional weight ",
              bracketed(weight.sizes()), ", but got ", input.dim(), "-dimensional input of size ",
              bracketed(input.sizes()), " instead");
  for (int64_t s : stride) EMBER_CHECK(s > 0, "non-positive stride is not supported");
  for (int64_t p : padding) EMBER_CHECK(p >= 0, "negative padding is not supported");
  for (int64_t d : dilation) {
    EMBER_CHECK(d > 0, "dilation should be greater than zero, but got ", bracketed(dilation));
  }
  EMBER_CHECK(groups > 0, "non-positive groups is not supported");
  EMBER_CHECK(input.dtype() == weight.dtype(), "expected scalar type ",
              scalar_type_name(input.dtype()), " but found ", scalar_type_name(weight.dtype()));
  EMBER_CHECK(weight.size(0) % groups == 0, "Given groups=", groups,
              ", expected weight to be divisible by ", groups,
              " at dimension 0, but got weight of size [", bracketed(weight.sizes()),
              "] instead");  // PyTorch's doubled brackets
}

}  // namespace

Tensor convolution3d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                     IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                     int64_t groups) {
  check_common(input, weight, stride, padding, dilation, groups);
  const int64_t c = input.size(1), co = weight.size(0), cg = weight.size(1);
  EMBER_CHECK(c == cg * groups, "Given groups=", groups, ", weight of size ",
              bracketed(weight.sizes()), ", expected input", bracketed(input.sizes()), " to have ",
              cg * groups, " channels, but got ", c, " channels instead");
  if (bias.defined()) {
    EMBER_CHECK(bias.dim() == 1 && bias.size(0) == co, "Given weight of size ",
                bracketed(weight.sizes()), ", expected bias to be 1-dimensional with ", co,
                " elements, but got bias of size ", bracketed(bias.sizes()), " instead");
  }
  std::array<int64_t, 3> padded, kernel;
  for (int i = 0; i < 3; ++i) {
    padded[i] = input.size(2 + i) + 2 * padding[i];
    kernel[i] = dilation[i] * (weight.size(2 + i) - 1) + 1;
  }
  EMBER_CHECK(padded[0] >= kernel[0] && padded[1] >= kernel[1] && padded[2] >= kernel[2],
              "Calculated padded input size per channel: ", by(padded), ". Kernel size: ",
              by(kernel), ". Kernel size can't be greater than actual input size");
  // One node, as 1.13's convolution (Note [3-d convolution from 2-d]).
  ::ember::detail::OpScope scope(input, weight, bias);
  Tensor r = convolution3d_from_2d(input, weight, bias, stride, padding, dilation, groups);
  if (scope.active()) {
    scope.record(
        "convolution3d", {input, weight, bias}, {r},
        {DimVector(stride.begin(), stride.end()), DimVector(padding.begin(), padding.end()),
         DimVector(dilation.begin(), dilation.end()), Scalar(groups)});
  }
  return r;
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        IntArrayRef dilation, int64_t groups) {
  for (int64_t p : output_padding) {
    EMBER_CHECK(p >= 0, "negative output_padding is not supported");
  }
  check_common(input, weight, stride, padding, dilation, groups);
  const int64_t ci = input.size(1), cog = weight.size(1);
  const int64_t co = cog * groups;
  EMBER_CHECK(ci == weight.size(0), "Given transposed=1, weight of size ",
              bracketed(weight.sizes()), ", expected input", bracketed(input.sizes()),
              " to have ", weight.size(0), " channels, but got ", ci, " channels instead");
  if (bias.defined()) {
    EMBER_CHECK(bias.dim() == 1 && bias.size(0) == co, "Given transposed=1, weight of size ",
                bracketed(weight.sizes()), ", expected bias to be 1-dimensional with ", co,
                " elements, but got bias of size ", bracketed(bias.sizes()), " instead");
  }
  const IntArrayRef s = stride, d = dilation, op = output_padding;
  EMBER_CHECK((op[0] < s[0] || op[0] < d[0]) && (op[1] < s[1] || op[1] < d[1]) &&
                  (op[2] < s[2] || op[2] < d[2]),
              "output padding must be smaller than either stride or dilation, but got "
              "output_padding_depth: ",
              op[0], " output_padding_height: ", op[1], " output_padding_width: ", op[2],
              " stride_depth: ", s[0], " stride_height: ", s[1], " stride_width: ", s[2],
              " dilation_depth: ", d[0], " dilation_height: ", d[1], " dilation_width: ", d[2]);
  std::array<int64_t, 3> in, out;
  for (int i = 0; i < 3; ++i) {
    in[i] = input.size(2 + i);
    out[i] = (in[i] - 1) * s[i] - 2 * padding[i] + d[i] * (weight.size(2 + i) - 1) + 1 + op[i];
  }
  EMBER_CHECK(out[0] >= 1 && out[1] >= 1 && out[2] >= 1, "Given input size per channel: ",
              by(in), ". Calculated output size per channel: ", by(out),
              ". Output size is too small");
  ::ember::detail::OpScope scope(input, weight, bias);
  Tensor r = conv_transpose3d_from_2d(input, weight, bias, stride, padding, output_padding,
                                      dilation, groups);
  if (scope.active()) {
    scope.record(
        "conv_transpose3d", {input, weight, bias}, {r},
        {DimVector(stride.begin(), stride.end()), DimVector(padding.begin(), padding.end()),
         DimVector(output_padding.begin(), output_padding.end()),
         DimVector(dilation.begin(), dilation.end()), Scalar(groups)});
  }
  return r;
}

}  // namespace detail
}  // namespace functional
}  // namespace nn
}  // namespace ember
