#include "tensor/tensor_impl.h"

#include "tensor/error.h"

namespace ember {

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  int64_t s = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    strides[i] = s;
    s *= sizes[i] > 1 ? sizes[i] : 1;
  }
  return strides;
}

int64_t compute_numel(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t storage_offset)
    : storage_(std::move(storage)),
      storage_offset_(storage_offset),
      sizes_(sizes.begin(), sizes.end()),
      strides_(strides.begin(), strides.end()),
      dtype_(dtype) {
  refresh();
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes)
    : storage_(std::move(storage)),
      sizes_(sizes.begin(), sizes.end()),
      strides_(contiguous_strides(sizes)),
      dtype_(dtype) {
  refresh();
}

void TensorImpl::set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides) {
  sizes_.assign(sizes.begin(), sizes.end());
  strides_.assign(strides.begin(), strides.end());
  refresh();
}

void TensorImpl::set_sizes_contiguous(IntArrayRef sizes) {
  sizes_.assign(sizes.begin(), sizes.end());
  strides_ = contiguous_strides(sizes);
  refresh();
}

void TensorImpl::refresh() {
  numel_ = compute_numel(sizes_);
  // PyTorch's rule: dims of size 1 may have any stride.
  bool contig = true;
  int64_t expected = 1;
  for (int64_t i = dim() - 1; i >= 0; --i) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      contig = false;
      break;
    }
    expected *= sizes_[i];
  }
  is_contiguous_ = contig || numel_ == 0;
}

}  // namespace ember
