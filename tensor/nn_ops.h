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

}  // namespace ember

#endif  // EMBER_TENSOR_NN_OPS_H_
