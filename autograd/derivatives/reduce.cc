// Derivatives of reductions, scans and softmax (reduce.cc, reduce_minmax.cc,
// scan.cc). Args: dims as a DimVector (empty: every dim) and keepdim.
#include <cmath>
#include <limits>

#include "autograd/derivatives.h"
#include "autograd/grad_mode.h"
#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/reduce.h"
#include "tensor/shape.h"
#include "tensor/selection.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// The dims a reduction over `dims` covers (empty: every dim).
DimVector every_dim(const DimVector& dims, int64_t ndim) {
  DimVector all = dims;
  for (int64_t d = 0; dims.empty() && d < ndim; ++d) all.push_back(d);
  return all;
}

int64_t reduced_count(const C& c, const DimVector& dims) {
  IntArrayRef s = c.input_sizes(0);
  int64_t n = 1;
  if (dims.empty()) {
    for (int64_t v : s) n *= v;
  } else {
    for (int64_t d : wrap_dims(dims, static_cast<int64_t>(s.size()))) n *= s[d];
  }
  return n;
}

// The gradient of a reduced value spread back over the input's shape.
Tensor expand_back(const C& c, const Tensor& g, const DimVector& dims, bool keepdim) {
  return unsqueeze_to(g, dims, c.input_sizes(0), keepdim).expand(c.input_sizes(0));
}
Tensor unsq(const C& c, const Tensor& t, const DimVector& dims, bool keepdim) {
  return unsqueeze_to(t, dims, c.input_sizes(0), keepdim);
}

V sum_bw(const C& c, const V& g) { return {expand_back(c, g[0], c.dims(0), c.bool_arg(1))}; }
V mean_bw(const C& c, const V& g) {
  const double n = static_cast<double>(reduced_count(c, c.dims(0)));
  return {expand_back(c, g[0], c.dims(0), c.bool_arg(1)) / n};
}

// The product of the other elements along d (exclusive cumulative products
// from both sides; 1.13's prod_safe_zeros_backward).
Tensor prod_of_others(const Tensor& x, int64_t d) {
  const int64_t n = x.size(d);
  Tensor one = ones_like(x.narrow(d, 0, 1));
  Tensor left = cat({one, x.narrow(d, 0, n - 1)}, d).cumprod(d);
  Tensor right = cat({one, x.narrow(d, 1, n - 1).flip({d})}, d).cumprod(d).flip({d});
  return left * right;
}

// prod over every element (args empty) or one dim (args: dim, keepdim), as
// 1.13's prod_backward: a 0-dim input passes the gradient through; without
// zeros grad * (result / input); over everything, two or more zeros give
// zeros (whatever else the input holds; outside create_graph) and one zero
// the product of the others; along a dim, any zero makes every slice use the products of the
// others.
V prod_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  if (x.dim() == 0) return {g[0]};
  const bool all = !c.has_arg(0);
  DimVector dims;
  if (!all) dims.push_back(c.int_arg(0));
  const bool keepdim = !all && c.bool_arg(1);
  Tensor gx = unsq(c, g[0], dims, keepdim);
  Tensor out = unsq(c, c.output(0), dims, keepdim);
  const int64_t zeros_count = (x == 0).sum().item<int64_t>();
  if (zeros_count == 0) return {gx * (out / x)};
  if (all) {
    // (Under create_graph, where the gradient must be differentiable
    // again, 1.13 takes the products of the others for two zeros too.)
    if (zeros_count > 1 && !GradMode::is_enabled()) return {zeros_like(x)};
    return {(gx * prod_of_others(x.reshape({-1}), 0)).reshape(x.sizes())};
  }
  const int64_t d = wrap_dims({c.int_arg(0)}, x.dim())[0];
  if (x.numel() == 0) return {gx.expand(x.sizes())};
  if (x.size(d) == 1) return {gx};
  return {gx * prod_of_others(x, d)};
}

// max()/min() over everything: ties share the gradient evenly; a NaN result
// is shared among the NaNs (1.13's evenly_distribute_backward).
V minmax_all_bw(const C& c, const V& g) {
  const Tensor& out = c.output(0);
  Tensor mask = out.isnan().item<bool>() ? c.input(0).isnan() : c.input(0) == out;
  return {where(mask, g[0] / mask.sum(), Scalar(0.0))};
}
// (values, indices) = max(dim, keepdim): the gradient goes to the index.
V minmax_dim_bw(const C& c, const V& g) {
  const int64_t dim = c.int_arg(0);
  const bool keepdim = c.bool_arg(1);
  DimVector dims{dim};
  Tensor gi = unsq(c, g[0], dims, keepdim);
  Tensor idx = unsq(c, c.output(1), dims, keepdim);
  return {zeros(c.input_sizes(0), gi.options()).scatter(dim, idx, gi)};
}
V amaxmin_bw(const C& c, const V& g) {
  const DimVector& dims = c.dims(0);
  const bool keepdim = c.bool_arg(1);
  Tensor mask = c.input(0) == unsq(c, c.output(0), dims, keepdim);
  const DimVector all_dims = every_dim(dims, static_cast<int64_t>(c.input_sizes(0).size()));
  Tensor count = all_dims.empty() ? mask.to(c.input_dtype(0)) : mask.sum(all_dims, true);
  // 1.13's scale_grad_by_count, (g / count) * mask: a slice whose result is
  // NaN matches nothing, and its gradient is NaN (g / 0 * 0).
  return {(unsq(c, g[0], dims, keepdim) / count) * mask};
}
// 1.13's var_backward (args: dims, correction, keepdim): over everything,
// (2 / dof) * grad * (x - mean), or just (2 / dof) * grad (+-inf) where
// dof is 0; over dims,
// (2 / (n - correction)) * grad * (x - mean(dims)).
Tensor var_backward(const C& c, const Tensor& g) {
  const Tensor& x = c.input(0);
  const DimVector& dims = c.dims(0);
  const double dof = static_cast<double>(reduced_count(c, dims)) - c.double_arg(1);
  if (dims.empty() || x.dim() == 0) {
    // 1.13 drops the (x - mean) factor where dof is 0: a 0-dim inf * grad
    // (its own shape error for inputs that are not 0-dim; ember expands).
    if (dof == 0) return ((2.0 / dof) * g).expand(x.sizes());
    return (2.0 / dof) * g * (x - x.mean());
  }
  return (2.0 / dof) * unsq(c, g, dims, c.bool_arg(2)) * (x - x.mean(dims, true));
}
V var_bw(const C& c, const V& g) { return {var_backward(c, g[0])}; }
// 1.13's std_backward: var's with grad / (2 std), 0 where std is 0.
V std_bw(const C& c, const V& g) {
  const Tensor& out = c.output(0);
  return {var_backward(c, (g[0] / (out * 2)).masked_fill(out == 0, 0))};
}
// 1.13's norm_backward: the gradient of out = ||x||_p over dims. p = 0 has
// none (undefined, as 1.13's); p = 2 and the general case give 0 where
// the norm is 0; p = inf shares among the elements whose |x| is the norm
// or NaN.
Tensor norm_backward(Tensor g, const Tensor& x, double p, Tensor out, const DimVector& dims,
                     bool keepdim) {
  if (!keepdim && x.dim() != 0) {
    g = unsqueeze_to(g, dims, x.sizes(), false);
    out = unsqueeze_to(out, dims, x.sizes(), false);
  }
  if (p == 0.0) return Tensor();
  if (p == 1.0) return x.sign() * g;
  if (p == 2.0) return g * (x / out).masked_fill(out == 0, 0);
  if (std::isinf(p)) {
    const Tensor a = x.abs();
    const Tensor mask = (a == out).logical_or(a.isnan());
    const Tensor count =
        x.dim() == 0 ? mask.to(x.dtype()) : mask.sum(every_dim(dims, x.dim()), true);
    return x.sign() * ((g / count) * mask);
  }
  if (p < 1.0) {
    return x.sign() * x.abs().pow(p - 1).masked_fill(x == 0, 0) * g * out.pow(1 - p);
  }
  const Tensor scale = (g / out.pow(p - 1)).masked_fill(out == 0, 0);
  if (p < 2.0) return x.sign() * x.abs().pow(p - 1) * scale;
  return x * x.abs().pow(p - 2) * scale;
}
// norm (args: p, dims, keepdim).
V norm_bw(const C& c, const V& g) {
  return {norm_backward(g[0], c.input(0), c.double_arg(0), c.output(0), c.dims(1), c.bool_arg(2))};
}
// dist(self, other; p) = norm(self - other, p): DistBackward0.
V dist_bw(const C& c, const V& g) {
  const Tensor gx = norm_backward(g[0], c.input(0) - c.input(1), c.double_arg(0), c.output(0),
                                  DimVector(), false);
  if (!gx.defined()) return {Tensor(), Tensor()};
  return {c.needs(0) ? gx : Tensor(), c.needs(1) ? -gx : Tensor()};
}
V logsumexp_bw(const C& c, const V& g) {
  const DimVector& dims = c.dims(0);
  const bool keepdim = c.bool_arg(1);
  return {unsq(c, g[0], dims, keepdim) * (c.input(0) - unsq(c, c.output(0), dims, keepdim)).exp()};
}
V softmax_bw(const C& c, const V& g) {
  const Tensor& y = c.output(0);
  const int64_t dim = c.int_arg(0);
  Tensor gy = g[0] * y;
  return {gy - y * gy.sum({dim}, true)};
}
V log_softmax_bw(const C& c, const V& g) {
  const int64_t dim = c.int_arg(0);
  return {g[0] - c.output(0).exp() * g[0].sum({dim}, true)};
}
// cumprod: d out[j] / d x[k] = prod_{i<=j, i!=k} x[i] for j >= k. Without
// zeros that is sum_{j>=k} g[j] out[j] / x[k]. With zeros, as 1.13's
// cumprod_backward outside create_graph: before the first zero z1 the same
// sum over [k, z1); at z1, out[z1-1] times sum_{j in [z1, z2)} g[j]
// prod(x(z1, j]); after z1, zero. Under create_graph, where the result
// must be differentiable again, the products left of k times
// S[k] = g[k] + x[k+1] S[k+1] (a backward recurrence).
Tensor reversed_cumsum(const Tensor& t, int64_t dim) {
  return t.flip({dim}).cumsum(dim).flip({dim});
}
V cumprod_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  if (x.numel() <= 1) return {g[0]};
  const int64_t dim = wrap_dims({c.int_arg(0)}, x.dim())[0];
  const int64_t n = x.size(dim);
  if (n == 1) return {g[0]};
  const Tensor& out = c.output(0);
  const Tensor is_zero = x == 0;
  if (!is_zero.any().item<bool>()) return {reversed_cumsum(out * g[0], dim) / x};
  if (!GradMode::is_enabled()) {
    Tensor gx = zeros(x.sizes(), g[0].options());
    const Tensor zeros_so_far = is_zero.cumsum(dim);
    const Tensor before = zeros_so_far == 0;
    Tensor w = (out * g[0]).masked_fill(before.logical_not(), 0);
    gx.masked_scatter_(before, (reversed_cumsum(w, dim) / x).masked_select(before));
    Tensor between = zeros_so_far == 1;
    const Tensor z1 = std::get<1>(between.max(dim, true));
    const Tensor at_z1 = zeros_like(between).scatter_(dim, z1, Scalar(true)).logical_and(between);
    between = between.logical_and(at_z1.logical_not());
    Tensor left = out.gather(dim, (z1 - 1).clamp_min(0)).masked_fill(z1 == 0, 1);
    Tensor s = (x.masked_fill(between.logical_not(), 1).cumprod(dim) *
                g[0].masked_fill(zeros_so_far != 1, 0))
                   .sum({dim}, true);
    gx.masked_scatter_(at_z1, (s * left).masked_select(at_z1));
    return {gx};
  }
  Tensor left = cat({ones_like(x.narrow(dim, 0, 1)), x.narrow(dim, 0, n - 1)}, dim).cumprod(dim);
  std::vector<Tensor> s(n);
  s[n - 1] = g[0].narrow(dim, n - 1, 1);
  for (int64_t k = n - 2; k >= 0; --k) {
    s[k] = g[0].narrow(dim, k, 1) + x.narrow(dim, k + 1, 1) * s[k + 1];
  }
  return {left * cat(s, dim)};
}
// var_mean / std_mean: both outputs' gradients (args as var/std's).
V var_mean_bw(const C& c, const V& g) {
  const DimVector& dims = c.dims(0);
  const bool keepdim = c.bool_arg(2);
  const double n = static_cast<double>(reduced_count(c, dims));
  Tensor gx = var_bw(c, {g[0]})[0];
  return {gx + expand_back(c, g[1], dims, keepdim) / n};
}
V std_mean_bw(const C& c, const V& g) {
  const DimVector& dims = c.dims(0);
  const bool keepdim = c.bool_arg(2);
  const double n = static_cast<double>(reduced_count(c, dims));
  Tensor gx = std_bw(c, {g[0]})[0];
  return {gx + expand_back(c, g[1], dims, keepdim) / n};
}
V cumsum_bw(const C& c, const V& g) {
  const int64_t dim = c.int_arg(0);
  if (g[0].dim() == 0) return {g[0]};
  return {g[0].flip({dim}).cumsum(dim).flip({dim})};
}

EMBER_REGISTER_DERIVATIVES({"sum_all", "SumBackward0", 0, false, sum_bw},
                           {"sum", "SumBackward1", 0, false, sum_bw},
                           {"mean_all", "MeanBackward0", 0, false, mean_bw},
                           {"mean", "MeanBackward1", 0, false, mean_bw},
                           {"prod_all", "ProdBackward0", kSaveSelf, true, prod_bw},
                           {"prod", "ProdBackward1", kSaveSelf, true, prod_bw},
                           {"max_all", "MaxBackward1", kSaveSelf, true, minmax_all_bw},
                           {"min_all", "MinBackward1", kSaveSelf, true, minmax_all_bw},
                           {"max_dim", "MaxBackward0", 0, true, minmax_dim_bw},
                           {"min_dim", "MinBackward0", 0, true, minmax_dim_bw},
                           {"amax", "AmaxBackward0", kSaveSelf, true, amaxmin_bw},
                           {"amin", "AminBackward0", kSaveSelf, true, amaxmin_bw},
                           {"var", "VarBackward0", kSaveSelf, false, var_bw},
                           {"std", "StdBackward0", kSaveSelf, true, std_bw},
                           {"norm", "NormBackward1", kSaveSelf, true, norm_bw},
                           {"norm_scalar", "NormBackward0", kSaveSelf, true, norm_bw},
                           {"dist", "DistBackward0", kSaveSelf | kSaveOther, true, dist_bw},
                           {"logsumexp", "LogsumexpBackward0", kSaveSelf, true, logsumexp_bw},
                           {"softmax", "SoftmaxBackward0", 0, true, softmax_bw},
                           {"log_softmax", "LogSoftmaxBackward0", 0, true, log_softmax_bw},
                           {"cumsum", "CumsumBackward0", 0, false, cumsum_bw},
                           {"cumprod", "CumprodBackward0", kSaveSelf, true, cumprod_bw},
                           {"var_mean", "VarMeanBackward0", kSaveSelf, false, var_mean_bw},
                           {"std_mean", "StdMeanBackward0", kSaveSelf, true, std_mean_bw});

}  // namespace
}  // namespace autograd
}  // namespace ember
