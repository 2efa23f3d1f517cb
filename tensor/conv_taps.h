#ifndef EMBER_TENSOR_CONV_TAPS_H_
#define EMBER_TENSOR_CONV_TAPS_H_

// Convolution of small planes by one GEMM per kernel tap (Note
// [Convolution by taps] in conv_taps.cc): the CPU route conv.cc takes where
// most of im2col's multiply-adds would read padding. Internal.

#include <cstdint>

#include "tensor/conv_kernels.h"

namespace ember {
namespace detail {

// The fraction of im2col's multiply-adds (c * kh * kw per output) that
// read the input rather than padding: 4/9 for a 3x3 kernel over 2x2 planes.
double conv_useful_fraction(const ConvGeometry& g);

// Whether a float or double CPU convolution of g takes the tap route.
bool use_conv_taps(const ConvGeometry& g);

// Contiguous tensors in g's layout (row-major, or channels-last where
// g.channels_last; the weight channels-last where g.weight_channels_last);
// groups == 1. bias and each output may be null; gx and gw are overwritten.
template <typename T>
void conv_taps_forward(const ConvGeometry& g, const T* x, const T* w, const T* bias, T* out);
template <typename T>
void conv_taps_backward(const ConvGeometry& g, const T* gy, const T* x, const T* w, T* gx, T* gw);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_CONV_TAPS_H_
