// Note [Pinned host memory cache] in host_cache.h.

#include "tensor/cuda/host_cache.h"

namespace ember {
namespace cuda {
namespace detail {

size_t HostCache::round_size(size_t nbytes) {
  size_t s = 512;
  while (s < nbytes) s <<= 1;
  return s;
}

void HostCache::process_events() {
  size_t kept = 0;
  for (size_t i = 0; i < events_.size(); ++i) {
    auto [event, start] = events_[i];
    if (!backend_->query(event)) {
      events_[kept++] = events_[i];
      continue;
    }
    backend_->destroy(event);
    Block& b = blocks_.at(start);
    if (--b.pending_events == 0 && !b.allocated) free_.insert({b.size, start});
  }
  events_.resize(kept);
}

void* HostCache::allocate(size_t nbytes) {
  const size_t size = round_size(nbytes);
  std::lock_guard<std::mutex> lock(mutex_);
  process_events();
  auto it = free_.lower_bound({size, 0});
  if (it != free_.end()) {
    const uintptr_t start = it->second;
    free_.erase(it);
    Block& b = blocks_.at(start);
    b.allocated = true;
    stats_.allocated_bytes += b.size;
    return reinterpret_cast<void*>(start);
  }
  void* p = backend_->alloc(size);
  ++stats_.runtime_allocs;
  Block& b = blocks_[reinterpret_cast<uintptr_t>(p)];
  b.size = size;
  b.allocated = true;
  stats_.allocated_bytes += size;
  stats_.reserved_bytes += size;
  return p;
}

void HostCache::free(void* p) {
  if (p == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const uintptr_t start = reinterpret_cast<uintptr_t>(p);
  auto it = blocks_.find(start);
  if (it == blocks_.end() || !it->second.allocated) {
    backend_->free(p);
    return;
  }
  Block& b = it->second;
  b.allocated = false;
  stats_.allocated_bytes -= b.size;
  for (Stream s : b.streams) {
    Event e = nullptr;
    try {
      e = backend_->record(s);
    } catch (...) {
      // Without the event the block cannot be proven idle: keep it out of
      // the cache for good rather than risk handing out memory a copy may
      // still read (a freeing deleter must not throw).
      ++b.pending_events;
      continue;
    }
    events_.push_back({e, start});
    ++b.pending_events;
  }
  b.streams.clear();
  if (b.pending_events == 0) free_.insert({b.size, start});
}

bool HostCache::record_use(const void* p, Stream stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uintptr_t q = reinterpret_cast<uintptr_t>(p);
  auto it = blocks_.upper_bound(q);
  if (it == blocks_.begin()) return false;
  --it;
  Block& b = it->second;
  if (q >= it->first + b.size || !b.allocated) return false;
  b.streams.insert(stream);
  return true;
}

void HostCache::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  process_events();
  for (auto it = free_.begin(); it != free_.end();) {
    const uintptr_t start = it->second;
    backend_->free(reinterpret_cast<void*>(start));
    stats_.reserved_bytes -= blocks_.at(start).size;
    blocks_.erase(start);
    it = free_.erase(it);
  }
}

HostCache::Stats HostCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace detail
}  // namespace cuda
}  // namespace ember
