#ifndef EMBER_TENSOR_NN_OPS_H_
#define EMBER_TENSOR_NN_OPS_H_

// The primitive nn ops (ATen's names and argument orders, PyTorch 1.13
// semantics) and their backward kernels. Users call them through
// nn::functional (nn/functional/functional.h), which adds PyTorch's
// argument handling (unbatched inputs, 'same' padding, reductions...).
// Each forward records itself under its ATen name (Note [Op recording]);
// derivatives are in autograd/derivatives/nn.cc. float and double only.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include "tensor/tensor.h"

namespace ember {

// --- convolution (conv.cc): im2col + one GEMM per group -------------------------
// input [N, C_in, L] or [N, C_in, H, W]; weight [C_out, C_in / groups, *k];
// bias [C_out] or undefined. stride/padding/dilation have one entry per
// spatial dim; padding is symmetric.
Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                   int64_t groups);
// (grad_input, grad_weight, grad_bias); each computed only where mask says.
std::tuple<Tensor, Tensor, Tensor> convolution_backward(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight, IntArrayRef stride,
    IntArrayRef padding, IntArrayRef dilation, int64_t groups, std::array<bool, 3> mask);

// --- pooling (pool.cc): input [N, C, H, W] or [C, H, W] ------------------------
// kernel_size/stride/padding/dilation: one value or (H, W); stride empty:
// the kernel size. Backward kernels take the input's sizes (the values are
// not needed), where ATen takes the input itself.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode);
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, IntArrayRef input_sizes,
                                        const Tensor& indices);
Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override);
Tensor avg_pool2d_backward(const Tensor& grad_output, IntArrayRef input_sizes,
                           IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                           bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override);
Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size);
Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, IntArrayRef input_sizes);

}  // namespace ember

#endif  // EMBER_TENSOR_NN_OPS_H_
