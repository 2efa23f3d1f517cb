// Ops made of ember's others (composite_ops.h), with PyTorch 1.13's
// semantics. Each is what ATen computes, written with ember's ops. Where
// PyTorch 1.13 records the op as one node (NansumBackward0,
// LogaddexpBackward0, ...), the composition runs below autograd and the op
// is recorded with its own derivative (autograd/derivatives/composite.cc,
// 1.13's formulas); elsewhere its gradient is the composition's.

#include "tensor/composite_ops.h"

#include <cmath>
#include <initializer_list>
#include <limits>
#include <tuple>
#include <vector>

#include "tensor/autograd_hook.h"
#include "tensor/composite_kernels.h"
#include "tensor/dispatch.h"
#include "tensor/dim.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/iterator.h"
#include "tensor/layout.h"
#include "tensor/linalg.h"
#include "tensor/math.h"
#include "tensor/reduce.h"
#include "tensor/reduce_engine.h"
#include "tensor/selection.h"
#include "tensor/shape.h"
#include "tensor/strided_walk.h"
#include "tensor/unsafe_view.h"

namespace ember {

namespace {

// numeric_limits of a floating dtype, as double.
double finite_max(ScalarType t) {
  return EMBER_DISPATCH_FLOATING_TYPES(
      t, "nan_to_num", [&] { return static_cast<double>(std::numeric_limits<scalar_t>::max()); });
}
double finite_lowest(ScalarType t) {
  return EMBER_DISPATCH_FLOATING_TYPES(t, "nan_to_num", [&] {
    return static_cast<double>(std::numeric_limits<scalar_t>::lowest());
  });
}

// ATen's float ops on integer or bool inputs compute in the default dtype.
Tensor to_floating(const Tensor& t) {
  return t.is_floating_point() ? t : t.to(get_default_dtype());
}

// Note [Composite layouts]: ATen computes xlogy, heaviside, logaddexp and
// lerp with one TensorIterator over their inputs, so the result takes the
// layout the inputs decide in their order (Note [Result layout]); here they
// are compositions whose last op (a `where`) lets its condition decide. r
// is moved (one copy, recorded) into the iterator's layout only where the
// two differ, which takes inputs of mixed layouts. The inputs are passed
// after their casts to the common dtype: ATen's CPU iterator casts an input
// of another dtype with to(), which densifies a broadcast one.
Tensor laid_out_as_iterator(const Tensor& r, std::initializer_list<Tensor> inputs) {
  if (r.numel() <= 1) return r;
  std::vector<DimVector> strides;
  for (const Tensor& t : inputs) strides.push_back(detail::broadcast_strides(t, r.sizes()));
  const DimVector want =
      iterator_layout_strides(r.sizes(), strides.data(), static_cast<int>(strides.size()));
  bool same = true;
  for (int64_t d = 0; d < r.dim(); ++d) same &= r.sizes()[d] == 1 || r.strides()[d] == want[d];
  if (same) return r;
  return empty_strided(r.sizes(), want, r.options()).copy_(r);
}

}  // namespace

Tensor nan_to_num(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  if (!self.is_floating_point()) return self.clone();
  const double inf = std::numeric_limits<double>::infinity();
  const Scalar hi(posinf.value_or(finite_max(self.dtype())));
  const Scalar lo(neginf.value_or(finite_lowest(self.dtype())));
  return detail::record_out_op(
      "nan_to_num", Tensor(), {self},
      [&] {
        return where(self.isnan(), Scalar(nan.value_or(0.0)),
                     where(self == inf, hi, where(self == -inf, lo, self)));
      },
      detail::no_args);
}

Tensor& nan_to_num_(Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                    std::optional<double> neginf) {
  self.copy_(nan_to_num(self, nan, posinf, neginf));
  return self;
}

Tensor diff(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  EMBER_CHECK(self.dim() >= 1, "diff expects input to be at least one-dimensional");
  const int64_t d = detail::wrap_dim(dim, self.dim());
  for (const std::optional<Tensor>* extra : {&prepend, &append}) {
    EMBER_CHECK(!extra->has_value() || !(*extra)->defined() || (*extra)->dim() == self.dim(),
                "diff expects prepend or append to be the same dimension as input");
  }
  Tensor result = self;
  if ((prepend && prepend->defined()) || (append && append->defined())) {
    std::vector<Tensor> parts;
    if (prepend && prepend->defined()) parts.push_back(*prepend);
    parts.push_back(self);
    if (append && append->defined()) parts.push_back(*append);
    result = cat(parts, d);
  }
  const int64_t len = result.size(d);
  // As 1.13: n == 0 copies (CopyBackwards); a negative n or a dim of size 0
  // gives the input itself (no new node).
  if (n == 0) return empty_like(result).copy_(result);
  const int64_t steps = std::min(std::max<int64_t>(n, 0), len);
  if (steps == 0) return result;
  int64_t out_len = len - 1;
  for (int64_t i = 0; i < steps; ++i, --out_len) {
    const Tensor later = result.narrow(d, 1, out_len), earlier = result.narrow(d, 0, out_len);
    result = result.dtype() == kBool ? later.logical_xor(earlier) : later - earlier;
  }
  return result;
}

Tensor kron(const Tensor& self, const Tensor& other) {
  const int64_t dims = std::max(self.dim(), other.dim());
  const int64_t pa = dims - self.dim(), pb = dims - other.dim();
  std::vector<int64_t> a_view, b_view, out;
  for (int64_t i = 0; i < dims; ++i) {
    const int64_t a = i < pa ? 1 : self.size(i - pa), b = i < pb ? 1 : other.size(i - pb);
    a_view.insert(a_view.end(), {a, 1});
    b_view.insert(b_view.end(), {1, b});
    out.push_back(a * b);
  }
  // 1.13's nodes and strides: _unsafe_view of each operand and of the
  // product (UnsafeViewBackward0), so a transposed operand gives a
  // transposed result. 1.13 raises for what it cannot view; ember copies.
  using detail::unsafe_view;
  return unsafe_view(unsafe_view(self, a_view) * unsafe_view(other, b_view), out);
}

namespace {
// float and double on the CPU sum with NaN read as 0 in one pass (a
// where() and a sum took 13 times libtorch 1.13's time); the same values.
// float16 / bfloat16 too (Note [Reduced-float sum], NaN read as 0: 2.6
// times 1.13's time as where() and sum).
bool nansum_in_one_pass(const Tensor& self, std::optional<ScalarType> dtype) {
  return self.device().is_cpu() &&
         (self.dtype() == kFloat || self.dtype() == kDouble || self.dtype() == kHalf ||
          self.dtype() == kBFloat16) &&
         (!dtype || *dtype == self.dtype());
}
// nanmean's count in one pass: float and double.
bool count_in_one_pass(const Tensor& self, std::optional<ScalarType> dtype) {
  return nansum_in_one_pass(self, dtype) && (self.dtype() == kFloat || self.dtype() == kDouble);
}
}  // namespace

Tensor nansum(const Tensor& self, std::optional<ScalarType> dtype) {
  if (!self.is_floating_point()) return self.sum(dtype);
  return detail::record_out_op(
      "nansum", Tensor(), {self},
      [&] {
        if (nansum_in_one_pass(self, dtype)) return reduce_detail::nansum_cpu(self, {}, false);
        return where(self.isnan(), Scalar(0.0), self).sum(dtype);
      },
      [] {
        return OpArgs{DimVector(), Scalar(false)};
      });
}
Tensor nansum(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  if (!self.is_floating_point()) return self.sum(dim, keepdim, dtype);
  return detail::record_out_op(
      "nansum", Tensor(), {self},
      [&] {
        if (nansum_in_one_pass(self, dtype)) return reduce_detail::nansum_cpu(self, dim, keepdim);
        return where(self.isnan(), Scalar(0.0), self).sum(dim, keepdim, dtype);
      },
      [&] {
        return OpArgs{DimVector(dim.begin(), dim.end()), Scalar(keepdim)};
      });
}

Tensor nanmean(const Tensor& self, std::optional<ScalarType> dtype) {
  EMBER_CHECK(self.is_floating_point(),
              "nanmean(): expected input to have floating point dtype but got ",
              scalar_type_name(self.dtype()));
  if (count_in_one_pass(self, dtype)) {
    return nansum(self, dtype).div(reduce_detail::count_not_nan_cpu(self, {}, false));
  }
  return nansum(self, dtype).div(self.isnan().logical_not().sum());
}
Tensor nanmean(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CHECK(self.is_floating_point(),
              "nanmean(): expected input to have floating point dtype but got ",
              scalar_type_name(self.dtype()));
  if (count_in_one_pass(self, dtype)) {
    return nansum(self, dim, keepdim, dtype)
        .div(reduce_detail::count_not_nan_cpu(self, dim, keepdim));
  }
  return nansum(self, dim, keepdim, dtype).div(self.isnan().logical_not().sum(dim, keepdim));
}

Tensor deg2rad(const Tensor& self) {
  return detail::record_out_op(
      "deg2rad", Tensor(), {self},
      [&] { return to_floating(self) * 0.017453292519943295769236907684886127134428718885417; },
      detail::no_args);
}
Tensor rad2deg(const Tensor& self) {
  return detail::record_out_op(
      "rad2deg", Tensor(), {self},
      [&] { return to_floating(self) * 57.295779513082320876798154814105170332405472466564; },
      detail::no_args);
}

// ATen: m = max(a, b); equal infinities give a, else m + log1p(exp(-|a - b|))
// (log2 and exp2 for logaddexp2), in the inputs' common dtype, which must be
// floating.
namespace {
Tensor logaddexp_impl(const Tensor& self, const Tensor& other, bool base2) {
  const ScalarType t = result_type(self, other);
  if (!is_floating_point(t)) {
    detail::throw_not_implemented(base2 ? "logaddexp2_cpu" : "logaddexp_cpu", t);
  }
  const Tensor a = self.to(t), b = other.to(t);
  const Tensor e = -(a - b).abs();
  const Tensor sum =
      a.maximum(b) + (base2 ? e.exp2().log1p() * (1.0 / std::log(2.0)) : e.exp().log1p());
  return laid_out_as_iterator(where(a.isinf().logical_and(a == b), a, sum), {a, b});
}
}  // namespace

Tensor logaddexp(const Tensor& self, const Tensor& other) {
  return detail::record_out_op(
      "logaddexp", Tensor(), {self, other}, [&] { return logaddexp_impl(self, other, false); },
      detail::no_args);
}
Tensor logaddexp2(const Tensor& self, const Tensor& other) {
  return detail::record_out_op(
      "logaddexp2", Tensor(), {self, other}, [&] { return logaddexp_impl(self, other, true); },
      detail::no_args);
}

// ATen's xlogy: NaN where other is NaN, else 0 where self is 0, else
// self * log(other).
namespace {
Tensor xlogy_impl(const Tensor& self, const Tensor& other) {
  const ScalarType t = result_type(self, other);
  const ScalarType f = is_floating_point(t) ? t : get_default_dtype();
  const Tensor x = self.to(f), y = other.to(f);
  return laid_out_as_iterator(where(y.isnan(), Scalar(std::numeric_limits<double>::quiet_NaN()),
                                    where(x == 0, Scalar(0.0), x * y.log())),
                              {x, y});
}
}  // namespace

// Three overloads, three nodes, as 1.13's (XlogyBackward0/2/1).
Tensor xlogy(const Tensor& self, const Tensor& other) {
  return detail::record_out_op(
      "xlogy", Tensor(), {self, other}, [&] { return xlogy_impl(self, other); }, detail::no_args);
}
Tensor xlogy(const Tensor& self, const Scalar& other) {
  return detail::record_out_op(
      "xlogy_scalar_other", Tensor(), {self},
      [&] { return xlogy_impl(self, wrapped_scalar_tensor(other).to(self.device())); },
      [&] { return OpArgs{other}; });
}
Tensor xlogy(const Scalar& self, const Tensor& other) {
  return detail::record_out_op(
      "xlogy_scalar_self", Tensor(), {other},
      [&] { return xlogy_impl(wrapped_scalar_tensor(self).to(other.device()), other); },
      [&] { return OpArgs{self}; });
}

namespace {
Tensor baddbmm_impl(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
                    const Scalar& beta_, const Scalar& alpha_) {
  const Tensor prod = batch1.bmm(batch2);
  // self is expanded to the product's [b, n, p], one way and whatever beta
  // is (expand's errors, as 1.13's).
  const Tensor self_expanded = self.expand(prod.sizes());
  // Integer products take beta and alpha truncated to integers (0.5: self
  // is ignored), as PyTorch's.
  const bool integral = is_integral(prod.dtype(), /*include_bool=*/true);
  const Scalar beta = integral ? Scalar(beta_.toLong()) : beta_;
  const Scalar alpha = integral ? Scalar(alpha_.toLong()) : alpha_;
  const Tensor scaled = alpha.toDouble() == 1 ? prod : prod * alpha;
  if (beta.toDouble() == 0) return scaled;  // self is not read, NaN or not
  const Tensor s = self_expanded.to(prod.dtype());
  return (beta.toDouble() == 1 ? s : s * beta) + scaled;
}
}  // namespace

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  return detail::record_out_op(
      "baddbmm", Tensor(), {self, batch1, batch2},
      [&] { return baddbmm_impl(self, batch1, batch2, beta, alpha); },
      [&] {
        return OpArgs{beta, alpha};
      });
}

Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  EMBER_CHECK(self.dim() == other.dim(),
              "linalg.cross: inputs must have the same number of dimensions.");
  EMBER_CHECK(self.dtype() == other.dtype(), "expected scalar type ",
              scalar_type_name(self.dtype()), " but found ", scalar_type_name(other.dtype()));
  int64_t d = -1;
  if (dim) {
    d = detail::wrap_dim(*dim, self.dim());
  } else {  // torch.cross without dim: the first dim of size 3
    for (int64_t i = 0; i < self.dim() && d < 0; ++i) {
      if (self.size(i) == 3) d = i;
    }
    EMBER_CHECK(d >= 0, "no dimension of size 3 in input");
  }
  EMBER_CHECK(self.size(d) == 3 && other.size(d) == 3, "linalg.cross: inputs dimension ", d,
              " must have length 3. Got ", self.size(d), " and ", other.size(d));
  auto at = [d](const Tensor& t, int64_t i) { return t.narrow(d, i, 1); };
  return detail::record_out_op(
      "linalg_cross", Tensor(), {self, other},
      [&] {
        return cat({at(self, 1) * at(other, 2) - at(self, 2) * at(other, 1),
                    at(self, 2) * at(other, 0) - at(self, 0) * at(other, 2),
                    at(self, 0) * at(other, 1) - at(self, 1) * at(other, 0)},
                   d);
      },
      [&] { return OpArgs{Scalar(d)}; });
}

Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p) {
  return detail::record_out_op(
      "dist", Tensor(), {self, other}, [&] { return (self - other).norm(p); },
      [&] { return OpArgs{Scalar(p.toDouble())}; });
}

Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  EMBER_CHECK(end.dtype() == self.dtype(), "expected dtype ", detail::typemeta_name(self.dtype()),
              " for `end` but got dtype ", detail::typemeta_name(end.dtype()));
  EMBER_CHECK(weight.dtype() == self.dtype(), "expected dtype ",
              detail::typemeta_name(self.dtype()), " for `weight` but got dtype ",
              detail::typemeta_name(weight.dtype()));
  if (!self.is_floating_point()) detail::throw_not_implemented("lerp_kernel_tensor", self.dtype());
  // ATen's form, exact at both ends (weight 0 and 1), branching as the
  // number-weight kernel does (pointwise.cc).
  return detail::record_out_op(
      "lerp_tensor", Tensor(), {self, end, weight},
      [&] {
        // On the CPU in one pass (the composition took 94-104 us for
        // 65536 floats, libtorch 68-84), the same values.
        if (self.device().type() == kCPU && end.device().type() == kCPU &&
            weight.device().type() == kCPU) {
          TensorIterator iter;
          iter.add_output(Tensor()).add_input(self).add_input(end).add_input(weight).build();
          detail::lerp_tensor_cpu(iter);
          return iter.output();
        }
        const Tensor diff = end - self;
        return laid_out_as_iterator(
            where(weight < 0.5, self + weight * diff, end - diff * (1 - weight)),
            {self, end, weight});
      },
      detail::no_args);
}

Tensor logit(const Tensor& self, std::optional<double> eps) {
  return detail::record_out_op(
      "logit", Tensor(), {self},
      [&] {
        const Tensor x = to_floating(self);
        const Tensor z = eps ? x.clamp(*eps, 1 - *eps) : x;
        return (z / (1 - z)).log();
      },
      [&] { return eps ? OpArgs{Scalar(*eps)} : OpArgs{}; });
}

Tensor heaviside(const Tensor& self, const Tensor& values) {
  EMBER_CHECK(self.dtype() == values.dtype(),
              "heaviside is not yet implemented for tensors with different dtypes.");
  // Recorded without a derivative: backward through it raises, as 1.13's
  // NotImplemented node.
  return detail::record_out_op(
      "heaviside", Tensor(), {self, values},
      [&] {
        // On the CPU in one pass (the composition's four took 68 us for
        // 65536 floats, libtorch 46).
        if (self.device().type() == kCPU && values.device().type() == kCPU) {
          TensorIterator iter;
          iter.add_output(Tensor()).add_input(self).add_input(values).build();
          detail::heaviside_cpu(iter);
          return iter.output();
        }
        return laid_out_as_iterator(where(self == 0, values, (self > 0).to(self.dtype())),
                                    {self, values});
      },
      detail::no_args);
}

Tensor sgn(const Tensor& self) {
  return detail::record_out_op(
      "sgn", Tensor(), {self}, [&] { return self.sign(); }, detail::no_args);
}

Tensor positive(const Tensor& self) {
  EMBER_CHECK(self.dtype() != kBool, "The `+` operator, on a bool tensor is not supported.");
  return self;
}

Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  return ::ember::nan_to_num(*this, nan, posinf, neginf);
}
Tensor& Tensor::nan_to_num_(std::optional<double> nan, std::optional<double> posinf,
                            std::optional<double> neginf) const {
  mut().copy_(::ember::nan_to_num(*this, nan, posinf, neginf));
  return mut();
}
Tensor Tensor::diff(int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                    const std::optional<Tensor>& append) const {
  return ::ember::diff(*this, n, dim, prepend, append);
}
Tensor Tensor::kron(const Tensor& other) const { return ::ember::kron(*this, other); }
Tensor Tensor::nansum(std::optional<ScalarType> dtype) const {
  return ::ember::nansum(*this, dtype);
}
Tensor Tensor::nansum(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ::ember::nansum(*this, dim, keepdim, dtype);
}
Tensor Tensor::nanmean(std::optional<ScalarType> dtype) const {
  return ::ember::nanmean(*this, dtype);
}
Tensor Tensor::nanmean(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ::ember::nanmean(*this, dim, keepdim, dtype);
}
Tensor Tensor::deg2rad() const { return ::ember::deg2rad(*this); }
Tensor Tensor::rad2deg() const { return ::ember::rad2deg(*this); }
Tensor Tensor::logaddexp(const Tensor& other) const { return ::ember::logaddexp(*this, other); }
Tensor Tensor::logaddexp2(const Tensor& other) const { return ::ember::logaddexp2(*this, other); }
Tensor Tensor::xlogy(const Tensor& other) const { return ::ember::xlogy(*this, other); }
Tensor Tensor::xlogy(const Scalar& other) const { return ::ember::xlogy(*this, other); }
Tensor Tensor::sgn() const { return ::ember::sgn(*this); }
Tensor Tensor::baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                       const Scalar& alpha) const {
  return ::ember::baddbmm(*this, batch1, batch2, beta, alpha);
}
Tensor Tensor::cross(const Tensor& other, std::optional<int64_t> dim) const {
  return ::ember::cross(*this, other, dim);
}
Tensor Tensor::dist(const Tensor& other, const Scalar& p) const {
  return ::ember::dist(*this, other, p);
}
Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const {
  return ::ember::lerp(*this, end, weight);
}
Tensor Tensor::logit(std::optional<double> eps) const { return ::ember::logit(*this, eps); }
Tensor Tensor::heaviside(const Tensor& values) const { return ::ember::heaviside(*this, values); }
Tensor Tensor::bitwise_and(const Scalar& other) const { return ::ember::bitwise_and(*this, other); }
Tensor Tensor::bitwise_or(const Scalar& other) const { return ::ember::bitwise_or(*this, other); }
Tensor Tensor::bitwise_xor(const Scalar& other) const { return ::ember::bitwise_xor(*this, other); }
Tensor Tensor::positive() const { return ::ember::positive(*this); }

// --- norm_except_dim / weight norm --------------------------------------------------

namespace detail {
Tensor norm_except_dim(const Tensor& v, double pow, int64_t dim) {
  if (dim == -1) {
    // libtorch's at::norm(v, pow) (norm.Scalar: NormBackward0, where ember's
    // norm records Python's norm.ScalarOpt_dim, NormBackward1).
    return record_out_op(
        "norm_scalar", Tensor(), {v}, [&] { return v.norm(pow); },
        [&] {
          return OpArgs{Scalar(pow), DimVector(), Scalar(false)};
        });
  }
  if (dim == 0) {
    const int64_t n = v.size(0);
    std::vector<int64_t> output_size(v.dim(), 1);
    output_size[0] = n;
    return v.contiguous().view({n, -1}).norm(pow, {1}).view(output_size);
  }
  const int64_t last = v.dim() - 1;
  if (dim == last) {
    std::vector<int64_t> output_size(v.dim(), 1);
    output_size[last] = v.size(last);
    return v.contiguous().view({-1, v.size(last)}).norm(pow, {0}).view(output_size);
  }
  return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim);
}
}  // namespace detail

Tensor norm_except_dim(const Tensor& v, int64_t pow, int64_t dim) {
  return detail::norm_except_dim(v, static_cast<double>(pow), dim);
}

Tensor _weight_norm(const Tensor& v_in, const Tensor& g_in, int64_t dim) {
  EMBER_CHECK(v_in.device() == g_in.device(),
              "weight_norm: expected v_in and g_in to be on the same device, but v_in is on ",
              v_in.device().str(), " and g_in is on ", g_in.device().str());
  const Tensor v = v_in.contiguous(), g = g_in.contiguous();
  const bool has_half = v.dtype() == kHalf || g.dtype() == kHalf;
  if (!has_half && (dim == 0 || dim == v.dim() - 1)) {
    return std::get<0>(_weight_norm_interface(v, g, dim));
  }
  return v * (g / norm_except_dim(v, 2, dim));
}

std::tuple<Tensor, Tensor> _weight_norm_interface(const Tensor& v, const Tensor& g, int64_t dim) {
  EMBER_CHECK(dim == 0 || dim == v.dim() - 1,
              "dim == 0 || dim == v.dim() - 1 INTERNAL ASSERT FAILED at "
              "\"./aten/src/ATen/native/cpu/WeightNormKernel.cpp\":401, please report a bug to "
              "PyTorch. fused kernels can only be applied for first or last dim");
  const int64_t n = v.size(dim);
  const ScalarType dt = v.dtype();
  if (dt != kFloat && dt != kDouble && dt != kBFloat16) {
    detail::throw_not_implemented("weight_norm_kernel", dt);
  }
  EMBER_CHECK(g.dtype() == dt || (dt == kBFloat16 && g.dtype() == kFloat), "expected scalar type ",
              scalar_type_name(dt), " but found ", scalar_type_name(g.dtype()));
  EMBER_CHECK(g.numel() == n, "_weight_norm_interface: expected g to have v.size(", dim, ") = ", n,
              " elements, but got g of shape ", detail::sizes_str(g.sizes()));
  std::vector<int64_t> bcast(v.dim(), 1);
  bcast[dim] = n;
  // 1.13 keeps the norms in float for bfloat16 g, and computes in float.
  const ScalarType acc = dt == kBFloat16 ? kFloat : dt;
  detail::OpScope scope(v, g);
  const Tensor va = v.to(acc);
  const Tensor norms = detail::norm_except_dim(va, 2.0, dim);
  const Tensor w = (va * (g.reshape(bcast).to(acc) / norms)).to(dt);
  const Tensor norms_out = norms.reshape(g.sizes()).to(g.dtype() == kBFloat16 ? kFloat : g.dtype());
  if (scope.active()) scope.record("_weight_norm_interface", {v, g}, {w, norms_out}, {Scalar(dim)});
  return {w, norms_out};
}

std::tuple<Tensor, Tensor> _weight_norm_interface_backward(const Tensor& grad_w,
                                                           const Tensor& saved_v,
                                                           const Tensor& saved_g,
                                                           const Tensor& saved_norms, int64_t dim) {
  const int64_t last = saved_v.dim() - 1;
  EMBER_CHECK(dim == 0 || dim == last, "Expected dim to be the first or last dimension");
  std::vector<int64_t> bcast(saved_v.dim(), 1);
  bcast[dim] = saved_v.size(dim);
  const Tensor norms = saved_norms.to(saved_g.dtype()).reshape(bcast);
  const Tensor gv = grad_w * saved_v;
  const Tensor sums = (dim == 0 ? gv.reshape({saved_v.size(0), -1}).sum({1})
                                : gv.reshape({-1, saved_v.size(last)}).sum({0}))
                          .view(bcast);
  const Tensor grad_v =
      (saved_g.reshape(bcast) / norms) * (grad_w - saved_v * (sums / (norms * norms)));
  const Tensor grad_g = (sums / norms).reshape(saved_g.sizes());
  return {grad_v, grad_g};
}

}  // namespace ember
