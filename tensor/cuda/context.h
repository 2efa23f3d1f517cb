#ifndef EMBER_TENSOR_CUDA_CONTEXT_H_
#define EMBER_TENSOR_CUDA_CONTEXT_H_

// Internals of the CUDA backend shared by its .cc files (built only with a
// CUDA toolkit): error checking, lazy initialization and the device guard.

#include <cuda_runtime_api.h>

#include "tensor/device.h"

namespace ember {
namespace cuda {
namespace detail {

// Throws ember::Error("CUDA error: <cudaGetErrorString>") unless ok, as
// PyTorch's C10_CUDA_CHECK does, and clears the runtime's last error.
void check(cudaError_t err);

// The number of devices; throws PyTorch's error when there is none to use
// ("Found no NVIDIA driver on your system...", "No CUDA GPUs are available").
// Every path that touches a device calls this first. In a child forked after
// CUDA was initialized it throws "Cannot re-initialize CUDA in forked
// subprocess..." (Note [CUDA after fork] in context.cc).
int ensure_initialized();

// The index of `d` (its own, or the current device for "cuda").
int device_index(Device d);

// Throws the error of the first out-of-range index value an index kernel
// found on `device` since the last call (Note [Device-side index checks] in
// index_ops.cc). Call right after the host synchronized with the device.
void check_device_errors(int device);

// The calling thread's current stream on `device` (nullptr: the legacy
// default stream), where the backend queues its work (Note [CUDA streams]
// in stream.cc).
cudaStream_t current_stream_handle(int device);

// Marks the pinned host block holding `host` (from host_alloc) as used by
// an asynchronous copy queued on `stream` of `device`: a free waits for it
// (Note [Pinned host memory cache] in host_cache.h). Other memory: nothing.
void record_host_use(const void* host, cudaStream_t stream, int device);

// Makes `device` current for its lifetime and restores the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_;
  int device_;
};

}  // namespace detail
}  // namespace cuda
}  // namespace ember

#define EMBER_CUDA_CHECK(expr) ::ember::cuda::detail::check(expr)

#endif  // EMBER_TENSOR_CUDA_CONTEXT_H_
