#ifndef EMBER_TENSOR_ACTIVATION_KERNELS_H_
#define EMBER_TENSOR_ACTIVATION_KERNELS_H_

// Note [Fused gelu]: gelu and its gradient are one elementwise kernel each
// (tensor/activation.cc for the CPU, tensor/cuda/activation.cu), computed
// in float for half/bfloat16 and rounded once, as PyTorch's GeluKernelImpl
// and GeluBackwardKernelImpl: composed of eight public ops, a bfloat16 gelu
// rounded at every step (and read and wrote its tensor eight times).
//
// Note [Fused relu backward]: relu's gradient was where(output > 0, g, 0):
// a comparison writing a bool tensor, then a three-input where whose
// scalar operand sent it down the strided loop. On seed 003's MNIST step
// that took 1.1 ms per call, 12% of the step, against 0.15 ms for relu
// itself (//profiler, BENCHMARKS.md). threshold_backward reads g and the
// output once and writes the gradient once, as PyTorch's kernel.

#include <string>

#include "tensor/iterator.h"
#include "tensor/kernel_table.h"
#include "tensor/scalar.h"
#include "tensor/tensor.h"

namespace ember {

// PyTorch's gelu_backward: grad_output * d gelu(self) / d self, with
// approximate "none" or "tanh". Not recorded for autograd (the derivative
// of gelu uses it only where no graph is being built).
Tensor gelu_backward(const Tensor& grad_output, const Tensor& self,
                     const std::string& approximate = "none");

// PyTorch's threshold_backward: self <= threshold ? 0 : grad_output, the
// gradient of relu (self its output, threshold 0) and of threshold. One
// fused pass (Note [Fused relu backward]); a NaN in self passes the
// gradient, as PyTorch's. Not recorded for autograd: the derivatives use
// it only where no graph is being built.
Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, const Scalar& threshold);

namespace detail {

// threshold_backward: iter (out, grad_output, self).
using ThresholdBackwardFn = void (*)(TensorIterator& iter, const Scalar& threshold);
EMBER_DECLARE_KERNEL_TABLE(threshold_backward_kernel, ThresholdBackwardFn);

// The same gradient from public ops: where(self <= threshold, 0, grad).
// Differentiable again, and what a device without the kernel runs.
Tensor threshold_backward_composed(const Tensor& grad_output, const Tensor& self,
                                   const Scalar& threshold);

// gelu: iter (out, self); gelu_backward: iter (out, grad_output, self).
using GeluFn = void (*)(TensorIterator& iter, bool tanh_approximation);
EMBER_DECLARE_KERNEL_TABLE(gelu_kernel, GeluFn);
EMBER_DECLARE_KERNEL_TABLE(gelu_backward_kernel, GeluFn);

// The same gradient from public ops: differentiable again (double
// backward), and what a device without the kernels runs.
Tensor gelu_backward_composed(const Tensor& grad_output, const Tensor& self,
                              bool tanh_approximation);

// Note [Fused CPU activation backwards]: the first-order gradients of
// hardswish, hardsigmoid, hardshrink/softshrink, hardtanh and logit on CPU
// float/double tensors (and leaky_relu's) are one loop over (grad, self), as
// PyTorch's *_backward kernels, instead of their compositions of four to nine public
// ops (hardswish's backward took 2x libtorch's time, logit's 2.3x: `sweep
// --time --grad`). Each loop repeats its composition's arithmetic
// (autograd/derivatives) step for step in the dtype, so the values are the
// same; the compositions stay for double backward (they differentiate
// again), other devices and dtypes. The result's layout is the iterator's
// over (grad, self), as PyTorch's kernels give it (leaky_relu's: over
// (self, grad)).
enum class ActivationBackward {
  kHardswish,
  kHardsigmoid,
  kShrink,     // a: lambd
  kHardtanh,   // a, b: min_val, max_val
  kLogit,      // a: eps, b: 1 with an eps, 0 without
  kLeakyRelu,  // a: negative_slope; self's layout decides, as 1.13's kernel
};

// The gradient, or an undefined tensor where the loop does not apply (not
// both on the CPU, or not both float or both double): then the caller
// composes it.
Tensor activation_backward_cpu(ActivationBackward kind, const Tensor& grad, const Tensor& self,
                               double a = 0, double b = 0);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_ACTIVATION_KERNELS_H_
