#ifndef EMBER_NN_FUNCTIONAL_CONV3D_H_
#define EMBER_NN_FUNCTIONAL_CONV3D_H_

// Internal to nn/functional/conv.cc: the batched 3-d convolutions behind
// F::conv3d / F::conv_transpose3d (whose unbatched inputs and 'same'
// padding conv.cc handles, as for 1-d and 2-d).
//
// They check their arguments as 1.13's convolution and record one node
// (ConvolutionBackward0) around tensor/conv3d.h's computation (Note [3-d
// convolution from 2-d] there).

#include <cstdint>

#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace functional {
namespace detail {

// input [N, C_in, D, H, W]; stride/padding/dilation of 3 entries.
Tensor convolution3d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                     IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                     int64_t groups);
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        IntArrayRef dilation, int64_t groups);

}  // namespace detail
}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_CONV3D_H_
