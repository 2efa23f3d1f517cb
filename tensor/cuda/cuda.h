#ifndef EMBER_TENSOR_CUDA_CUDA_H_
#define EMBER_TENSOR_CUDA_CUDA_H_

// The CUDA runtime as ember's users see it (libtorch's torch::cuda and
// c10::cuda functions). The same API exists in every build: without a CUDA
// toolkit (a CPU-only build) is_available() is false and the functions that
// need a device throw "Torch not compiled with CUDA enabled"; with a toolkit
// but no usable device they throw PyTorch's driver / no-device errors.
//
// Linking //tensor/cuda (part of //tensor) also registers the CUDA
// allocator, the host<->device copies behind Tensor::to / copy_, and the CUDA
// kernels of ops that have one (Note [Kernel tables]).

#include <cstddef>
#include <cstdint>
#include <string>

#include "tensor/error.h"

namespace ember {

class Generator;
class Tensor;

namespace cuda {

// True when ember was built with the CUDA toolkit (whether or not this
// machine has a device): PyTorch's torch.backends.cuda.is_built().
bool is_built();

// True when ember was built with CUDA and at least one device is usable.
// Never throws.
bool is_available();

// Number of usable devices (0 without CUDA, driver or device). Never throws.
size_t device_count();

// Index of the device new CUDA tensors go to ("cuda" without an index).
int current_device();
void set_device(int device);

// Waits for all work on `device_index` (-1: the current device) to finish.
void synchronize(int64_t device_index = -1);

// Returns the memory the CUDA caching allocator holds in its free lists to
// the driver (torch.cuda.empty_cache()). A no-op without CUDA.
void empty_cache();

// Bytes the caching allocator holds for reuse, over all devices.
size_t cached_bytes();

// --- the caching allocator's statistics (torch.cuda.memory_allocated...),
// in bytes, for `device` (-1: the current one); 0 where CUDA is not
// available. "Allocated" counts the blocks tensors hold (rounded to the
// allocator's size classes, as PyTorch counts its blocks), "reserved" every
// byte obtained from cudaMalloc, cached or not. Streams and events:
// tensor/cuda/stream.h.
int64_t memory_allocated(int64_t device = -1);
int64_t max_memory_allocated(int64_t device = -1);
int64_t memory_reserved(int64_t device = -1);
int64_t max_memory_reserved(int64_t device = -1);
// Makes the peaks the current values.
void reset_peak_memory_stats(int64_t device = -1);
// A short table of those statistics, in the layout of PyTorch's
// torch.cuda.memory_summary() (fewer rows: ember's allocator does not split
// blocks).
std::string memory_summary(int64_t device = -1);

// What an allocation that cannot be satisfied throws, after the allocator
// returned its cached blocks and retried once (torch.cuda.OutOfMemoryError,
// c10::OutOfMemoryError). The message is PyTorch 1.13's, word for word,
// including "reserved in total by PyTorch" and its PYTORCH_CUDA_ALLOC_CONF
// hint (ember reads no such variable), so that tools matching PyTorch's
// text keep working.
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

// Page-locked (pinned) host memory from cudaHostAlloc, which copies to a
// device at full bus speed and asynchronously (what pin_memory uses),
// cached as PyTorch's CachingHostAllocator caches it (Note [Pinned host
// memory cache] in host_cache.h): host_free returns a block to the cache,
// reusable once the non_blocking copies that used it completed. Throws
// where CUDA is not available; host_free(nullptr) does nothing.
void* host_alloc(size_t nbytes);
void host_free(void* ptr);
// True when `ptr` points into page-locked host memory CUDA knows of. Never
// throws (false without CUDA).
bool is_pinned(const void* ptr);

// torch.backends.cudnn: whether ember was built with cuDNN, its version
// (cudnnGetVersion(), e.g. 91400; 0 without it), and whether convolutions
// use it (default true; false runs ember's im2col + cuBLAS). None of these
// initializes CUDA.
bool cudnn_is_available();
int64_t cudnn_version();
bool cudnn_enabled();
void set_cudnn_enabled(bool enabled);

// --- random numbers (torch.cuda.manual_seed...): Note [Device random
// numbers] in tensor/random.cc. Each device has a default Philox generator;
// ember::manual_seed seeds them all, as torch.manual_seed does.

// Seeds the current device's generator; without a usable device, nothing.
void manual_seed(uint64_t seed);
// Seeds every device's generator (also those not used yet). Works in every
// build.
void manual_seed_all(uint64_t seed);
// The default generator of `device` (-1: the current device).
Generator default_generator(int64_t device = -1);
// The generator's state as a CPU uint8 tensor of 16 bytes (seed, then the
// Philox offset, each little-endian), and its restoration: what a
// checkpoint keeps to replay the same numbers.
Tensor get_rng_state(int64_t device = -1);
void set_rng_state(const Tensor& state, int64_t device = -1);

}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_CUDA_H_
