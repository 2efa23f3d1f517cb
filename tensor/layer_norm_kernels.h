#ifndef EMBER_TENSOR_LAYER_NORM_KERNELS_H_
#define EMBER_TENSOR_LAYER_NORM_KERNELS_H_

// Note [Layer norm kernels]: native_layer_norm and its backward, composed
// of public ops (tensor/normalization.cc, autograd/derivatives/nn.cc),
// take about seven passes forward and twelve backward. A device registers
// fused kernels here instead: the CPU (tensor/layer_norm_cpu.cc: a row at a
// time, statistics in double; float and double inputs, others composed)
// and CUDA (tensor/cuda/layer_norm.{cc,cu}: a block per row for the
// statistics, the output and the input gradient; column sums for the
// weight and bias gradients). The composed path stays for non-contiguous
// inputs, parameters of another dtype, and double backward.
//
// The CUDA kernels were written without a GPU at hand: until
// nn/functional:layer_norm_cuda_test has passed on one, they run only
// where set_fused_layer_norm(true) asked for them (the test does); the
// CPU's always run.
//
// x and the gradients are contiguous [M, D] (D the normalized numel);
// weight and bias [D] in x's dtype or undefined; mean and rstd [M] in the
// accumulation dtype (float; double for double). Internal.

#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

namespace ember {
namespace detail {

using LayerNormForwardFn = void (*)(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                    double eps, Tensor& out, Tensor& mean, Tensor& rstd);
// Each of gx, gw, gb is computed where defined (allocated by the caller).
using LayerNormBackwardFn = void (*)(const Tensor& grad_out, const Tensor& x, const Tensor& mean,
                                     const Tensor& rstd, const Tensor& weight, Tensor& gx,
                                     Tensor& gw, Tensor& gb);
EMBER_DECLARE_KERNEL_TABLE(layer_norm_forward_kernel, LayerNormForwardFn);
EMBER_DECLARE_KERNEL_TABLE(layer_norm_backward_kernel, LayerNormBackwardFn);

// Whether fused kernels serve layer norm on devices other than the CPU
// (default: false until verified on a GPU, see above).
void set_fused_layer_norm(bool enabled);
bool fused_layer_norm();

// Whether the fused kernels take `input` with these parameters: enabled
// (on the CPU: float or double), registered for its device, floating,
// contiguous, not empty, parameters undefined or contiguous in input's
// dtype.
bool layer_norm_kernels_apply(const Tensor& input, const Tensor& weight, const Tensor& bias);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_LAYER_NORM_KERNELS_H_
