// spin_for_tests.h with CUDA: globaltimer is in nanoseconds.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "tensor/cuda/kernels.h"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

__global__ void spin_kernel(int64_t nanoseconds) {
  uint64_t start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (static_cast<int64_t>(now - start) < nanoseconds);
}

}  // namespace

cudaError_t launch_spin_for_tests(int64_t nanoseconds) {
  spin_kernel<<<1, 1, 0, current_stream()>>>(nanoseconds);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
