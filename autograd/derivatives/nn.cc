// Derivatives of the nn ops (tensor/nn_ops.h). Formulas that need a
// dedicated kernel call the op's *_backward from //tensor (not recorded:
// no double backward through them); the others are written with public ops.
#include "autograd/derivatives.h"
#include "tensor/nn_ops.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// convolution(input, weight, bias; stride, padding, dilation, groups)
V convolution_bw(const C& c, const V& g) {
  auto [gi, gw, gb] = convolution_backward(g[0], c.input(0), c.input(1), c.dims(0), c.dims(1),
                                           c.dims(2), c.int_arg(3),
                                           {c.needs(0), c.needs(1), c.needs(2)});
  return {gi, gw, gb};
}

std::optional<int64_t> opt_int(const C& c, size_t i) {
  if (!c.has_arg(i)) return std::nullopt;
  return c.int_arg(i);
}

// max_pool2d_with_indices(input; kernel, stride, padding, dilation, ceil)
V max_pool2d_bw(const C& c, const V& g) {
  return {max_pool2d_with_indices_backward(g[0], c.input_sizes(0), c.output(1))};
}
// avg_pool2d(input; kernel, stride, padding, ceil, count_include_pad, divisor)
V avg_pool2d_bw(const C& c, const V& g) {
  return {avg_pool2d_backward(g[0], c.input_sizes(0), c.dims(0), c.dims(1), c.dims(2),
                              c.bool_arg(3), c.bool_arg(4), opt_int(c, 5))};
}
V adaptive_avg_pool2d_bw(const C& c, const V& g) {
  return {adaptive_avg_pool2d_backward(g[0], c.input_sizes(0))};
}

EMBER_REGISTER_DERIVATIVES(
    {"convolution", "ConvolutionBackward0", kSaveSelf | kSaveOther, false, convolution_bw},
    {"max_pool2d_with_indices", "MaxPool2DWithIndicesBackward0", 0, true, max_pool2d_bw},
    {"avg_pool2d", "AvgPool2DBackward0", 0, false, avg_pool2d_bw},
    {"adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", 0, false, adaptive_avg_pool2d_bw});

}  // namespace
}  // namespace autograd
}  // namespace ember
