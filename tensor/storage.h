#ifndef EMBER_TENSOR_STORAGE_H_
#define EMBER_TENSOR_STORAGE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "tensor/allocator.h"
#include "tensor/device.h"

namespace ember {

// A refcounted block of device memory that tensors view. Note [Version
// counter]: the counter lives here, so a tensor and all its views (which
// share the storage) see one version; in-place ops bump it and autograd
// compares it with the version it saved.
class StorageImpl {
 public:
  StorageImpl(DataPtr data, size_t nbytes) : data_(data), nbytes_(nbytes) {}
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;
  ~StorageImpl() {
    if (data_.deleter) data_.deleter(data_.ctx, data_.ptr);
  }

  void* data() const { return data_.ptr; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return data_.device; }

  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  DataPtr data_;
  size_t nbytes_;
  std::atomic<uint32_t> version_{0};
};

using Storage = std::shared_ptr<StorageImpl>;

// Allocates nbytes on `device` with that device's registered allocator.
Storage make_storage(size_t nbytes, Device device);

}  // namespace ember

#endif  // EMBER_TENSOR_STORAGE_H_
