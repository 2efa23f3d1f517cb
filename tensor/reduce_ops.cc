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

// --- histogram / histogramdd --------------------------------------------------------
// Note [One histogram]: histogram is histogramdd of a [numel, 1] input, as
// in PyTorch 1.13; both share the outer-edge selection, the checks and the
// counting loop below.

// PyTorch 1.13 has histogram(dd) on the CPU only: its dispatcher's first
// sentence for other devices (op: e.g. "histogram.bin_ct").
void check_histogram_device(const Tensor& self, const char* op) {
  EMBER_CHECK(self.is_cpu(), "Could not run 'aten::", op, "' with arguments from the '",
              self.device().type() == kCUDA ? "CUDA" : "non-CPU", "' backend.");
}

// The dtype check of the counting kernel (PyTorch's dispatch names it
// "histogramdd" where edges come from the data, "histogram_cpu" otherwise).
void check_histogram_dtype(const Tensor& self, const char* name) {
  EMBER_CHECK(self.dtype() == kFloat || self.dtype() == kDouble, "\"", name,
              "\" not implemented for '", scalar_type_name(self.dtype()), "'");
}

// histogramdd_check_inputs: x is the [M, N] input as the user gave it
// (sizes for messages), edges one 1-D tensor per dimension.
void check_histogramdd_inputs(const Tensor& self, const std::vector<Tensor>& edges,
                              const std::optional<Tensor>& weight) {
  const int64_t n = self.size(-1);
  EMBER_CHECK(static_cast<int64_t>(edges.size()) == n, "torch.histogramdd: expected ", n,
              " sequences of bin edges for a ", n, "-dimensional histogram but got ", edges.size());
  for (int64_t d = 0; d < n; ++d) {
    const Tensor& e = edges[d];
    EMBER_CHECK(e.dtype() == self.dtype(),
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
                "got input with dtype ",
                detail::typemeta_name(self.dtype()), " and bins for dimension ", d, " with dtype ",
                detail::typemeta_name(e.dtype()));
    EMBER_CHECK(e.dim() == 1, "torch.histogramdd: bins tensor should have one dimension, but got ",
                e.dim(), " dimensions in the bins tensor for dimension ", d);
    EMBER_CHECK(e.numel() > 0,
                "torch.histogramdd: bins tensor should have at least 1 element, but got ",
                e.numel(), " elements in the bins tensor for dimension ", d);
  }
  if (weight.has_value() && weight->defined()) {
    EMBER_CHECK(weight->dtype() == self.dtype(),
                "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                "should have the same dtype, but got input(",
                detail::typemeta_name(self.dtype()), "), and weight(",
                detail::typemeta_name(weight->dtype()), ")");
    std::vector<int64_t> want(self.sizes().begin(), self.sizes().end() - 1);
    std::vector<int64_t> got(weight->sizes().begin(), weight->sizes().end());
    if (got.empty()) got = {1};
    EMBER_CHECK(want == got,
                "torch.histogramdd: if weight tensor is provided it should have the same shape as "
                "the input tensor excluding its innermost dimension, but got input with shape ",
                detail::sizes_str(self.sizes()), " and weight with shape ",
                detail::sizes_str(weight->sizes()));
  }
  for (int64_t d = 0; d < n; ++d) {
    EMBER_CHECK(edges[d].numel() > 1, "torch.histogram(): bins must be > 0, but got ",
                edges[d].numel() - 1, " for dimension ", d);
  }
}

// select_outer_bin_edges: [lo, hi] per dimension of the [M, N] input x,
// from range (2 N values) or x's extrema; a degenerate range widens by 1/2.
std::vector<std::pair<double, double>> outer_bin_edges(
    const Tensor& x, const std::optional<std::vector<double>>& range) {
  const int64_t n = x.size(1);
  std::vector<std::pair<double, double>> out(n, {0., 1.});
  if (range.has_value()) {
    EMBER_CHECK(static_cast<int64_t>(range->size()) == 2 * n, "torch.histogramdd: for a ", n,
                "-dimensional histogram range should have ", 2 * n, " elements, but got ",
                range->size());
    for (int64_t d = 0; d < n; ++d) out[d] = {(*range)[2 * d], (*range)[2 * d + 1]};
  } else if (x.numel() > 0) {
    check_histogram_dtype(x, "histogramdd");
    const Tensor lo = x.amin({0}).to(kDouble), hi = x.amax({0}).to(kDouble);
    for (int64_t d = 0; d < n; ++d) {
      out[d] = {lo.data_ptr<double>()[d], hi.data_ptr<double>()[d]};
    }
  }
  for (int64_t d = 0; d < n; ++d) {
    auto& [lo, hi] = out[d];
    EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histogramdd: dimension ", d,
                "'s range [", lo, ", ", hi, "] is not finite");
    EMBER_CHECK(lo <= hi, "torch.histogramdd: min should not exceed max, but got min ", lo, " max ",
                hi, " for dimension ", d);
    if (lo == hi) {
      lo -= 0.5;
      hi += 0.5;
    }
  }
  return out;
}

// Counts the rows of x ([M, N]) into the bins the N `edges` make (binary
// search, or for equal bins linear interpolation refined by a local
// search), then normalizes when asked. A row outside any dimension's outer
// edges (or NaN there) is ignored; the last bin of each dimension includes
// its right edge. w: M weights or undefined.
Tensor histogramdd_counts(const Tensor& x, const std::vector<Tensor>& edges, const Tensor& w,
                          bool density, bool uniform) {
  const int64_t n = static_cast<int64_t>(edges.size());
  std::vector<int64_t> shape(n);
  for (int64_t d = 0; d < n; ++d) shape[d] = edges[d].numel() - 1;
  Tensor hist = zeros(shape, x.options());
  check_histogram_dtype(x, "histogram_cpu");
  if (x.numel() > 0 && hist.numel() > 0) {
    const Tensor xc = x.contiguous();
    const Tensor wc = w.defined() ? w.contiguous().reshape({-1}) : Tensor();
    EMBER_DISPATCH_FLOAT_DOUBLE(x.dtype(), "histogramdd", [&] {
      std::vector<Tensor> ec(n);
      std::vector<const scalar_t*> e(n);
      for (int64_t d = 0; d < n; ++d) {
        ec[d] = edges[d].contiguous();
        e[d] = ec[d].template data_ptr<scalar_t>();
      }
      const scalar_t* xp = xc.data_ptr<scalar_t>();
      const scalar_t* wp = wc.defined() ? wc.data_ptr<scalar_t>() : nullptr;
      scalar_t* hp = hist.data_ptr<scalar_t>();
      const int64_t m = xc.size(0);
      for (int64_t k = 0; k < m; ++k) {
        int64_t flat = 0;
        bool inside = true;
        for (int64_t d = 0; d < n && inside; ++d) {
          const scalar_t v = xp[k * n + d];
          const int64_t ne = shape[d] + 1;
          const scalar_t lo = e[d][0], hi = e[d][ne - 1];
          if (!(v >= lo && v <= hi)) {  // outside, or NaN
            inside = false;
            break;
          }
          int64_t pos;
          if (uniform) {
            pos = static_cast<int64_t>((v - lo) * static_cast<scalar_t>(ne - 1) / (hi - lo));
            const int64_t pmin = std::max<int64_t>(0, pos - 1), pmax = std::min(pos + 2, ne);
            pos = std::upper_bound(e[d] + pmin, e[d] + pmax, v) - e[d] - 1;
          } else {
            pos = std::upper_bound(e[d], e[d] + ne, v) - e[d] - 1;
          }
          if (pos == ne - 1) pos -= 1;  // the last bin includes its right edge
          flat = flat * shape[d] + pos;
        }
        if (inside) hp[flat] += wp ? wp[k] : scalar_t(1);
      }
    });
  }
  if (density) {
    hist.div_(hist.sum().item<double>());
    for (int64_t d = 0; d < n; ++d) {
      const int64_t nb = shape[d];
      std::vector<int64_t> len_shape(n, 1);
      len_shape[d] = nb;
      hist.div_((edges[d].narrow(0, 1, nb) - edges[d].narrow(0, 0, nb)).reshape(len_shape));
    }
  }
  return hist;
}

void check_histogramdd_dim(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "torch.histogramdd: input tensor should have at least 2 dimensions");
}

// self as PyTorch's [M, N] (all but the last dimension flattened).
Tensor rows_of(const Tensor& self) {
  const int64_t n = self.size(-1);
  int64_t m = 1;
  for (int64_t d = 0; d + 1 < self.dim(); ++d) m *= self.size(d);
  return self.detach().reshape({m, n});
}

// histogramdd's int[] form once the input is checked to be at least 2-D.
std::tuple<Tensor, std::vector<Tensor>> histogramdd_from_counts(
    const Tensor& self, IntArrayRef bins, const std::optional<std::vector<double>>& range,
    const std::optional<Tensor>& weight, bool density) {
  const Tensor x = rows_of(self);
  const int64_t n = x.size(1);
  // PyTorch 1.13 reads bins[d] for d < N unchecked; ember refuses a count
  // that is not one per dimension, with the message of its edges check.
  EMBER_CHECK(static_cast<int64_t>(bins.size()) == n, "torch.histogramdd: expected ", n,
              " sequences of bin edges for a ", n, "-dimensional histogram but got ", bins.size());
  const auto outer = outer_bin_edges(x, range);
  std::vector<Tensor> edges(n);
  for (int64_t d = 0; d < n; ++d) {
    edges[d] = linspace(outer[d].first, outer[d].second, bins[d] + 1, self.options());
  }
  check_histogramdd_inputs(self, edges, weight);
  const Tensor w = weight.has_value() ? *weight : Tensor();
  Tensor hist = histogramdd_counts(x, edges, w.defined() ? w.detach() : w, density, true);
  return {hist, edges};
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

// Note [One histogram]: 1.13's histogram checks bins and range itself, then
// runs histogramdd on self.reshape({-1, 1}) and weight.reshape({-1}).
std::tuple<Tensor, Tensor> histogram(const Tensor& self, int64_t bins,
                                     const std::optional<std::vector<double>>& range,
                                     const std::optional<Tensor>& weight, bool density) {
  check_histogram_device(self, "histogram.bin_ct");
  EMBER_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  std::optional<Tensor> w;
  if (weight.has_value() && weight->defined()) w = weight->reshape({-1});
  auto [hist, edges] = histogramdd_from_counts(self.reshape({-1, 1}), {bins}, range, w, density);
  return {hist, edges[0]};
}

std::tuple<Tensor, Tensor> histogram(const Tensor& self, const Tensor& bins,
                                     const std::optional<Tensor>& weight, bool density) {
  check_histogram_device(self, "histogram.bins_tensor");
  const Tensor x = self.detach().reshape({-1, 1});
  std::optional<Tensor> w;
  if (weight.has_value() && weight->defined()) w = weight->reshape({-1});
  const std::vector<Tensor> edges = {bins.detach()};
  check_histogramdd_inputs(x, edges, w);
  Tensor edge = bins.detach().clone(MemoryFormat::Contiguous);
  Tensor hist = histogramdd_counts(x, {edge}, w ? w->detach() : Tensor(), density, false);
  return {hist, edge};
}

std::tuple<Tensor, std::vector<Tensor>> histogramdd(const Tensor& self, IntArrayRef bins,
                                                    const std::optional<std::vector<double>>& range,
                                                    const std::optional<Tensor>& weight,
                                                    bool density) {
  // 1.13's int[] form is a composite whose first CPU-only op is this one.
  check_histogram_device(self, "_histogramdd_bin_edges");
  check_histogramdd_dim(self);
  return histogramdd_from_counts(self, bins, range, weight, density);
}

std::tuple<Tensor, std::vector<Tensor>> histogramdd(const Tensor& self, int64_t bins,
                                                    const std::optional<std::vector<double>>& range,
                                                    const std::optional<Tensor>& weight,
                                                    bool density) {
  check_histogram_device(self, "_histogramdd_bin_edges");
  check_histogramdd_dim(self);
  const std::vector<int64_t> bin_ct(self.size(-1), bins);
  return histogramdd_from_counts(self, bin_ct, range, weight, density);
}

std::tuple<Tensor, std::vector<Tensor>> histogramdd(const Tensor& self, TensorList bins,
                                                    const std::optional<std::vector<double>>& range,
                                                    const std::optional<Tensor>& weight,
                                                    bool density) {
  (void)range;  // 1.13 ignores range when the edges are given
  check_histogram_device(self, "_histogramdd_from_bin_tensors");
  check_histogramdd_dim(self);
  std::vector<Tensor> edges;
  for (const Tensor& b : bins) edges.push_back(b.detach());
  check_histogramdd_inputs(self, edges, weight);
  for (Tensor& e : edges) e = e.clone(MemoryFormat::Contiguous);
  const Tensor w = weight.has_value() ? *weight : Tensor();
  Tensor hist =
      histogramdd_counts(rows_of(self), edges, w.defined() ? w.detach() : w, density, false);
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
