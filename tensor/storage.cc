#include "tensor/storage.h"

namespace ember {

Storage make_storage(size_t nbytes, Device device) {
  return std::make_shared<StorageImpl>(
      get_allocator(device.type())->allocate_on(device, nbytes), nbytes);
}

}  // namespace ember
