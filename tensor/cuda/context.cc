// The CUDA runtime API of cuda.h, in a build with the CUDA toolkit.

#include "tensor/cuda/context.h"

#include <pthread.h>

#include <atomic>
#include <string>

#include "tensor/cuda/cuda.h"
#include "tensor/cuda/graph_internal.h"
#include "tensor/cuda/host_cache.h"
#include "tensor/error.h"

namespace ember {
namespace cuda {
namespace detail {
namespace {

struct InitState {
  int count = 0;
  std::string error;  // why no device can be used; empty when count > 0
};

// PyTorch's device_count_impl (c10/cuda/CUDAFunctions.cpp): the runtime's
// error is turned into the message a PyTorch user knows.
InitState probe() {
  InitState s;
  cudaError_t err = cudaGetDeviceCount(&s.count);
  if (err == cudaSuccess) {
    if (s.count == 0) s.error = "No CUDA GPUs are available";
    return s;
  }
  cudaGetLastError();  // clear the error so that it does not surface elsewhere
  s.count = 0;
  switch (err) {
    case cudaErrorNoDevice:
      s.error = "No CUDA GPUs are available";
      break;
    case cudaErrorInsufficientDriver: {
      int version = -1;
      if (cudaDriverGetVersion(&version) != cudaSuccess) cudaGetLastError();
      if (version <= 0) {
        s.error =
            "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
            "and installed a driver from http://www.nvidia.com/Download/index.aspx";
      } else {
        s.error = absl::StrCat(
            "The NVIDIA driver on your system is too old (found version ", version,
            "). Please update your GPU driver by downloading and installing a new version "
            "from the URL: http://www.nvidia.com/Download/index.aspx");
      }
      break;
    }
    case cudaErrorInitializationError:
      s.error = "CUDA driver initialization failed, you might not have a CUDA gpu.";
      break;
    default:
      s.error = absl::StrCat("Unexpected error from cudaGetDeviceCount(). Error ",
                             static_cast<int>(err), ": ", cudaGetErrorString(err));
  }
  return s;
}

// Note [CUDA after fork]: the CUDA runtime cannot be used in a child that
// was fork()ed after the parent initialized it (every call then fails with
// "initialization error"), which dist::spawn does. As
// PyTorch (torch/csrc/cuda/Module.cpp, in_bad_fork), the first probe
// registers an atfork handler that marks such children, and they get a
// clear error at their first use of a device instead of the runtime's.
std::atomic<bool> in_bad_fork{false};

void mark_bad_fork() { in_bad_fork.store(true); }

// Probed once: the answer cannot change within a process.
const InitState& state() {
  static const InitState* s = [] {
    auto* p = new InitState(probe());
    if (p->count > 0) pthread_atfork(nullptr, nullptr, mark_bad_fork);
    return p;
  }();
  return *s;
}

}  // namespace

void check(cudaError_t err) {
  if (err == cudaSuccess) return;
  cudaGetLastError();
  switch (err) {
    case cudaErrorStreamCaptureUnsupported:
    case cudaErrorStreamCaptureInvalidated:
    case cudaErrorStreamCaptureImplicit:
    case cudaErrorStreamCaptureIsolation:
      // Note [CUDA graphs] in graph.cc: what ember does not check first.
      throw Error(absl::StrCat("CUDA error: ", cudaGetErrorString(err),
                               " (an operation that synchronizes with the host or cannot be "
                               "captured ran during CUDA graph capture)"));
    default:
      break;
  }
  throw Error(absl::StrCat("CUDA error: ", cudaGetErrorString(err)));
}

int ensure_initialized() {
  if (in_bad_fork.load()) {
    throw Error(
        "Cannot re-initialize CUDA in forked subprocess. CUDA was initialized in the parent "
        "before it forked this process (as dist::spawn does): use CUDA "
        "only in the children, or start the ranks with //distributed:launch");
  }
  const InitState& s = state();
  if (s.count == 0) throw Error(s.error);
  return s.count;
}

int device_index(Device d) {
  ensure_initialized();
  if (d.has_index()) return d.index();
  int current = 0;
  check(cudaGetDevice(&current));
  return current;
}

DeviceGuard::DeviceGuard(int device) : previous_(-1), device_(device) {
  check(cudaGetDevice(&previous_));
  if (previous_ != device_) check(cudaSetDevice(device_));
}

DeviceGuard::~DeviceGuard() {
  if (previous_ != device_) cudaSetDevice(previous_);  // a destructor must not throw
}

}  // namespace detail

bool is_built() { return true; }

bool is_available() { return detail::state().count > 0; }

size_t device_count() { return static_cast<size_t>(detail::state().count); }

int current_device() {
  detail::ensure_initialized();
  int device = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

void set_device(int device) {
  detail::ensure_initialized();
  EMBER_CUDA_CHECK(cudaSetDevice(device));
}

void synchronize(int64_t device_index) {
  int device = detail::device_index(
      device_index < 0 ? Device(kCUDA) : Device(kCUDA, static_cast<int8_t>(device_index)));
  detail::check_no_capture_on_device(device, "cuda::synchronize()");
  detail::DeviceGuard guard(device);
  EMBER_CUDA_CHECK(cudaDeviceSynchronize());
  detail::check_device_errors(device);
}

namespace {

// The CUDA runtime behind the pinned host memory cache (Note [Pinned host
// memory cache] in host_cache.h).
struct PinnedRuntime : detail::HostCache::Backend {
  void* alloc(size_t nbytes) override {
    void* ptr = nullptr;
    EMBER_CUDA_CHECK(cudaHostAlloc(&ptr, nbytes, cudaHostAllocDefault));
    return ptr;
  }
  void free(void* p) override {
    if (cudaFreeHost(p) != cudaSuccess) cudaGetLastError();
  }
  detail::HostCache::Event record(detail::HostCache::Stream s) override {
    detail::DeviceGuard guard(s.second);
    cudaEvent_t e = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    const cudaError_t err = cudaEventRecord(e, static_cast<cudaStream_t>(s.first));
    if (err != cudaSuccess) {
      cudaEventDestroy(e);
      EMBER_CUDA_CHECK(err);
    }
    return e;
  }
  bool query(detail::HostCache::Event e) override {
    const cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(e));
    if (err == cudaErrorNotReady) {
      cudaGetLastError();
      return false;
    }
    // An error (a failed device) cannot leave the block in use forever.
    if (err != cudaSuccess) cudaGetLastError();
    return true;
  }
  void destroy(detail::HostCache::Event e) override {
    if (cudaEventDestroy(static_cast<cudaEvent_t>(e)) != cudaSuccess) cudaGetLastError();
  }
};

detail::HostCache& host_cache() {
  static auto* runtime = new PinnedRuntime();
  static auto* cache = new detail::HostCache(runtime);  // lives as long as the process
  return *cache;
}

}  // namespace

void* host_alloc(size_t nbytes) {
  detail::ensure_initialized();
  return host_cache().allocate(nbytes);
}

void host_free(void* ptr) {
  if (ptr != nullptr) host_cache().free(ptr);  // called from deleters: never throws
}

namespace detail {
void record_host_use(const void* host, cudaStream_t stream, int device) {
  host_cache().record_use(host, {stream, device});
}
}  // namespace detail

bool is_pinned(const void* ptr) {
  if (ptr == nullptr || !is_available()) return false;
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

}  // namespace cuda
}  // namespace ember
