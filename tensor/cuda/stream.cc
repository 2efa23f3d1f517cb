// CUDA streams and events (stream.h) in a build with the CUDA toolkit.
//
// Note [CUDA streams]: the model is libtorch's.
// - Every thread has a current stream per device (thread_local), the legacy
//   default stream (id 0, the runtime's null stream) until
//   setCurrentCUDAStream or a CUDAStreamGuard says otherwise. A program that
//   never touches a stream therefore runs everything on the legacy stream,
//   in order, as before streams existed.
// - Everything the backend queues for a device runs on the calling thread's
//   current stream of that device: kernel launches (kernels::current_stream
//   in kernels.h), cuBLAS (cublasSetStream before each call), cuDNN
//   (cudnnSetStream), memsets and copies, the random kernels, the
//   device-side index record (Note [Device-side index checks]) and the
//   profiler's markers. ProcessGroupNCCL orders its own stream after the
//   current stream and Work::wait makes the current stream wait for it.
// - Pool streams (getStreamFromPool) are created with cudaStreamNonBlocking:
//   they do not synchronize with the legacy stream. Ordering between streams
//   is the program's job, with CUDAEvent::record / block, as in PyTorch.
// - What synchronizes the host: reading device memory (a copy to the host,
//   item(), printing) waits for the current stream only; a non_blocking copy
//   to pinned host memory waits for nothing. cuda::synchronize() waits for
//   the whole device, CUDAStream::synchronize / CUDAEvent::synchronize for
//   one stream / event. Uploads from pageable memory are cudaMemcpyAsync on
//   the current stream (Note [Pageable uploads]); from pinned memory with
//   non_blocking=true they are a true asynchronous copy.
// - The caching allocator (Note [CUDA caching allocator]) tags each block
//   with the stream it was allocated on and reuses a freed block only for
//   allocations on that stream, where work is ordered after the frees'
//   users without any synchronization. A tensor used on another stream must
//   say so with Tensor::record_stream(s): its block then waits, when freed,
//   for an event recorded on each such stream at free time before it is
//   reused.

#include "tensor/cuda/stream.h"

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/cuda.h"
#include "tensor/cuda/graph_internal.h"
#include "tensor/cuda/kernels.h"
#include "tensor/error.h"

namespace ember {
namespace cuda {
namespace {

constexpr int kMaxDevices = 64;
constexpr int kStreamsPerPool = 32;    // libtorch's kStreamsPerPool
constexpr int64_t kLowPoolBase = 32;   // StreamIdType LOW << 5
constexpr int64_t kHighPoolBase = 64;  // StreamIdType HIGH << 5

struct DevicePool {
  std::once_flag once;
  cudaStream_t low[kStreamsPerPool] = {};
  cudaStream_t high[kStreamsPerPool] = {};
  int high_priority = 0;
  std::atomic<uint32_t> next_low{0};
  std::atomic<uint32_t> next_high{0};
};

DevicePool& pool(int device) {
  static auto* pools = new std::array<DevicePool, kMaxDevices>();  // never destroyed
  return (*pools)[device];
}

// The pool's streams of `device`, created on first use (PyTorch creates them
// all at once, lazily, per device).
DevicePool& initialized_pool(int device) {
  DevicePool& p = pool(device);
  std::call_once(p.once, [&] {
    detail::DeviceGuard guard(device);
    int least = 0, greatest = 0;
    EMBER_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    p.high_priority = greatest;
    for (int i = 0; i < kStreamsPerPool; ++i) {
      EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&p.low[i], cudaStreamNonBlocking, least));
      EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&p.high[i], cudaStreamNonBlocking, greatest));
    }
  });
  return p;
}

// The calling thread's current stream id per device (0: legacy default).
thread_local std::array<int64_t, kMaxDevices> current_ids{};

int checked_device(int device) {
  const int count = detail::ensure_initialized();
  if (device < 0) return current_device();
  EMBER_CHECK(device < count && device < kMaxDevices, "CUDA error: invalid device ordinal");
  return device;
}

cudaStream_t handle_of(int device, int64_t id) {
  if (id == 0) return nullptr;
  DevicePool& p = initialized_pool(device);
  if (id >= kHighPoolBase) return p.high[id - kHighPoolBase];
  return p.low[id - kLowPoolBase];
}

}  // namespace

namespace detail {
cudaStream_t current_stream_handle(int device) {
  if (device < 0 || device >= kMaxDevices) return nullptr;
  const int64_t id = current_ids[device];
  return id == 0 ? nullptr : handle_of(device, id);
}
}  // namespace detail

namespace kernels {
cudaStream_t current_stream() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return detail::current_stream_handle(device);
}
}  // namespace kernels

cudaStream_t CUDAStream::stream() const { return handle_of(checked_device(device_index_), id_); }

bool CUDAStream::query() const {
  detail::check_not_capturing(stream(), "CUDAStream::query() of a capturing stream");
  cudaError_t err = cudaStreamQuery(stream());
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  EMBER_CUDA_CHECK(err);
  return true;
}

void CUDAStream::synchronize() const {
  cudaStream_t s = stream();
  detail::DeviceGuard guard(device_index_);
  detail::check_not_capturing(s, "CUDAStream::synchronize() of a capturing stream");
  EMBER_CUDA_CHECK(cudaStreamSynchronize(s));
}

int CUDAStream::priority() const {
  cudaStream_t s = stream();
  if (s == nullptr) return 0;
  int p = 0;
  EMBER_CUDA_CHECK(cudaStreamGetPriority(s, &p));
  return p;
}

std::ostream& operator<<(std::ostream& os, const CUDAStream& s) {
  return os << "stream " << s.id() << " on device cuda:" << s.device_index();
}

CUDAStream getCurrentCUDAStream(int device) {
  device = checked_device(device);
  return CUDAStream(device, current_ids[device]);
}

CUDAStream getDefaultCUDAStream(int device) { return CUDAStream(checked_device(device), 0); }

CUDAStream getStreamFromPool(bool isHighPriority, int device) {
  device = checked_device(device);
  DevicePool& p = initialized_pool(device);
  const uint32_t i = (isHighPriority ? p.next_high : p.next_low).fetch_add(1) % kStreamsPerPool;
  return CUDAStream(device, (isHighPriority ? kHighPoolBase : kLowPoolBase) + i);
}

void setCurrentCUDAStream(CUDAStream stream) {
  const int device = checked_device(stream.device_index());
  current_ids[device] = stream.id();
}

CUDAStreamGuard::CUDAStreamGuard(CUDAStream stream)
    : original_device_(current_device()),
      original_stream_(getCurrentCUDAStream(stream.device_index())),
      current_(stream) {
  set_device(stream.device_index());
  setCurrentCUDAStream(stream);
}

void CUDAStreamGuard::reset_stream(CUDAStream stream) {
  if (stream.device_index() != original_stream_.device_index() &&
      original_other_.device_index() != stream.device_index()) {
    if (original_other_.device_index() >= 0) setCurrentCUDAStream(original_other_);
    original_other_ = getCurrentCUDAStream(stream.device_index());
  }
  set_device(stream.device_index());
  setCurrentCUDAStream(stream);
  current_ = stream;
}

CUDAStreamGuard::~CUDAStreamGuard() {
  // The thread-local ids only: nothing here can fail but cudaSetDevice.
  if (original_other_.device_index() >= 0) {
    current_ids[original_other_.device_index()] = original_other_.id();
  }
  current_ids[original_stream_.device_index()] = original_stream_.id();
  if (cudaSetDevice(original_device_) != cudaSuccess) cudaGetLastError();
}

// --- events ---

CUDAEvent::~CUDAEvent() {
  if (event_ != nullptr && cudaEventDestroy(event_) != cudaSuccess) cudaGetLastError();
}

CUDAEvent::CUDAEvent(CUDAEvent&& o) noexcept
    : flags_(o.flags_), device_index_(o.device_index_), event_(o.event_) {
  o.event_ = nullptr;
  o.device_index_ = -1;
}

CUDAEvent& CUDAEvent::operator=(CUDAEvent&& o) noexcept {
  if (this != &o) {
    if (event_ != nullptr && cudaEventDestroy(event_) != cudaSuccess) cudaGetLastError();
    flags_ = o.flags_;
    device_index_ = o.device_index_;
    event_ = o.event_;
    o.event_ = nullptr;
    o.device_index_ = -1;
  }
  return *this;
}

void CUDAEvent::record() { record(getCurrentCUDAStream()); }

void CUDAEvent::recordOnce(const CUDAStream& stream) {
  if (event_ == nullptr) record(stream);
}

void CUDAEvent::record(const CUDAStream& stream) {
  cudaStream_t s = stream.stream();
  if (event_ == nullptr) {
    detail::DeviceGuard guard(stream.device_index());
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags_));
    device_index_ = stream.device_index();
  }
  EMBER_CHECK(device_index_ == stream.device_index(), "Event device ", device_index_,
              " does not match recording stream's device ", stream.device_index(), ".");
  detail::DeviceGuard guard(device_index_);
  EMBER_CUDA_CHECK(cudaEventRecord(event_, s));
}

void CUDAEvent::block(const CUDAStream& stream) const {
  if (event_ == nullptr) return;
  cudaStream_t s = stream.stream();
  detail::DeviceGuard guard(stream.device_index());
  EMBER_CUDA_CHECK(cudaStreamWaitEvent(s, event_, 0));
}

bool CUDAEvent::query() const {
  if (event_ == nullptr) return true;
  cudaError_t err = cudaEventQuery(event_);
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  EMBER_CUDA_CHECK(err);
  return true;
}

void CUDAEvent::synchronize() const {
  if (event_ == nullptr) return;
  EMBER_CUDA_CHECK(cudaEventSynchronize(event_));
}

float CUDAEvent::elapsed_time(const CUDAEvent& other) const {
  EMBER_CHECK(isCreated() && other.isCreated(),
              "Both events must be recorded before calculating elapsed time.");
  float ms = 0;
  EMBER_CUDA_CHECK(cudaEventElapsedTime(&ms, event_, other.event_));
  return ms;
}

}  // namespace cuda
}  // namespace ember
