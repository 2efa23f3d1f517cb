// Tensor::pin_memory and Tensor::is_pinned: page-locked host memory from the
// CUDA runtime (cuda.h's host_alloc), in both builds: without CUDA nothing
// is pinned (Note [pin_memory without CUDA] in data/collate.h).

#include <cstring>

#include "tensor/creation.h"
#include "tensor/cuda/cuda.h"
#include "tensor/error.h"
#include "tensor/tensor.h"

namespace ember {
namespace {

void check_pin_device(const std::optional<Device>& device) {
  EMBER_CHECK(!device.has_value() || device->is_cuda(),
              "pin_memory: expected a CUDA device to pin for, got '", device->str(), "'");
}

}  // namespace

bool Tensor::is_pinned(std::optional<Device> device) const {
  check_pin_device(device);
  return defined() && is_cpu() && cuda::is_pinned(data_ptr());
}

Tensor Tensor::pin_memory(std::optional<Device> device) const {
  check_pin_device(device);
  EMBER_CHECK(defined(), "pin_memory: undefined tensor");
  EMBER_CHECK(is_cpu(), "cannot pin '", this->device().str(),
              "' memory: only dense CPU tensors can be pinned");
  // Note [pin_memory without CUDA].
  if (!cuda::is_available() || is_pinned()) return *this;
  const Tensor src = contiguous();
  void* p = cuda::host_alloc(static_cast<size_t>(src.nbytes()));
  Tensor out = from_blob(
      p, src.sizes(), [](void* q) { cuda::host_free(q); }, src.options());
  if (src.nbytes() > 0) std::memcpy(p, src.data_ptr(), src.nbytes());
  return out;
}

}  // namespace ember
