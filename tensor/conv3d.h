#ifndef EMBER_TENSOR_CONV3D_H_
#define EMBER_TENSOR_CONV3D_H_

// Note [3-d convolution from 2-d]: ember has im2col + GEMM kernels (and
// cuDNN on CUDA) for 1-d and 2-d convolution only. A 3-d convolution is one
// 2-d convolution over the depth taps stacked as channels: the input's
// depth windows (unfold) become a batch of N * D_out images with
// KD * C_in / groups channels per group, and the weight [C_out, C_in / g,
// KD, KH, KW] becomes [C_out, KD * C_in / g, KH, KW]. The transpose runs
// one 2-d transposed convolution with KD * C_out / g output channels per
// group, and index_add puts each depth tap at id * stride + kd * dilation.
// The cost is a KD-fold copy of the input (forward) or output (transpose).
//
// F::conv3d / F::conv_transpose3d (nn/functional/conv3d.cc) check their
// arguments, run these below autograd and record one node
// (ConvolutionBackward0, as 1.13), whose derivatives
// (autograd/derivatives/nn_composite.cc) are the *_backward functions here:
// the same rearrangements around the 2-d convolution_backward and
// convolution, all public ops, so they differentiate again.
// No argument checks here: input [N, C_in, D, H, W]; stride, padding,
// (output_padding,) dilation of 3 entries.

#include <array>
#include <cstdint>
#include <tuple>

#include "tensor/tensor.h"

namespace ember {

Tensor convolution3d_from_2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                             IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                             int64_t groups);
Tensor conv_transpose3d_from_2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                                IntArrayRef dilation, int64_t groups);

// (grad_input, grad_weight, grad_bias), each computed where mask says.
std::tuple<Tensor, Tensor, Tensor> convolution3d_from_2d_backward(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight, IntArrayRef stride,
    IntArrayRef padding, IntArrayRef dilation, int64_t groups, std::array<bool, 3> mask);
std::tuple<Tensor, Tensor, Tensor> conv_transpose3d_from_2d_backward(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight, IntArrayRef stride,
    IntArrayRef padding, IntArrayRef output_padding, IntArrayRef dilation, int64_t groups,
    std::array<bool, 3> mask);

}  // namespace ember

#endif  // EMBER_TENSOR_CONV3D_H_
