#include "tensor/allocator.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "tensor/error.h"

namespace ember {
namespace {

constexpr size_t kAlignment = 64;
// Cache blocks of 128 KiB and more. glibc serves smaller ones from its heap
// without faults; from 128 KiB (its initial mmap threshold) a block freed at
// the heap's top is trimmed back to the kernel and faulted in again by the
// next: with a 1 MiB floor, ResNet-18's bfloat16 layer2 (512 KiB
// activations) spent 17% of its convolution step in page faults.
constexpr size_t kCacheMin = size_t{1} << 17;
constexpr int kClassesPerOctave = 4;
constexpr int kNumClasses = 64 * kClassesPerOctave;

// Size class: each power-of-two octave split in kClassesPerOctave steps, so
// rounding wastes under 25%.
int size_class(size_t n, size_t* rounded) {
  int octave = 63 - __builtin_clzll(n);
  size_t base = size_t{1} << octave;
  size_t step = base / kClassesPerOctave;
  size_t k = (n - base + step - 1) / step;  // 0..kClassesPerOctave
  *rounded = base + k * step;
  return octave * kClassesPerOctave + static_cast<int>(k);
}

// A cached block's DataPtr ctx: its size class + 1 (0 means "not cached").
void* class_ctx(int cls) { return reinterpret_cast<void*>(static_cast<uintptr_t>(cls + 1)); }

size_t class_bytes(int cls) {
  int octave = cls / kClassesPerOctave;
  size_t base = size_t{1} << octave;
  return base + (cls % kClassesPerOctave) * (base / kClassesPerOctave);
}

// nullptr when the system has no memory for n bytes.
void* try_raw_alloc(size_t n) {
  if (n > SIZE_MAX - kAlignment) return nullptr;
  return std::aligned_alloc(kAlignment, (n + kAlignment - 1) / kAlignment * kAlignment);
}

// Note [Cache limit]: the free lists hold at most cpu_cache::limit() bytes
// (default 1 GiB, EMBER_CPU_CACHE_LIMIT_MB overrides); a block freed beyond
// that goes back to the system. Without a bound, a program that once made
// a few GiB of temporaries (the all_reduce benchmark's 256 MiB inputs are
// built from three 512 MiB int64 intermediates) kept them resident for
// good. And an allocation the system refuses is retried once after the
// cache is emptied, so cached blocks never cause an out-of-memory error.
size_t initial_limit() {
  if (const char* v = std::getenv("EMBER_CPU_CACHE_LIMIT_MB")) {
    char* end = nullptr;
    unsigned long long mb = std::strtoull(v, &end, 10);
    if (end != v && *end == '\0' && v[0] != '-') {
      return mb >= (SIZE_MAX >> 20) ? SIZE_MAX : static_cast<size_t>(mb) << 20;
    }
    std::fprintf(stderr,
                 "ember: ignoring EMBER_CPU_CACHE_LIMIT_MB=%s (not a number of MiB); "
                 "the CPU allocator caches up to 1024 MiB\n",
                 v);
  }
  return size_t{1} << 30;
}

class CpuCachingAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    DataPtr d;
    d.device = kCPU;
    d.deleter = &CpuCachingAllocator::free_block;
    if (nbytes == 0) return d;  // empty tensors own no memory
    if (nbytes < kCacheMin) {
      d.ptr = raw_alloc(nbytes, nbytes);
      return d;  // ctx == nullptr: plain free
    }
    if (nbytes > (size_t{1} << 62)) oom(nbytes);  // no size class that large
    size_t rounded;
    const int cls = size_class(nbytes, &rounded);
    {
      // Note [Borrowing larger blocks]: a request takes a cached block of its
      // own size class, else of the smallest larger class up to twice its
      // size. A training step frees scratch of one set of sizes (forward)
      // before it asks for another (backward); exact classes alone would
      // keep the first set cached while fresh memory is faulted in for the
      // second (peak RSS +40% on the LeNet step). The block keeps its class
      // (ctx) and goes back to that class's list.
      std::lock_guard<std::mutex> lock(mu_);
      for (int c = cls; c < kNumClasses && c <= cls + kClassesPerOctave; ++c) {
        auto& list = free_[c];
        if (list.empty()) continue;
        d.ptr = list.back();
        list.pop_back();
        cached_ -= class_bytes(c);
        d.ctx = class_ctx(c);
        return d;
      }
    }
    d.ctx = class_ctx(cls);
    d.ptr = raw_alloc(rounded, nbytes);
    return d;
  }

  size_t limit() {
    std::lock_guard<std::mutex> lock(mu_);
    return limit_;
  }

  void set_limit(size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      limit_ = bytes;
      if (cached_ <= limit_) return;
    }
    empty_cache();
  }

  size_t cached_bytes() {
    std::lock_guard<std::mutex> lock(mu_);
    return cached_;
  }

  void empty_cache() {
    std::vector<void*> all;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& l : free_) {
        all.insert(all.end(), l.begin(), l.end());
        l.clear();
      }
      cached_ = 0;
    }
    for (void* p : all) std::free(p);
  }

  static CpuCachingAllocator& instance() {
    static auto* a = new CpuCachingAllocator();  // never destroyed: tensors may outlive main
    return *a;
  }

 private:
  static void free_block(void* ctx, void* ptr) {
    if (ptr == nullptr) return;
    if (ctx == nullptr) {
      std::free(ptr);
      return;
    }
    int cls = static_cast<int>(reinterpret_cast<uintptr_t>(ctx)) - 1;
    CpuCachingAllocator& self = instance();
    {
      std::lock_guard<std::mutex> lock(self.mu_);
      if (self.cached_ + class_bytes(cls) <= self.limit_) {
        self.free_[cls].push_back(ptr);
        self.cached_ += class_bytes(cls);
        return;
      }
    }
    std::free(ptr);  // over the limit (Note [Cache limit])
  }

  [[noreturn]] static void oom(size_t n) {
    throw Error(absl::StrCat("DefaultCPUAllocator: not enough memory: you tried to allocate ", n,
                             " bytes."));
  }

  // Note [Cache limit]: one retry with the cache emptied. n may be rounded
  // up to a size class; errors name what was asked for.
  void* raw_alloc(size_t n, size_t requested) {
    void* p = try_raw_alloc(n);
    if (p == nullptr && cached_bytes() > 0) {
      empty_cache();
      p = try_raw_alloc(n);
    }
    if (p == nullptr) oom(requested);
    return p;
  }

  std::mutex mu_;
  size_t limit_ = initial_limit();
  std::vector<void*> free_[kNumClasses];
  size_t cached_ = 0;
};

Allocator* g_allocators[kNumDeviceTypes] = {nullptr, nullptr};

}  // namespace

Allocator* cpu_allocator() { return &CpuCachingAllocator::instance(); }

Allocator* get_allocator(DeviceType t) {
  if (t == kCPU) return g_allocators[0] ? g_allocators[0] : cpu_allocator();
  Allocator* a = g_allocators[static_cast<int>(t)];
  EMBER_CHECK(a != nullptr, "Torch not compiled with CUDA enabled");
  return a;
}

void set_allocator(DeviceType t, Allocator* a) { g_allocators[static_cast<int>(t)] = a; }

namespace cpu_cache {
size_t cached_bytes() { return CpuCachingAllocator::instance().cached_bytes(); }
size_t limit() { return CpuCachingAllocator::instance().limit(); }
void set_limit(size_t bytes) { CpuCachingAllocator::instance().set_limit(bytes); }
void empty_cache() { CpuCachingAllocator::instance().empty_cache(); }
}  // namespace cpu_cache

}  // namespace ember
