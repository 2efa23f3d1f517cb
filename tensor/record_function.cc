#include "tensor/record_function.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "tensor/error.h"

namespace ember {
namespace profiler {
namespace detail {

std::atomic<bool> g_active{false};

namespace {

// A range while it is being recorded: RawRange plus its device markers.
struct OpenRange {
  RawRange range;
  void* device_start = nullptr;
  void* device_end = nullptr;
  bool done = false;
};

struct ThreadBuffer {
  std::mutex mu;
  uint64_t thread = 0;
  uint32_t session = 0;
  std::vector<OpenRange> ranges;
  std::vector<int32_t> stack;  // open ranges, innermost last
};

struct Registry {
  std::mutex mu;
  std::vector<std::shared_ptr<ThreadBuffer>> buffers;
  uint64_t next_thread = 1;
  // The running session (read under a buffer's lock after g_active).
  std::atomic<uint32_t> session{0};
  SessionOptions options;
  bool running = false;
  int64_t start_ns = 0;
  void* first_marker = nullptr;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: threads may outlive main
  return *r;
}

std::atomic<DeviceTimer*> g_timer{nullptr};
// The running session's options, read by every range (set before g_active).
std::atomic<bool> g_memory{false};
std::atomic<bool> g_shapes{false};
std::atomic<bool> g_device_timing{false};

ThreadBuffer& this_thread_buffer() {
  thread_local std::shared_ptr<ThreadBuffer> buf = [] {
    auto b = std::make_shared<ThreadBuffer>();
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    b->thread = r.next_thread++;
    r.buffers.push_back(b);
    return b;
  }();
  return *buf;
}

// Drops what an earlier session left in this thread's buffer.
void enter_session(ThreadBuffer& b, uint32_t session) {
  if (b.session == session) return;
  DeviceTimer* timer = g_timer.load();
  for (OpenRange& o : b.ranges) {
    if (timer != nullptr && o.device_start != nullptr) timer->release(o.device_start);
    if (timer != nullptr && o.device_end != nullptr) timer->release(o.device_end);
  }
  b.ranges.clear();
  b.stack.clear();
  b.session = session;
}

}  // namespace

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

RangeHandle begin_range(const char* name, RangeKind kind, const Tensor* const* inputs,
                        size_t n_inputs) {
  Registry& r = registry();
  ThreadBuffer& b = this_thread_buffer();
  std::lock_guard<std::mutex> lock(b.mu);
  if (!g_active.load(std::memory_order_acquire)) return {};
  const uint32_t session = r.session.load(std::memory_order_acquire);
  enter_session(b, session);
  // An op that re-enters itself (a random fill running its own forward
  // inside its autograd recording) is one range, not two.
  if (!b.stack.empty()) {
    const RawRange& top = b.ranges[b.stack.back()].range;
    if (top.kind == kind && std::strcmp(top.name, name) == 0) return {};
  }
  OpenRange o;
  o.range.name = name;
  o.range.kind = kind;
  o.range.thread = b.thread;
  o.range.parent = b.stack.empty() ? -1 : b.stack.back();
  if (g_shapes.load(std::memory_order_relaxed)) {
    o.range.input_shapes.reserve(n_inputs);
    for (size_t i = 0; i < n_inputs; ++i) {
      const Tensor& t = *inputs[i];
      if (t.defined()) {
        IntArrayRef s = t.sizes();
        o.range.input_shapes.emplace_back(s.begin(), s.end());
      } else {
        o.range.input_shapes.emplace_back();
      }
    }
  }
  if (g_device_timing.load(std::memory_order_relaxed)) {
    if (DeviceTimer* timer = g_timer.load()) o.device_start = timer->mark();
  }
  o.range.start_ns = now_ns();
  const int32_t index = static_cast<int32_t>(b.ranges.size());
  b.ranges.push_back(std::move(o));
  b.stack.push_back(index);
  return {index, session};
}

void end_range(RangeHandle h) {
  const int64_t end = now_ns();
  ThreadBuffer& b = this_thread_buffer();
  std::lock_guard<std::mutex> lock(b.mu);
  if (b.session != h.session || h.index < 0 || h.index >= static_cast<int32_t>(b.ranges.size())) {
    return;  // the session it belonged to has ended
  }
  OpenRange& o = b.ranges[h.index];
  o.range.end_ns = end;
  if (o.device_start != nullptr) {
    if (DeviceTimer* timer = g_timer.load()) o.device_end = timer->mark();
  }
  o.done = true;
  // Ranges close innermost first; one left open by a thread that threw past
  // it without unwinding (never in ember) is closed with it.
  while (!b.stack.empty()) {
    const int32_t top = b.stack.back();
    b.stack.pop_back();
    if (top == h.index) break;
  }
}

const char* intern(std::string_view name) {
  static std::mutex mu;
  static auto* names = new std::unordered_set<std::string>;
  std::lock_guard<std::mutex> lock(mu);
  return names->emplace(name).first->c_str();
}

void set_device_timer(DeviceTimer* timer) { g_timer.store(timer); }
DeviceTimer* device_timer() { return g_timer.load(); }

bool memory_active() { return g_memory.load(std::memory_order_relaxed); }

void report_memory(int64_t nbytes, Device device) {
  if (!memory_active()) return;
  ThreadBuffer& b = this_thread_buffer();
  std::lock_guard<std::mutex> lock(b.mu);
  const uint32_t session = registry().session.load(std::memory_order_acquire);
  if (b.session != session || b.stack.empty()) return;
  RawRange& r = b.ranges[b.stack.back()].range;
  (device.type() == kCPU ? r.self_cpu_mem : r.self_cuda_mem) += nbytes;
}

void start(const SessionOptions& options) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.running) {
    throw Error("Profiler is already enabled: one profile runs at a time");
  }
  r.options = options;
  r.running = true;
  DeviceTimer* timer = g_timer.load();
  r.options.device_timing = options.device_timing && timer != nullptr;
  r.first_marker = r.options.device_timing ? timer->mark() : nullptr;
  r.start_ns = now_ns();
  r.session.fetch_add(1, std::memory_order_acq_rel);
  g_memory.store(options.profile_memory, std::memory_order_relaxed);
  g_shapes.store(options.record_shapes, std::memory_order_relaxed);
  g_device_timing.store(r.options.device_timing, std::memory_order_relaxed);
  g_active.store(true, std::memory_order_release);
}

RawSession stop() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  RawSession out;
  if (!r.running) return out;
  g_active.store(false, std::memory_order_release);
  g_memory.store(false, std::memory_order_relaxed);
  g_shapes.store(false, std::memory_order_relaxed);
  g_device_timing.store(false, std::memory_order_relaxed);
  r.running = false;
  out.start_ns = r.start_ns;
  out.device_timing = r.options.device_timing;
  const uint32_t session = r.session.load();
  DeviceTimer* timer = out.device_timing ? g_timer.load() : nullptr;
  if (timer != nullptr) timer->synchronize();
  for (const std::shared_ptr<ThreadBuffer>& bp : r.buffers) {
    ThreadBuffer& b = *bp;
    std::lock_guard<std::mutex> block(b.mu);
    if (b.session != session) continue;
    // Completed ranges only; parents are renumbered into `out`.
    std::vector<int32_t> remap(b.ranges.size(), -1);
    for (size_t i = 0; i < b.ranges.size(); ++i) {
      OpenRange& o = b.ranges[i];
      if (!o.done) continue;
      RawRange range = std::move(o.range);
      // The nearest completed ancestor (an open one is dropped).
      int32_t p = range.parent;
      while (p >= 0 && remap[p] < 0) p = b.ranges[p].range.parent;
      range.parent = p >= 0 ? remap[p] : -1;
      if (timer != nullptr && o.device_start != nullptr && o.device_end != nullptr) {
        range.device_start_us = timer->elapsed_us(r.first_marker, o.device_start);
        range.device_end_us = timer->elapsed_us(r.first_marker, o.device_end);
      }
      remap[i] = static_cast<int32_t>(out.ranges.size());
      out.ranges.push_back(std::move(range));
    }
    enter_session(b, session + 1);  // frees this session's markers
    b.session = 0;
  }
  if (timer != nullptr && r.first_marker != nullptr) timer->release(r.first_marker);
  r.first_marker = nullptr;
  return out;
}

bool running() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.running;
}

}  // namespace detail

void RecordFunction::begin_list(const char* name, RangeKind kind, TensorList inputs) {
  std::vector<const Tensor*> ptrs;
  ptrs.reserve(inputs.size());
  for (const Tensor& t : inputs) ptrs.push_back(&t);
  handle_ = detail::begin_range(name, kind, ptrs.data(), ptrs.size());
}

record_function::record_function(std::string_view name) {
  if (detail::active()) {
    handle_ = detail::begin_range(detail::intern(name), RangeKind::kUser, nullptr, 0);
  }
}

}  // namespace profiler
}  // namespace ember
