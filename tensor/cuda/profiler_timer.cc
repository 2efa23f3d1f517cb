// The profiler's device-side timing (Note [Profiling ranges]): a CUDA event
// recorded on the current stream of the current device (Note [CUDA
// streams] in stream.cc), where the range's kernels run, at each range's
// start and end; the profile reads the elapsed times once it
// stops (PyTorch's legacy use_cuda profiling). A range's CUDA time is thus
// the device timeline between its markers, which includes time the device
// waited for the host to queue work.

#include <cuda_runtime_api.h>

#include "tensor/cuda/context.h"
#include "tensor/cuda/cuda.h"
#include "tensor/record_function.h"

namespace ember {
namespace cuda {
namespace {

class CudaTimer : public profiler::detail::DeviceTimer {
 public:
  void* mark() override {
    if (!is_available()) return nullptr;
    cudaEvent_t e = nullptr;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaEventCreate(&e) != cudaSuccess ||
        cudaEventRecord(e, detail::current_stream_handle(device)) != cudaSuccess) {
      cudaGetLastError();  // a marker is never worth failing the op for
      if (e != nullptr) cudaEventDestroy(e);
      return nullptr;
    }
    return e;
  }
  void synchronize() override {
    if (is_available() && cudaDeviceSynchronize() != cudaSuccess) cudaGetLastError();
  }
  double elapsed_us(void* a, void* b) override {
    float ms = 0;
    if (a == nullptr || b == nullptr ||
        cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(a), static_cast<cudaEvent_t>(b)) !=
            cudaSuccess) {
      cudaGetLastError();  // markers on different devices
      return -1;
    }
    return static_cast<double>(ms) * 1000.0;
  }
  void release(void* marker) override {
    if (marker != nullptr) cudaEventDestroy(static_cast<cudaEvent_t>(marker));
  }
};

const bool registered = [] {
  static auto* timer = new CudaTimer;
  profiler::detail::set_device_timer(timer);
  return true;
}();

}  // namespace
}  // namespace cuda
}  // namespace ember
