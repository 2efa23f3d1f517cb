#ifndef EMBER_TENSOR_CUDA_CUDNN_CONV_H_
#define EMBER_TENSOR_CUDA_CUDNN_CONV_H_

// Convolution through cuDNN (Note [cuDNN convolution] in cudnn_conv.cc),
// for conv.cc: each returns false, having written nothing, when cuDNN is
// disabled, absent or refuses the case; conv.cc then runs im2col + cuBLAS.
// Tensors are contiguous, of one floating dtype, on one device.

#include "tensor/conv_kernels.h"
#include "tensor/tensor.h"

namespace ember {
namespace cuda {
namespace detail {

bool cudnn_conv_forward(const ember::detail::ConvGeometry& g, const Tensor& x, const Tensor& w,
                        Tensor& out);
bool cudnn_conv_backward_input(const ember::detail::ConvGeometry& g, const Tensor& gy,
                               const Tensor& w, Tensor& gx);
bool cudnn_conv_backward_weight(const ember::detail::ConvGeometry& g, const Tensor& gy,
                                const Tensor& x, Tensor& gw);

}  // namespace detail
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_CUDNN_CONV_H_
