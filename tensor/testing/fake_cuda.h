#ifndef EMBER_TENSOR_TESTING_FAKE_CUDA_H_
#define EMBER_TENSOR_TESTING_FAKE_CUDA_H_

// A stand-in CUDA backend whose "device memory" is host memory, so that the
// device-independent paths for CUDA tensors (printing, the iterator's device
// rules, kernel-table dispatch) run on machines without a GPU. A test that
// uses it must not link //tensor/cuda: the real CUDA kernels would be handed
// host pointers.

#include <cstdlib>
#include <cstring>

#include "tensor/allocator.h"
#include "tensor/copy.h"
#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/tensor.h"

namespace ember {
namespace testing {

class HostBackedCudaAllocator : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override { return allocate_on(Device(kCUDA), nbytes); }
  DataPtr allocate_on(Device device, size_t nbytes) override {
    DataPtr d;
    d.ptr = std::malloc(nbytes == 0 ? 1 : nbytes);
    d.deleter = [](void*, void* p) { std::free(p); };
    d.device = Device(kCUDA, device.has_index() ? device.index() : 0);
    return d;
  }
};

// Installs the fake allocator, a cross-device copy and fill_ (what zeros,
// ones and full on a device need) for its lifetime. Both sides' memory is
// host memory, so the copy views each as a CPU tensor with the same sizes
// and strides and lets the CPU copy_ do it (any strides, any dtype
// conversion, broadcasting as copy_ allows); fill_ fills that view.
class FakeCudaBackend {
 public:
  FakeCudaBackend() : saved_fill_(fill_kernel.get(kCUDA)) {
    set_allocator(kCUDA, &allocator_);
    register_cross_device_copy(kCUDA, [](const Tensor& dst, const Tensor& src) {
      as_host(dst).copy_(as_host(src));
    });
    fill_kernel.set(kCUDA, [](const Tensor& self, const Scalar& value) {
      Tensor host = as_host(self);
      host.fill_(value);
    });
  }
  ~FakeCudaBackend() {
    fill_kernel.set(kCUDA, saved_fill_);
    register_cross_device_copy(kCUDA, nullptr);
    set_allocator(kCUDA, nullptr);
  }
  FakeCudaBackend(const FakeCudaBackend&) = delete;
  FakeCudaBackend& operator=(const FakeCudaBackend&) = delete;

 private:
  static Tensor as_host(const Tensor& t) {
    return from_blob(t.data_ptr(), t.sizes(), t.strides(), TensorOptions(t.dtype()));
  }

  FillFn saved_fill_;
  HostBackedCudaAllocator allocator_;
};

}  // namespace testing
}  // namespace ember

#endif  // EMBER_TENSOR_TESTING_FAKE_CUDA_H_
