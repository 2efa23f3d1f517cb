#ifndef EMBER_TENSOR_CUDA_DISTRIBUTIONS_LAUNCH_H_
#define EMBER_TENSOR_CUDA_DISTRIBUTIONS_LAUNCH_H_

// The launchers of poisson and binomial on the device
// (distributions.cu), shared by nvcc and the host compiler like kernels.h.
// Each element draws its uniforms from its own Philox counters: the j-th
// draw of element i (four words, two 53-bit uniforms) is at position
// (j << 40) | i under the fill's seed and offset, so the samples depend on
// the seed, the offset and the element's position only, and no counter is
// shared with another element or with the position-indexed fills (whose
// positions stay below 2^40). The samplers are the CPU's
// (tensor/distribution_samplers.h), in double.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "tensor/cuda/kernels.h"
#include "tensor/cuda/random_kernels.h"

namespace ember {
namespace cuda {
namespace kernels {

// IndexErrorRecord::check of a negative or NaN Poisson rate (value: its
// position), raised by index_ops.cc's check with the CPU's message.
constexpr int32_t kPoissonRateCheck = 64;

// Positions below this fit the counter layout above.
constexpr int64_t kMaxSamplerElements = int64_t{1} << 40;

// out[i] = Poisson(rates[i]) for n contiguous elements of a floating
// dtype; a rate that is not >= 0 is recorded in `bad` (out[i] = NaN).
// `philox` holds the seed and offset (or the graph's words).
cudaError_t launch_poisson(DType dtype, const void* rates, void* out, int64_t n,
                           const RandomArgs& philox, IndexErrorRecord* bad);

// out[i] = Binomial(count[i], prob[i]) for n contiguous elements of one
// floating dtype (half and bfloat16 compute in float, as the CPU's float).
cudaError_t launch_binomial(DType dtype, const void* count, const void* prob, void* out, int64_t n,
                            const RandomArgs& philox);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_DISTRIBUTIONS_LAUNCH_H_
