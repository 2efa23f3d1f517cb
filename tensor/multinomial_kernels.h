#ifndef EMBER_TENSOR_MULTINOMIAL_KERNELS_H_
#define EMBER_TENSOR_MULTINOMIAL_KERNELS_H_

// The per-device kernel of multinomial with replacement (multinomial.cc,
// Note [Kernel tables]); the CUDA backend registers it from
// tensor/cuda/multinomial_cuda.cc. Internal.

#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

namespace ember {

// probs: contiguous [rows, categories], floating. uniforms: contiguous
// double [rows, samples] in [0, 1), on probs' device. out: int64 of
// uniforms' shape. Per row, the CPU kernel's cumulative distribution (in
// float for half, bfloat16 and float; double for double), normalized, its
// last entry 1; each out entry is the first category whose cumulative
// value is not below its uniform. Raises the CPU's error for the first
// invalid row (negative, NaN or infinite entry, zero sum).
using MultinomialFn = void (*)(const Tensor& probs, const Tensor& uniforms, Tensor& out);
EMBER_DECLARE_KERNEL_TABLE(multinomial_kernel, MultinomialFn);

}  // namespace ember

#endif  // EMBER_TENSOR_MULTINOMIAL_KERNELS_H_
