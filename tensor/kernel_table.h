#ifndef EMBER_TENSOR_KERNEL_TABLE_H_
#define EMBER_TENSOR_KERNEL_TABLE_H_

// Note [Kernel tables]: an op's device-independent part (shape and dtype
// rules, output allocation: TensorIterator) runs once; the loop itself is
// looked up per device in the op's KernelTable. The CPU kernel registers
// beside the op; the CUDA backend registers its kernels from tensor/cuda/.
//
//   // in the op's .cc:
//   EMBER_DEFINE_KERNEL_TABLE(add_kernel, void (*)(TensorIterator&, const Scalar&));
//   EMBER_REGISTER_KERNEL(add_kernel, kCPU, &add_cpu);
//   ...
//   add_kernel(iter.device_type())(iter, alpha);
//
// A device without a kernel gets "Could not run 'add' with arguments from
// the 'CUDA' backend".

#include "tensor/device.h"
#include "tensor/error.h"

namespace ember {

template <typename Fn>
class KernelTable {
 public:
  explicit constexpr KernelTable(const char* name) : name_(name) {}

  void set(DeviceType d, Fn fn) { fns_[static_cast<int>(d)] = fn; }
  bool has(DeviceType d) const { return fns_[static_cast<int>(d)] != nullptr; }
  // The registered kernel, or nullptr (tests that swap one in restore it).
  Fn get(DeviceType d) const { return fns_[static_cast<int>(d)]; }

  Fn operator()(DeviceType d) const {
    Fn fn = fns_[static_cast<int>(d)];
    if (fn == nullptr) {
      throw Error(absl::StrCat("Could not run '", name_, "' with arguments from the '",
                               d == kCPU ? "CPU" : "CUDA", "' backend."));
    }
    return fn;
  }
  Fn operator()(Device d) const { return (*this)(d.type()); }
  const char* name() const { return name_; }

 private:
  const char* name_;
  Fn fns_[kNumDeviceTypes] = {};
};

}  // namespace ember

#define EMBER_DECLARE_KERNEL_TABLE(table, ...) extern ::ember::KernelTable<__VA_ARGS__> table
#define EMBER_DEFINE_KERNEL_TABLE(table, ...) ::ember::KernelTable<__VA_ARGS__> table(#table)
#define EMBER_REGISTER_KERNEL(table, device, fn)                   \
  static const bool ember_kernel_reg_##table##_##device = [] {     \
    (table).set(::ember::device, fn);                              \
    return true;                                                   \
  }()

#endif  // EMBER_TENSOR_KERNEL_TABLE_H_
