// reduce_ops.h's ops: scatter_reduce / index_reduce (one CPU loop, a
// device kernel from reduce_ops_kernels.h's table, else the CPU fallback), igamma / igammac
// (TensorIterator kernels, the arithmetic in special_math.h) and histogram (CPU only).

#include "tensor/reduce_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/dim.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/fallback.h"
#include "tensor/index_kernels.h"
#include "tensor/iterator.h"
#include "tensor/loops.h"
#include "tensor/math.h"
#include "tensor/reduce.h"
#include "tensor/reduce_ops_kernels.h"
#include "tensor/special_kernels.h"
#include "tensor/special_math.h"

namespace ember {

namespace detail {
EMBER_DEFINE_KERNEL_TABLE(scatter_reduce_kernel, ScatterReduceFn);
}  // namespace detail

namespace {

// --- scatter_reduce / index_reduce ----------------------------------------------

using Reduce = detail::ScatterReduceOp;

Reduce scatter_reduce_kind(const std::string& r) {
  if (r == "sum") return Reduce::kSum;
  if (r == "prod") return Reduce::kProd;
  if (r == "mean") return Reduce::kMean;
  if (r == "amax") return Reduce::kAmax;
  if (r == "amin") return Reduce::kAmin;
  throw Error("reduce argument must be either sum, prod, mean, amax or amin.");
}

Reduce index_reduce_kind(const std::string& r) {
  if (r == "prod") return Reduce::kProd;
  if (r == "mean") return Reduce::kMean;
  if (r == "amax") return Reduce::kAmax;
  if (r == "amin") return Reduce::kAmin;
  throw Error(absl::StrCat(
      "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ", r, "."));
}

using Geom = detail::IndexGeometry;

template <typename T>
T reduce_identity(Reduce r) {
  switch (r) {
    case Reduce::kProd:
      return static_cast<T>(1);
    case Reduce::kAmax:
      if constexpr (std::numeric_limits<T>::has_infinity) {
        return static_cast<T>(-std::numeric_limits<double>::infinity());
      } else {
        return std::numeric_limits<T>::lowest();
      }
    case Reduce::kAmin:
      if constexpr (std::numeric_limits<T>::has_infinity) {
        return static_cast<T>(std::numeric_limits<double>::infinity());
      } else {
        return std::numeric_limits<T>::max();
      }
    default:
      return static_cast<T>(0);
  }
}

template <typename T>
bool is_nan_value(T v) {
  if constexpr (std::is_integral<T>::value) {
    return false;
  } else {
    return std::isnan(static_cast<double>(v));
  }
}

template <typename T>
T combine(Reduce r, T a, T b) {
  switch (r) {
    case Reduce::kSum:
    case Reduce::kMean:
      if constexpr (std::is_same<T, bool>::value) {
        return a || b;
      } else {
        return static_cast<T>(a + b);
      }
    case Reduce::kProd:
      if constexpr (std::is_same<T, bool>::value) {
        return a && b;
      } else {
        return static_cast<T>(a * b);
      }
    case Reduce::kAmax:  // NaN wins from either side
      return is_nan_value(b) ? b : (a < b ? b : a);
    default:  // kAmin
      return is_nan_value(b) ? b : (b < a ? b : a);
  }
}

// The device kernel's part of reduce_into (self on a device with a kernel):
// the same walk as one IndexLoop over a contiguous self, index values
// checked on the device.
void reduce_into_device(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                        Reduce red, bool include_self, bool index_error) {
  Tensor work = self.is_contiguous() ? self : self.contiguous();
  const Geom s(work), i(index), r(src);
  detail::IndexLoop loop;
  loop.sizes = i.sizes;
  loop.dst_strides = s.strides;
  loop.dst_strides[dim] = 0;
  loop.index_strides = i.strides;
  loop.src_strides = r.strides;
  loop.dim_stride = s.strides[dim];
  loop.bound = s.sizes[dim];
  loop.check =
      index_error ? detail::IndexCheck::kOutOfRangeInSelf : detail::IndexCheck::kOutOfBounds;
  loop.dim = dim;
  detail::scatter_reduce_kernel(work.device())(loop, work, index, src, red, include_self);
  if (!work.is_same(self)) self.copy_(work);
  self.unsafeGetTensorImpl()->bump_version();
}

// The shared CPU loop: for every position p of `index` (row-major, a 0-dim
// index read as [1]), self[p with p[dim] = index[p]] = reduce(that, src[p]).
// Checks the index values (PyTorch's message for each op); the other checks
// are the callers'. On a device with a kernel, the kernel does the same.
void reduce_into(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, Reduce red,
                 bool include_self, bool index_error) {
  if (index.numel() == 0) return;
  EMBER_CHECK(!(self.dtype() == kBool && red == Reduce::kMean),
              "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'");
  if (!self.is_cpu()) {
    reduce_into_device(self, dim, index.to(kLong), src, red, include_self, index_error);
    return;
  }
  const Geom s(self), i(index), r(src);
  const int64_t nd = static_cast<int64_t>(i.sizes.size());
  const int64_t n = index.numel();
  const Tensor idx = index.to(kLong).contiguous();
  const int64_t* ip = idx.data_ptr<int64_t>();
  const int64_t bound = s.sizes[dim];
  // Element offsets of self (with the index value at dim) and src, per position.
  std::vector<int64_t> self_off(n), src_off(n);
  DimVector coord(nd, 0);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t v = ip[k];
    if (v < 0 || v >= bound) {
      if (index_error) throw IndexError("index out of range in self");
      throw Error(
          absl::StrCat("index ", v, " is out of bounds for dimension ", dim, " with size ", bound));
    }
    int64_t so = 0, ro = 0;
    for (int64_t d = 0; d < nd; ++d) {
      so += (d == dim ? v : coord[d]) * s.strides[d];
      ro += coord[d] * r.strides[d];
    }
    self_off[k] = so;
    src_off[k] = ro;
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++coord[d] < i.sizes[d]) break;
      coord[d] = 0;
    }
  }
  self.unsafeGetTensorImpl()->bump_version();
  EMBER_DISPATCH_ALL_TYPES(self.dtype(), "scatter_reduce", [&] {
    scalar_t* sp = self.data_ptr<scalar_t>();
    const scalar_t* rp = src.data_ptr<scalar_t>();
    if (!include_self) {
      const scalar_t init = reduce_identity<scalar_t>(red);
      for (int64_t k = 0; k < n; ++k) sp[self_off[k]] = init;
    }
    for (int64_t k = 0; k < n; ++k) {
      scalar_t& d = sp[self_off[k]];
      d = combine(red, d, rp[src_off[k]]);
    }
    if (red != Reduce::kMean) return;
    if constexpr (!std::is_same<scalar_t, bool>::value) {
      // The count of each position reduced into (self's value counts once).
      std::vector<int64_t> order(self_off.begin(), self_off.end());
      std::sort(order.begin(), order.end());
      for (size_t a = 0; a < order.size();) {
        size_t b = a;
        while (b < order.size() && order[b] == order[a]) ++b;
        const int64_t count = static_cast<int64_t>(b - a) + (include_self ? 1 : 0);
        scalar_t& d = sp[order[a]];
        if constexpr (std::is_integral<scalar_t>::value) {
          const int64_t v = static_cast<int64_t>(d), q = v / count;
          const bool floor_down = v % count != 0 && v < 0;
          d = static_cast<scalar_t>(floor_down ? q - 1 : q);
        } else {
          using acc_t = opmath_t<scalar_t>;
          d = static_cast<scalar_t>(static_cast<acc_t>(d) / static_cast<acc_t>(count));
        }
        a = b;
      }
    }
  });
}

OpArgs reduce_args(int64_t dim, const std::string& reduce, bool include_self) {
  return {Scalar(dim), reduce, Scalar(include_self)};
}

// self (on the CPU, or on a device with a kernel) reduced into in place.
void scatter_reduce_into(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                         const std::string& reduce, bool include_self) {
  const Reduce red = scatter_reduce_kind(reduce);
  dim = detail::wrap_dim(dim, self.dim());
  detail::scatter_checks(self, dim, index, &src);
  reduce_into(self, dim, index, src, red, include_self, false);
}

void index_reduce_into(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                       const std::string& reduce, bool include_self) {
  const Reduce red = index_reduce_kind(reduce);
  dim = detail::wrap_dim(dim, self.dim());
  EMBER_CHECK_INDEX(index.dim() <= 1,
                    "index_reduce_(): Index is supposed to be a vector, but got dim: ", index.dim(),
                    " with type: ", scalar_type_name(index.dtype()),
                    " and size: ", detail::sizes_str(index.sizes()));
  EMBER_CHECK(index.dtype() == kLong || index.dtype() == kInt,
              "index_reduce_(): Expected dtype int32/int64 for index but got: ",
              scalar_type_name(index.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(), "index_reduce_(): self (",
              scalar_type_name(self.dtype()), ") and source (", scalar_type_name(source.dtype()),
              ") must have the same scalar type");
  EMBER_CHECK(dim == 0 || dim < source.dim(), "index_reduce_(): Indexing dim ", dim,
              " is out of bounds of the source tensor with dim ", source.dim());
  const int64_t src_len = source.dim() == 0 ? 1 : source.size(dim);
  EMBER_CHECK(index.numel() == src_len, "index_reduce_(): Number of indices (", index.numel(),
              ") should be equal to source.size(dim): (", src_len, "), for dim: ", dim);
  EMBER_CHECK(self.dtype() != kBool, "\"index_func_\" not implemented for 'Bool'");
  const Tensor idx = index.to(kLong).contiguous();
  if (idx.is_cpu()) {  // on a device, the kernel checks them
    const int64_t bound = self.dim() == 0 ? 1 : self.size(dim);
    const int64_t* ip = idx.data_ptr<int64_t>();
    for (int64_t k = 0; k < idx.numel(); ++k) {
      EMBER_CHECK_INDEX(ip[k] >= 0 && ip[k] < bound, "index out of range in self");
    }
  }
  if (idx.numel() == 0) return;
  // As a scatter: source's slices broadcast to self's slice shape (index
  // along dim), the index expanded over the other dims.
  DimVector slice(self.sizes().begin(), self.sizes().end());
  if (slice.empty()) slice.push_back(1);
  slice[dim] = idx.numel();
  const Tensor src = source.dim() == 0 ? source.reshape({1}) : source;
  DimVector src_slice(src.sizes().begin(), src.sizes().end());
  src_slice.erase(src_slice.begin() + dim);
  DimVector self_slice(slice.begin(), slice.end());
  self_slice.erase(self_slice.begin() + dim);
  const DimVector b = infer_size(self_slice, src_slice);
  EMBER_CHECK(IntArrayRef(b) == IntArrayRef(self_slice), "output with shape ",
              detail::sizes_str(self_slice), " doesn't match the broadcast shape ",
              detail::sizes_str(b));
  // Align src's slice dims to the right of self's (broadcasting), dim kept.
  DimVector view(slice.size(), 1);
  const int64_t off = static_cast<int64_t>(self_slice.size() - src_slice.size());
  for (size_t d = 0; d < src_slice.size(); ++d) {
    const int64_t sd = static_cast<int64_t>(d) + off;
    view[sd >= dim ? sd + 1 : sd] = src_slice[d];
  }
  view[dim] = idx.numel();
  const Tensor src_b = src.reshape(view).expand(slice);
  DimVector iv(slice.size(), 1);
  iv[dim] = idx.numel();
  const Tensor index_b = idx.view(iv).expand(slice);
  Tensor target = self.dim() == 0 ? self.view({1}) : self;
  reduce_into(target, dim, index_b, src_b, red, include_self, true);
}

// --- igamma / igammac ------------------------------------------------------------

#define EMBER_IGAMMA_CPU(op)                                                                     \
  void op##_cpu(TensorIterator& iter) {                                                          \
    EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), #op "_cpu", [&] {                         \
      using acc_t = opmath_t<scalar_t>;                                                          \
      cpu_kernel(iter, [](scalar_t a, scalar_t x) -> scalar_t {                                  \
        return static_cast<scalar_t>(special::op(static_cast<acc_t>(a), static_cast<acc_t>(x))); \
      });                                                                                        \
    });                                                                                          \
  }                                                                                              \
  EMBER_REGISTER_KERNEL(op##_kernel, kCPU, &op##_cpu);
EMBER_IGAMMA_CPU(igamma)
EMBER_IGAMMA_CPU(igammac)
#undef EMBER_IGAMMA_CPU

// out = op(a, x) (a defined out is a, in place), recorded as `name`.
Tensor igamma_op(const char* name, const KernelTable<IterKernelFn>& table, const Tensor& out,
                 const Tensor& a, const Tensor& x) {
  return detail::record_out_op(
      name, out, {a, x},
      [&] {
        TensorIterator iter = TensorIterator::binary_op(out, a, x, IterConfig());
        table(iter.device_type())(iter);
        return iter.output();
      },
      detail::no_args);
}

// --- histogram ----------------------------------------------------------------------

// PyTorch's dtype names in histogramdd's messages ("float", "double").
const char* lower_name(ScalarType t) { return t == kDouble ? "double" : "float"; }

// PyTorch 1.13 has histogram on the CPU only: its dispatcher's first
// sentence for other devices (overload: "bin_ct" or "bins_tensor").
void check_histogram_input(const Tensor& self, const std::optional<Tensor>& weight,
                           const char* overload) {
  EMBER_CHECK(self.is_cpu(), "Could not run 'aten::histogram.", overload,
              "' with arguments from the '", self.device().type() == kCUDA ? "CUDA" : "non-CPU",
              "' backend.");
  EMBER_CHECK(self.dtype() == kFloat || self.dtype() == kDouble,
              "\"histogramdd\" not implemented for '", scalar_type_name(self.dtype()), "'");
  if (weight.has_value() && weight->defined()) {
    EMBER_CHECK(weight->numel() == self.numel(),
                "torch.histogramdd: if weight tensor is provided it should have the same shape as "
                "the input tensor excluding its innermost dimension, but got input with shape [",
                self.numel(), ", 1] and weight with shape [", weight->numel(), "]");
    EMBER_CHECK(weight->dtype() == self.dtype(),
                "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                "should have the same dtype, but got input(",
                lower_name(self.dtype()), "), and weight(", lower_name(weight->dtype()), ")");
  }
}

// Counts self's elements into the bins of `edges` (binary search, or
// linear interpolation refined by a local search for equal bins), then
// normalizes when asked.
Tensor histogram_counts(const Tensor& self, const Tensor& edges,
                        const std::optional<Tensor>& weight, bool density, bool uniform) {
  const int64_t ne = edges.numel();
  Tensor hist = zeros({std::max<int64_t>(ne - 1, 0)}, self.options());
  const Tensor x = self.contiguous().reshape({-1});
  const bool weighted = weight.has_value() && weight->defined();
  const Tensor w = weighted ? weight->contiguous().reshape({-1}) : Tensor();
  EMBER_DISPATCH_FLOAT_DOUBLE(self.dtype(), "histogramdd", [&] {
    const Tensor ec = edges.contiguous();
    const scalar_t* e = ec.data_ptr<scalar_t>();
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const scalar_t* wp = weighted ? w.data_ptr<scalar_t>() : nullptr;
    scalar_t* hp = hist.data_ptr<scalar_t>();
    if (ne < 2) return;
    const scalar_t lo = e[0], hi = e[ne - 1];
    for (int64_t k = 0; k < x.numel(); ++k) {
      const scalar_t v = xp[k];
      if (!(v >= lo && v <= hi)) continue;  // outside, or NaN
      int64_t pos;
      if (uniform) {
        pos = static_cast<int64_t>((v - lo) * static_cast<scalar_t>(ne - 1) / (hi - lo));
        const int64_t pmin = std::max<int64_t>(0, pos - 1), pmax = std::min(pos + 2, ne);
        pos = std::upper_bound(e + pmin, e + pmax, v) - e - 1;
      } else {
        pos = std::upper_bound(e, e + ne, v) - e - 1;
      }
      if (pos == ne - 1) pos -= 1;  // the last bin includes its right edge
      hp[pos] += weighted ? wp[k] : scalar_t(1);
    }
  });
  if (density) {
    hist.div_(hist.sum().item<double>());
    hist.div_(edges.narrow(0, 1, ne - 1) - edges.narrow(0, 0, ne - 1));
  }
  return hist;
}

}  // namespace

// --- free functions and methods -------------------------------------------------------

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self) {
  return detail::record_out_op(
      "scatter_reduce", Tensor(), {self, index, src},
      [&] {
        Tensor out = self.clone(MemoryFormat::Contiguous);
        out.scatter_reduce_(dim, index, src, reduce, include_self);
        return out;
      },
      [&] { return reduce_args(dim, reduce, include_self); });
}

Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                                const std::string& reduce, bool include_self) const {
  if (detail::should_record(mut(), src)) {
    detail::record_out_op(
        "scatter_reduce", mut(), {mut(), index, src},
        [&] { return scatter_reduce_(dim, index, src, reduce, include_self); },
        [&] { return reduce_args(dim, reduce, include_self); });
    return mut();
  }
  const bool device_kernel =
      !mut().is_cpu() && detail::scatter_reduce_kernel.has(mut().device().type());
  if (device_kernel) detail::common_device({mut(), index, src});
  if (!device_kernel && detail::cpu_fallback("scatter_reduce_", {mut(), index, src})) {
    return detail::in_place_on_cpu(mut(), [&](Tensor& host) {
      scatter_reduce_into(host, dim, detail::cpu(index), detail::cpu(src), reduce, include_self);
    });
  }
  scatter_reduce_into(mut(), dim, index, src, reduce, include_self);
  return mut();
}

Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                              const std::string& reduce, bool include_self) const {
  return ::ember::scatter_reduce(*this, dim, index, src, reduce, include_self);
}

Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    const std::string& reduce, bool include_self) {
  return detail::record_out_op(
      "index_reduce", Tensor(), {self, index, source},
      [&] {
        Tensor out = self.clone(MemoryFormat::Contiguous);
        out.index_reduce_(dim, index, source, reduce, include_self);
        return out;
      },
      [&] { return reduce_args(dim, reduce, include_self); });
}

Tensor& Tensor::index_reduce_(int64_t dim, const Tensor& index, const Tensor& source,
                              const std::string& reduce, bool include_self) const {
  if (detail::should_record(mut(), source)) {
    detail::record_out_op(
        "index_reduce", mut(), {mut(), index, source},
        [&] { return index_reduce_(dim, index, source, reduce, include_self); },
        [&] { return reduce_args(dim, reduce, include_self); });
    return mut();
  }
  const bool device_kernel =
      !mut().is_cpu() && detail::scatter_reduce_kernel.has(mut().device().type());
  if (device_kernel) detail::common_device({mut(), index, source});
  if (!device_kernel && detail::cpu_fallback("index_reduce_", {mut(), index, source})) {
    return detail::in_place_on_cpu(mut(), [&](Tensor& host) {
      index_reduce_into(host, dim, detail::cpu(index), detail::cpu(source), reduce, include_self);
    });
  }
  index_reduce_into(mut(), dim, index, source, reduce, include_self);
  return mut();
}

Tensor Tensor::index_reduce(int64_t dim, const Tensor& index, const Tensor& source,
                            const std::string& reduce, bool include_self) const {
  return ::ember::index_reduce(*this, dim, index, source, reduce, include_self);
}

Tensor igamma(const Tensor& self, const Tensor& other) {
  return igamma_op("igamma", igamma_kernel, Tensor(), self, other);
}
Tensor igammac(const Tensor& self, const Tensor& other) {
  return igamma_op("igammac", igammac_kernel, Tensor(), self, other);
}
Tensor Tensor::igamma(const Tensor& other) const { return ::ember::igamma(*this, other); }
Tensor Tensor::igammac(const Tensor& other) const { return ::ember::igammac(*this, other); }
Tensor& Tensor::igamma_(const Tensor& other) const {
  igamma_op("igamma", igamma_kernel, mut(), mut(), other);
  return mut();
}
Tensor& Tensor::igammac_(const Tensor& other) const {
  igamma_op("igammac", igammac_kernel, mut(), mut(), other);
  return mut();
}

std::tuple<Tensor, Tensor> histogram(const Tensor& self, int64_t bins,
                                     const std::optional<std::vector<double>>& range,
                                     const std::optional<Tensor>& weight, bool density) {
  check_histogram_input(self, weight, "bin_ct");
  EMBER_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  double lo = 0, hi = 1;
  if (range.has_value()) {
    EMBER_CHECK(range->size() == 2, "torch.histogram(): range should have 2 elements, but got ",
                range->size());
    lo = (*range)[0];
    hi = (*range)[1];
  } else if (self.numel() > 0) {
    lo = self.min().item<double>();
    hi = self.max().item<double>();
  }
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histogramdd: dimension 0's range [",
              lo, ", ", hi, "] is not finite");
  EMBER_CHECK(lo <= hi, "torch.histogramdd: min should not exceed max, but got min ", lo, " max ",
              hi, " for dimension 0");
  if (lo == hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  Tensor edges = linspace(lo, hi, bins + 1, self.options());
  Tensor hist = histogram_counts(self.detach(), edges, weight, density, true);
  return {hist, edges};
}

std::tuple<Tensor, Tensor> histogram(const Tensor& self, const Tensor& bins,
                                     const std::optional<Tensor>& weight, bool density) {
  check_histogram_input(self, weight, "bins_tensor");
  EMBER_CHECK(bins.dim() == 1, "torch.histogramdd: bins tensor should have one dimension, but got ",
              bins.dim(), " dimensions in the bins tensor for dimension 0");
  EMBER_CHECK(bins.dtype() == self.dtype(),
              "torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
              "got input with dtype ",
              lower_name(self.dtype()), " and bins for dimension 0 with dtype ",
              lower_name(bins.dtype()));
  EMBER_CHECK(bins.numel() > 1, "torch.histogram(): bins must be > 0, but got ", bins.numel() - 1,
              " for dimension 0");
  Tensor edges = bins.detach().clone(MemoryFormat::Contiguous);
  Tensor hist = histogram_counts(self.detach(), edges, weight, density, false);
  return {hist, edges};
}

std::tuple<Tensor, Tensor> Tensor::histogram(int64_t bins,
                                             const std::optional<std::vector<double>>& range,
                                             const std::optional<Tensor>& weight,
                                             bool density) const {
  return ::ember::histogram(*this, bins, range, weight, density);
}
std::tuple<Tensor, Tensor> Tensor::histogram(const Tensor& bins,
                                             const std::optional<Tensor>& weight,
                                             bool density) const {
  return ::ember::histogram(*this, bins, weight, density);
}

}  // namespace ember
