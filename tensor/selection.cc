// where, nonzero, masked_select / masked_fill / masked_scatter_, take.

#include "tensor/autograd_hook.h"
#include "tensor/selection.h"

#include <algorithm>
#include <vector>

#include "tensor/dim.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/fallback.h"
#include "tensor/index_kernels.h"
#include "tensor/iterator.h"
#include "tensor/loops.h"
#include "tensor/select_bits.h"
#include "tensor/sort_kernels.h"
#include "tensor/strided_walk.h"

namespace ember {

EMBER_DEFINE_KERNEL_TABLE(where_kernel, void (*)(TensorIterator&));
EMBER_DEFINE_KERNEL_TABLE(masked_fill_kernel, void (*)(TensorIterator&, const Scalar&));
EMBER_DEFINE_KERNEL_TABLE(nonzero_kernel, NonzeroFn);
EMBER_DEFINE_KERNEL_TABLE(masked_select_kernel, MaskedSelectFn);
EMBER_DEFINE_KERNEL_TABLE(masked_scatter_kernel, MaskedScatterFn);

namespace {

// where and masked_fill read their bool operand as its byte (0 or 1):
// GCC 12 does not vectorize a loop that loads `bool` (no vector type for
// it), and a scalar select's branch mispredicts on a random mask (where(x >
// 0, ...) of 65536 floats took 270 us; vectorized, 20 us).
void where_cpu(TensorIterator& iter) {
  EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), "where_cpu", [&] {
    cpu_kernel(iter, [](uint8_t c, scalar_t a, scalar_t b) -> scalar_t {
      return detail::select_bits(c, a, b);
    });
  });
}
EMBER_REGISTER_KERNEL(where_kernel, kCPU, &where_cpu);

void masked_fill_cpu(TensorIterator& iter, const Scalar& value) {
  EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), "masked_fill_cpu", [&] {
    const scalar_t v = value.to<scalar_t>();
    cpu_kernel(iter,
               [v](uint8_t m, scalar_t a) -> scalar_t { return detail::select_bits(m, v, a); });
  });
}
EMBER_REGISTER_KERNEL(masked_fill_kernel, kCPU, &masked_fill_cpu);

// PyTorch 1.13 still takes uint8 masks (deprecated); kernels see bool.
Tensor as_bool_mask(const Tensor& mask) { return mask.dtype() == kBool ? mask : mask.to(kBool); }

// Iterator over (out, mask, self) in self's dtype: mask first so that a
// shape mismatch names the tensors in PyTorch's order.
TensorIterator masked_iter(const Tensor& out, const Tensor& mask, const Tensor& self) {
  IterConfig c;
  c.promote_inputs = false;
  c.cast_inputs = false;
  c.common_dtype = self.dtype();
  c.check_output_cast = false;
  TensorIterator iter(c);
  iter.add_output(out).add_input(as_bool_mask(mask)).add_input(self).build();
  return iter;
}

void check_fill_mask(const Tensor& mask, const char* op) {
  EMBER_CHECK(mask.dtype() == kBool || mask.dtype() == kByte, op,
              " only supports boolean masks, but got mask with dtype ",
              scalar_type_name(mask.dtype()));
  // A uint8 mask (deprecated in PyTorch) must hold 0s and 1s.
  if (mask.dtype() == kByte && mask.numel() > 0) {
    const Tensor m = mask.to(Device(kCPU)).contiguous();
    const uint8_t* p = m.data_ptr<uint8_t>();
    EMBER_CHECK(std::all_of(p, p + m.numel(), [](uint8_t v) { return v <= 1; }),
                "Mask tensor can take 0 and 1 values only");
  }
}

// Number of nonzero elements of a contiguous tensor: branch-free, so it
// vectorizes.
template <typename T>
int64_t count_nonzero_of(const T* p, int64_t n) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += cast_value<bool>(p[i]) ? 1 : 0;
  return count;
}

// The coordinates, in `sizes` (t's, or {1} for a 0-dim t read as a vector),
// of t's nonzero elements in row-major order: one count, then cols =
// columns(count) (one int64 pointer per dim) and one pass that writes
// cols[d][j], dim d's coordinate of the j-th, carrying the outer
// coordinates row by row (no division per element).
template <typename Columns>
void nonzero_coords(const Tensor& t, IntArrayRef sizes, const Columns& columns) {
  const Tensor c = t.contiguous();
  const int64_t numel = c.numel();
  const int64_t nd = static_cast<int64_t>(sizes.size());
  EMBER_DISPATCH_ALL_TYPES(c.dtype(), "nonzero_cpu", [&] {
    const scalar_t* p = c.data_ptr<scalar_t>();
    const std::vector<int64_t*> cols = columns(count_nonzero_of(p, numel));
    if (nd == 0) return;
    const int64_t last = sizes[nd - 1];
    int64_t* col = cols[nd - 1];
    DimVector idx(nd, 0);
    int64_t j = 0;
    for (int64_t row = 0; row * last < numel; ++row) {
      const scalar_t* rp = p + row * last;
      for (int64_t i = 0; i < last; ++i) {
        if (cast_value<bool>(rp[i])) {
          for (int64_t d = 0; d < nd - 1; ++d) cols[d][j] = idx[d];
          col[j] = i;
          ++j;
        }
      }
      for (int64_t d = nd - 2; d >= 0; --d) {  // the next row's outer coordinates
        if (++idx[d] < sizes[d]) break;
        idx[d] = 0;
      }
    }
  });
}

}  // namespace

// --- where -------------------------------------------------------------------

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  EMBER_CHECK(condition.dtype() == kBool || condition.dtype() == kByte,
              "where expected condition to be a boolean tensor, but got a tensor with dtype ",
              scalar_type_name(condition.dtype()));
  const ScalarType dt = result_type(self, other);
  auto fwd = [&] {
    IterConfig c;
    c.promote_inputs = false;
    c.cast_inputs = false;
    c.common_dtype = dt;
    TensorIterator iter(c);
    iter.add_output(Tensor())
        .add_input(as_bool_mask(condition))
        .add_input(self.to(dt))
        .add_input(other.to(dt))
        .build();
    where_kernel(iter.device_type())(iter);
    return iter.output();
  };
  // Note [Op recording]: inputs (condition, self, other).
  return detail::record_out_op("where", Tensor(), {condition, self, other}, fwd, detail::no_args);
}

Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other) {
  return where(condition, wrapped_scalar_tensor(self), other);
}

Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other) {
  return where(condition, self, wrapped_scalar_tensor(other));
}

Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other) {
  return where(condition, wrapped_scalar_tensor(self), wrapped_scalar_tensor(other));
}

std::vector<Tensor> where(const Tensor& condition) {
  if (!condition.is_cpu() && nonzero_kernel.has(condition.device().type())) {
    // PyTorch's nonzero(condition).unbind(1): views of one [n, ndim] result.
    const DimVector sizes = condition.dim() == 0
                                ? DimVector{1}
                                : DimVector(condition.sizes().begin(), condition.sizes().end());
    return nonzero_kernel(condition.device())(condition.contiguous(), sizes).unbind(0);
  }
  if (detail::cpu_fallback("where", {condition})) {
    std::vector<Tensor> out = where(detail::cpu(condition));
    for (Tensor& t : out) t = detail::to_device(t, condition);
    return out;
  }
  // A 0-dim condition reads as a 1-element vector, as in PyTorch.
  DimVector sizes(condition.sizes().begin(), condition.sizes().end());
  if (condition.dim() == 0) sizes.push_back(1);
  std::vector<Tensor> out;
  nonzero_coords(condition, sizes, [&](int64_t n) {
    std::vector<int64_t*> cols;
    for (size_t d = 0; d < sizes.size(); ++d) {
      out.push_back(empty({n}, TensorOptions(kLong).device(condition.device())));
      cols.push_back(out.back().data_ptr<int64_t>());
    }
    return cols;
  });
  return out;
}

Tensor nonzero(const Tensor& self) {
  if (!self.is_cpu() && nonzero_kernel.has(self.device().type())) {
    return nonzero_kernel(self.device())(self.contiguous(), self.sizes()).t();
  }
  if (detail::cpu_fallback("nonzero", {self})) {
    return detail::to_device(nonzero(detail::cpu(self)), self);
  }
  // PyTorch fills a [dim, n] tensor and returns it transposed: strides (1, n).
  const int64_t nd = self.dim();
  Tensor out;
  nonzero_coords(self, self.sizes(), [&](int64_t n) {
    out = empty({nd, n}, TensorOptions(kLong).device(self.device()));
    std::vector<int64_t*> cols;
    for (int64_t d = 0; d < nd; ++d) cols.push_back(out.data_ptr<int64_t>() + d * n);
    return cols;
  });
  return out.t();
}

Tensor Tensor::nonzero() const { return ::ember::nonzero(*this); }

// --- masked ops ----------------------------------------------------------------

namespace {
Tensor masked_select_impl(const Tensor& self, const Tensor& mask) {
  const Device device = detail::common_device({self, mask});
  if (!device.is_cpu() && masked_select_kernel.has(device.type())) {
    EMBER_CHECK(mask.dtype() == kBool || mask.dtype() == kByte,
                "masked_select: expected BoolTensor or ByteTensor for mask");
    const DimVector shape = infer_size(mask.sizes(), self.sizes());
    return masked_select_kernel(device)(self.expand(shape).contiguous(),
                                        as_bool_mask(mask).expand(shape).contiguous());
  }
  if (detail::cpu_fallback("masked_select", {self, mask})) {
    return detail::to_device(masked_select_impl(detail::cpu(self), detail::cpu(mask)), self);
  }
  EMBER_CHECK(mask.dtype() == kBool || mask.dtype() == kByte,
              "masked_select: expected BoolTensor or ByteTensor for mask");
  const DimVector shape = infer_size(mask.sizes(), self.sizes());
  const Tensor m = as_bool_mask(mask);
  const DimVector ms = detail::broadcast_strides(m, shape);
  const DimVector ss = detail::broadcast_strides(self, shape);
  const int64_t numel = compute_numel(shape);
  const bool* mp = m.data_ptr<bool>();
  int64_t count = 0;
  detail::strided_walk<1>(shape, {ms.data()}, {0}, 0, numel,
                          [&](const std::array<int64_t, 1>& o) { count += mp[o[0]]; });
  Tensor out = empty({count}, self.options());
  detail::dispatch_by_element_size(self.element_size(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(self.data_ptr());
    T* dst = static_cast<T*>(out.data_ptr());
    int64_t k = 0;
    detail::strided_walk<2>(shape, {ms.data(), ss.data()}, {0, 0}, 0, numel,
                            [&](const std::array<int64_t, 2>& o) {
                              if (mp[o[0]]) dst[k++] = src[o[1]];
                            });
  });
  return out;
}
}  // namespace

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  return detail::record_out_op(
      "masked_select", Tensor(), {self, mask}, [&] { return masked_select_impl(self, mask); },
      detail::no_args);
}

Tensor Tensor::masked_select(const Tensor& mask) const {
  return ::ember::masked_select(*this, mask);
}

Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) const {
  check_fill_mask(mask, "masked_fill_");
  check_convertible(value, dtype());
  detail::record_out_op("masked_fill", mut(), {mut(), mask}, [&] {
    TensorIterator iter = masked_iter(mut(), mask, mut());
    masked_fill_kernel(iter.device_type())(iter, value);
    return mut();
  }, [&] { return OpArgs{value}; });
  return mut();
}

Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) const {
  EMBER_CHECK(value.dim() == 0,
              "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  // A value that requires grad gets its gradient (MaskedFillBackward1).
  detail::record_out_op(
      "masked_fill_tensor", mut(), {mut(), mask, value},
      [&] { return masked_fill_(mask, value.item()); }, detail::no_args);
  return mut();
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_fill_mask(mask, "masked_fill_");
  check_convertible(value, self.dtype());
  // Out of place, the result has the broadcast shape of self and mask and
  // is contiguous (PyTorch's self.clone(Contiguous).masked_fill_).
  return detail::record_out_op("masked_fill", Tensor(), {self, mask}, [&] {
    Tensor out = empty(infer_size(mask.sizes(), self.sizes()), self.options());
    TensorIterator iter = masked_iter(out, mask, self);
    masked_fill_kernel(iter.device_type())(iter, value);
    return iter.output();
  }, [&] { return OpArgs{value}; });
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0,
              "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return detail::record_out_op(
      "masked_fill_tensor", Tensor(), {self, mask, value},
      [&] { return masked_fill(self, mask, value.item()); }, detail::no_args);
}

Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  return ::ember::masked_fill(*this, mask, value);
}

Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  return ::ember::masked_fill(*this, mask, value);
}

Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  // As PyTorch: self broadcast against the mask, copied (row-major), then
  // scattered into.
  const DimVector shape = infer_size(sizes(), mask.sizes());
  Tensor base =
      IntArrayRef(shape) == sizes() ? clone(MemoryFormat::Contiguous) : expand(shape).contiguous();
  return base.masked_scatter_(mask, source);
}

Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) const {
  // Note [Recording index ops] in gather.cc.
  if (detail::should_record(mut(), source)) {
    detail::record_out_op(
        "masked_scatter", mut(), {mut(), mask, source},
        [&] { return masked_scatter_(mask, source); }, detail::no_args);
    return mut();
  }
  const bool device_kernel =
      !is_cpu() && masked_scatter_kernel.has(detail::common_device({mut(), mask, source}).type());
  if (!device_kernel && detail::cpu_fallback("masked_scatter_", {mut(), mask, source})) {
    return detail::in_place_on_cpu(
        mut(), [&](Tensor& host) { host.masked_scatter_(detail::cpu(mask), detail::cpu(source)); });
  }
  check_fill_mask(mask, "masked_scatter_");
  EMBER_CHECK(dtype() == source.dtype(),
              "masked_scatter: expected self and source to have same dtypes but got",
              scalar_type_name(dtype()), " and ", scalar_type_name(source.dtype()));
  // The mask broadcasts to self (expand_inplace), with expand's message.
  const int64_t off = dim() - mask.dim();
  bool ok = off >= 0;
  for (int64_t d = 0; ok && d < mask.dim(); ++d) {
    int64_t ms = mask.sizes()[d], ts = sizes()[d + off];
    if (ms != 1 && ms != ts) {
      throw Error(absl::StrCat("The expanded size of the tensor (", ts,
                               ") must match the existing size (", ms,
                               ") at non-singleton dimension ", d + off, ".  Target sizes: ",
                               detail::sizes_str(sizes()), ".  Tensor sizes: ",
                               detail::sizes_str(mask.sizes())));
    }
  }
  EMBER_CHECK(ok, "expand: the number of sizes provided (", dim(),
              ") must be greater or equal to the number of dimensions in the tensor (",
              mask.dim(), ")");
  if (device_kernel) {
    const Tensor m = as_bool_mask(mask).expand(sizes()).contiguous();
    impl()->bump_version();
    if (numel() == 0) return mut();
    if (is_contiguous()) {
      masked_scatter_kernel(device())(mut(), m, source.contiguous());
    } else {
      const Tensor dense = contiguous();
      masked_scatter_kernel(device())(dense, m, source.contiguous());
      mut().copy_(dense);
    }
    return mut();
  }
  const Tensor m = as_bool_mask(mask);
  const Tensor src = source.contiguous();
  const DimVector ms = detail::broadcast_strides(m, sizes());
  const bool* mp = m.data_ptr<bool>();
  const int64_t src_n = src.numel();
  impl()->bump_version();
  detail::dispatch_by_element_size(element_size(), [&](auto tag) {
    using T = decltype(tag);
    const T* s = static_cast<const T*>(src.data_ptr());
    T* dst = static_cast<T*>(data_ptr());
    int64_t k = 0;
    detail::strided_walk<2>(sizes(), {ms.data(), strides().data()}, {0, 0}, 0, numel(),
                            [&](const std::array<int64_t, 2>& o) {
                              if (!mp[o[0]]) return;
                              EMBER_CHECK(k < src_n,
                                          "Number of elements of source < number of ones in mask");
                              dst[o[1]] = s[k++];
                            });
  });
  return mut();
}

// --- take --------------------------------------------------------------------

namespace {
Tensor take_impl(const Tensor& self, const Tensor& index) {
  detail::common_device({self, index});
  EMBER_CHECK(index.dtype() == kLong, "take(): Expected a long tensor for index, but got ",
              scalar_type_name(index.dtype()));
  const Tensor src = self.contiguous();
  const int64_t n = src.numel();
  Tensor out = empty(index.sizes(), self.options());
  if (!self.is_cpu()) {  // Note [Index kernels on devices]
    if (out.numel() == 0) return out;
    detail::IndexLoop l;
    l.mode = detail::IndexMode::kGather;
    l.sizes = DimVector(index.sizes().begin(), index.sizes().end());
    l.index_strides = DimVector(index.strides().begin(), index.strides().end());
    l.dst_strides = DimVector(out.strides().begin(), out.strides().end());
    l.src_strides = DimVector(l.sizes.size(), 0);
    l.dim_stride = 1;
    l.bound = n;
    l.wrap = true;
    l.check = detail::IndexCheck::kTake;
    detail::index_kernel(self.device())(l, out, index, src);
    return out;
  }
  const int64_t* ip = index.data_ptr<int64_t>();
  if (index.is_contiguous()) {  // the indices checked first, then a plain loop
    const int64_t total = index.numel();
    const int64_t bad = detail::first_outside(ip, total, -n, n);
    if (bad < total) {
      throw IndexError(absl::StrCat("out of range: tried to access index ", ip[bad],
                                    " on a tensor of ", n, " elements."));
    }
    detail::dispatch_by_element_size(self.element_size(), [&](auto tag) {
      using T = decltype(tag);
      const T* s = static_cast<const T*>(src.data_ptr());
      T* dst = static_cast<T*>(out.data_ptr());
      parallel_for(0, total, kGrainSize, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k) {
          const int64_t i = ip[k];
          dst[k] = s[i < 0 ? i + n : i];
        }
      });
    });
    return out;
  }
  detail::dispatch_by_element_size(self.element_size(), [&](auto tag) {
    using T = decltype(tag);
    const T* s = static_cast<const T*>(src.data_ptr());
    T* dst = static_cast<T*>(out.data_ptr());
    const int64_t total = index.numel();
    parallel_for(0, total, kGrainSize, [&](int64_t b, int64_t e) {
      int64_t k = b;
      detail::strided_walk<1>(index.sizes(), {index.strides().data()}, {0}, b, e,
                              [&](const std::array<int64_t, 1>& o) {
                                int64_t i = ip[o[0]];
                                if (i < -n || i >= n) {
                                  throw IndexError(absl::StrCat(
                                      "out of range: tried to access index ", i,
                                      " on a tensor of ", n, " elements."));
                                }
                                dst[k++] = s[i < 0 ? i + n : i];
                              });
    });
  });
  return out;
}
}  // namespace

Tensor take(const Tensor& self, const Tensor& index) {
  return detail::record_out_op(
      "take", Tensor(), {self, index}, [&] { return take_impl(self, index); }, detail::no_args);
}

Tensor Tensor::take(const Tensor& index) const { return ::ember::take(*this, index); }

}  // namespace ember
