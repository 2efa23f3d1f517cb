// The CUDA caching allocator. Note [CUDA caching allocator]: cudaMalloc and
// cudaFree synchronize the device and cost tens of microseconds, so freed
// blocks are kept in free lists keyed by device, stream and size class and
// handed out again. As PyTorch's allocator, it is stream-aware (Note [CUDA
// streams] in stream.cc): a block belongs to the stream that was current
// when it was allocated, and a freed block is reused only by allocations on
// that same stream, whose later work is ordered after everything queued
// there before the free, so no synchronization is needed. A block that
// Tensor::record_stream marked as used on other streams waits, when freed,
// for an event recorded on each of them at that moment; the events are
// polled at the next allocation (PyTorch's process_events) and the block
// goes back to its free list once all have completed. empty_cache()
// synchronizes those events, then returns the free blocks to the driver; so
// does a failed cudaMalloc, once, before it gives up with PyTorch's "CUDA
// out of memory" error (cuda.h).
//
// Unlike PyTorch, blocks are never split or merged: each size class (each
// power-of-two octave split in four) is one cudaMalloc of that size.
//
// CUDA graphs (Note [CUDA graphs] in graph.cc): while a capture runs on a
// device, allocations on its captured streams come from the capture's
// private pool (the pool's free blocks of that stream and size, else a new
// cudaMalloc tagged with the pool), and every block freed on that device
// goes into a pool: its own if it has one, else the pool of the capture on
// the freeing thread's current stream, else any capture's on the device.
// Replays read and write those addresses again, so a pool's blocks are never
// handed to an eager allocation: a capture into the pool may reuse the
// blocks the pool's captures freed (in stream order, as eagerly), except
// those used on other streams or that came from outside the pool, which are
// only held. When the pool's last graph resets, its free and held blocks
// are freed as usual (record_stream's events included) into the general
// cache, and its live blocks belong to the general cache from then on.
// cached_bytes() counts the general cache only; memory_reserved counts
// every block. empty_cache() and the out-of-memory retry leave a device
// alone while a capture runs there (cudaFree would synchronize it).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_format.h"
#include "tensor/allocator.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/cuda.h"
#include "tensor/cuda/graph_internal.h"
#include "tensor/cuda/stream.h"
#include "tensor/error.h"
#include "tensor/tensor.h"

namespace ember {
namespace cuda {
namespace {

constexpr size_t kMinBlock = 512;  // cudaMalloc aligns to 256; PyTorch rounds to 512
constexpr int kClassesPerOctave = 4;
constexpr int kMaxDevices = 64;

// Rounds n up to its size class (each power-of-two octave split in four, so
// rounding wastes under 25%) and returns the class's index.
int size_class(size_t n, size_t* rounded) {
  if (n < kMinBlock) n = kMinBlock;
  int octave = 63 - __builtin_clzll(n);
  size_t base = size_t{1} << octave;
  size_t step = base / kClassesPerOctave;
  size_t k = (n - base + step - 1) / step;
  *rounded = base + k * step;
  return octave * kClassesPerOctave + static_cast<int>(k);
}

// PyTorch's format_size.
std::string format_bytes(size_t n) {
  double v = static_cast<double>(n);
  if (v >= 1 << 30) return absl::StrFormat("%.2f GiB", v / (1 << 30));
  if (v >= 1 << 20) return absl::StrFormat("%.2f MiB", v / (1 << 20));
  if (v >= 1 << 10) return absl::StrFormat("%.2f KiB", v / (1 << 10));
  return absl::StrFormat("%d bytes", n);
}

struct PrivatePool;

struct Block {
  PrivatePool* pool = nullptr;  // a CUDA graph's private pool, or none
  void* ptr = nullptr;
  size_t size = 0;
  int device = 0;
  int cls = 0;
  cudaStream_t stream = nullptr;          // the stream it was allocated on
  std::vector<cudaStream_t> stream_uses;  // record_stream's other streams
  int pending_events = 0;                 // freed, waiting for these events
};

struct Stat {
  int64_t current = 0;
  int64_t peak = 0;
  int64_t allocated = 0;  // total ever added
  int64_t freed = 0;      // total ever removed
  void add(int64_t n) {
    current += n;
    allocated += n;
    peak = std::max(peak, current);
  }
  void sub(int64_t n) {
    current -= n;
    freed += n;
  }
};

struct DeviceStats {
  Stat allocated_bytes, reserved_bytes, allocations, segments;
  int64_t num_ooms = 0;
  int64_t num_alloc_retries = 0;
};

using PoolId = std::pair<unsigned long long, unsigned long long>;

struct PoolKey {
  int device;
  cudaStream_t stream;
  int cls;
  bool operator<(const PoolKey& o) const {
    return std::tie(device, stream, cls) < std::tie(o.device, o.stream, o.cls);
  }
};

// A CUDA graph's private pool (Note [CUDA graphs] in graph.cc).
struct PrivatePool {
  PoolId id;
  int device = 0;
  int use_count = 0;                            // graphs (captures) holding it
  std::map<PoolKey, std::vector<Block*>> free;  // reusable by captures into the pool
  std::vector<Block*> held;                     // freed into it, reused by none
};

class CudaCachingAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override { return allocate_on(Device(kCUDA), nbytes); }

  DataPtr allocate_on(Device device, size_t nbytes) override {
    int index = detail::device_index(device);
    EMBER_CHECK(index >= 0 && index < kMaxDevices, "CUDA error: invalid device ordinal");
    DataPtr d;
    d.device = Device(kCUDA, static_cast<int8_t>(index));
    d.deleter = &CudaCachingAllocator::free_block;
    if (nbytes == 0) return d;  // empty tensors own no memory
    size_t rounded;
    int cls = size_class(nbytes, &rounded);
    cudaStream_t stream = detail::current_stream_handle(index);
    const bool capturing = detail::capture_underway(index);
    const unsigned long long capture = capturing ? capture_id(stream) : 0;
    PrivatePool* pool = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      process_events();
      if (capture != 0) {
        auto c = capture_pools_.find(capture);
        if (c != capture_pools_.end()) pool = c->second;
      }
      auto& lists = pool != nullptr ? pool->free : free_;
      auto it = lists.find(Key{index, stream, cls});
      if (it != lists.end() && !it->second.empty()) {
        Block* b = it->second.back();
        it->second.pop_back();
        if (pool == nullptr) cached_ -= b->size;
        return hand_out(b, &d);
      }
    }
    void* ptr = nullptr;
    detail::DeviceGuard guard(index);
    cudaError_t err = cudaMalloc(&ptr, rounded);
    if (err == cudaErrorMemoryAllocation && !capturing) {
      cudaGetLastError();
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++stats_[index].num_alloc_retries;
      }
      release(index);
      err = cudaMalloc(&ptr, rounded);
    }
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      size_t free_bytes = 0, total_bytes = 0;
      if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) cudaGetLastError();
      int64_t allocated, reserved;
      {
        std::lock_guard<std::mutex> lock(mu_);
        DeviceStats& s = stats_[index];
        ++s.num_ooms;
        allocated = s.allocated_bytes.current;
        reserved = s.reserved_bytes.current;
      }
      throw OutOfMemoryError(absl::StrCat(
          "CUDA out of memory. Tried to allocate ", format_bytes(rounded), " (GPU ", index, "; ",
          format_bytes(total_bytes), " total capacity; ", format_bytes(allocated),
          " already allocated; ", format_bytes(free_bytes), " free; ", format_bytes(reserved),
          " reserved in total by PyTorch) If reserved memory is >> allocated memory try setting "
          "max_split_size_mb to avoid fragmentation.  See documentation for Memory Management "
          "and PYTORCH_CUDA_ALLOC_CONF"));
    }
    EMBER_CUDA_CHECK(err);
    auto* b = new Block;
    b->ptr = ptr;
    b->size = rounded;
    b->device = index;
    b->cls = cls;
    b->stream = stream;
    b->pool = pool;
    std::lock_guard<std::mutex> lock(mu_);
    DeviceStats& s = stats_[index];
    s.reserved_bytes.add(static_cast<int64_t>(rounded));
    s.segments.add(1);
    return hand_out(b, &d);
  }

  size_t cached_bytes() {
    std::lock_guard<std::mutex> lock(mu_);
    return cached_;
  }

  // Frees the cached blocks of `device` (-1: of every device), after waiting
  // for the events of blocks freed while other streams still used them.
  void release(int device) {
    std::vector<Block*> blocks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      synchronize_events();
      for (auto& [key, list] : free_) {
        if (device >= 0 && key.device != device) continue;
        if (detail::capture_underway(key.device)) continue;
        for (Block* b : list) {
          blocks.push_back(b);
          cached_ -= b->size;
          DeviceStats& s = stats_[b->device];
          s.reserved_bytes.sub(static_cast<int64_t>(b->size));
          s.segments.sub(1);
        }
        list.clear();
      }
    }
    for (Block* b : blocks) {
      detail::DeviceGuard guard(b->device);
      cudaError_t err = cudaFree(b->ptr);
      delete b;
      EMBER_CUDA_CHECK(err);
    }
  }

  void record_stream(const void* ptr, int device, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(const_cast<void*>(ptr));
    if (it == live_.end()) return;  // not from this allocator (e.g. from_blob)
    Block* b = it->second;
    if (b->device != device || stream == b->stream) return;
    if (std::find(b->stream_uses.begin(), b->stream_uses.end(), stream) == b->stream_uses.end()) {
      b->stream_uses.push_back(stream);
    }
  }

  DeviceStats stats(int device) {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_[device];
  }

  void reset_peaks(int device) {
    std::lock_guard<std::mutex> lock(mu_);
    DeviceStats& s = stats_[device];
    for (Stat* st : {&s.allocated_bytes, &s.reserved_bytes, &s.allocations, &s.segments}) {
      st->peak = st->current;
    }
  }

  // --- CUDA graphs' private pools (Note [CUDA graphs] in graph.cc) ---

  bool capture_underway(int device) const {
    return device >= 0 && device < kMaxDevices && captures_[device].load() > 0;
  }

  void begin_allocate_to_pool(int device, unsigned long long capture, PoolId id) {
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<PrivatePool>& p = pools_[id];
    if (p == nullptr) {
      p = std::make_unique<PrivatePool>();
      p->id = id;
      p->device = device;
    }
    ++p->use_count;
    capture_pools_[capture] = p.get();
    captures_[device].fetch_add(1);
  }

  void end_allocate_to_pool(int device, unsigned long long capture) {
    std::lock_guard<std::mutex> lock(mu_);
    if (capture_pools_.erase(capture) > 0) captures_[device].fetch_sub(1);
  }

  void release_pool(int device, PoolId id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pools_.find(id);
    if (it == pools_.end()) return;
    PrivatePool* p = it->second.get();
    if (--p->use_count > 0) return;
    for (auto& [key, list] : p->free) {
      for (Block* b : list) {
        b->pool = nullptr;
        finish_free(b);
      }
    }
    for (Block* b : p->held) {
      b->pool = nullptr;
      finish_free(b);
    }
    for (auto& [ptr, b] : live_) {
      if (b->pool == p) b->pool = nullptr;
    }
    (void)device;
    pools_.erase(it);
  }

  static CudaCachingAllocator& instance() {
    // Never destroyed: tensors may outlive main, and the CUDA runtime may be
    // torn down before static destructors run.
    static auto* a = new CudaCachingAllocator();
    return *a;
  }

 private:
  using Key = PoolKey;

  // The id of the capture `stream` takes part in (0: none). Never throws.
  static unsigned long long capture_id(cudaStream_t stream) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    unsigned long long id = 0;
    if (cudaStreamGetCaptureInfo(stream, &status, &id) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return status == cudaStreamCaptureStatusActive ? id : 0;
  }

  // Under mu_: the pool a block freed now goes to (none: the general
  // cache), per Note [CUDA caching allocator].
  PrivatePool* pool_for_free(Block* b) {
    if (b->pool != nullptr) return b->pool;
    if (!capture_underway(b->device)) return nullptr;
    const unsigned long long own = capture_id(detail::current_stream_handle(b->device));
    auto it = capture_pools_.find(own);
    if (it != capture_pools_.end()) return it->second;
    for (auto& [capture, p] : capture_pools_) {
      if (p->device == b->device) return p;
    }
    return nullptr;
  }

  // Under mu_.
  DataPtr hand_out(Block* b, DataPtr* d) {
    b->stream_uses.clear();
    d->ptr = b->ptr;
    d->ctx = b;
    live_[b->ptr] = b;
    DeviceStats& s = stats_[b->device];
    s.allocated_bytes.add(static_cast<int64_t>(b->size));
    s.allocations.add(1);
    return *d;
  }

  // Under mu_: a block whose events all completed goes back to its list.
  void to_free_list(Block* b) {
    free_[Key{b->device, b->stream, b->cls}].push_back(b);
    cached_ += b->size;
  }

  // Under mu_: PyTorch's process_events, in order, stopping at the first
  // event not yet reached.
  void process_events() {
    while (!events_.empty()) {
      auto [event, b] = events_.front();
      cudaError_t err = cudaEventQuery(event);
      if (err == cudaErrorNotReady) {
        cudaGetLastError();
        break;
      }
      if (err != cudaSuccess) cudaGetLastError();  // a failed event: nothing waits on it
      events_.pop_front();
      idle_events_[b->device].push_back(event);
      if (--b->pending_events == 0) to_free_list(b);
    }
  }

  // Under mu_: waits for every pending event (empty_cache, out of memory).
  void synchronize_events() {
    for (auto& [event, b] : events_) {
      if (cudaEventSynchronize(event) != cudaSuccess) cudaGetLastError();
      idle_events_[b->device].push_back(event);
      if (--b->pending_events == 0) to_free_list(b);
    }
    events_.clear();
  }

  static void free_block(void* ctx, void* ptr) {
    if (ptr == nullptr) return;
    auto* b = static_cast<Block*>(ctx);
    CudaCachingAllocator& self = instance();
    std::lock_guard<std::mutex> lock(self.mu_);
    self.live_.erase(ptr);
    DeviceStats& s = self.stats_[b->device];
    s.allocated_bytes.sub(static_cast<int64_t>(b->size));
    s.allocations.sub(1);
    if (PrivatePool* p = self.pool_for_free(b)) {
      // Only blocks of the pool used on their own stream alone may be
      // reused by its captures; record_stream's streams wait for the release.
      if (b->pool == p && b->stream_uses.empty()) {
        p->free[Key{b->device, b->stream, b->cls}].push_back(b);
      } else {
        b->pool = p;
        p->held.push_back(b);
      }
      return;
    }
    self.finish_free(b);
  }

  // Under mu_: a freed block outside any pool waits for record_stream's
  // streams, then goes back to the general cache.
  void finish_free(Block* b) {
    CudaCachingAllocator& self = *this;
    for (cudaStream_t stream : b->stream_uses) {
      // A deleter must not throw: on any failure, wait for the stream here.
      int previous = 0;
      if (cudaGetDevice(&previous) != cudaSuccess) cudaGetLastError();
      if (previous != b->device && cudaSetDevice(b->device) != cudaSuccess) cudaGetLastError();
      cudaEvent_t event = nullptr;
      std::vector<cudaEvent_t>& idle = self.idle_events_[b->device];
      if (!idle.empty()) {
        event = idle.back();
        idle.pop_back();
      } else if (cudaEventCreateWithFlags(&event, cudaEventDisableTiming) != cudaSuccess) {
        cudaGetLastError();
        event = nullptr;
      }
      if (event != nullptr && cudaEventRecord(event, stream) == cudaSuccess) {
        ++b->pending_events;
        self.events_.emplace_back(event, b);
      } else {
        cudaGetLastError();
        if (event != nullptr) idle.push_back(event);
        if (cudaStreamSynchronize(stream) != cudaSuccess) cudaGetLastError();
      }
      if (previous != b->device && cudaSetDevice(previous) != cudaSuccess) cudaGetLastError();
    }
    b->stream_uses.clear();
    if (b->pending_events == 0) self.to_free_list(b);
  }

  std::mutex mu_;
  std::map<Key, std::vector<Block*>> free_;
  std::unordered_map<void*, Block*> live_;
  std::deque<std::pair<cudaEvent_t, Block*>> events_;
  std::vector<cudaEvent_t> idle_events_[kMaxDevices];  // recorded on that device's streams
  size_t cached_ = 0;
  std::map<PoolId, std::unique_ptr<PrivatePool>> pools_;
  std::map<unsigned long long, PrivatePool*> capture_pools_;  // by capture id, while capturing
  std::atomic<int> captures_[kMaxDevices]{};                  // captures underway per device
  DeviceStats stats_[kMaxDevices];
};

// Registration only stores a pointer: no CUDA call runs before first use, so
// a process without a GPU starts as fast as a CPU-only one.
const bool registered = [] {
  set_allocator(kCUDA, &CudaCachingAllocator::instance());
  return true;
}();

int stats_device(int64_t device) {
  const int index = device < 0 ? current_device() : static_cast<int>(device);
  EMBER_CHECK(index < static_cast<int>(device_count()) && index < kMaxDevices,
              "Invalid device argument ", device, ": did you call init?");
  return index;
}

}  // namespace

void empty_cache() {
  if (!is_available()) return;  // nothing can have been cached
  CudaCachingAllocator::instance().release(-1);
}

size_t cached_bytes() { return CudaCachingAllocator::instance().cached_bytes(); }

namespace detail {
bool capture_underway(int device) {
  return CudaCachingAllocator::instance().capture_underway(device);
}
void begin_allocate_to_pool(int device, unsigned long long capture_id,
                            std::pair<unsigned long long, unsigned long long> pool) {
  CudaCachingAllocator::instance().begin_allocate_to_pool(device, capture_id, pool);
}
void end_allocate_to_pool(int device, unsigned long long capture_id) {
  CudaCachingAllocator::instance().end_allocate_to_pool(device, capture_id);
}
void release_pool(int device, std::pair<unsigned long long, unsigned long long> pool) {
  CudaCachingAllocator::instance().release_pool(device, pool);
}
}  // namespace detail

int64_t memory_allocated(int64_t device) {
  if (!is_available()) return 0;
  return CudaCachingAllocator::instance().stats(stats_device(device)).allocated_bytes.current;
}

int64_t max_memory_allocated(int64_t device) {
  if (!is_available()) return 0;
  return CudaCachingAllocator::instance().stats(stats_device(device)).allocated_bytes.peak;
}

int64_t memory_reserved(int64_t device) {
  if (!is_available()) return 0;
  return CudaCachingAllocator::instance().stats(stats_device(device)).reserved_bytes.current;
}

int64_t max_memory_reserved(int64_t device) {
  if (!is_available()) return 0;
  return CudaCachingAllocator::instance().stats(stats_device(device)).reserved_bytes.peak;
}

void reset_peak_memory_stats(int64_t device) {
  if (!is_available()) return;
  CudaCachingAllocator::instance().reset_peaks(stats_device(device));
}

std::string memory_summary(int64_t device) {
  const int index = stats_device(device);
  DeviceStats s = CudaCachingAllocator::instance().stats(index);
  const std::string rule(75, '=');
  const std::string thin(75, '-');
  std::string out;
  auto line = [&](const std::string& text) { absl::StrAppend(&out, "|", text, "|\n"); };
  auto bytes_row = [&](const char* name, const Stat& st) {
    line(absl::StrFormat(
        " %-22s| %10s | %10s | %10s | %10s ", name, format_bytes(static_cast<size_t>(st.current)),
        format_bytes(static_cast<size_t>(st.peak)), format_bytes(static_cast<size_t>(st.allocated)),
        format_bytes(static_cast<size_t>(st.freed))));
  };
  auto count_row = [&](const char* name, const Stat& st) {
    line(absl::StrFormat(" %-22s| %10d | %10d | %10d | %10d ", name, st.current, st.peak,
                         st.allocated, st.freed));
  };
  line(rule);
  line(absl::StrFormat(
      "%-75s", absl::StrCat("                  ember CUDA memory summary, device ID ", index)));
  line(thin);
  line(absl::StrFormat("%-75s", absl::StrFormat("            CUDA OOMs: %-13d|        cudaMalloc "
                                                "retries: %d",
                                                s.num_ooms, s.num_alloc_retries)));
  line(rule);
  line(absl::StrFormat(" %-22s| %10s | %10s | %10s | %10s ", "Metric", "Cur Usage", "Peak Usage",
                       "Tot Alloc", "Tot Freed"));
  line(thin);
  bytes_row("Allocated memory", s.allocated_bytes);
  bytes_row("GPU reserved memory", s.reserved_bytes);
  count_row("Allocations", s.allocations);
  count_row("GPU reserved segments", s.segments);
  line(rule);
  return out;
}

}  // namespace cuda

void Tensor::record_stream(cuda::CUDAStream s) const {
  EMBER_CHECK(defined(), "record_stream: the tensor is undefined");
  EMBER_CHECK(is_cuda(),
              "Could not run 'aten::record_stream' with arguments from the 'CPU' backend.");
  cuda::CudaCachingAllocator::instance().record_stream(impl()->storage()->data(), device().index(),
                                                       s.stream());
}

}  // namespace ember
