// spin_for_tests.h: the launch (spin_for_tests.cu) with CUDA, an error
// without it.

#include "tensor/cuda/spin_for_tests.h"

#include "tensor/error.h"

#ifdef EMBER_WITH_CUDA
#include <cuda_runtime_api.h>

#include "tensor/cuda/cuda.h"

namespace ember {
namespace cuda {
namespace kernels {
cudaError_t launch_spin_for_tests(int64_t nanoseconds);
}  // namespace kernels
namespace testing {
void spin(int64_t microseconds) {
  current_device();  // throws PyTorch's error where there is no device
  cudaError_t err = kernels::launch_spin_for_tests(microseconds * 1000);
  if (err != cudaSuccess) throw Error(absl::StrCat("CUDA error: ", cudaGetErrorString(err)));
}
}  // namespace testing
}  // namespace cuda
}  // namespace ember

#else

namespace ember {
namespace cuda {
namespace testing {
void spin(int64_t) { throw Error("Torch not compiled with CUDA enabled"); }
}  // namespace testing
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_WITH_CUDA
