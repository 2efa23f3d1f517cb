#ifndef EMBER_TENSOR_DISTRIBUTIONS_H_
#define EMBER_TENSOR_DISTRIBUTIONS_H_

// Samplers of distributions with tensor parameters (torch.poisson,
// torch.binomial; issue 22), PyTorch's aten/src/ATen/native/Distributions.
//
// On the CPU each element is drawn in order from the generator's uniform
// doubles (at::uniform_real_distribution<double>(0, 1), as 1.13's
// cpu_serial_kernel draws them) by 1.13's algorithms: Poisson by the product
// of uniforms below rate 10 and Hormann's transformed rejection (PTRS) from
// 10; binomial by geometric inversion below count * min(p, 1 - p) = 10 and
// BTRS from there. So the same seed gives 1.13's samples
// (tensor/distributions_test.cc checks some). On CUDA each element runs
// the same sampler, in double, on uniforms from its own Philox counters
// (tensor/cuda/distributions_launch.h): the same distributions, not the
// CPU's numbers (as PyTorch's CUDA samples are not its CPU's); half and
// bfloat16 are taken there too (binomial computes them in float), and a
// negative or NaN rate raises at the next synchronization (Note
// [Device-side index checks]). A device without kernels falls back to
// the CPU (Note [CPU fallback]).
//
// Deviations, where 1.13 loops forever or returns garbage: a rate of +inf
// gives +inf (1.13: INT64_MIN), a NaN or infinite count with 0 < prob < 1
// gives NaN (1.13 never returns). 1.13 resizes binomial's count-shaped
// output to a larger broadcast shape with a deprecation warning; here the
// result simply has the broadcast shape.

#include <optional>

#include "tensor/random.h"
#include "tensor/tensor.h"

namespace ember {

// A Poisson sample for each rate (float, double or bfloat16; rates must be
// >= 0, NaN refused), in rates' dtype and shape. Differentiable with a zero
// gradient (PoissonBackward0, as 1.13).
Tensor poisson(const Tensor& self, const std::optional<Generator>& generator = std::nullopt);

// A Binomial(count, prob) sample for each element of count and prob
// (broadcast; one float or double dtype for both). count <= 0 or prob <= 0
// give 0, prob >= 1 gives count, NaN prob gives NaN. Recorded without a
// derivative, as 1.13 (backward through it is an error).
Tensor binomial(const Tensor& count, const Tensor& prob,
                const std::optional<Generator>& generator = std::nullopt);

}  // namespace ember

#endif  // EMBER_TENSOR_DISTRIBUTIONS_H_
