// Views: ops that return a new geometry on the same storage (Note [Views]).

#include "tensor/autograd_hook.h"
#include "tensor/shape.h"

#include <algorithm>
#include <limits>

#include "tensor/dim.h"
#include "tensor/iterator.h"

namespace ember {
namespace detail {

DimVector infer_view_size(IntArrayRef shape, int64_t numel) {
  DimVector res(shape.begin(), shape.end());
  int64_t newsize = 1;
  int64_t infer_dim = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      EMBER_CHECK(infer_dim < 0, "only one dimension can be inferred");
      infer_dim = static_cast<int64_t>(d);
    } else if (shape[d] >= 0) {
      newsize *= shape[d];
    } else {
      throw Error(absl::StrCat("invalid shape dimension ", shape[d]));
    }
  }
  if (numel == newsize || (infer_dim >= 0 && newsize > 0 && numel % newsize == 0)) {
    if (infer_dim >= 0) {
      // newsize == 0 here means numel == 0 too: any size fits the -1.
      EMBER_CHECK(newsize != 0, "cannot reshape tensor of 0 elements into shape ", sizes_str(shape),
                  " because the unspecified dimension size -1 can be any value and is ambiguous");
      res[infer_dim] = numel / newsize;
    }
    return res;
  }
  throw Error(absl::StrCat("shape '", sizes_str(shape), "' is invalid for input of size ", numel));
}

// PyTorch's computeStride_impl (aten/src/ATen/TensorUtils.cpp): walks the old
// dims from the innermost, grouping them into "chunks" that are contiguous
// among themselves; each chunk must be covered exactly by a run of new dims.
bool compute_view_strides(IntArrayRef oldshape, IntArrayRef oldstride, IntArrayRef newshape,
                          DimVector* newstride_out) {
  DimVector& newstride = *newstride_out;
  newstride.assign(newshape.size(), 1);
  if (oldshape.empty()) return true;
  const int64_t numel = compute_numel(oldshape);
  if (numel == 0 && oldshape == newshape) {
    newstride.assign(oldstride.begin(), oldstride.end());
    return true;
  }
  if (numel == 0) {
    for (int64_t d = static_cast<int64_t>(newshape.size()) - 1; d >= 0; --d) {
      newstride[d] = d == static_cast<int64_t>(newshape.size()) - 1
                         ? 1
                         : std::max<int64_t>(newshape[d + 1], 1) * newstride[d + 1];
    }
    return true;
  }
  int64_t view_d = static_cast<int64_t>(newshape.size()) - 1;
  int64_t chunk_base_stride = oldstride.back();
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(oldshape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= oldshape[tensor_d];
    if (tensor_d == 0 || (oldshape[tensor_d - 1] != 1 &&
                          oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1)) {
        newstride[view_d] = view_numel * chunk_base_stride;
        view_numel *= newshape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (tensor_d > 0) {
        chunk_base_stride = oldstride[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

Tensor make_view(const Tensor& self, IntArrayRef sizes, IntArrayRef strides,
                 int64_t storage_offset) {
  auto impl = std::make_shared<TensorImpl>(self.impl()->storage(), self.dtype(), sizes, strides,
                                           storage_offset);
  impl->set_quant_params(self.impl()->quant_params());
  return Tensor(std::move(impl));
}

}  // namespace detail

namespace {

using detail::make_view;
using detail::sizes_str;
using detail::wrap_dim;

// "Float" -> "torch.FloatTensor", as PyTorch's Tensor::toString().
std::string type_string(const Tensor& t) {
  return absl::StrCat("torch.", t.is_cuda() ? "cuda." : "", scalar_type_name(t.dtype()), "Tensor");
}

// PyTorch's inferUnsqueezeGeometry.
void unsqueeze_geometry(const Tensor& self, int64_t dim, DimVector* sizes, DimVector* strides) {
  sizes->assign(self.sizes().begin(), self.sizes().end());
  strides->assign(self.strides().begin(), self.strides().end());
  int64_t new_stride = dim >= self.dim() ? 1 : (*sizes)[dim] * (*strides)[dim];
  sizes->insert(sizes->begin() + dim, 1);
  strides->insert(strides->begin() + dim, new_stride);
}

// Geometry with the size-1 dims removed (all of them, or only `dim`).
void squeeze_geometry(const Tensor& self, int64_t dim, DimVector* sizes, DimVector* strides) {
  sizes->clear();
  strides->clear();
  for (int64_t d = 0; d < self.dim(); ++d) {
    bool drop = self.sizes()[d] == 1 && (dim < 0 || d == dim);
    if (drop) continue;
    sizes->push_back(self.sizes()[d]);
    strides->push_back(self.strides()[d]);
  }
}

// The view for `size`, or an undefined tensor when the strides forbid one.
Tensor try_view(const Tensor& self, IntArrayRef size) {
  DimVector shape = detail::infer_view_size(size, self.numel());
  DimVector strides;
  if (!detail::compute_view_strides(self.sizes(), self.strides(), shape, &strides)) {
    return Tensor();
  }
  return make_view(self, shape, strides, self.storage_offset());
}

}  // namespace

// Views record themselves after the fact: making a view calls no public op
// (Note [Op recording]). A view of a tensor that does not require grad is
// reported too, as the op "view_of" (no graph node): autograd remembers its
// base, so that an in-place op that later makes the view require grad
// reaches the base (Note [Views and in-place] in autograd/engine.cc).
template <typename A>
Tensor view_rec(const char* name, const Tensor& self, Tensor r, A&& args) {
  if (detail::should_record(self)) {
    detail::OpScope scope{detail::OpScope::Checked{}};
    scope.record(name, {self}, {r}, args());
  } else if (detail::OpScope::recording_allowed()) {
    detail::OpScope scope{detail::OpScope::Checked{}};
    scope.record("view_of", {self}, {r});
  }
  return r;
}

// In-place views change self's geometry; with autograd they record like an
// in-place op (SqueezeBackward2...), an alias with the old geometry standing
// for self's value before (the node reads the input's shape from it).
Tensor& inplace_view_rec(const char* name, Tensor& self, IntArrayRef sizes, IntArrayRef strides,
                         OpArgs args, std::optional<int64_t> offset = std::nullopt) {
  auto restride = [&] {
    self.impl()->set_sizes_and_strides(sizes, strides);
    if (offset) self.impl()->set_storage_offset(*offset);
  };
  if (!detail::should_record(self)) {
    restride();
    return self;
  }
  detail::OpScope scope{detail::OpScope::Checked{}};
  scope.before_inplace(name, self);  // rejects leaves that require grad
  Tensor before = make_view(self, self.sizes(), self.strides(), self.storage_offset());
  restride();
  scope.record_inplace(name, self, std::move(before), {}, std::move(args));
  return self;
}

// --- Tensor methods ------------------------------------------------------------

Tensor Tensor::view(IntArrayRef size) const {
  Tensor v = try_view(*this, size);
  EMBER_CHECK(v.defined(),
              "view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return view_rec("view", *this, v, [&] { return OpArgs{}; });
}

Tensor Tensor::view(ScalarType dtype) const {
  if (dtype == this->dtype()) return *this;
  const int64_t old_size = element_size();
  const int64_t new_size = ::ember::element_size(dtype);
  const char* from = scalar_type_name(this->dtype());
  const char* to = scalar_type_name(dtype);
  DimVector sizes(this->sizes().begin(), this->sizes().end());
  DimVector strides(this->strides().begin(), this->strides().end());
  int64_t offset = storage_offset();
  if (old_size != new_size) {
    EMBER_CHECK(dim() != 0, "self.dim() cannot be 0 to view ", from, " as ", to,
                " (different element sizes)");
    const int64_t last = dim() - 1;
    if (old_size > new_size) {
      const int64_t ratio = old_size / new_size;
      EMBER_CHECK(strides[last] == 1, "self.stride(-1) must be 1 to view ", from, " as ", to,
                  " (different element sizes), but got ", strides[last]);
      for (int64_t d = 0; d < last; ++d) strides[d] *= ratio;
      sizes[last] *= ratio;
      offset *= ratio;
    } else {
      const int64_t ratio = new_size / old_size;
      EMBER_CHECK(sizes[last] % ratio == 0, "self.size(-1) must be divisible by ", ratio,
                  " to view ", from, " as ", to, " (different element sizes), but got ",
                  sizes[last]);
      EMBER_CHECK(offset % ratio == 0, "self.storage_offset() must be divisible by ", ratio,
                  " to view ", from, " as ", to, " (different element sizes), but got ", offset);
      EMBER_CHECK(strides[last] == 1, "self.stride(-1) must be 1 to view ", from, " as ", to,
                  " (different element sizes), but got ", strides[last]);
      for (int64_t d = 0; d < last; ++d) {
        EMBER_CHECK(strides[d] % ratio == 0, "self.stride(", d, ") must be divisible by ", ratio,
                    " to view ", from, " as ", to, " (different element sizes), but got ",
                    strides[d]);
        strides[d] /= ratio;
      }
      sizes[last] /= ratio;
      offset /= ratio;
    }
  }
  return Tensor(std::make_shared<TensorImpl>(impl_->storage(), dtype, sizes, strides, offset));
}

Tensor Tensor::view_as(const Tensor& other) const { return view(other.sizes()); }

// PyTorch 1.13 records reshape as its own nodes: ReshapeAliasBackward0 for
// a view, UnsafeViewBackward0 over the copy otherwise.
Tensor Tensor::reshape(IntArrayRef shape) const {
  Tensor v = try_view(*this, shape);
  if (v.defined()) return view_rec("reshape_alias", *this, v, [&] { return OpArgs{}; });
  // Not viewable, so not contiguous: contiguous() copies, and a contiguous
  // tensor always has a view.
  Tensor c = contiguous();
  return view_rec("unsafe_view", c, try_view(c, shape), [&] { return OpArgs{}; });
}

Tensor Tensor::reshape_as(const Tensor& other) const { return reshape(other.sizes()); }

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  start_dim = wrap_dim(start_dim, dim());
  end_dim = wrap_dim(end_dim, dim());
  EMBER_CHECK(start_dim <= end_dim,
              "flatten() has invalid args: start_dim cannot come after end_dim");
  if (dim() == 0) return reshape({1});
  if (start_dim == end_dim) return *this;
  DimVector shape;
  for (int64_t d = 0; d < start_dim; ++d) shape.push_back(sizes()[d]);
  int64_t n = 1;
  for (int64_t d = start_dim; d <= end_dim; ++d) n *= sizes()[d];
  shape.push_back(n);
  for (int64_t d = end_dim + 1; d < dim(); ++d) shape.push_back(sizes()[d]);
  return reshape(shape);
}

Tensor Tensor::unflatten(int64_t dim, IntArrayRef sizes) const {
  dim = wrap_dim(dim, this->dim());
  EMBER_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  DimVector inferred;
  try {
    inferred = detail::infer_view_size(sizes, this->sizes()[dim]);
  } catch (const Error& e) {
    std::string what = e.what();
    if (what.find("is invalid for input of size") == std::string::npos) {
      throw Error("unflatten got an unexpected error:\n" + what);
    }
    throw Error(absl::StrCat("unflatten: Provided sizes ", sizes_str(sizes),
                             " don't multiply up to the size of dim ", dim, " (",
                             this->sizes()[dim], ") in the input tensor"));
  }
  DimVector shape(this->sizes().begin(), this->sizes().end());
  shape.erase(shape.begin() + dim);
  shape.insert(shape.begin() + dim, inferred.begin(), inferred.end());
  return view(shape);
}

Tensor Tensor::squeeze() const {
  DimVector sizes, strides;
  squeeze_geometry(*this, -1, &sizes, &strides);
  return view_rec("squeeze", *this, make_view(*this, sizes, strides, storage_offset()), [&] { return OpArgs{}; });
}

Tensor Tensor::squeeze(int64_t dim) const {
  dim = wrap_dim(dim, this->dim());
  DimVector sizes, strides;
  squeeze_geometry(*this, dim, &sizes, &strides);
  return view_rec("squeeze_dim", *this, make_view(*this, sizes, strides, storage_offset()), [&] { return OpArgs{Scalar(dim)}; });
}

Tensor Tensor::unsqueeze(int64_t dim) const {
  dim = wrap_dim(dim, this->dim() + 1);
  DimVector sizes, strides;
  unsqueeze_geometry(*this, dim, &sizes, &strides);
  return view_rec("unsqueeze", *this, make_view(*this, sizes, strides, storage_offset()), [&] { return OpArgs{Scalar(dim)}; });
}

Tensor& Tensor::squeeze_() const {
  DimVector sizes, strides;
  squeeze_geometry(mut(), -1, &sizes, &strides);
  return inplace_view_rec("squeeze_", mut(), sizes, strides, {});
}

Tensor& Tensor::squeeze_(int64_t dim) const {
  dim = wrap_dim(dim, this->dim());
  DimVector sizes, strides;
  squeeze_geometry(mut(), dim, &sizes, &strides);
  return inplace_view_rec("squeeze_dim_", mut(), sizes, strides, {Scalar(dim)});
}

Tensor& Tensor::unsqueeze_(int64_t dim) const {
  dim = wrap_dim(dim, this->dim() + 1);
  DimVector sizes, strides;
  unsqueeze_geometry(mut(), dim, &sizes, &strides);
  return inplace_view_rec("unsqueeze_", mut(), sizes, strides, {Scalar(dim)});
}

// PyTorch's inferExpandGeometry.
Tensor Tensor::expand(IntArrayRef size) const {
  EMBER_CHECK(static_cast<int64_t>(size.size()) >= dim(), "expand(", type_string(*this), "{",
              sizes_str(sizes()), "}, size=", sizes_str(size),
              "): the number of sizes provided (", size.size(),
              ") must be greater or equal to the number of dimensions in the tensor (", dim(), ")");
  const int64_t ndim = static_cast<int64_t>(size.size());
  const int64_t tensor_dim = dim();
  DimVector new_sizes(ndim), new_strides(ndim);
  for (int64_t i = ndim - 1; i >= 0; --i) {
    int64_t d = tensor_dim - 1 - (ndim - 1 - i);
    int64_t sz = d >= 0 ? sizes()[d] : 1;
    int64_t st = d >= 0 ? strides()[d] : (i + 1 < ndim ? new_sizes[i + 1] * new_strides[i + 1] : 1);
    int64_t target = size[i];
    if (target == -1) {
      EMBER_CHECK(d >= 0, "The expanded size of the tensor (", target,
                  ") isn't allowed in a leading, non-existing dimension ", i);
      target = sz;
    }
    if (sz != target) {
      EMBER_CHECK(sz == 1, "The expanded size of the tensor (", target,
                  ") must match the existing size (", sz, ") at non-singleton dimension ", i,
                  ".  Target sizes: ", sizes_str(size), ".  Tensor sizes: ", sizes_str(sizes()));
      sz = target;
      st = 0;
    }
    // A negative target other than -1 (PyTorch reports it from numel()).
    EMBER_CHECK(sz >= 0, "numel: integer multiplication overflow");
    new_sizes[i] = sz;
    new_strides[i] = st;
  }
  return view_rec("expand", *this, make_view(*this, new_sizes, new_strides, storage_offset()), [&] { return OpArgs{}; });
}

Tensor Tensor::expand_as(const Tensor& other) const { return expand(other.sizes()); }

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  dim0 = wrap_dim(dim0, dim());
  dim1 = wrap_dim(dim1, dim());
  if (dim() == 0) {
    return view_rec("transpose", *this, make_view(*this, {}, {}, storage_offset()),
                    [&] { return OpArgs{Scalar(int64_t{0}), Scalar(int64_t{0})}; });
  }
  DimVector sizes(this->sizes().begin(), this->sizes().end());
  DimVector strides(this->strides().begin(), this->strides().end());
  std::swap(sizes[dim0], sizes[dim1]);
  std::swap(strides[dim0], strides[dim1]);
  return view_rec("transpose", *this, make_view(*this, sizes, strides, storage_offset()),
                  [&] { return OpArgs{Scalar(dim0), Scalar(dim1)}; });
}

namespace {
Tensor& transpose_rec(const char* name, Tensor& self, int64_t dim0, int64_t dim1) {
  dim0 = wrap_dim(dim0, self.dim());
  dim1 = wrap_dim(dim1, self.dim());
  if (self.dim() == 0) dim0 = dim1 = 0;
  DimVector sizes(self.sizes().begin(), self.sizes().end());
  DimVector strides(self.strides().begin(), self.strides().end());
  if (self.dim() > 0) {
    std::swap(sizes[dim0], sizes[dim1]);
    std::swap(strides[dim0], strides[dim1]);
  }
  return inplace_view_rec(name, self, sizes, strides, {Scalar(dim0), Scalar(dim1)});
}
}  // namespace

Tensor& Tensor::transpose_(int64_t dim0, int64_t dim1) const {
  return transpose_rec("transpose_", mut(), dim0, dim1);
}

Tensor Tensor::t() const {
  EMBER_CHECK(dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", dim(), "D");
  // Its own node in PyTorch (TBackward0); args as transpose's.
  const int64_t d1 = dim() < 2 ? 0 : 1;
  if (!detail::should_record(*this)) return transpose(0, d1);
  detail::OpScope scope{detail::OpScope::Checked{}};
  Tensor r = transpose(0, d1);  // records nothing inside the scope
  scope.record("t", {*this}, {r}, {Scalar(int64_t{0}), Scalar(d1)});
  return r;
}

Tensor& Tensor::t_() const {
  EMBER_CHECK(dim() <= 2, "t_() expects a tensor with <= 2 dimensions, but self is ", dim(), "D");
  return transpose_rec("t_", mut(), 0, dim() < 2 ? 0 : 1);
}

Tensor Tensor::mT() const {
  EMBER_CHECK(dim() >= 2,
              "tensor.mT is only supported on matrices or batches of matrices. Got ", dim(),
              "-D tensor.");
  return transpose(-2, -1);
}

Tensor Tensor::permute(IntArrayRef dims) const {
  const int64_t n = dim();
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == n,
              "permute(sparse_coo): number of dimensions in the tensor input does not match the "
              "length of the desired ordering of dimensions i.e. input.dim() = ",
              n, " is not equal to len(dims) = ", dims.size());
  DimVector sizes(n), strides(n);
  absl::InlinedVector<bool, 6> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = wrap_dim(dims[i], n);
    EMBER_CHECK(!seen[d], "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = this->sizes()[d];
    strides[i] = this->strides()[d];
  }
  return view_rec("permute", *this, make_view(*this, sizes, strides, storage_offset()), [&] { return OpArgs{DimVector(dims.begin(), dims.end())}; });
}

Tensor Tensor::movedim(int64_t source, int64_t destination) const {
  const int64_t n = dim();
  source = wrap_dim(source, n);
  destination = wrap_dim(destination, n);
  if (n == 0) {
    return view_rec("alias", *this, make_view(*this, {}, {}, storage_offset()),
                    [] { return OpArgs{}; });
  }
  // The other dims keep their order around the moved one.
  DimVector order;
  for (int64_t d = 0; d < n; ++d) {
    if (d != source) order.push_back(d);
  }
  order.insert(order.begin() + destination, source);
  return permute(order);
}

Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  EMBER_CHECK(this->dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  const int64_t cur_size = size(dim);
  // start == size is a valid (empty) narrow, but not a valid dim to wrap.
  if (start != cur_size) start = wrap_dim(start, cur_size);
  EMBER_CHECK(length >= 0 && start <= cur_size - length, "start (", start, ") + length (", length,
              ") exceeds dimension size (", cur_size, ").");
  return slice(dim, start, start + length, 1);
}

Tensor Tensor::select(int64_t dim, int64_t index) const {
  EMBER_CHECK_INDEX(this->dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, this->dim());
  const int64_t size = sizes()[dim];
  EMBER_CHECK_INDEX(index >= -size && index < size, "select(): index ", index,
                    " out of range for tensor of size ", sizes_str(sizes()), " at dimension ", dim);
  if (index < 0) index += size;
  DimVector new_sizes(sizes().begin(), sizes().end());
  DimVector new_strides(strides().begin(), strides().end());
  int64_t offset = storage_offset() + index * strides()[dim];
  new_sizes.erase(new_sizes.begin() + dim);
  new_strides.erase(new_strides.begin() + dim);
  return view_rec("select", *this, make_view(*this, new_sizes, new_strides, offset), [&] { return OpArgs{Scalar(dim), Scalar(index)}; });
}

Tensor Tensor::slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                     int64_t step) const {
  EMBER_CHECK_INDEX(this->dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, this->dim());
  EMBER_CHECK(step > 0, "slice step must be positive");
  const int64_t size = sizes()[dim];
  int64_t s = start.value_or(0);
  int64_t e = end.value_or(std::numeric_limits<int64_t>::max());
  // Python's clamping of out-of-range bounds.
  if (s < 0) s += size;
  if (e < 0) e += size;
  s = std::min(std::max<int64_t>(s, 0), size);
  e = std::min(std::max(e, s), size);
  DimVector new_sizes(sizes().begin(), sizes().end());
  DimVector new_strides(strides().begin(), strides().end());
  new_sizes[dim] = (e - s + step - 1) / step;
  new_strides[dim] *= step;
  return view_rec("slice", *this,
                  make_view(*this, new_sizes, new_strides, storage_offset() + s * strides()[dim]),
                  [&] { return OpArgs{Scalar(dim), Scalar(s), Scalar(e), Scalar(step)}; });
}

static void check_as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                             int64_t offset) {
  EMBER_CHECK(size.size() == stride.size(), "mismatch in length of strides and shape");
  for (int64_t s : stride) {
    EMBER_CHECK(s >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ",
                sizes_str(stride));
  }
  EMBER_CHECK(offset >= 0, "Tensor: invalid storage offset ", offset);
  // Elements the view reaches: 1 + sum((size - 1) * stride), or none.
  int64_t extent = 1;
  bool has_elements = true;
  for (size_t i = 0; i < size.size(); ++i) {
    EMBER_CHECK(size[i] >= 0, "Storage size calculation overflowed with sizes=",
                sizes_str(size), " and strides=", sizes_str(stride));
    if (size[i] == 0) has_elements = false;
    extent += (size[i] - 1) * stride[i];
  }
  if (has_elements) {
    const int64_t itemsize = self.element_size();
    const int64_t needed = (offset + extent) * itemsize;
    const int64_t have = static_cast<int64_t>(self.impl()->storage()->nbytes());
    EMBER_CHECK(needed <= have, "setStorage: sizes ", sizes_str(size), ", strides ",
                sizes_str(stride), ", storage offset ", offset, ", and itemsize ", itemsize,
                " requiring a storage size of ", needed, " are out of bounds for storage of size ",
                have);
  }
}
// as_strided's recorded args: the view's geometry, then the input's (the
// gradient goes through storage positions: the input may itself be a view).
static OpArgs as_strided_args(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                              int64_t offset) {
  return OpArgs{DimVector(size.begin(), size.end()), DimVector(stride.begin(), stride.end()),
                Scalar(offset), DimVector(self.strides().begin(), self.strides().end()),
                Scalar(self.storage_offset())};
}

Tensor Tensor::as_strided(IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset) const {
  const int64_t offset = storage_offset.value_or(this->storage_offset());
  check_as_strided(*this, size, stride, offset);
  return view_rec("as_strided", *this, make_view(*this, size, stride, offset),
                  [&] { return as_strided_args(*this, size, stride, offset); });
}

Tensor& Tensor::as_strided_(IntArrayRef size, IntArrayRef stride,
                            std::optional<int64_t> storage_offset) const {
  const int64_t offset = storage_offset.value_or(this->storage_offset());
  check_as_strided(mut(), size, stride, offset);
  // PyTorch's AsStridedBackward1: the same gradient as as_strided's, from
  // self's geometry before.
  return inplace_view_rec("as_strided_", mut(), size, stride,
                          as_strided_args(mut(), size, stride, offset), offset);
}

Tensor Tensor::unfold(int64_t dimension, int64_t size, int64_t step) const {
  const int64_t d = wrap_dim(dimension, dim());
  const int64_t max_size = dim() == 0 ? 1 : sizes()[d];
  EMBER_CHECK(size <= max_size, "maximum size for tensor at dimension ", d, " is ", max_size,
              " but size is ", size);
  EMBER_CHECK(step > 0, "step is ", step, " but must be > 0");
  DimVector new_sizes(sizes().begin(), sizes().end());
  DimVector new_strides(strides().begin(), strides().end());
  new_sizes.push_back(size);
  new_strides.push_back(dim() == 0 ? 1 : strides()[d]);
  if (d < dim()) {
    new_sizes[d] = (sizes()[d] - size) / step + 1;
    new_strides[d] = step * strides()[d];
  }
  if (size < 0) {  // what PyTorch's storage-size check reports for it
    throw Error(absl::StrCat("Storage size calculation overflowed with sizes=",
                             sizes_str(new_sizes), " and strides=", sizes_str(new_strides)));
  }
  return view_rec("unfold", *this, make_view(*this, new_sizes, new_strides, storage_offset()),
                  [&] { return OpArgs{Scalar(d), Scalar(size), Scalar(step)}; });
}

Tensor Tensor::diagonal(int64_t offset, int64_t dim1_in, int64_t dim2_in) const {
  const int64_t dim1 = wrap_dim(dim1_in, dim());
  const int64_t dim2 = wrap_dim(dim2_in, dim());
  EMBER_CHECK(dim1 != dim2, "diagonal dimensions cannot be identical ", dim1_in, ", ", dim2_in);
  const int64_t n1 = sizes()[dim1], n2 = sizes()[dim2];
  int64_t diag_size = offset >= 0 ? std::min(n1, n2 - offset) : std::min(n1 + offset, n2);
  diag_size = std::max<int64_t>(diag_size, 0);
  int64_t start = storage_offset();
  // An offset past the end leaves no elements; keep the storage offset sane.
  if (diag_size > 0) {
    start += offset >= 0 ? offset * strides()[dim2] : -offset * strides()[dim1];
  }
  DimVector new_sizes(sizes().begin(), sizes().end());
  DimVector new_strides(strides().begin(), strides().end());
  const int64_t hi = std::max(dim1, dim2), lo = std::min(dim1, dim2);
  new_sizes.erase(new_sizes.begin() + hi);
  new_strides.erase(new_strides.begin() + hi);
  new_sizes.erase(new_sizes.begin() + lo);
  new_strides.erase(new_strides.begin() + lo);
  new_sizes.push_back(diag_size);
  new_strides.push_back(strides()[dim1] + strides()[dim2]);
  return view_rec("diagonal", *this, make_view(*this, new_sizes, new_strides, start), [&] { return OpArgs{Scalar(offset), Scalar(dim1), Scalar(dim2)}; });
}

// --- free functions ------------------------------------------------------------

Tensor squeeze(const Tensor& self) { return self.squeeze(); }
Tensor squeeze(const Tensor& self, int64_t dim) { return self.squeeze(dim); }
Tensor unsqueeze(const Tensor& self, int64_t dim) { return self.unsqueeze(dim); }
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  return self.transpose(dim0, dim1);
}
Tensor t(const Tensor& self) { return self.t(); }
Tensor permute(const Tensor& self, IntArrayRef dims) { return self.permute(dims); }
Tensor movedim(const Tensor& self, int64_t source, int64_t destination) {
  return self.movedim(source, destination);
}
Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  return self.flatten(start_dim, end_dim);
}
Tensor reshape(const Tensor& self, IntArrayRef shape) { return self.reshape(shape); }
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return self.narrow(dim, start, length);
}
Tensor select(const Tensor& self, int64_t dim, int64_t index) { return self.select(dim, index); }
Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  return self.diagonal(offset, dim1, dim2);
}
Tensor broadcast_to(const Tensor& self, IntArrayRef size) { return self.expand(size); }

std::vector<Tensor> broadcast_tensors(TensorList tensors) {
  DimVector shape;
  for (const Tensor& t : tensors) shape = infer_size(shape, t.sizes());
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(t.expand(shape));
  return out;
}

}  // namespace ember
