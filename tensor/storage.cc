#include "tensor/storage.h"

#include "tensor/record_function.h"

namespace ember {

namespace {

// Under a memory-profiling session (Note [Profiling ranges]) each block's
// deleter is wrapped so its free is counted too.
struct TrackedBlock {
  DataPtr inner;
  int64_t nbytes;
};

void tracked_delete(void* ctx, void* ptr) {
  auto* block = static_cast<TrackedBlock*>(ctx);
  profiler::detail::report_memory(-block->nbytes, block->inner.device);
  if (block->inner.deleter) block->inner.deleter(block->inner.ctx, ptr);
  delete block;
}

}  // namespace

Storage make_storage(size_t nbytes, Device device) {
  DataPtr data = get_allocator(device.type())->allocate_on(device, nbytes);
  if (profiler::detail::memory_active()) {
    const auto n = static_cast<int64_t>(nbytes);
    profiler::detail::report_memory(n, data.device);
    data.ctx = new TrackedBlock{data, n};
    data.deleter = &tracked_delete;
  }
  return std::make_shared<StorageImpl>(data, nbytes);
}

}  // namespace ember
