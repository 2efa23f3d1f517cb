// The CUDA caching allocator. Note [CUDA caching allocator]: cudaMalloc and
// cudaFree synchronize the device and cost tens of microseconds, so freed
// blocks are kept in per-device free lists keyed by size class and handed
// out again. All of ember's CUDA work runs on the default stream, in order,
// so a block freed while a kernel still uses it is only reused by work
// queued after that kernel (PyTorch's same-stream rule). empty_cache()
// returns the blocks to the driver; so does a failed cudaMalloc, once,
// before giving up.

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_format.h"
#include "tensor/allocator.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/cuda.h"
#include "tensor/error.h"

namespace ember {
namespace cuda {
namespace {

constexpr size_t kMinBlock = 512;  // cudaMalloc aligns to 256; PyTorch rounds to 512
constexpr int kClassesPerOctave = 4;

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

std::string format_bytes(size_t n) {
  double v = static_cast<double>(n);
  if (v >= 1 << 30) return absl::StrFormat("%.2f GiB", v / (1 << 30));
  if (v >= 1 << 20) return absl::StrFormat("%.2f MiB", v / (1 << 20));
  if (v >= 1 << 10) return absl::StrFormat("%.2f KiB", v / (1 << 10));
  return absl::StrFormat("%d bytes", n);
}

class CudaCachingAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override { return allocate_on(Device(kCUDA), nbytes); }

  DataPtr allocate_on(Device device, size_t nbytes) override {
    int index = detail::device_index(device);
    DataPtr d;
    d.device = Device(kCUDA, static_cast<int8_t>(index));
    d.deleter = &CudaCachingAllocator::free_block;
    if (nbytes == 0) return d;  // empty tensors own no memory
    size_t rounded;
    int cls = size_class(nbytes, &rounded);
    Key key = make_key(index, cls);
    // ctx carries the key (+1, so that a null ctx never names a class).
    d.ctx = reinterpret_cast<void*>(static_cast<uintptr_t>(key + 1));
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = free_.find(key);
      if (it != free_.end() && !it->second.empty()) {
        d.ptr = it->second.back();
        it->second.pop_back();
        cached_ -= rounded;
        return d;
      }
    }
    detail::DeviceGuard guard(index);
    cudaError_t err = cudaMalloc(&d.ptr, rounded);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      release(index);
      err = cudaMalloc(&d.ptr, rounded);
    }
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      size_t free_bytes = 0, total_bytes = 0;
      if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) cudaGetLastError();
      throw Error(absl::StrCat("CUDA out of memory. Tried to allocate ", format_bytes(rounded),
                               " (GPU ", index, "; ", format_bytes(total_bytes),
                               " total capacity; ", format_bytes(free_bytes), " free)"));
    }
    EMBER_CUDA_CHECK(err);
    return d;
  }

  size_t cached_bytes() {
    std::lock_guard<std::mutex> lock(mu_);
    return cached_;
  }

  // Frees the cached blocks of `device` (-1: of every device).
  void release(int device) {
    std::vector<std::pair<Key, void*>> blocks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [key, list] : free_) {
        if (device >= 0 && key_device(key) != device) continue;
        size_t bytes = class_bytes(key_class(key));
        for (void* p : list) {
          blocks.emplace_back(key, p);
          cached_ -= bytes;
        }
        list.clear();
      }
    }
    for (auto& [key, p] : blocks) {
      detail::DeviceGuard guard(key_device(key));
      EMBER_CUDA_CHECK(cudaFree(p));
    }
  }

  static CudaCachingAllocator& instance() {
    // Never destroyed: tensors may outlive main, and the CUDA runtime may be
    // torn down before static destructors run.
    static auto* a = new CudaCachingAllocator();
    return *a;
  }

 private:
  using Key = uint64_t;  // device << 32 | size class
  static Key make_key(int device, int cls) {
    return (static_cast<Key>(device) << 32) | static_cast<uint32_t>(cls);
  }
  static int key_device(Key k) { return static_cast<int>(k >> 32); }
  static int key_class(Key k) { return static_cast<int>(k & 0xffffffffu); }
  static size_t class_bytes(int cls) {
    int octave = cls / kClassesPerOctave;
    size_t base = size_t{1} << octave;
    return base + (cls % kClassesPerOctave) * (base / kClassesPerOctave);
  }

  static void free_block(void* ctx, void* ptr) {
    if (ptr == nullptr) return;
    Key key = static_cast<Key>(reinterpret_cast<uintptr_t>(ctx)) - 1;
    CudaCachingAllocator& self = instance();
    std::lock_guard<std::mutex> lock(self.mu_);
    self.free_[key].push_back(ptr);
    self.cached_ += class_bytes(key_class(key));
  }

  std::mutex mu_;
  std::unordered_map<Key, std::vector<void*>> free_;
  size_t cached_ = 0;
};

// Registration only stores a pointer: no CUDA call runs before first use, so
// a process without a GPU starts as fast as a CPU-only one.
const bool registered = [] {
  set_allocator(kCUDA, &CudaCachingAllocator::instance());
  return true;
}();

}  // namespace

void empty_cache() {
  if (!is_available()) return;  // nothing can have been cached
  CudaCachingAllocator::instance().release(-1);
}

size_t cached_bytes() { return CudaCachingAllocator::instance().cached_bytes(); }

}  // namespace cuda
}  // namespace ember
