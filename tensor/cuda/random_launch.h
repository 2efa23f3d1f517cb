#ifndef EMBER_TENSOR_CUDA_RANDOM_LAUNCH_H_
#define EMBER_TENSOR_CUDA_RANDOM_LAUNCH_H_

// Host side of the device's random kernels, shared by random.cc and
// distributions_cuda.cc. Internal to //tensor/cuda.

#include "tensor/cuda/random_kernels.h"
#include "tensor/random_kernel.h"

namespace ember {
namespace cuda {
namespace detail {

// A draw's seed and offset for a kernel on `device`, or inside a CUDA
// graph capture the graph's device words and the offset within the graph
// (Note [Graph-safe random numbers] in graph.cc).
void set_philox(kernels::RandomArgs& a, const ember::detail::RandomFill& f, int device);

}  // namespace detail
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_RANDOM_LAUNCH_H_
