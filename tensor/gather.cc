// Index-tensor ops along one dimension: gather, scatter_/scatter_add_,
// index_select, index_add_, index_fill_, index_copy_.

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_join.h"

#include "tensor/autocast.h"
#include "tensor/autograd_hook.h"
#include "tensor/dim.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/fallback.h"
#include "tensor/index_kernels.h"
#include "tensor/iterator.h"
#include "tensor/loops.h"
#include "tensor/selection.h"
#include "tensor/strided_walk.h"

namespace ember {

namespace detail {
EMBER_DEFINE_KERNEL_TABLE(index_kernel, IndexKernelFn);

IndexGeometry::IndexGeometry(const Tensor& t)
    : sizes(t.sizes().begin(), t.sizes().end()), strides(t.strides().begin(), t.strides().end()) {
  if (sizes.empty()) {
    sizes.push_back(1);
    strides.push_back(1);
  }
}
}  // namespace detail

namespace {

using Geometry = detail::IndexGeometry;

// The bytes of `value` converted to t's dtype, as an element-sized word (T
// is the unsigned integer of the dtype's element size).
template <typename T>
T scalar_bits(const Scalar& value, ScalarType dtype) {
  T bits{};
  EMBER_DISPATCH_ALL_TYPES(dtype, "scalar_bits", [&] {
    // Only the dtypes of T's size are reachable; the others would copy past v.
    if constexpr (sizeof(scalar_t) == sizeof(T)) {
      scalar_t v = value.to<scalar_t>();
      std::memcpy(&bits, &v, sizeof(T));
    } else {
      throw Error(absl::StrCat("scalar_bits: ", scalar_type_name(dtype), " is not ", sizeof(T),
                               " bytes wide"));
    }
  });
  return bits;
}

[[noreturn]] void throw_out_of_bounds(int64_t v, int64_t dim, int64_t size) {
  throw Error(absl::StrCat("index ", v, " is out of bounds for dimension ", dim, " with size ",
                           size));
}

using detail::first_outside;

// Runs body(k, v) for the index row ip[k * is] (k < len), each v checked
// against [0, bound) as gather/scatter do: the elements before a bad index
// are processed, then it raises. A contiguous row is checked up front.
template <typename F>
void checked_row(const int64_t* ip, int64_t is, int64_t len, int64_t bound, int64_t dim,
                 const F& body) {
  if (is == 1) {
    const int64_t bad = first_outside(ip, len, 0, bound);
    for (int64_t k = 0; k < bad; ++k) body(k, ip[k]);
    if (bad < len) throw_out_of_bounds(ip[bad], dim, bound);
    return;
  }
  for (int64_t k = 0; k < len; ++k) {
    const int64_t v = ip[k * is];
    if (v < 0 || v >= bound) throw_out_of_bounds(v, dim, bound);
    body(k, v);
  }
}

void check_index_dims(const Tensor& self, const Tensor& index, const char* what) {
  const int64_t sd = self.dim() == 0 ? 1 : self.dim();
  const int64_t id = index.dim() == 0 ? 1 : index.dim();
  EMBER_CHECK(sd == id, "Index tensor must have the same number of dimensions as ", what,
              " tensor");
}

// The index as int64 values, contiguous.
Tensor long_index(const Tensor& index) { return index.to(kLong).contiguous(); }

// self's sizes and strides with `dim` removed: the shape of one slice.
struct Slice {
  DimVector sizes, strides;
  int64_t dim_stride = 0, dim_size = 1;
  Slice(const Tensor& t, int64_t dim) {
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d == dim) {
        dim_stride = t.strides()[d];
        dim_size = t.sizes()[d];
      } else {
        sizes.push_back(t.sizes()[d]);
        strides.push_back(t.strides()[d]);
      }
    }
  }
  int64_t numel() const { return compute_numel(sizes); }
};

// Calls f(dst_offset, src_offset) over the elements of slice pairs
// (dst at dst_base, src at src_base) of the same slice shape.
template <typename F>
void walk_slices(const Slice& dst, const DimVector& src_strides, int64_t dst_base,
                 int64_t src_base, const F& f) {
  detail::strided_walk<2>(dst.sizes, {dst.strides.data(), src_strides.data()},
                          {dst_base, src_base}, 0, dst.numel(),
                          [&](const std::array<int64_t, 2>& o) { f(o[0], o[1]); });
}

// Note [Index kernels on devices] (tensor/index_kernels.h): the loops the
// device kernels take. gather/scatter walk the index; `indexed` (self)
// moves by the index value along dim, the other operand steps with the
// index (its strides: `other`).
detail::IndexLoop dim_loop(detail::IndexMode mode, int64_t dim, const Geometry& index,
                           const Geometry& indexed, const DimVector& other,
                           detail::IndexCheck check) {
  detail::IndexLoop l;
  l.mode = mode;
  l.sizes = index.sizes;
  l.index_strides = index.strides;
  DimVector moved = indexed.strides;
  moved[dim] = 0;
  l.dst_strides = mode == detail::IndexMode::kGather ? other : moved;
  l.src_strides = mode == detail::IndexMode::kGather ? moved : other;
  l.dim_stride = indexed.strides[dim];
  l.bound = indexed.sizes[dim];
  l.dim = dim;
  l.check = check;
  return l;
}

// The index_* ops walk self's slice with a dim of n positions (one per
// index value, `index` contiguous) put back at dim; `indexed` moves by the
// value, the other operand by `other` (slice strides) and `other_dim_stride`.
detail::IndexLoop slice_loop(detail::IndexMode mode, int64_t dim, int64_t n,
                             const Slice& indexed, const DimVector& other,
                             int64_t other_dim_stride, detail::IndexCheck check) {
  auto with_dim = [dim](DimVector v, int64_t x) {
    v.insert(v.begin() + dim, x);
    return v;
  };
  detail::IndexLoop l;
  l.mode = mode;
  l.sizes = with_dim(indexed.sizes, n);
  l.index_strides = with_dim(DimVector(indexed.sizes.size(), 0), 1);
  const DimVector moved = with_dim(indexed.strides, 0);
  const DimVector stepped = with_dim(other, other_dim_stride);
  l.dst_strides = mode == detail::IndexMode::kGather ? stepped : moved;
  l.src_strides = mode == detail::IndexMode::kGather ? moved : stepped;
  l.dim_stride = indexed.dim_stride;
  l.bound = indexed.dim_size;
  l.dim = dim;
  l.check = check;
  return l;
}

}  // namespace

namespace detail {
// As ATen's scatter_gather_dtype_check and scatter_shape_check: an empty
// index writes nothing, so neither its dtype nor its shape is checked.
void scatter_checks(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  EMBER_CHECK(index.numel() == 0 || index.dtype() == kLong,
              "scatter(): Expected dtype int64 for index");
  if (src != nullptr) {
    EMBER_CHECK(self.dtype() == src->dtype(),
                "scatter(): Expected self.dtype to be equal to src.dtype");
  }
  if (index.numel() == 0) return;
  check_index_dims(self, index, "self");
  if (src != nullptr) check_index_dims(*src, index, "src");
  const Geometry s(self), i(index);
  bool bad = false;
  for (size_t d = 0; d < i.sizes.size(); ++d) {
    if (static_cast<int64_t>(d) != dim && i.sizes[d] > s.sizes[d]) bad = true;
  }
  if (src != nullptr) {
    const Geometry r(*src);
    for (size_t d = 0; d < i.sizes.size(); ++d) {
      if (i.sizes[d] > r.sizes[d]) bad = true;
    }
  }
  if (!bad) return;
  std::string msg =
      absl::StrCat("Expected index ", detail::sizes_str(index.sizes()), " to be smaller than self ",
                   detail::sizes_str(self.sizes()), " apart from dimension ", dim);
  if (src != nullptr) {
    absl::StrAppend(&msg, " and to be smaller size than src ", detail::sizes_str(src->sizes()));
  }
  throw Error(msg);
}
}  // namespace detail

// --- gather / scatter ------------------------------------------------------------
//
// Note [Recording index ops]: each public op records itself once (Note [Op
// recording]) with its dim (as given) as the first arg. The in-place methods
// re-enter themselves from inside the recording scope, where nothing
// records, to run the kernel; the functional forms (clone, then the in-place
// kernel) record as one op.

namespace {
Tensor gather_impl(const Tensor& self, int64_t dim, const Tensor& index) {
  detail::common_device({self, index});
  dim = detail::wrap_dim(dim, self.dim());
  // An empty index reads nothing: ATen checks neither its dtype nor its shape.
  if (index.numel() == 0) return empty(index.sizes(), self.options());
  EMBER_CHECK(index.dtype() == kLong, "gather(): Expected dtype int64 for index");
  check_index_dims(self, index, "input");
  const Geometry s(self), i(index);
  for (size_t d = 0; d < i.sizes.size(); ++d) {
    if (static_cast<int64_t>(d) != dim && i.sizes[d] > s.sizes[d]) {
      throw Error(absl::StrCat("Size does not match at dimension ", d, " expected index ",
                               detail::sizes_str(index.sizes()), " to be smaller than self ",
                               detail::sizes_str(self.sizes()), " apart from dimension ", dim));
    }
  }
  Tensor out = empty(index.sizes(), self.options());
  const Geometry o(out);
  if (!self.is_cpu()) {
    if (out.numel() > 0) {
      detail::index_kernel(self.device())(
          dim_loop(detail::IndexMode::kGather, dim, i, s, o.strides, detail::IndexCheck::kOutOfBounds),
          out, index, self);
    }
    return out;
  }
  const int64_t len = i.sizes[dim], os = o.strides[dim], is = i.strides[dim];
  const int64_t ss = s.strides[dim], ssize = s.sizes[dim];
  const int64_t* ip = index.data_ptr<int64_t>();
  detail::dispatch_by_element_size(self.element_size(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(self.data_ptr());
    T* dst = static_cast<T*>(out.data_ptr());
    detail::for_each_row<3>(i.sizes, dim, {o.strides.data(), i.strides.data(), s.strides.data()},
                            [&](const std::array<int64_t, 3>& b) {
                              T* d = dst + b[0];
                              const T* sr = src + b[2];
                              if (os == 1 && ss == 1) {
                                checked_row(ip + b[1], is, len, ssize, dim,
                                            [&](int64_t k, int64_t v) { d[k] = sr[v]; });
                              } else {
                                checked_row(ip + b[1], is, len, ssize, dim,
                                            [&](int64_t k, int64_t v) { d[k * os] = sr[v * ss]; });
                              }
                            });
  });
  return out;
}
OpArgs dim_arg(int64_t dim) { return {Scalar(dim)}; }
}  // namespace

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  return detail::record_out_op(
      "gather", Tensor(), {self, index}, [&] { return gather_impl(self, dim, index); },
      [&] { return dim_arg(dim); });
}

Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) const {
  if (detail::should_record(mut(), src)) {
    detail::record_out_op(
        "scatter", mut(), {mut(), index, src}, [&] { return scatter_(dim, index, src); },
        [&] { return dim_arg(dim); });
    return mut();
  }
  detail::common_device({mut(), index, src});
  dim = detail::wrap_dim(dim, this->dim());
  detail::scatter_checks(mut(), dim, index, &src);
  impl()->bump_version();
  if (index.numel() == 0) return mut();
  const Geometry s(mut()), i(index), r(src);
  if (!is_cpu()) {  // repeated indices: one of the writes wins, which one varies
    detail::index_kernel(device())(
        dim_loop(detail::IndexMode::kScatter, dim, i, s, r.strides, detail::IndexCheck::kOutOfBounds),
        mut(), index, src);
    return mut();
  }
  const int64_t len = i.sizes[dim], is = i.strides[dim], rs = r.strides[dim];
  const int64_t ss = s.strides[dim], ssize = s.sizes[dim];
  const int64_t* ip = index.data_ptr<int64_t>();
  detail::dispatch_by_element_size(element_size(), [&](auto tag) {
    using T = decltype(tag);
    T* dst = static_cast<T*>(data_ptr());
    const T* sp = static_cast<const T*>(src.data_ptr());
    detail::for_each_row<3>(i.sizes, dim, {s.strides.data(), i.strides.data(), r.strides.data()},
                            [&](const std::array<int64_t, 3>& b) {
                              T* d = dst + b[0];
                              const T* sr = sp + b[2];
                              checked_row(ip + b[1], is, len, ssize, dim,
                                          [&](int64_t k, int64_t v) { d[v * ss] = sr[k * rs]; });
                            });
  });
  return mut();
}

Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) const {
  check_convertible(value, dtype());
  if (detail::should_record(mut())) {
    detail::record_out_op(
        "scatter_value", mut(), {mut(), index}, [&] { return scatter_(dim, index, value); },
        [&] { return dim_arg(dim); });
    return mut();
  }
  detail::common_device({mut(), index});
  dim = detail::wrap_dim(dim, this->dim());
  detail::scatter_checks(mut(), dim, index, nullptr);
  impl()->bump_version();
  if (index.numel() == 0) return mut();
  const Geometry s(mut()), i(index);
  if (!is_cpu()) {
    detail::IndexLoop l = dim_loop(detail::IndexMode::kFill, dim, i, s,
                                   DimVector(i.sizes.size(), 0), detail::IndexCheck::kOutOfBounds);
    l.value = value;
    detail::index_kernel(device())(l, mut(), index, Tensor());
    return mut();
  }
  const int64_t len = i.sizes[dim], is = i.strides[dim];
  const int64_t ss = s.strides[dim], ssize = s.sizes[dim];
  const int64_t* ip = index.data_ptr<int64_t>();
  detail::dispatch_by_element_size(element_size(), [&](auto tag) {
    using T = decltype(tag);
    const T bits = scalar_bits<T>(value, dtype());
    T* dst = static_cast<T*>(data_ptr());
    detail::for_each_row<2>(i.sizes, dim, {s.strides.data(), i.strides.data()},
                            [&](const std::array<int64_t, 2>& b) {
                              T* d = dst + b[0];
                              checked_row(ip + b[1], is, len, ssize, dim,
                                          [&](int64_t, int64_t v) { d[v * ss] = bits; });
                            });
  });
  return mut();
}

Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const {
  if (detail::should_record(mut(), src)) {
    detail::record_out_op(
        "scatter_add", mut(), {mut(), index, src}, [&] { return scatter_add_(dim, index, src); },
        [&] { return dim_arg(dim); });
    return mut();
  }
  detail::common_device({mut(), index, src});
  dim = detail::wrap_dim(dim, this->dim());
  detail::scatter_checks(mut(), dim, index, &src);
  impl()->bump_version();
  if (index.numel() == 0) return mut();
  const Geometry s(mut()), i(index), r(src);
  if (!is_cpu()) {
    detail::IndexLoop l = dim_loop(detail::IndexMode::kAdd, dim, i, s, r.strides,
                                   detail::IndexCheck::kOutOfBounds);
    l.value = Scalar(1);
    detail::index_kernel(device())(l, mut(), index, src);
    return mut();
  }
  const int64_t len = i.sizes[dim], is = i.strides[dim], rs = r.strides[dim];
  const int64_t ss = s.strides[dim], ssize = s.sizes[dim];
  const int64_t* ip = index.data_ptr<int64_t>();
  EMBER_DISPATCH_ALL_TYPES(dtype(), "scatter_add_", [&] {
    scalar_t* dst = data_ptr<scalar_t>();
    const scalar_t* sp = src.data_ptr<scalar_t>();
    detail::for_each_row<3>(i.sizes, dim, {s.strides.data(), i.strides.data(), r.strides.data()},
                            [&](const std::array<int64_t, 3>& b) {
                              scalar_t* d = dst + b[0];
                              const scalar_t* sr = sp + b[2];
                              checked_row(ip + b[1], is, len, ssize, dim,
                                          [&](int64_t k, int64_t v) {
                                            scalar_t& e = d[v * ss];
                                            e = static_cast<scalar_t>(e + sr[k * rs]);
                                          });
                            });
  });
  return mut();
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return detail::record_out_op(
      "scatter", Tensor(), {self, index, src},
      [&] {
        Tensor out = self.clone(MemoryFormat::Contiguous);  // PyTorch's structured output
        out.scatter_(dim, index, src);
        return out;
      },
      [&] { return dim_arg(dim); });
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return detail::record_out_op(
      "scatter_value", Tensor(), {self, index},
      [&] {
        Tensor out = self.clone(MemoryFormat::Contiguous);  // PyTorch's structured output
        out.scatter_(dim, index, value);
        return out;
      },
      [&] { return dim_arg(dim); });
}

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  EMBER_AUTOCAST(scatter_add, ::ember::scatter_add, self, dim, index, src);
  return detail::record_out_op(
      "scatter_add", Tensor(), {self, index, src},
      [&] {
        Tensor out = self.clone(MemoryFormat::Contiguous);  // PyTorch's structured output
        out.scatter_add_(dim, index, src);
        return out;
      },
      [&] { return dim_arg(dim); });
}

Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  return ::ember::gather(*this, dim, index);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ::ember::scatter(*this, dim, index, src);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ::ember::scatter(*this, dim, index, value);
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ::ember::scatter_add(*this, dim, index, src);
}

// --- index_* --------------------------------------------------------------------

namespace {
// index_select's CPU loop for a self of at most one dim (any stride) or a
// contiguous one: out (contiguous) is [outer, n, inner] of self's [outer,
// size, inner] rows, each a run of `inner` elements (a memcpy), or single
// elements read by a plain loop. The indices are checked.
void index_select_rows(const Tensor& self, int64_t dim, const int64_t* ip, int64_t n, Tensor& out) {
  if (out.numel() == 0) return;
  int64_t outer = 1, inner = 1, size = 1, step = 1;
  if (self.dim() == 1) {
    size = self.sizes()[0];
    step = self.strides()[0];
  } else if (self.dim() > 1) {
    for (int64_t d = 0; d < dim; ++d) outer *= self.sizes()[d];
    for (int64_t d = dim + 1; d < self.dim(); ++d) inner *= self.sizes()[d];
    size = self.sizes()[dim];
  }
  detail::dispatch_by_element_size(self.element_size(), [&](auto tag) {
    using T = decltype(tag);
    const T* sp = static_cast<const T*>(self.data_ptr());
    T* dp = static_cast<T*>(out.data_ptr());
    parallel_for(0, outer * n, std::max<int64_t>(1, kGrainSize / inner), [&](int64_t b, int64_t e) {
      int64_t o = b / n, k = b % n;
      if (inner == 1) {
        for (int64_t u = b; u < e;) {
          const T* row = sp + o * size;
          const int64_t stop = std::min(e - u, n - k);
          T* d = dp + u;
          if (step == 1) {
            for (int64_t j = 0; j < stop; ++j) d[j] = row[ip[k + j]];
          } else {
            for (int64_t j = 0; j < stop; ++j) d[j] = row[ip[k + j] * step];
          }
          u += stop;
          k = 0;
          ++o;
        }
        return;
      }
      for (int64_t u = b; u < e; ++u) {
        std::memcpy(dp + u * inner, sp + (o * size + ip[k]) * inner, inner * sizeof(T));
        if (++k == n) {
          k = 0;
          ++o;
        }
      }
    });
  });
}

Tensor index_select_impl(const Tensor& self, int64_t dim, const Tensor& index) {
  detail::common_device({self, index});
  EMBER_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  EMBER_CHECK(index.dtype() == kLong || index.dtype() == kInt,
              "index_select(): Expected dtype int32 or int64 for index");
  dim = detail::wrap_dim(dim, self.dim());
  const Tensor idx = long_index(index);
  const int64_t n = idx.numel();
  const int64_t* ip = idx.data_ptr<int64_t>();
  DimVector out_sizes(self.sizes().begin(), self.sizes().end());
  if (self.dim() > 0) {
    out_sizes[dim] = n;
  } else {
    EMBER_CHECK_INDEX(n == 1, "index_select(): Index to scalar can have only 1 value, got ", n,
                      " value(s)");
  }
  if (!self.is_cpu()) {
    Tensor out = empty(out_sizes, self.options());
    if (out.numel() > 0) {
      const Slice src(self, dim), dst(out, dim);
      detail::index_kernel(self.device())(
          slice_loop(detail::IndexMode::kGather, dim, n, src, dst.strides, dst.dim_stride,
                     detail::IndexCheck::kOutOfRangeInSelf),
          out, idx, self);
    }
    return out;
  }
  const int64_t size = self.dim() > 0 ? self.sizes()[dim] : 1;
  EMBER_CHECK_INDEX(first_outside(ip, n, 0, size) == n, "index out of range in self");
  Tensor out = empty(out_sizes, self.options());
  if (self.dim() <= 1 || self.is_contiguous()) {
    index_select_rows(self, dim, ip, n, out);
    return out;
  }
  const Slice src(self, dim), dst(out, dim);
  const int64_t per = std::max<int64_t>(1, dst.numel());
  detail::dispatch_by_element_size(self.element_size(), [&](auto tag) {
    using T = decltype(tag);
    const T* sp = static_cast<const T*>(self.data_ptr());
    T* dp = static_cast<T*>(out.data_ptr());
    parallel_for(0, n, std::max<int64_t>(1, kGrainSize / per), [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        walk_slices(dst, src.strides, k * dst.dim_stride, ip[k] * src.dim_stride,
                    [&](int64_t o, int64_t i) { dp[o] = sp[i]; });
      }
    });
  });
  return out;
}
}  // namespace

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  return detail::record_out_op(
      "index_select", Tensor(), {self, index}, [&] { return index_select_impl(self, dim, index); },
      [&] { return dim_arg(dim); });
}

Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return ::ember::index_select(*this, dim, index);
}

// Out of place: PyTorch's index_add / index_fill / index_copy are a copy
// changed in place (the node is the in-place op's). The copy is row-major
// for index_add and index_copy (structured ops in PyTorch: their output is
// allocated contiguous), self's layout for index_fill (a clone).
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source,
                         const Scalar& alpha) const {
  return clone(MemoryFormat::Contiguous).index_add_(dim, index, source, alpha);
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return clone().index_fill_(dim, index, value);
}
static Tensor index_copy_op(const Tensor& self, int64_t dim, const Tensor& index,
                            const Tensor& source) {
  return self.index_copy(dim, index, source);
}
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  EMBER_AUTOCAST(index_copy, index_copy_op, *this, dim, index, source);
  return clone(MemoryFormat::Contiguous).index_copy_(dim, index, source);
}

Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                           const Scalar& alpha) const {
  if (detail::should_record(mut(), source)) {
    detail::record_out_op(
        "index_add", mut(), {mut(), index, source},
        [&] { return index_add_(dim, index, source, alpha); },
        [&] { return OpArgs{Scalar(dim), alpha}; });
    return mut();
  }
  detail::common_device({mut(), index, source});
  dim = detail::wrap_dim(dim, this->dim());
  EMBER_CHECK_INDEX(index.dim() <= 1, "index_add_(): Index is supposed to be a vector, but got dim: ",
                    index.dim(), " with type: ", scalar_type_name(index.dtype()),
                    " and size: ", detail::sizes_str(index.sizes()));
  EMBER_CHECK(index.dtype() == kLong || index.dtype() == kInt,
              "index_add_(): Expected dtype int32/int64 for index but got: ",
              scalar_type_name(index.dtype()));
  EMBER_CHECK(dtype() == source.dtype(), "index_add_(): self (", scalar_type_name(dtype()),
              ") and source (", scalar_type_name(source.dtype()),
              ") must have the same scalar type");
  const int64_t src_len = source.dim() == 0 ? 1 : source.sizes()[dim];
  EMBER_CHECK(index.numel() == src_len, "index_add_(): Number of indices (", index.numel(),
              ") should be equal to source.size(dim): (", src_len, "), for dim: ", dim);
  const Tensor idx = long_index(index);
  const int64_t* ip = idx.data_ptr<int64_t>();
  const Slice dst(mut(), dim);
  const int64_t size = this->dim() > 0 ? dst.dim_size : 1;
  if (is_cpu()) {
    EMBER_CHECK_INDEX(first_outside(ip, idx.numel(), 0, size) == idx.numel(),
                      "index out of range in self");
  }
  // The source slice broadcasts to self's slice, as selfSlice.add_(srcSlice).
  const Slice src(source, source.dim() == 0 ? 0 : dim);
  const DimVector shape = infer_size(dst.sizes, src.sizes);
  EMBER_CHECK(IntArrayRef(shape) == IntArrayRef(dst.sizes), "output with shape ",
              detail::sizes_str(dst.sizes), " doesn't match the broadcast shape ",
              detail::sizes_str(shape));
  DimVector src_strides(dst.sizes.size(), 0);
  const int64_t off = static_cast<int64_t>(dst.sizes.size() - src.sizes.size());
  for (size_t d = 0; d < src.sizes.size(); ++d) {
    if (src.sizes[d] != 1) src_strides[d + off] = src.strides[d];
  }
  impl()->bump_version();
  if (!is_cpu()) {
    if (idx.numel() > 0) {
      detail::IndexLoop l = slice_loop(detail::IndexMode::kAdd, dim, idx.numel(), dst, src_strides,
                                       src.dim_stride, detail::IndexCheck::kOutOfRangeInSelf);
      l.value = alpha;
      detail::index_kernel(device())(l, mut(), idx, source);
    }
    return mut();
  }
  EMBER_DISPATCH_ALL_TYPES(dtype(), "index_add_cpu_", [&] {
    scalar_t* dp = data_ptr<scalar_t>();
    const scalar_t* sp = source.data_ptr<scalar_t>();
    const scalar_t a = alpha.to<scalar_t>();
    // Repeated indices accumulate: the slices are added one after another.
    if (dst.sizes.empty()) {  // single elements (self of at most one dim)
      const int64_t ds = dst.dim_stride, ss = src.dim_stride;
      for (int64_t k = 0; k < idx.numel(); ++k) {
        scalar_t& d = dp[ip[k] * ds];
        if constexpr (std::is_same<scalar_t, bool>::value) {
          d = d || (a && sp[k * ss]);
        } else {
          d = static_cast<scalar_t>(d + a * sp[k * ss]);
        }
      }
      return;
    }
    for (int64_t k = 0; k < idx.numel(); ++k) {
      walk_slices(dst, src_strides, ip[k] * dst.dim_stride, k * src.dim_stride,
                  [&](int64_t o, int64_t i) {
                    if constexpr (std::is_same<scalar_t, bool>::value) {
                      dp[o] = dp[o] || (a && sp[i]);
                    } else {
                      dp[o] = static_cast<scalar_t>(dp[o] + a * sp[i]);
                    }
                  });
    }
  });
  return mut();
}

Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const {
  check_convertible(value, dtype());
  if (detail::should_record(mut())) {
    detail::record_out_op(
        "index_fill", mut(), {mut(), index}, [&] { return index_fill_(dim, index, value); },
        [&] { return dim_arg(dim); });
    return mut();
  }
  detail::common_device({mut(), index});
  EMBER_CHECK_INDEX(index.dtype() == kLong, "index_fill_(): Expected dtype int64 for index.");
  EMBER_CHECK(index.dim() <= 1, "Index has to be a vector/scalar");
  dim = detail::wrap_dim(dim, this->dim());
  const Tensor idx = long_index(index);
  const int64_t* ip = idx.data_ptr<int64_t>();
  const Slice dst(mut(), dim);
  const int64_t size = this->dim() > 0 ? dst.dim_size : 1;
  if (is_cpu()) {
    const int64_t bad = first_outside(ip, idx.numel(), -size, size);
    EMBER_CHECK_INDEX(bad == idx.numel(), "index ", ip[bad], " is out of bounds for dimension ",
                      dim, " with size ", size);
  }
  impl()->bump_version();
  if (!is_cpu()) {
    if (idx.numel() > 0) {
      detail::IndexLoop l = slice_loop(detail::IndexMode::kFill, dim, idx.numel(), dst,
                                       DimVector(dst.sizes.size(), 0), 0,
                                       detail::IndexCheck::kOutOfBoundsIndex);
      l.wrap = true;
      l.value = value;
      detail::index_kernel(device())(l, mut(), idx, Tensor());
    }
    return mut();
  }
  const DimVector none(dst.sizes.size(), 0);
  detail::dispatch_by_element_size(element_size(), [&](auto tag) {
    using T = decltype(tag);
    const T bits = scalar_bits<T>(value, dtype());
    T* dp = static_cast<T*>(data_ptr());
    if (dst.sizes.empty()) {  // single elements (self of at most one dim)
      const int64_t ds = dst.dim_stride;
      for (int64_t k = 0; k < idx.numel(); ++k) {
        dp[(ip[k] < 0 ? ip[k] + size : ip[k]) * ds] = bits;
      }
      return;
    }
    for (int64_t k = 0; k < idx.numel(); ++k) {
      const int64_t v = ip[k] < 0 ? ip[k] + size : ip[k];
      walk_slices(dst, none, v * dst.dim_stride, 0, [&](int64_t o, int64_t) { dp[o] = bits; });
    }
  });
  return mut();
}

Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const {
  if (detail::should_record(mut(), source)) {
    detail::record_out_op(
        "index_copy", mut(), {mut(), index, source},
        [&] { return index_copy_(dim, index, source); }, [&] { return dim_arg(dim); });
    return mut();
  }
  detail::common_device({mut(), index, source});
  dim = detail::wrap_dim(dim, this->dim());
  EMBER_CHECK_INDEX(index.dim() <= 1, "index_copy_(): Index should have dimension 1 or 0 (got ",
                    index.dim(), ")");
  EMBER_CHECK(index.dtype() == kLong, "index_copy_(): Expected a long tensor for index, but got ",
              scalar_type_name(index.dtype()));
  EMBER_CHECK(dtype() == source.dtype(),
              "index_copy_(): self and source expected to have the same dtype, but got (self) ",
              scalar_type_name(dtype()), " and (source) ", scalar_type_name(source.dtype()));
  EMBER_CHECK_INDEX(source.dim() == 0 || this->dim() == 0 || source.dim() == this->dim(),
                    "index_copy_(): When source and destination are not scalars, their "
                    "dimensionality must match. Source dimensionality (",
                    source.dim(), "), destination dimensionality (", this->dim(), ")");
  const int64_t src_len = source.dim() == 0 ? 1 : source.sizes()[dim];
  EMBER_CHECK_INDEX(index.numel() == src_len, "index_copy_(): Number of indices (", index.numel(),
                    ") should be equal to source.size(dim) (", src_len, ")");
  const Slice dst(mut(), dim), src(source, source.dim() == 0 ? 0 : dim);
  if (dst.sizes != src.sizes) {
    throw Error(absl::StrCat(
        "index_copy_(): Source/destination tensor must have same slice shapes. Destination "
        "slice shape: ",
        absl::StrJoin(dst.sizes, " "), " at dimension ", dim,
        " and source slice shape: ", absl::StrJoin(src.sizes, " "), " at dimension 0."));
  }
  const Tensor idx = long_index(index);
  const int64_t* ip = idx.data_ptr<int64_t>();
  const int64_t size = this->dim() > 0 ? dst.dim_size : 1;
  for (int64_t k = 0; k < idx.numel() && is_cpu(); ++k) {
    EMBER_CHECK_INDEX(ip[k] >= 0 && ip[k] < size, "index_copy_(): index ", ip[k],
                      " is out of bounds for dimension ", dim, " with size ", size);
  }
  impl()->bump_version();
  if (!is_cpu()) {  // repeated indices: one of the copies wins, which one varies
    if (idx.numel() > 0) {
      detail::index_kernel(device())(
          slice_loop(detail::IndexMode::kScatter, dim, idx.numel(), dst, src.strides,
                     src.dim_stride, detail::IndexCheck::kIndexCopy),
          mut(), idx, source);
    }
    return mut();
  }
  detail::dispatch_by_element_size(element_size(), [&](auto tag) {
    using T = decltype(tag);
    T* dp = static_cast<T*>(data_ptr());
    const T* sp = static_cast<const T*>(source.data_ptr());
    for (int64_t k = 0; k < idx.numel(); ++k) {
      walk_slices(dst, src.strides, ip[k] * dst.dim_stride, k * src.dim_stride,
                  [&](int64_t o, int64_t i) { dp[o] = sp[i]; });
    }
  });
  return mut();
}

}  // namespace ember
