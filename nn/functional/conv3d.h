#ifndef EMBER_NN_FUNCTIONAL_CONV3D_H_
#define EMBER_NN_FUNCTIONAL_CONV3D_H_

// Internal to nn/functional/conv.cc: the batched 3-d convolutions behind
// F::conv3d / F::conv_transpose3d (whose unbatched inputs and 'same'
// padding conv.cc handles, as for 1-d and 2-d).
//
// Note [3-d convolution from 2-d]: ember has im2col + GEMM kernels (and
// cuDNN on CUDA) for 1-d and 2-d convolution only. A 3-d convolution is one
// 2-d convolution over the depth taps stacked as channels: the input's
// depth windows (unfold) become a batch of N * D_out images with
// KD * C_in / groups channels per group, and the weight [C_out, C_in / g,
// KD, KH, KW] becomes [C_out, KD * C_in / g, KH, KW]. The transpose runs
// one 2-d transposed convolution with KD * C_out / g output channels per
// group, and index_add puts each depth tap at id * stride + kd * dilation.
// Everything is a differentiable op, so the gradients (and double
// backward) are those of the 2-d kernels; the cost is a KD-fold copy of
// the input (forward) or output (transpose).

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
