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

EMBER_REGISTER_DERIVATIVES(
    {"convolution", "ConvolutionBackward0", kSaveSelf | kSaveOther, false, convolution_bw});

}  // namespace
}  // namespace autograd
}  // namespace ember
