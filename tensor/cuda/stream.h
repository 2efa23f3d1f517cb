#ifndef EMBER_TENSOR_CUDA_STREAM_H_
#define EMBER_TENSOR_CUDA_STREAM_H_

// CUDA streams and events as libtorch has them (c10/cuda/CUDAStream.h,
// c10/cuda/CUDAGuard.h, ATen/cuda/CUDAEvent.h), in namespace ember::cuda.
// Note [CUDA streams] in stream.cc says how the backend uses them.
//
// The same API exists in every build. Without a CUDA toolkit or without a
// usable device, what needs a device throws the error cuda.h's functions
// throw ("Torch not compiled with CUDA enabled", "No CUDA GPUs are
// available", ...); a CUDAEvent that was never recorded needs none.
//
// cudaStream_t / cudaEvent_t are declared here as the CUDA runtime declares
// them (pointers to opaque structs), so that this header does not pull in
// cuda_runtime_api.h and compiles in a CPU-only build.

#include <cstdint>
#include <ostream>

struct CUstream_st;
struct CUevent_st;
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;

namespace ember {
namespace cuda {

// A stream on one device: the legacy default stream (id 0), or one of the
// pool's streams (ids as libtorch's: 32 + i for low priority, 64 + i for
// high priority, i < 32). Cheap to copy; pool streams live as long as the
// process.
class CUDAStream {
 public:
  // Lets two streams be compared, printed and stored; only the accessors
  // need a device.
  CUDAStream(int device_index, int64_t id) : device_index_(device_index), id_(id) {}

  int device_index() const { return device_index_; }
  int64_t id() const { return id_; }
  // The runtime's handle (nullptr for the legacy default stream).
  cudaStream_t stream() const;
  operator cudaStream_t() const { return stream(); }  // NOLINT: libtorch converts implicitly

  // True when all work queued on the stream so far has finished.
  bool query() const;
  // Waits on the host until all work queued on the stream so far finished.
  void synchronize() const;
  // The stream's priority (lower is higher; 0 for the default and the
  // low-priority pool streams).
  int priority() const;

  bool operator==(const CUDAStream& o) const {
    return device_index_ == o.device_index_ && id_ == o.id_;
  }
  bool operator!=(const CUDAStream& o) const { return !(*this == o); }

 private:
  int device_index_;
  int64_t id_;
};

using Stream = CUDAStream;

// libtorch's printed form: "stream 0 on device cuda:0".
std::ostream& operator<<(std::ostream& os, const CUDAStream& s);

// The calling thread's current stream on `device` (-1: the current device);
// the legacy default stream until set.
CUDAStream getCurrentCUDAStream(int device = -1);
// The legacy default (null) stream of `device`, as PyTorch's default stream.
CUDAStream getDefaultCUDAStream(int device = -1);
// A stream from `device`'s pool: 32 per priority, handed out round-robin,
// created on first use with cudaStreamNonBlocking (they do not synchronize
// with the legacy default stream).
CUDAStream getStreamFromPool(bool isHighPriority = false, int device = -1);
// Makes `stream` the calling thread's current stream on its device (the
// current device is left alone, as libtorch's).
void setCurrentCUDAStream(CUDAStream stream);

// Sets the current device to the stream's and the current stream of that
// device to `stream` for its scope; restores both on exit.
class CUDAStreamGuard {
 public:
  explicit CUDAStreamGuard(CUDAStream stream);
  ~CUDAStreamGuard();
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;
  CUDAStreamGuard& operator=(const CUDAStreamGuard&) = delete;

  // Switches to another stream (its device becomes current); the exit still
  // restores what was current at construction.
  void reset_stream(CUDAStream stream);
  CUDAStream original_stream() const { return original_stream_; }
  CUDAStream current_stream() const { return current_; }
  int original_device() const { return original_device_; }

 private:
  int original_device_;
  CUDAStream original_stream_;  // current on the first stream's device at entry
  // What a reset_stream to another device found current there (device -1:
  // none yet).
  CUDAStream original_other_{-1, 0};
  CUDAStream current_;
};

// cudaEventCreateWithFlags's flags, with the runtime's values.
constexpr unsigned int kEventDefault = 0x00;
constexpr unsigned int kEventBlockingSync = 0x01;
constexpr unsigned int kEventDisableTiming = 0x02;

// libtorch's at::cuda::CUDAEvent: created lazily on the device of the
// first stream it is recorded on; timing disabled unless the flags say
// otherwise (CUDAEvent(kEventDefault) times). Move-only.
class CUDAEvent {
 public:
  explicit CUDAEvent(unsigned int flags = kEventDisableTiming) : flags_(flags) {}
  ~CUDAEvent();
  CUDAEvent(const CUDAEvent&) = delete;
  CUDAEvent& operator=(const CUDAEvent&) = delete;
  CUDAEvent(CUDAEvent&& o) noexcept;
  CUDAEvent& operator=(CUDAEvent&& o) noexcept;

  bool isCreated() const { return event_ != nullptr; }
  int device_index() const { return device_index_; }
  unsigned int flags() const { return flags_; }
  cudaEvent_t event() const { return event_; }

  // Records on the current stream of the current device / on `stream`.
  // Throws "Event device 0 does not match recording stream's device 1."
  // when the event already lives on another device.
  void record();
  void record(const CUDAStream& stream);
  // Records only if never recorded before.
  void recordOnce(const CUDAStream& stream);
  // Makes future work on `stream` wait for the event (nothing if the
  // event was never recorded).
  void block(const CUDAStream& stream) const;
  // True when the recorded work finished (true if never recorded).
  bool query() const;
  // Waits on the host for the recorded work (nothing if never recorded).
  void synchronize() const;
  // Milliseconds between this event and `other` (recorded after it).
  // Throws "Both events must be recorded before calculating elapsed time."
  // and, with timing disabled, the runtime's "CUDA error: invalid resource
  // handle", as libtorch 1.13.
  float elapsed_time(const CUDAEvent& other) const;

 private:
  unsigned int flags_;
  int device_index_ = -1;
  cudaEvent_t event_ = nullptr;
};

using Event = CUDAEvent;

}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_STREAM_H_
