// Joining (cat, stack, hstack, vstack) and splitting (chunk, split, unbind).

#include <memory>
#include <vector>

#include "tensor/autocast.h"
#include "tensor/autograd_hook.h"
#include "tensor/dim.h"
#include "tensor/empty.h"
#include "tensor/fallback.h"
#include "tensor/iterator.h"
#include "tensor/record_function.h"
#include "tensor/shape.h"

namespace ember {
namespace {

using detail::sizes_str;
using detail::wrap_dim;

// PyTorch's legacy rule: a 1-D tensor with no elements joins anything.
bool cat_should_skip(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

void check_cat_shape_except_dim(const Tensor& first, const Tensor& second, int64_t dim,
                                size_t index) {
  EMBER_CHECK(first.dim() == second.dim(), "Tensors must have same number of dimensions: got ",
              first.dim(), " and ", second.dim());
  for (int64_t d = 0; d < first.dim(); ++d) {
    if (d == dim) continue;
    EMBER_CHECK(first.sizes()[d] == second.sizes()[d],
                "Sizes of tensors must match except in dimension ", dim, ". Expected size ",
                first.sizes()[d], " but got size ", second.sizes()[d], " for tensor number ",
                index, " in the list.");
  }
}

// ATen's compute_output_memory_format: the inputs' common suggested memory
// format (channels-last when every input is), else contiguous, whatever
// their dtypes.
MemoryFormat output_memory_format(TensorList tensors) {
  const MemoryFormat first = tensors[0].suggest_memory_format();
  for (const Tensor& t : tensors) {
    if (t.suggest_memory_format() != first) return MemoryFormat::Contiguous;
  }
  return first;
}

Tensor cat_impl(TensorList tensors, int64_t dim) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].dim() > 0, "zero-dimensional tensor (at position ", i,
                ") cannot be concatenated");
  }
  EMBER_CHECK(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  const Device device = detail::common_device(tensors);
  const ScalarType out_dtype = result_type(tensors);

  size_t valid = tensors.size();
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!cat_should_skip(tensors[i])) {
      valid = i;
      break;
    }
  }
  DimVector out_sizes{0};
  if (valid < tensors.size()) {
    const Tensor& ref = tensors[valid];
    dim = wrap_dim(dim, ref.dim());
    int64_t size_at_dim = 0;
    for (size_t i = 0; i < tensors.size(); ++i) {
      if (cat_should_skip(tensors[i])) continue;
      check_cat_shape_except_dim(ref, tensors[i], dim, i);
      size_at_dim += tensors[i].sizes()[dim];
    }
    out_sizes.assign(ref.sizes().begin(), ref.sizes().end());
    out_sizes[dim] = size_at_dim;
  }
  Tensor result =
      empty(out_sizes,
            TensorOptions(out_dtype).device(device).memory_format(output_memory_format(tensors)));
  if (valid == tensors.size()) return result;
  // Each input lands in its slice of the result; copy_ casts to out_dtype.
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (cat_should_skip(t)) continue;
    const int64_t n = t.sizes()[dim];
    if (n > 0) result.narrow(dim, offset, n).copy_(t);
    offset += n;
  }
  return result;
}

}  // namespace

// cat and stack record themselves as one op each (Note [Op recording]): the
// copies into the result would otherwise record onto views of a tensor that
// does not require grad, and the gradient would be lost. Args: the wrapped
// dim.
Tensor cat(TensorList tensors, int64_t dim) {
  EMBER_AUTOCAST(cat, ::ember::cat, tensors, dim);
  profiler::RecordFunction prof_range("cat", profiler::RangeKind::kOp, TensorList(tensors));
  detail::OpScope scope(detail::OpScope::List{}, tensors);
  Tensor r = cat_impl(tensors, dim);
  if (scope.active()) {
    const Tensor* ref = &tensors[0];
    for (const Tensor& t : tensors) {
      if (!cat_should_skip(t)) {
        ref = &t;
        break;
      }
    }
    scope.record_list("cat", tensors, {r}, {Scalar(wrap_dim(dim, ref->dim()))});
  }
  return r;
}

Tensor stack(TensorList tensors, int64_t dim) {
  EMBER_AUTOCAST(stack, ::ember::stack, tensors, dim);
  EMBER_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  const int64_t wrapped = wrap_dim(dim, tensors[0].dim() + 1);
  for (size_t i = 1; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].sizes() == tensors[0].sizes(),
                "stack expects each tensor to be equal size, but got ",
                sizes_str(tensors[0].sizes()), " at entry 0 and ", sizes_str(tensors[i].sizes()),
                " at entry ", i);
  }
  profiler::RecordFunction prof_range("stack", profiler::RangeKind::kOp, TensorList(tensors));
  detail::OpScope scope(detail::OpScope::List{}, tensors);
  Tensor r;
  if (wrapped < tensors[0].dim()) {
    // As ATen's stack: cat along dim, then a view that splits it, so the
    // result keeps the inputs' common channels-last format.
    DimVector sizes(tensors[0].sizes().begin(), tensors[0].sizes().end());
    sizes.insert(sizes.begin() + wrapped, static_cast<int64_t>(tensors.size()));
    // A tensor of its own over the cat's storage, not a view of it (the
    // cat result is internal, as ATen's).
    const Tensor v = cat_impl(tensors, wrapped).view(sizes);
    r = Tensor(std::make_shared<TensorImpl>(v.impl()->storage(), v.dtype(), v.sizes(), v.strides(),
                                            v.storage_offset()));
  } else {
    std::vector<Tensor> inputs;
    inputs.reserve(tensors.size());
    for (const Tensor& t : tensors) inputs.push_back(t.unsqueeze(wrapped));
    r = cat_impl(inputs, wrapped);
  }
  if (scope.active()) scope.record_list("stack", tensors, {r}, {Scalar(wrapped)});
  return r;
}

Tensor atleast_1d(const Tensor& self) { return self.dim() == 0 ? self.reshape({1}) : self; }
Tensor atleast_2d(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1});
  if (self.dim() == 1) return self.unsqueeze(0);
  return self;
}
Tensor atleast_3d(const Tensor& self) {
  switch (self.dim()) {
    case 0:
      return self.reshape({1, 1, 1});
    case 1:
      return self.unsqueeze(0).unsqueeze(-1);
    case 2:
      return self.unsqueeze(-1);
    default:
      return self;
  }
}

Tensor hstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "hstack expects a non-empty TensorList");
  std::vector<Tensor> rep;
  rep.reserve(tensors.size());
  for (const Tensor& t : tensors) rep.push_back(atleast_1d(t));
  return cat(rep, rep[0].dim() == 1 ? 0 : 1);
}

Tensor vstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "vstack expects a non-empty TensorList");
  std::vector<Tensor> rep;
  rep.reserve(tensors.size());
  for (const Tensor& t : tensors) rep.push_back(atleast_2d(t));
  return cat(rep, 0);
}

std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim) const {
  EMBER_CHECK(this->dim() > 0, "chunk expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t dim_size = size(dim);
  const int64_t split_size = (dim_size + chunks - 1) / chunks;
  // An empty dim still yields `chunks` (empty) pieces.
  if (split_size == 0 && dim_size == 0) {
    std::vector<int64_t> sizes(chunks, 0);
    return split_with_sizes(sizes, dim);
  }
  return split(split_size, dim);
}

std::vector<Tensor> Tensor::split(int64_t split_size, int64_t dim) const {
  EMBER_CHECK(this->dim() != 0, "split expects at least a 1-dimensional tensor");
  EMBER_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=",
              split_size);
  const int64_t dim_size = size(dim);
  EMBER_CHECK(split_size > 0 || dim_size == 0,
              "split_size can only be 0 if dimension size is 0, but got dimension size of ",
              dim_size);
  int64_t num_splits = 1;
  if (split_size != 0) num_splits = std::max<int64_t>((dim_size + split_size - 1) / split_size, 1);
  const int64_t last_split_size = split_size - (split_size * num_splits - dim_size);
  // The pieces record as one op (SplitBackward0), as in PyTorch.
  profiler::RecordFunction prof_range("split", profiler::RangeKind::kOp, *this);
  detail::OpScope scope(*this);
  std::vector<Tensor> out;
  out.reserve(num_splits);
  for (int64_t i = 0; i < num_splits; ++i) {
    int64_t length = i < num_splits - 1 ? split_size : last_split_size;
    out.push_back(narrow(dim, i * split_size, length));
  }
  if (scope.active()) {
    scope.record_list("split", {*this}, out, {Scalar(wrap_dim(dim, this->dim()))});
  }
  return out;
}

std::vector<Tensor> Tensor::split(IntArrayRef split_sizes, int64_t dim) const {
  return split_with_sizes(split_sizes, dim);
}

std::vector<Tensor> Tensor::split_with_sizes(IntArrayRef split_sizes, int64_t dim) const {
  EMBER_CHECK(this->dim() != 0, "split expects at least a 1-dimensional tensor");
  const int64_t dim_size = size(dim);
  profiler::RecordFunction prof_range("split_with_sizes", profiler::RangeKind::kOp, *this);
  detail::OpScope scope(*this);
  std::vector<Tensor> out;
  out.reserve(split_sizes.size());
  int64_t start = 0;
  for (int64_t length : split_sizes) {
    EMBER_CHECK(length >= 0,
                "split_with_sizes expects split_sizes have only non-negative entries, but got "
                "split_sizes=",
                sizes_str(split_sizes));
    out.push_back(slice(dim, start, start + length, 1));
    start += length;
  }
  EMBER_CHECK(start == dim_size, "split_with_sizes expects split_sizes to sum exactly to ",
              dim_size, " (input tensor's size at dimension ", dim, "), but got split_sizes=",
              sizes_str(split_sizes));
  if (scope.active()) {
    scope.record_list("split_with_sizes", {*this}, out, {Scalar(wrap_dim(dim, this->dim()))});
  }
  return out;
}

std::vector<Tensor> Tensor::unbind(int64_t dim) const {
  EMBER_CHECK_INDEX(this->dim() > 0, "Dimension specified as ", dim,
                    " but tensor has no dimensions");
  dim = wrap_dim(dim, this->dim());
  const int64_t n = sizes()[dim];
  profiler::RecordFunction prof_range("unbind", profiler::RangeKind::kOp, *this);
  detail::OpScope scope(*this);
  std::vector<Tensor> out;
  out.reserve(n);
  for (int64_t i = 0; i < n; ++i) out.push_back(select(dim, i));
  if (scope.active()) scope.record_list("unbind", {*this}, out, {Scalar(dim)});
  return out;
}

std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  return self.chunk(chunks, dim);
}
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  return self.split(split_size, dim);
}
std::vector<Tensor> split(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  return self.split_with_sizes(split_sizes, dim);
}
std::vector<Tensor> unbind(const Tensor& self, int64_t dim) { return self.unbind(dim); }

}  // namespace ember
