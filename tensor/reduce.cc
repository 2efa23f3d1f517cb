// Reductions: dims, output shapes and dtypes, and the Tensor methods. The
// loops are in reduce_kernels.cc and reduce_minmax.cc (Note [Reduction
// engine]); scans and softmax in scan.cc.

#include "tensor/reduce.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "tensor/autocast.h"
#include "tensor/autograd_hook.h"
#include "tensor/dim.h"
#include "tensor/empty.h"
#include "tensor/record_function.h"
#include "tensor/reduce_engine.h"

namespace ember {
namespace reduce_detail {

EMBER_DEFINE_KERNEL_TABLE(reduce_stub, ReduceKernelFn);
EMBER_REGISTER_KERNEL(reduce_stub, kCPU, &reduce_cpu);

DimMask make_dim_mask(const Tensor& t, IntArrayRef dims) {
  DimMask mask;
  const int64_t nd = t.dim();
  EMBER_CHECK(nd <= kMaxDims, "reductions support tensors of up to ", kMaxDims, " dims");
  if (dims.empty()) {
    for (int64_t d = 0; d < nd; ++d) mask.set(d);
    return mask;
  }
  for (int64_t d : dims) {
    int64_t w = detail::wrap_dim(d, nd);
    EMBER_CHECK(!mask.test(w), "dim ", w, " appears multiple times in the list of dims");
    mask.set(w);
  }
  return mask;
}

DimVector reduced_shape(const Tensor& t, const DimMask& mask, bool keepdim) {
  DimVector shape;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (!mask.test(d)) {
      shape.push_back(t.sizes()[d]);
    } else if (keepdim) {
      shape.push_back(1);
    }
  }
  return shape;
}

namespace {
// Merges neighbours (outer a, inner b) whose strides make them one dim, and
// drops size-1 dims.
void coalesce(DimVector& sz, DimVector& st) {
  DimVector s2, t2;
  for (size_t i = 0; i < sz.size(); ++i) {
    if (sz[i] == 1) continue;
    if (!s2.empty() && t2.back() == sz[i] * st[i]) {
      s2.back() *= sz[i];
      t2.back() = st[i];
    } else {
      s2.push_back(sz[i]);
      t2.push_back(st[i]);
    }
  }
  sz = std::move(s2);
  st = std::move(t2);
}
}  // namespace

// Note [Reduced dims in memory order]: a reduction whose result does not
// depend on the order of its elements (sum, mean, prod, var/std, norm,
// logsumexp, amax/amin, all/any, count_nonzero; not the arg reductions,
// whose index is the logical position) walks its reduced dims sorted by
// stride, outermost largest, so that those of a transposed, permuted or
// channels-last input coalesce into long contiguous runs for the op's
// vectorized loop: amax over both dims of a transposed [256, 256] float
// tensor walked 256 runs of stride 256 (100 us, libtorch 1.13: 6 us).
// PyTorch's TensorIterator also sorts the dims of a reduction by the
// input's strides, so a float sum adds in memory order there too.
// Stride-0 (expanded) dims go outermost, where they repeat whole runs.
// amax/amin of floats choose between 0.0 and -0.0 by order: they redo a
// zero result in logical order (reduce_minmax.cc).
ReducePlan make_plan(const Tensor& t, const DimMask& mask, bool any_order) {
  ReducePlan p;
  for (int64_t d = 0; d < t.dim(); ++d) {
    int64_t s = t.sizes()[d];
    if (mask.test(d)) {
      p.rsz.push_back(s);
      p.rstr.push_back(t.strides()[d]);
      p.nred *= s;
    } else {
      p.osz.push_back(s);
      p.ostr.push_back(t.strides()[d]);
      p.nout *= s;
    }
  }
  if (p.nred == 0 || p.nout == 0) {
    // Nothing to walk: the kernels only write identities (or nothing).
    p.rsz.clear();
    p.rstr.clear();
    if (p.nout == 0) {
      p.osz.clear();
      p.ostr.clear();
    }
    return p;
  }
  if (any_order && p.rsz.size() > 1) {
    auto key = [](int64_t stride) {
      return stride == 0 ? std::numeric_limits<int64_t>::max() : std::abs(stride);
    };
    DimVector order;
    for (size_t i = 0; i < p.rsz.size(); ++i) order.push_back(static_cast<int64_t>(i));
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return key(p.rstr[a]) > key(p.rstr[b]); });
    DimVector sz, st;
    for (int64_t i : order) {
      sz.push_back(p.rsz[i]);
      st.push_back(p.rstr[i]);
    }
    p.rsz = std::move(sz);
    p.rstr = std::move(st);
  }
  coalesce(p.osz, p.ostr);
  coalesce(p.rsz, p.rstr);
  return p;
}

namespace {
Tensor skip_nan_reduction(ReduceKind kind, const Tensor& self, IntArrayRef dim, bool keepdim,
                          ScalarType out_dtype) {
  EMBER_CHECK(self.device().is_cpu() && (self.dtype() == kFloat || self.dtype() == kDouble ||
                                         (kind == ReduceKind::kSum &&
                                          (self.dtype() == kHalf || self.dtype() == kBFloat16))),
              "expected a float or double CPU tensor");
  const DimMask mask = make_dim_mask(self, dim);
  Tensor outs[2];
  outs[0] = empty(reduced_shape(self, mask, keepdim), self.options().dtype(out_dtype));
  ReduceArgs args;
  args.skip_nan = true;
  reduce_cpu(kind, self, mask, args, outs);
  return outs[0];
}
}  // namespace

Tensor nansum_cpu(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return skip_nan_reduction(ReduceKind::kSum, self, dim, keepdim, self.dtype());
}
Tensor count_not_nan_cpu(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return skip_nan_reduction(ReduceKind::kCountNonzero, self, dim, keepdim, kLong);
}

}  // namespace reduce_detail

namespace {

using reduce_detail::DimMask;
using reduce_detail::ReduceArgs;
using reduce_detail::ReduceKind;
using reduce_detail::reduced_shape;

void check_cpu_or_cuda_input(const Tensor& self, const char* name) {
  EMBER_CHECK(self.defined(), name, "(): expected a defined tensor");
  EMBER_CHECK(!self.is_quantized(), "Could not run 'aten::", name,
              "' with arguments from the 'QuantizedCPU' backend.");
}

// Runs `kind` over `mask` into freshly allocated outputs of the given dtypes.
Tensor run1(ReduceKind kind, const Tensor& in, const DimMask& mask, bool keepdim,
            ScalarType out_dtype, const ReduceArgs& args = {}) {
  Tensor outs[2];
  outs[0] = empty(reduced_shape(in, mask, keepdim), TensorOptions(out_dtype).device(in.device()));
  reduce_detail::reduce_stub(in.device())(kind, in, mask, args, outs);
  return outs[0];
}

std::tuple<Tensor, Tensor> run2(ReduceKind kind, const Tensor& in, const DimMask& mask,
                                bool keepdim, ScalarType dt0, ScalarType dt1,
                                const ReduceArgs& args = {}) {
  Tensor outs[2];
  DimVector shape = reduced_shape(in, mask, keepdim);
  outs[0] = empty(shape, TensorOptions(dt0).device(in.device()));
  outs[1] = empty(shape, TensorOptions(dt1).device(in.device()));
  reduce_detail::reduce_stub(in.device())(kind, in, mask, args, outs);
  return {outs[0], outs[1]};
}

Tensor cast_if(const Tensor& self, std::optional<ScalarType> dtype) {
  return dtype && *dtype != self.dtype() ? self.to(*dtype) : self;
}

// sum and prod: bool and integers accumulate in (and return) int64 unless
// a dtype is given.
Tensor sum_or_prod(ReduceKind kind, const Tensor& self, const DimMask& mask, bool keepdim,
                   std::optional<ScalarType> dtype, const char* name) {
  check_cpu_or_cuda_input(self, name);
  Tensor in = cast_if(self, dtype);
  bool integral = is_integral(in.dtype(), /*include_bool=*/true);
  Tensor out = run1(kind, in, mask, keepdim, integral ? kLong : in.dtype());
  return dtype && out.dtype() != *dtype ? out.to(*dtype) : out;
}

Tensor mean_impl(const Tensor& self, const DimMask& mask, bool keepdim,
                 std::optional<ScalarType> dtype) {
  check_cpu_or_cuda_input(self, "mean");
  if (dtype) {
    EMBER_CHECK(is_floating_point(*dtype),
                "mean(): could not infer output dtype. Optional dtype must be either a floating "
                "point or complex dtype. Got: ",
                scalar_type_name(*dtype));
  } else {
    EMBER_CHECK(self.is_floating_point(),
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                "point or complex dtype. Got: ",
                scalar_type_name(self.dtype()));
  }
  Tensor in = cast_if(self, dtype);
  int64_t n = 1;
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (mask.test(d)) n *= in.sizes()[d];
  }
  ReduceArgs args;
  args.scale = n == 0 ? std::numeric_limits<double>::quiet_NaN() : 1.0 / static_cast<double>(n);
  return run1(ReduceKind::kSum, in, mask, keepdim, in.dtype(), args);
}

void check_var_dtype(const Tensor& self) {
  EMBER_CHECK(self.is_floating_point(),
              "std and var only support floating point and complex dtypes");
}

DimMask mask_or_all(const Tensor& self, std::optional<IntArrayRef> dim) {
  return reduce_detail::make_dim_mask(self, dim ? *dim : IntArrayRef{});
}

std::tuple<Tensor, Tensor> var_impl(const Tensor& self, std::optional<IntArrayRef> dim,
                                    std::optional<int64_t> correction, bool keepdim,
                                    bool take_sqrt, bool with_mean) {
  check_cpu_or_cuda_input(self, take_sqrt ? "std" : "var");
  check_var_dtype(self);
  DimMask mask = mask_or_all(self, dim);
  ReduceArgs args;
  args.correction = correction.value_or(1);
  args.take_sqrt = take_sqrt;
  Tensor outs[2];
  DimVector shape = reduced_shape(self, mask, keepdim);
  TensorOptions o = TensorOptions(self.dtype()).device(self.device());
  outs[0] = empty(shape, o);
  if (with_mean) outs[1] = empty(shape, o);
  reduce_detail::reduce_stub(self.device())(ReduceKind::kVar, self, mask, args, outs);
  return {outs[0], outs[1]};
}

// p as a double; inf and -inf select max / min of |x|.
Tensor norm_impl(const Tensor& self, double p, const DimMask& mask, bool keepdim,
                 std::optional<ScalarType> dtype) {
  check_cpu_or_cuda_input(self, "norm");
  if (dtype) {
    EMBER_CHECK(is_floating_point(*dtype),
                "norm(): the desired output dtype should be either floating point or complex. "
                "Got ",
                scalar_type_name(*dtype), " instead.");
  }
  EMBER_CHECK(self.is_floating_point(),
              "norm(): input dtype should be either floating point or complex. Got ",
              scalar_type_name(self.dtype()), " instead.");
  Tensor in = cast_if(self, dtype);
  ReduceArgs args;
  // 1.13's norm kernel holds p as a float: norm(x, 0.3) of a double tensor
  // is sum(|x|^0.3f)^(1/0.3f) (its derivative keeps the double p).
  args.p = static_cast<double>(static_cast<float>(p));
  Tensor r = run1(ReduceKind::kNorm, in, mask, keepdim, in.dtype(), args);
  // PyTorch 1.13's norm(-inf) of nothing is 0, as its inf norm's (2.x's
  // linalg.vector_norm raises for both).
  if (std::isinf(p) && p < 0 && in.numel() == 0 && r.numel() > 0) r.zero_();
  return r;
}

// max()/min()/amax()/amin()/argmax()/argmin() of an empty tensor need a dim,
// and the reduced dims must not be empty.
void check_nonempty_reduction(const Tensor& self, const DimMask& mask, bool dim_given,
                              const char* name, bool index_error) {
  if (!dim_given) {
    if (self.numel() == 0) {
      std::string msg =
          absl::StrCat(name, "(): Expected reduction dim to be specified for input.numel() == 0.");
      if (index_error) throw IndexError(msg);
      throw Error(absl::StrCat(msg, " Specify the reduction dim with the 'dim' argument."));
    }
    return;
  }
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (mask.test(d) && self.sizes()[d] == 0) {
      throw IndexError(
          absl::StrCat(name, "(): Expected reduction dim ", d, " to have non-zero size."));
    }
  }
}

Tensor amax_amin(const Tensor& self, IntArrayRef dim, bool keepdim, bool is_max) {
  const char* name = is_max ? "amax" : "amin";
  check_cpu_or_cuda_input(self, name);
  DimMask mask = reduce_detail::make_dim_mask(self, dim);
  check_nonempty_reduction(self, mask, !dim.empty() && self.dim() > 0, name, false);
  return run1(is_max ? ReduceKind::kAmax : ReduceKind::kAmin, self, mask, keepdim, self.dtype());
}

Tensor max_min_all(const Tensor& self, bool is_max) {
  const char* name = is_max ? "max" : "min";
  check_cpu_or_cuda_input(self, name);
  DimMask mask = reduce_detail::make_dim_mask(self, {});
  check_nonempty_reduction(self, mask, false, name, false);
  return run1(is_max ? ReduceKind::kAmax : ReduceKind::kAmin, self, mask, false, self.dtype());
}

std::tuple<Tensor, Tensor> max_min_dim(const Tensor& self, int64_t dim, bool keepdim,
                                       bool is_max) {
  const char* name = is_max ? "max" : "min";
  check_cpu_or_cuda_input(self, name);
  int64_t d = detail::wrap_dim(dim, self.dim());
  DimMask mask;
  if (self.dim() > 0) mask.set(d);
  check_nonempty_reduction(self, mask, true, name, false);
  return run2(is_max ? ReduceKind::kMax : ReduceKind::kMin, self, mask, keepdim, self.dtype(),
              kLong);
}

Tensor arg_impl(const Tensor& self, std::optional<int64_t> dim, bool keepdim, bool is_max) {
  const char* name = is_max ? "argmax" : "argmin";
  check_cpu_or_cuda_input(self, name);
  DimMask mask;
  if (dim) {
    int64_t d = detail::wrap_dim(*dim, self.dim());
    if (self.dim() > 0) mask.set(d);
    check_nonempty_reduction(self, mask, true, name, true);
    // ATen's argmax_argmin_impl: a reduced dim of size 1 gives zeros and an
    // empty result nothing, before the kernel's dtype check (bool works).
    if (self.dim() > 0 && (self.sizes()[d] == 1 || self.numel() == 0)) {
      DimVector out(self.sizes().begin(), self.sizes().end());
      if (keepdim) {
        out[d] = 1;
      } else {
        out.erase(out.begin() + d);
      }
      Tensor r = empty(out, self.options().dtype(kLong));
      r.zero_();
      return r;
    }
    return run1(is_max ? ReduceKind::kArgmax : ReduceKind::kArgmin, self, mask, keepdim, kLong);
  }
  check_nonempty_reduction(self, mask, false, name, true);
  // Without a dim: the index into the flattened tensor; keepdim keeps every
  // dim as size 1.
  mask = reduce_detail::make_dim_mask(self, {});
  return run1(is_max ? ReduceKind::kArgmax : ReduceKind::kArgmin, self, mask, keepdim, kLong);
}

Tensor all_any(const Tensor& self, const DimMask& mask, bool keepdim, bool is_all) {
  check_cpu_or_cuda_input(self, is_all ? "all" : "any");
  // uint8 in, uint8 out (PyTorch keeps the legacy behaviour); else bool.
  ScalarType out = self.dtype() == kByte ? kByte : kBool;
  return run1(is_all ? ReduceKind::kAll : ReduceKind::kAny, self, mask, keepdim, out);
}

DimMask single_dim_mask(const Tensor& self, int64_t dim) {
  int64_t d = detail::wrap_dim(dim, self.dim());
  DimMask mask;
  if (self.dim() > 0) mask.set(d);
  return mask;
}

}  // namespace

// --- free functions ---------------------------------------------------------

// Each differentiable reduction records itself (Note [Op recording]); the
// args are what autograd/derivatives/reduce.cc reads.
namespace {
template <typename F, typename A>
Tensor rec(const char* name, const Tensor& self, F&& fwd, A&& args) {
  if (!detail::input_requires_grad(self)) {
    profiler::RecordFunction range(name, profiler::RangeKind::kOp, self);
    return fwd();
  }
  return detail::record_out_op(name, Tensor(), {self}, fwd, args);
}
OpArgs dims_keep(IntArrayRef dim, bool keepdim) {
  return {DimVector(dim.begin(), dim.end()), Scalar(keepdim)};
}
std::tuple<Tensor, Tensor> rec2(const char* name, const Tensor& self, int64_t dim, bool keepdim,
                                std::tuple<Tensor, Tensor> (*fwd)(const Tensor&, int64_t, bool,
                                                                  bool),
                                bool flag) {
  profiler::RecordFunction prof_range(name, profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  auto r = fwd(self, dim, keepdim, flag);
  if (scope.active()) {
    scope.record(name, {self}, {std::get<0>(r), std::get<1>(r)}, {Scalar(dim), Scalar(keepdim)});
  }
  return r;
}
}  // namespace

Tensor sum(const Tensor& self, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST(sum, ::ember::sum, self, dtype);
  return rec("sum_all", self, [&] {
    return sum_or_prod(ReduceKind::kSum, self, reduce_detail::make_dim_mask(self, {}), false,
                       dtype, "sum");
  }, [&] { return dims_keep({}, false); });
}
Tensor sum(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST(sum, ::ember::sum, self, dim, keepdim, dtype);
  return rec("sum", self, [&] {
    return sum_or_prod(ReduceKind::kSum, self, reduce_detail::make_dim_mask(self, dim), keepdim,
                       dtype, "sum");
  }, [&] { return dims_keep(dim, keepdim); });
}
Tensor mean(const Tensor& self, std::optional<ScalarType> dtype) {
  return rec("mean_all", self, [&] {
    return mean_impl(self, reduce_detail::make_dim_mask(self, {}), false, dtype);
  }, [&] { return dims_keep({}, false); });
}
Tensor mean(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return rec("mean", self, [&] {
    return mean_impl(self, reduce_detail::make_dim_mask(self, dim), keepdim, dtype);
  }, [&] { return dims_keep(dim, keepdim); });
}
Tensor prod(const Tensor& self, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST(prod, ::ember::prod, self, dtype);
  return rec("prod_all", self, [&] {
    return sum_or_prod(ReduceKind::kProd, self, reduce_detail::make_dim_mask(self, {}), false,
                       dtype, "prod");
  }, detail::no_args);
}
Tensor prod(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST(prod, ::ember::prod, self, dim, keepdim, dtype);
  return rec("prod", self, [&] {
    return sum_or_prod(ReduceKind::kProd, self, single_dim_mask(self, dim), keepdim, dtype,
                       "prod");
  }, [&] { return OpArgs{Scalar(dim), Scalar(keepdim)}; });
}

Tensor max(const Tensor& self) {
  return rec("max_all", self, [&] { return max_min_all(self, true); }, detail::no_args);
}
Tensor min(const Tensor& self) {
  return rec("min_all", self, [&] { return max_min_all(self, false); }, detail::no_args);
}
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim) {
  return rec2("max_dim", self, dim, keepdim, &max_min_dim, true);
}
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim) {
  return rec2("min_dim", self, dim, keepdim, &max_min_dim, false);
}
Tensor amax(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return rec("amax", self, [&] { return amax_amin(self, dim, keepdim, true); },
             [&] { return dims_keep(dim, keepdim); });
}
Tensor amin(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return rec("amin", self, [&] { return amax_amin(self, dim, keepdim, false); },
             [&] { return dims_keep(dim, keepdim); });
}
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_impl(self, dim, keepdim, true);
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_impl(self, dim, keepdim, false);
}

namespace {
Tensor var_rec(const Tensor& self, std::optional<IntArrayRef> dim,
               std::optional<int64_t> correction, bool keepdim, bool take_sqrt) {
  return rec(take_sqrt ? "std" : "var", self, [&] {
    return std::get<0>(var_impl(self, dim, correction, keepdim, take_sqrt, false));
  }, [&] {
    IntArrayRef d = dim ? *dim : IntArrayRef{};
    return OpArgs{DimVector(d.begin(), d.end()), Scalar(correction.value_or(1)), Scalar(keepdim)};
  });
}
}  // namespace

Tensor Tensor::var_all(bool unbiased, bool take_sqrt) const {
  return var_rec(*this, std::nullopt, unbiased ? 1 : 0, false, take_sqrt);
}
Tensor var(const Tensor& self, IntArrayRef dim, bool unbiased, bool keepdim) {
  return var_rec(self, dim, unbiased ? 1 : 0, keepdim, false);
}
Tensor var(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction,
           bool keepdim) {
  return var_rec(self, dim, correction, keepdim, false);
}

Tensor std(const Tensor& self, IntArrayRef dim, bool unbiased, bool keepdim) {
  return var_rec(self, dim, unbiased ? 1 : 0, keepdim, true);
}
Tensor std(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction,
           bool keepdim) {
  return var_rec(self, dim, correction, keepdim, true);
}
namespace {
// One op with two differentiable outputs (VarMeanBackward0 /
// StdMeanBackward0); args as var/std's.
std::tuple<Tensor, Tensor> var_mean_rec(const Tensor& self, IntArrayRef dim, bool unbiased,
                                        bool keepdim, bool take_sqrt) {
  profiler::RecordFunction prof_range(take_sqrt ? "std_mean" : "var_mean", profiler::RangeKind::kOp,
                                      self);
  detail::OpScope scope(self);
  auto r = var_impl(self, dim, unbiased ? 1 : 0, keepdim, take_sqrt, true);
  if (scope.active()) {
    scope.record(take_sqrt ? "std_mean" : "var_mean", {self}, {std::get<0>(r), std::get<1>(r)},
                 {DimVector(dim.begin(), dim.end()), Scalar(int64_t{unbiased ? 1 : 0}),
                  Scalar(keepdim)});
  }
  return r;
}
}  // namespace

std::tuple<Tensor, Tensor> var_mean(const Tensor& self, IntArrayRef dim, bool unbiased,
                                    bool keepdim) {
  return var_mean_rec(self, dim, unbiased, keepdim, false);
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, IntArrayRef dim, bool unbiased,
                                    bool keepdim) {
  return var_mean_rec(self, dim, unbiased, keepdim, true);
}

// norm without a dtype, seen by autocast as the overload with one (PyTorch's
// fp32_append_dtype).
static Tensor norm_with_dtype(const Tensor& self, const Scalar& p,
                              std::optional<ScalarType> dtype) {
  return norm(self, p, {}, false, dtype);
}
Tensor norm(const Tensor& self, const Scalar& p) {
  EMBER_AUTOCAST(norm, norm_with_dtype, self, p, std::optional<ScalarType>());
  return rec("norm", self, [&] {
    return norm_impl(self, p.toDouble(), reduce_detail::make_dim_mask(self, {}), false,
                     std::nullopt);
  }, [&] { return OpArgs{Scalar(p.toDouble()), DimVector(), Scalar(false)}; });
}
Tensor norm(const Tensor& self, const Scalar& p, IntArrayRef dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST(norm, ::ember::norm, self, p, dim, keepdim, dtype);
  return rec("norm", self, [&] {
    return norm_impl(self, p.toDouble(), reduce_detail::make_dim_mask(self, dim), keepdim, dtype);
  }, [&] {
    return OpArgs{Scalar(p.toDouble()), DimVector(dim.begin(), dim.end()), Scalar(keepdim)};
  });
}
Tensor norm(const Tensor& self, const std::string& p, IntArrayRef dim, bool keepdim) {
  EMBER_CHECK(p == "fro", "norm(): p must be a number or \"fro\" here; got \"", p, "\"");
  return frobenius_norm(self, dim, keepdim);
}
Tensor frobenius_norm(const Tensor& self, IntArrayRef dim, bool keepdim) {
  EMBER_AUTOCAST(frobenius_norm, ::ember::frobenius_norm, self, dim, keepdim);
  EMBER_CHECK(dim.size() <= 2, "Expected at most 2 dimensions, but got ", dim.size(),
              " dimensions instead.");
  return norm(self, Scalar(2.0), dim, keepdim);
}

Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) {
  EMBER_AUTOCAST(logsumexp, ::ember::logsumexp, self, dim, keepdim);
  return rec("logsumexp", self, [&] {
    check_cpu_or_cuda_input(self, "logsumexp");
    // Integer inputs are computed in the default float dtype.
    Tensor in = self.is_floating_point() ? self : self.to(get_default_dtype());
    if (in.dtype() == kBFloat16 && in.device().is_cpu() && in.numel() != 0) {
      // 1.13's logsumexp_out_impl, each step rounded to bfloat16 (its CPU
      // exp has no float16 kernel): m = amax (infinities read as 0),
      // log(sum(exp(x - m))) + m, the sum rounding as Note [Reduced-float
      // sum] says.
      auto finite_max = [&](bool keep) {
        const Tensor m = in.amax(dim, keep);  // fresh and contiguous
        BFloat16* p = m.data_ptr<BFloat16>();
        for (int64_t i = 0; i < m.numel(); ++i) {
          if (std::isinf(static_cast<float>(p[i]))) p[i] = static_cast<BFloat16>(0.f);
        }
        return m;
      };
      return (in - finite_max(true)).exp().sum(dim, keepdim).log().add_(finite_max(keepdim));
    }
    return run1(ReduceKind::kLogSumExp, in, reduce_detail::make_dim_mask(in, dim), keepdim,
                in.dtype());
  }, [&] { return dims_keep(dim, keepdim); });
}

Tensor all(const Tensor& self) {
  return all_any(self, reduce_detail::make_dim_mask(self, {}), false, true);
}
Tensor all(const Tensor& self, int64_t dim, bool keepdim) {
  return all_any(self, single_dim_mask(self, dim), keepdim, true);
}
Tensor any(const Tensor& self) {
  return all_any(self, reduce_detail::make_dim_mask(self, {}), false, false);
}
Tensor any(const Tensor& self, int64_t dim, bool keepdim) {
  return all_any(self, single_dim_mask(self, dim), keepdim, false);
}

Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  if (dim) return count_nonzero(self, IntArrayRef{*dim});
  return count_nonzero(self, IntArrayRef{});
}
Tensor count_nonzero(const Tensor& self, IntArrayRef dims) {
  check_cpu_or_cuda_input(self, "count_nonzero");
  return run1(ReduceKind::kCountNonzero, self, reduce_detail::make_dim_mask(self, dims), false,
              kLong);
}

// --- Tensor methods ---------------------------------------------------------

Tensor Tensor::sum(std::optional<ScalarType> dtype) const { return ember::sum(*this, dtype); }
Tensor Tensor::sum(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::sum(*this, dim, keepdim, dtype);
}
Tensor Tensor::mean(std::optional<ScalarType> dtype) const { return ember::mean(*this, dtype); }
Tensor Tensor::mean(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::mean(*this, dim, keepdim, dtype);
}
Tensor Tensor::prod(std::optional<ScalarType> dtype) const { return ember::prod(*this, dtype); }
Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::prod(*this, dim, keepdim, dtype);
}
Tensor Tensor::max() const { return ember::max(*this); }
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return ember::max(*this, dim, keepdim);
}
Tensor Tensor::min() const { return ember::min(*this); }
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return ember::min(*this, dim, keepdim);
}
Tensor Tensor::amax(IntArrayRef dim, bool keepdim) const { return ember::amax(*this, dim, keepdim); }
Tensor Tensor::amin(IntArrayRef dim, bool keepdim) const { return ember::amin(*this, dim, keepdim); }
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return ember::argmax(*this, dim, keepdim);
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  return ember::argmin(*this, dim, keepdim);
}
Tensor Tensor::var(IntArrayRef dim, bool unbiased, bool keepdim) const {
  return ember::var(*this, dim, unbiased, keepdim);
}
Tensor Tensor::std(IntArrayRef dim, bool unbiased, bool keepdim) const {
  return ember::std(*this, dim, unbiased, keepdim);
}
Tensor Tensor::norm(const Scalar& p) const { return ember::norm(*this, p); }
Tensor Tensor::norm(const Scalar& p, IntArrayRef dim, bool keepdim) const {
  return ember::norm(*this, p, dim, keepdim);
}
Tensor Tensor::logsumexp(IntArrayRef dim, bool keepdim) const {
  return ember::logsumexp(*this, dim, keepdim);
}
Tensor Tensor::all() const { return ember::all(*this); }
Tensor Tensor::all(int64_t dim, bool keepdim) const { return ember::all(*this, dim, keepdim); }
Tensor Tensor::any() const { return ember::any(*this); }
Tensor Tensor::any(int64_t dim, bool keepdim) const { return ember::any(*this, dim, keepdim); }
Tensor Tensor::count_nonzero(std::optional<int64_t> dim) const {
  return ember::count_nonzero(*this, dim);
}
Tensor& Tensor::cumsum_(int64_t dim, std::optional<ScalarType> dtype) const {
  return assign_result_(cumsum(dim, dtype), "cumsum_");
}
Tensor& Tensor::cumprod_(int64_t dim, std::optional<ScalarType> dtype) const {
  return assign_result_(cumprod(dim, dtype), "cumprod_");
}
Tensor Tensor::cumsum(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::cumsum(*this, dim, dtype);
}
Tensor Tensor::cumprod(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::cumprod(*this, dim, dtype);
}
Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::softmax(*this, dim, dtype);
}
Tensor Tensor::log_softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::log_softmax(*this, dim, dtype);
}

}  // namespace ember
