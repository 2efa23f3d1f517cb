// Derivatives of tensor/reduce_ops.h's ops with PyTorch 1.13's node names
// and formulas (FunctionsManual's scatter_reduce_backward and
// index_reduce_backward; derivatives.yaml's igamma/igammac), written with
// public ops so that they are differentiable again. histogram records
// nothing (not differentiable).
#include "autograd/derivatives.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/math.h"
#include "tensor/reduce_ops.h"
#include "tensor/selection.h"
#include "tensor/special.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// scatter_reduce and index_reduce share their formulas; they differ in how
// a gradient of self's shape reaches src's positions (gather / index_select)
// and how src's values are summed into self's (scatter_add / index_add).
struct Along {
  bool index_op;  // index_reduce
  int64_t dim;
  const Tensor& index;
  Tensor take(const Tensor& t) const {
    return index_op ? t.index_select(dim, index) : t.gather(dim, index);
  }
  Tensor add(const Tensor& base, const Tensor& v) const {
    return index_op ? base.index_add(dim, index, v) : base.scatter_add(dim, index, v);
  }
  Tensor reduce(const Tensor& self, const Tensor& src, const std::string& r, bool inc) const {
    return index_op ? index_reduce(self, dim, index, src, r, inc)
                    : scatter_reduce(self, dim, index, src, r, inc);
  }
  Tensor zero_at(const Tensor& t) const {
    return index_op ? t.index_fill(dim, index, 0) : t.scatter(dim, index, Scalar(0));
  }
};

// args: dim, reduce, include_self; inputs: self, index, src; output: result.
V reduce_into_bw(const C& c, const V& g, bool index_op) {
  const Tensor& grad = g[0];
  const Tensor& self = c.input(0);
  const Tensor& src = c.input(2);
  const Tensor& result = c.output(0);
  const int64_t ndim = std::max<int64_t>(self.dim(), 1);
  int64_t dim = c.int_arg(0);
  if (dim < 0) dim += ndim;
  const std::string& r = c.str(1);
  const bool inc = c.bool_arg(2);
  // index_reduce's source broadcasts to self's slices: its formulas read
  // it at full size (the node sums back to source's shape).
  Tensor index = c.input(1);
  Tensor s = src;
  if (index_op) {
    DimVector shape(self.sizes().begin(), self.sizes().end());
    if (shape.empty()) shape.push_back(1);
    shape[dim] = index.numel();
    s = src.dim() == 0 ? src.reshape({1}).expand(shape) : src.expand(shape);
  }
  const Along a{index_op, dim, index};
  Tensor gs, gr;
  if (r == "sum") {
    gs = grad;
    gr = a.take(grad);
  } else if (r == "prod") {
    // Zeros in self and src get the product of the others, not result / 0.
    const Tensor masked_self = self.masked_fill(self == 0, 1);
    gs = grad * a.reduce(masked_self, s, r, inc) / masked_self;
    const Tensor src_zero = s == 0;
    const Tensor zeros_at = a.take(a.add(zeros_like(self), src_zero.to(self.dtype())));
    const Tensor single_zero = src_zero.logical_and(zeros_at == 1);
    const Tensor masked_src_result = a.reduce(self, s.masked_fill(single_zero, 1), r, inc);
    gr = where(single_zero, a.take(grad * masked_src_result),
               a.take(grad * result) / s.masked_fill(src_zero, 1));
  } else if (r == "mean") {
    Tensor n = inc ? ones_like(grad) : zeros_like(grad);
    n = a.add(n, ones_like(s));
    n = n.masked_fill(n == 0, 1);
    gs = grad / n;
    gr = a.take(grad) / a.take(n);
  } else {  // amax / amin: shared evenly among the elements equal to the result
    const Tensor value = a.take(result);
    const Tensor self_is = (self == result).to(self.dtype());
    const Tensor src_is = (s == value).to(self.dtype());
    const Tensor share = grad / a.add(self_is, src_is);
    gs = self_is * share;
    gr = src_is * a.take(share);
  }
  if (!inc) gs = a.zero_at(gs);
  V out(3);
  if (c.needs(0)) out[0] = gs;
  if (c.needs(2)) out[2] = gr;
  return out;
}
V scatter_reduce_bw(const C& c, const V& g) { return reduce_into_bw(c, g, false); }
V index_reduce_bw(const C& c, const V& g) { return reduce_into_bw(c, g, true); }

// d/dx P(a, x) = x^(a-1) e^-x / Gamma(a); a's derivative is not
// implemented, as in PyTorch.
Tensor igamma_density(const Tensor& a, const Tensor& x) {
  return ((a - 1) * x.log() - x - lgamma(a)).exp();
}
V igamma_bw(const C& c, const V& g) {
  EMBER_CHECK(!c.needs(0), "the derivative for 'igamma: input' is not implemented.");
  return {Tensor(), g[0] * igamma_density(c.input(0), c.input(1))};
}
V igammac_bw(const C& c, const V& g) {
  EMBER_CHECK(!c.needs(0), "the derivative for 'igammac: input' is not implemented.");
  return {Tensor(), -g[0] * igamma_density(c.input(0), c.input(1))};
}

EMBER_REGISTER_DERIVATIVES({"scatter_reduce", "ScatterReduceBackward0",
                            kSaveSelf | kSaveOther | kSaveThird, true, scatter_reduce_bw},
                           {"index_reduce", "IndexReduceBackward0",
                            kSaveSelf | kSaveOther | kSaveThird, true, index_reduce_bw},
                           {"igamma", "IgammaBackward0", kSaveSelf | kSaveOther, false, igamma_bw},
                           {"igammac", "IgammacBackward0", kSaveSelf | kSaveOther, false,
                            igammac_bw});

}  // namespace
}  // namespace autograd
}  // namespace ember
