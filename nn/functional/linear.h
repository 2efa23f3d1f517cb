#ifndef EMBER_NN_FUNCTIONAL_LINEAR_H_
#define EMBER_NN_FUNCTIONAL_LINEAR_H_

// linear and flatten.

#include <cstdint>

#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace functional {

// input @ weight.T + bias over any leading dims of input ([*, in] ->
// [*, out]); bias may be undefined. 2-D input with bias is one addmm
// (AddmmBackward0, as PyTorch).
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});

// y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j]
// (+ bias[o]), as torch.bilinear: inputs with the same leading dims,
// weight [out, in1, in2].
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const Tensor& bias = {});

// torch.flatten (start_dim 0); nn::Flatten uses start_dim 1.
Tensor flatten(const Tensor& input, int64_t start_dim = 0, int64_t end_dim = -1);

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_LINEAR_H_
