#ifndef EMBER_TENSOR_RECORD_FUNCTION_H_
#define EMBER_TENSOR_RECORD_FUNCTION_H_

// Note [Profiling ranges]: what //profiler (PyTorch's torch.profiler) sees.
// //tensor knows nothing of the profiler's tables and traces; it only opens
// and closes named ranges (ATen's RecordFunction):
//
//   profiler::RecordFunction range("mm", self, other);   // in an op
//   profiler::record_function range("forward");          // in user code
//
// While no profile is running, a range costs one relaxed atomic load and a
// branch, and records nothing. While one runs (profiler::detail::start),
// every thread appends its ranges to its own buffer (registered once per
// thread, taken with an uncontended lock), with the start and end times
// (steady clock, ns), the enclosing range, the input shapes (when asked),
// the bytes allocated and freed inside it (when asked) and device-side
// timing markers (when a DeviceTimer is registered and CUDA activity was
// asked for). Unlike PyTorch's, a profile sees every thread of the process
// (DataParallel's replica threads, DataLoader workers), each with its own
// tid. detail::stop() ends the session and hands back the completed ranges;
// a range still open then is dropped.
//
// Which ops open a range: every differentiable primitive (the ones that
// record for autograd, Note [Op recording]: record_out_op opens it for the
// elementwise ones, the others open it beside their OpScope) and the ops
// that move or fill memory (copy_, to, fill_, zero_, the random fills).
// Composites (linear, conv2d's wrapper, cross_entropy) are the sum of their
// primitives' ranges. The autograd engine opens one per node it runs
// ("autograd::engine::evaluate_function: MulBackward0" around "MulBackward0"),
// as PyTorch's does.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/device.h"
#include "tensor/tensor.h"

namespace ember {
namespace profiler {

// How a range's name is shown: ops as "aten::<name>" (in-place ones with
// PyTorch's trailing underscore), the others as given.
enum class RangeKind : uint8_t { kOp, kInplaceOp, kUser, kBackward };

namespace detail {

extern std::atomic<bool> g_active;
inline bool active() { return g_active.load(std::memory_order_relaxed); }

struct RangeHandle {
  int32_t index = -1;
  uint32_t session = 0;
};

// Opens a range on this thread (only while active()); `inputs` give the
// input shapes when the session records them.
RangeHandle begin_range(const char* name, RangeKind kind, const Tensor* const* inputs,
                        size_t n_inputs);
void end_range(RangeHandle h);

// A process-lifetime copy of `name` (for names made at run time: user
// ranges, autograd nodes). Each distinct name is stored once.
const char* intern(std::string_view name);

// Device-side timing markers: the CUDA backend registers one (cudaEvent on
// the current stream); tests register a fake.
class DeviceTimer {
 public:
  virtual ~DeviceTimer() = default;
  // Records a marker now on the device's current stream.
  virtual void* mark() = 0;
  // Waits until every marker has been reached.
  virtual void synchronize() = 0;
  // Microseconds from marker a to marker b.
  virtual double elapsed_us(void* a, void* b) = 0;
  virtual void release(void* marker) = 0;
};
void set_device_timer(DeviceTimer* timer);
DeviceTimer* device_timer();

// Called by make_storage: `nbytes` allocated on `device` (negative: freed).
// Counted into the innermost open range of this thread.
void report_memory(int64_t nbytes, Device device);
bool memory_active();

struct SessionOptions {
  bool record_shapes = false;
  bool profile_memory = false;
  bool device_timing = false;  // markers from the registered DeviceTimer
};

// One completed range.
struct RawRange {
  const char* name = "";
  RangeKind kind = RangeKind::kOp;
  uint64_t thread = 0;   // small per-process thread number, from 1
  int32_t parent = -1;   // index into the same RawSession's ranges
  int64_t start_ns = 0;  // steady clock
  int64_t end_ns = 0;
  int64_t self_cpu_mem = 0;  // bytes allocated minus freed directly inside
  int64_t self_cuda_mem = 0;
  double device_start_us = -1;  // from the session's first marker; -1: none
  double device_end_us = -1;
  std::vector<std::vector<int64_t>> input_shapes;
};

struct RawSession {
  std::vector<RawRange> ranges;  // a parent always precedes its children
  int64_t start_ns = 0;          // when the session started
  bool device_timing = false;
};

// Starts a session; throws when one is running ("Profiler is already
// enabled"). stop() ends it and returns its completed ranges.
void start(const SessionOptions& options);
RawSession stop();
bool running();

int64_t now_ns();

}  // namespace detail

// An op writing into `out` is in place (defined) or functional.
inline RangeKind op_kind(const Tensor& out) {
  return out.defined() ? RangeKind::kInplaceOp : RangeKind::kOp;
}

// A range for an op whose name is a string literal (or another string that
// lives as long as the process).
class RecordFunction {
 public:
  explicit RecordFunction(const char* name, RangeKind kind = RangeKind::kOp) {
    if (detail::active()) handle_ = detail::begin_range(name, kind, nullptr, 0);
  }
  // With its tensor inputs, whose shapes are kept when asked.
  template <typename... Ts>
  RecordFunction(const char* name, RangeKind kind, const Ts&... inputs) {
    if (detail::active()) {
      const Tensor* ptrs[] = {&inputs...};
      handle_ = detail::begin_range(name, kind, ptrs, sizeof...(Ts));
    }
  }
  RecordFunction(const char* name, RangeKind kind, TensorList inputs) {
    if (detail::active()) begin_list(name, kind, inputs);
  }
  RecordFunction(const RecordFunction&) = delete;
  RecordFunction& operator=(const RecordFunction&) = delete;
  ~RecordFunction() {
    if (handle_.index >= 0) detail::end_range(handle_);
  }

 private:
  void begin_list(const char* name, RangeKind kind, TensorList inputs);
  detail::RangeHandle handle_;
};

// PyTorch's torch.profiler.record_function: a user-named range, open for
// the object's lifetime (or until exit()).
//
//   { profiler::record_function range("forward"); out = model(x); }
class record_function {
 public:
  explicit record_function(std::string_view name);
  record_function(const record_function&) = delete;
  record_function& operator=(const record_function&) = delete;
  ~record_function() { exit(); }
  // Closes the range early (PyTorch's __exit__).
  void exit() {
    if (handle_.index >= 0) detail::end_range(handle_);
    handle_ = {};
  }

 private:
  detail::RangeHandle handle_;
};

}  // namespace profiler
}  // namespace ember

#endif  // EMBER_TENSOR_RECORD_FUNCTION_H_
