// Derivatives of reductions, scans and softmax (reduce.cc, reduce_minmax.cc,
// scan.cc). Args: dims as a DimVector (empty: every dim) and keepdim.
#include <cmath>
#include <limits>

#include "autograd/derivatives.h"
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

// prod over every element (args empty) or one dim (args: dim, keepdim).
V prod_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const bool all = !c.has_arg(0);
  DimVector dims;
  if (!all) dims.push_back(c.int_arg(0));
  const bool keepdim = !all && c.bool_arg(1);
  Tensor gx = unsq(c, g[0], dims, keepdim);
  Tensor out = unsq(c, c.output(0), dims, keepdim);
  if (!(x == 0).any().item<bool>()) return {gx * out / x};
  // With zeros: the product of the other elements, from exclusive cumulative
  // products on both sides.
  Tensor flat = all ? x.reshape({-1}) : x;
  const int64_t d = all ? 0 : wrap_dims({c.int_arg(0)}, x.dim())[0];
  if (flat.dim() == 0) return {gx};
  const int64_t n = flat.size(d);
  Tensor one = ones_like(flat.narrow(d, 0, 1));
  Tensor left = cat({one, flat.narrow(d, 0, n - 1)}, d).cumprod(d);
  Tensor rev = flat.flip({d});
  Tensor right = cat({one, rev.narrow(d, 0, n - 1)}, d).cumprod(d).flip({d});
  Tensor others = (left * right).reshape(x.sizes());
  return {gx * others};
}

// max()/min() over everything: ties share the gradient evenly.
V minmax_all_bw(const C& c, const V& g) {
  Tensor mask = c.input(0) == c.output(0);
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
  DimVector all_dims = dims;
  if (all_dims.empty()) {
    for (int64_t d = 0; d < static_cast<int64_t>(c.input_sizes(0).size()); ++d) all_dims.push_back(d);
  }
  Tensor count = all_dims.empty() ? mask.to(c.input_dtype(0)) : mask.sum(all_dims, true);
  return {where(mask, unsq(c, g[0], dims, keepdim) / count, Scalar(0.0))};
}
// var / std (args: dims, correction, keepdim).
V var_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const DimVector& dims = c.dims(0);
  const double n = static_cast<double>(reduced_count(c, dims)) - c.double_arg(1);
  DimVector all_dims = dims;
  if (all_dims.empty()) {
    for (int64_t d = 0; d < x.dim(); ++d) all_dims.push_back(d);
  }
  Tensor centered = all_dims.empty() ? x - x : x - x.mean(all_dims, true);
  return {unsq(c, g[0], dims, c.bool_arg(2)) * centered * (2.0 / n)};
}
V std_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const DimVector& dims = c.dims(0);
  const bool keepdim = c.bool_arg(2);
  const double n = static_cast<double>(reduced_count(c, dims)) - c.double_arg(1);
  DimVector all_dims = dims;
  if (all_dims.empty()) {
    for (int64_t d = 0; d < x.dim(); ++d) all_dims.push_back(d);
  }
  Tensor centered = all_dims.empty() ? x - x : x - x.mean(all_dims, true);
  Tensor out = unsq(c, c.output(0), dims, keepdim);
  Tensor gx = unsq(c, g[0], dims, keepdim) / (out * n);
  return {where(out == 0, Scalar(0.0), gx * centered)};
}
// norm (args: p, dims, keepdim).
V norm_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const double p = c.double_arg(0);
  const DimVector& dims = c.dims(1);
  const bool keepdim = c.bool_arg(2);
  Tensor gx = unsq(c, g[0], dims, keepdim);
  Tensor out = unsq(c, c.output(0), dims, keepdim);
  if (p == 0.0) return {zeros_like(x)};
  if (p == 1.0) return {x.sign() * gx};
  if (std::isinf(p)) {
    Tensor mask = x.abs() == out;
    DimVector all_dims = dims;
    if (all_dims.empty()) {
      for (int64_t d = 0; d < x.dim(); ++d) all_dims.push_back(d);
    }
    Tensor count = all_dims.empty() ? mask.to(x.dtype()) : mask.sum(all_dims, true);
    return {where(mask, x.sign() * gx / count, Scalar(0.0))};
  }
  if (p == 2.0) return {where(out == 0, Scalar(0.0), x * gx / out)};
  Tensor r = x * x.abs().pow(p - 2) * gx / out.pow(p - 1);
  return {where(out == 0, Scalar(0.0), r)};
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
// zeros that is sum_{j>=k} g[j] out[j] / x[k]; with zeros, the products
// left of k times S[k] = g[k] + x[k+1] S[k+1] (a backward recurrence).
V cumprod_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  if (x.dim() == 0) return {g[0]};
  const int64_t dim = c.int_arg(0);
  const int64_t n = x.size(dim);
  if (n == 0) return {g[0]};
  if (!(x == 0).any().item<bool>()) {
    return {(g[0] * c.output(0)).flip({dim}).cumsum(dim).flip({dim}) / x};
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

EMBER_REGISTER_DERIVATIVES(
    {"sum_all", "SumBackward0", 0, false, sum_bw},
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
