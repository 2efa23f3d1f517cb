#ifndef EMBER_TENSOR_TENSOR_OPTIONS_H_
#define EMBER_TENSOR_TENSOR_OPTIONS_H_

#include <optional>

#include "tensor/device.h"
#include "tensor/dtype.h"
#include "tensor/memory_format.h"

namespace ember {

// How to make a tensor: dtype (default: the default dtype, or what the data
// says), device (default CPU), requires_grad and, as libtorch's, an optional
// memory format (empty() and the *_like factories honour it). Converts implicitly from a
// dtype or a device, so `zeros({2, 3}, kLong)` and `ones({2}, Device("cuda"))`
// read like libtorch.
class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t) {}  // NOLINT
  TensorOptions(Device d) : device_(d), has_device_(true) {}      // NOLINT
  TensorOptions(DeviceType d) : device_(d), has_device_(true) {}  // NOLINT

  TensorOptions dtype(ScalarType t) const {
    TensorOptions o = *this;
    o.dtype_ = t;
    return o;
  }
  TensorOptions device(Device d) const {
    TensorOptions o = *this;
    o.device_ = d;
    o.has_device_ = true;
    return o;
  }
  TensorOptions requires_grad(bool r) const {
    TensorOptions o = *this;
    o.requires_grad_ = r;
    o.has_requires_grad_ = true;
    return o;
  }
  TensorOptions memory_format(std::optional<MemoryFormat> f) const {
    TensorOptions o = *this;
    o.memory_format_ = f;
    return o;
  }

  // libtorch's layout option: only kStrided exists in ember.
  TensorOptions layout(Layout) const { return *this; }
  Layout layout() const { return kStrided; }

  bool has_dtype() const { return dtype_.has_value(); }
  ScalarType dtype() const { return dtype_.value_or(get_default_dtype()); }
  ScalarType dtype_or(ScalarType t) const { return dtype_.value_or(t); }
  Device device() const { return device_; }
  bool requires_grad() const { return requires_grad_; }
  // Whether device / requires_grad were set (printing marks the others
  // "(default)", as libtorch's operator<< does).
  bool has_device() const { return has_device_; }
  bool has_requires_grad() const { return has_requires_grad_; }
  bool has_memory_format() const { return memory_format_.has_value(); }
  std::optional<MemoryFormat> memory_format_opt() const { return memory_format_; }

 private:
  std::optional<ScalarType> dtype_;
  Device device_ = kCPU;
  bool requires_grad_ = false;
  std::optional<MemoryFormat> memory_format_;
  bool has_device_ = false;
  bool has_requires_grad_ = false;
};

// libtorch's form: TensorOptions(dtype=float (default), device=cpu (default),
// layout=Strided (default), requires_grad=false (default),
// pinned_memory=false (default), memory_format=(nullopt)); the dtype as its
// C++ type ("long int"), as libtorch's TypeMeta prints it. ember has strided
// unpinned tensors only, so those two are always defaults.
std::ostream& operator<<(std::ostream& os, const TensorOptions& options);

inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }
inline TensorOptions memory_format(MemoryFormat f) { return TensorOptions().memory_format(f); }

}  // namespace ember

#endif  // EMBER_TENSOR_TENSOR_OPTIONS_H_
