#ifndef EMBER_TENSOR_DISTRIBUTIONS_KERNELS_H_
#define EMBER_TENSOR_DISTRIBUTIONS_KERNELS_H_

// The per-device kernels of poisson and binomial (distributions.cc, Note
// [Kernel tables]); the CUDA backend registers them from
// tensor/cuda/distributions_cuda.cc. The CPU keeps its serial loops (1.13's
// stream of uniforms); a device draws each element's uniforms from its own
// Philox counters (Note [Device random numbers] in random.cc), so a device
// sample is not the CPU's for the same seed, only of the same
// distribution. Internal.

#include "tensor/kernel_table.h"
#include "tensor/random_kernel.h"
#include "tensor/tensor.h"

namespace ember {

// rates: contiguous, floating, on the device; out: contiguous, rates'
// sizes and dtype. `draw` holds the reserved seed and offset
// (detail::reserve_device_draw). A negative or NaN rate raises the CPU's
// "invalid Poisson rate" error, at the latest at the next synchronization.
using PoissonFn = void (*)(const Tensor& rates, Tensor& out, const detail::RandomFill& draw);
EMBER_DECLARE_KERNEL_TABLE(poisson_kernel, PoissonFn);

// count, prob: contiguous, one floating dtype, out's sizes; out contiguous.
using BinomialFn = void (*)(const Tensor& count, const Tensor& prob, Tensor& out,
                            const detail::RandomFill& draw);
EMBER_DECLARE_KERNEL_TABLE(binomial_kernel, BinomialFn);

}  // namespace ember

#endif  // EMBER_TENSOR_DISTRIBUTIONS_KERNELS_H_
