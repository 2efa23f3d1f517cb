#ifndef EMBER_TENSOR_CUDA_HOST_CACHE_H_
#define EMBER_TENSOR_CUDA_HOST_CACHE_H_

// Note [Pinned host memory cache]: page-locked host memory (pin_memory,
// cuda::host_alloc) is cached as PyTorch's CachingHostAllocator caches it.
// cudaHostAlloc costs milliseconds for a batch-sized block and cudaFreeHost
// waits for the whole device, so a DataLoader with pin_memory that allocated
// and freed each batch's memory would stall the step it is meant to overlap
// with. Instead:
// - A freed block goes back to the cache, never to the runtime (the cache
//   lives as long as the process).
// - An allocation takes the smallest free block of at least the requested
//   size, rounded up to a power of two (so that batches of one shape share
//   blocks); only when none fits does it ask the runtime.
// - A block a non_blocking copy used (record_use: copy.cc records the
//   stream of each asynchronous copy from or to pinned memory) is freed
//   with one event recorded on each such stream, and becomes reusable only
//   when they have all completed (polled at each allocation): a DMA still
//   reading a batch never sees its memory handed to the next one.
// The runtime calls go through HostCache::Backend, so that the logic is
// tested without a GPU (host_cache_test.cc); context.cc gives the CUDA one.

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

namespace ember {
namespace cuda {
namespace detail {

class HostCache {
 public:
  // A stream (cudaStream_t) and its device; an event (cudaEvent_t).
  using Stream = std::pair<void*, int>;
  using Event = void*;
  struct Backend {
    virtual ~Backend() = default;
    virtual void* alloc(size_t nbytes) = 0;  // throws on failure
    virtual void free(void* p) = 0;          // never throws
    // An event recorded on `stream` now, on its device (throws on failure).
    virtual Event record(Stream stream) = 0;
    // True when the event's work has completed; then the cache destroys it.
    virtual bool query(Event e) = 0;
    virtual void destroy(Event e) = 0;
  };
  struct Stats {
    size_t allocated_bytes = 0;  // in blocks handed out
    size_t reserved_bytes = 0;   // every block the cache holds
    size_t runtime_allocs = 0;   // calls to Backend::alloc
  };

  explicit HostCache(Backend* backend) : backend_(backend) {}
  HostCache(const HostCache&) = delete;
  HostCache& operator=(const HostCache&) = delete;

  // A block of at least nbytes (a distinct pointer even for 0 bytes).
  void* allocate(size_t nbytes);
  // Returns the block that starts at p (from allocate) to the cache. A
  // pointer the cache did not hand out is passed to Backend::free.
  void free(void* p);
  // Marks the block that contains p as used by work queued on `stream`;
  // false when p is not in a block the cache handed out.
  bool record_use(const void* p, Stream stream);
  // Frees the blocks that are neither in use nor waiting for events.
  void empty_cache();
  Stats stats() const;

  // The size a request of nbytes gets: a power of two, at least 512 bytes.
  static size_t round_size(size_t nbytes);

 private:
  struct Block {
    size_t size = 0;
    bool allocated = false;
    int pending_events = 0;
    std::set<Stream> streams;  // used by, since it was handed out
  };
  void process_events();  // with mutex_ held

  Backend* backend_;
  mutable std::mutex mutex_;
  std::map<uintptr_t, Block> blocks_;                // by start address
  std::set<std::pair<size_t, uintptr_t>> free_;      // (size, start) of reusable blocks
  std::vector<std::pair<Event, uintptr_t>> events_;  // in recording order
  Stats stats_;
};

}  // namespace detail
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_HOST_CACHE_H_
