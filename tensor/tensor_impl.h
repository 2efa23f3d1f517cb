#ifndef EMBER_TENSOR_TENSOR_IMPL_H_
#define EMBER_TENSOR_TENSOR_IMPL_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "tensor/array_ref.h"
#include "tensor/device.h"
#include "tensor/dtype.h"
#include "tensor/storage.h"

namespace ember {

using DimVector = absl::InlinedVector<int64_t, 5>;

// Note [Autograd slot]: //tensor knows nothing of autograd. A TensorImpl
// carries an opaque AutogradMeta that //autograd fills in; printing and
// requires_grad go through this interface, and ops call the hook in
// tensor/autograd_hook.h that //autograd installs.
class AutogradMetaInterface {
 public:
  virtual ~AutogradMetaInterface() = default;
  virtual bool requires_grad() const = 0;
  // PyTorch's name for the node that made this tensor ("MulBackward0"), or
  // "" for leaves.
  virtual std::string grad_fn_name() const = 0;
};

// Parameters of a per-tensor affine quantized tensor (qint8 / quint8).
struct QuantParams {
  double scale = 1.0;
  int64_t zero_point = 0;
};

class TensorImpl {
 public:
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
             int64_t storage_offset);
  // A fresh contiguous tensor.
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes);

  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  bool is_contiguous() const { return is_contiguous_; }

  const Storage& storage() const { return storage_; }
  // Address of element 0 (storage data + offset * itemsize).
  void* data() const {
    return static_cast<char*>(storage_->data()) + storage_offset_ * element_size(dtype_);
  }

  // Changes the view's geometry (used by as_strided_, resize_, squeeze_...).
  void set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides);
  void set_sizes_contiguous(IntArrayRef sizes);
  void set_storage_offset(int64_t off) { storage_offset_ = off; }
  void set_storage(Storage s) { storage_ = std::move(s); }

  uint32_t version() const { return storage_->version(); }
  void bump_version() { storage_->bump_version(); }

  // A scalar operand made from a C++ number (`x * 2`): it takes part in type
  // promotion with lower priority, as PyTorch's wrapped numbers do.
  bool is_wrapped_number() const { return is_wrapped_number_; }
  void set_wrapped_number(bool v) { is_wrapped_number_ = v; }

  const QuantParams& quant_params() const { return quant_; }
  void set_quant_params(QuantParams q) { quant_ = q; }

  AutogradMetaInterface* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m) {
    autograd_meta_ = std::move(m);
  }

 private:
  void refresh();

  Storage storage_;
  int64_t storage_offset_ = 0;
  DimVector sizes_;
  DimVector strides_;
  int64_t numel_ = 1;
  ScalarType dtype_;
  bool is_contiguous_ = true;
  bool is_wrapped_number_ = false;
  QuantParams quant_;
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
};

// Row-major strides for `sizes`.
DimVector contiguous_strides(IntArrayRef sizes);
// Product of sizes.
int64_t compute_numel(IntArrayRef sizes);

}  // namespace ember

#endif  // EMBER_TENSOR_TENSOR_IMPL_H_
