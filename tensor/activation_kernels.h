#ifndef EMBER_TENSOR_ACTIVATION_KERNELS_H_
#define EMBER_TENSOR_ACTIVATION_KERNELS_H_

// Note [Fused gelu]: gelu and its gradient are one elementwise kernel each
// (tensor/activation.cc for the CPU, tensor/cuda/activation.cu), computed
// in float for half/bfloat16 and rounded once, as PyTorch's GeluKernelImpl
// and GeluBackwardKernelImpl: composed of eight public ops, a bfloat16 gelu
// rounded at every step (and read and wrote its tensor eight times).

#include <string>

#include "tensor/iterator.h"
#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

namespace ember {

// PyTorch's gelu_backward: grad_output * d gelu(self) / d self, with
// approximate "none" or "tanh". Not recorded for autograd (the derivative
// of gelu uses it only where no graph is being built).
Tensor gelu_backward(const Tensor& grad_output, const Tensor& self,
                     const std::string& approximate = "none");

namespace detail {

// gelu: iter (out, self); gelu_backward: iter (out, grad_output, self).
using GeluFn = void (*)(TensorIterator& iter, bool tanh_approximation);
EMBER_DECLARE_KERNEL_TABLE(gelu_kernel, GeluFn);
EMBER_DECLARE_KERNEL_TABLE(gelu_backward_kernel, GeluFn);

// The same gradient from public ops: differentiable again (double
// backward), and what a device without the kernels runs.
Tensor gelu_backward_composed(const Tensor& grad_output, const Tensor& self,
                              bool tanh_approximation);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_ACTIVATION_KERNELS_H_
