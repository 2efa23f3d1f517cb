// Derivatives of ops that ember computes as compositions but PyTorch 1.13
// records as one node (issue 22): cdist/pdist (tensor/spectral_more.cc)
// the 3-d convolutions (tensor/conv3d.h) and embedding_bag
// (nn/functional/embedding.cc), with 1.13's formulas (derivatives.yaml, the distance
// kernels' backward), written with public ops so that they differentiate again.
#include <cmath>

#include "autograd/derivatives.h"
#include "tensor/conv3d.h"
#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/selection.h"
#include "tensor/shape.h"
#include "tensor/shape_more.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// The gradient that one p-norm distance `dist` = ||diff|| passes to the
// difference `diff` of its two points (grad and dist broadcast over diff's
// last dim), as 1.13's _cdist_backward and _pdist_backward kernels: 0 where
// dist is 0 (and, for p < 1, where a component of diff is 0); the inf-norm
// gives the full gradient to every component that ties for the max.
Tensor distance_grad(const Tensor& diff, const Tensor& grad, const Tensor& dist, double p) {
  if (p == 0) return zeros_like(diff);
  if (p == 1) return grad * diff.sign();
  if (std::isinf(p)) return grad * diff.sign() * (diff.abs() == dist).to(diff.scalar_type());
  // Safe operands, so that the discarded branch of where stays finite
  // (its zero gradient times an infinity would be NaN in double backward).
  const Tensor zero_dist = dist == 0;
  const Tensor safe_dist = where(zero_dist, ones_like(dist), dist);
  Tensor t;
  if (p < 2) {
    if (p < 1) {
      const Tensor zero_diff = diff == 0;
      const Tensor safe_diff = where(zero_diff, ones_like(diff), diff);
      t = safe_diff.sign() * safe_diff.abs().pow(p - 1) * grad / safe_dist.pow(p - 1);
      t = where(zero_diff, zeros_like(t), t);
    } else {
      t = diff.sign() * diff.abs().pow(p - 1) * grad / safe_dist.pow(p - 1);
    }
  } else if (p == 2) {
    t = diff * grad / safe_dist;
  } else {
    t = diff * diff.abs().pow(p - 2) * grad / safe_dist.pow(p - 1);
  }
  return where(zero_dist, zeros_like(t), t);
}

// _cdist_forward(x1, x2; p): each x1 row gets the sum over x2's rows, each
// x2 row minus the sum over x1's (the node sums broadcast batch dims).
V cdist_bw(const C& c, const V& g) {
  const Tensor &x1 = c.input(0), &x2 = c.input(1);
  const double p = c.double_arg(0);
  if (!g[0].defined()) return {Tensor(), Tensor()};
  if (p == 0) {
    return {c.needs(0) ? zeros_like(x1) : Tensor(), c.needs(1) ? zeros_like(x2) : Tensor()};
  }
  const Tensor t = distance_grad(x1.unsqueeze(-2) - x2.unsqueeze(-3), g[0].unsqueeze(-1),
                                 c.output(0).unsqueeze(-1), p);
  return {c.needs(0) ? t.sum({-2}) : Tensor(), c.needs(1) ? -t.sum({-3}) : Tensor()};
}

// _euclidean_dist(x1, x2): 1.13's _euclidean_dist_backward, with the ratio
// grad / dist taken as 0 at zero distance.
V euclidean_dist_bw(const C& c, const V& g) {
  const Tensor &x1 = c.input(0), &x2 = c.input(1), &res = c.output(0);
  if (!g[0].defined()) return {Tensor(), Tensor()};
  const Tensor zero = res == 0;
  const Tensor ratio = where(zero, zeros_like(res), g[0] / where(zero, ones_like(res), res));
  return {
      c.needs(0) ? x1 * ratio.sum({-1}, true) - ratio.matmul(x2) : Tensor(),
      c.needs(1) ? x2 * ratio.sum({-2}, false).unsqueeze(-1) - ratio.mT().matmul(x1) : Tensor()};
}

// _pdist_forward(self; p): the pair (i, j), i < j, adds its gradient to row
// i and subtracts it from row j.
V pdist_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  const double p = c.double_arg(0);
  const int64_t n = x.size(0);
  if (!g[0].defined()) return {Tensor()};
  if (p == 0 || n < 2) return {zeros_like(x)};
  const Tensor idx = triu_indices(n, n, 1, TensorOptions(kLong).device(x.device()));
  const Tensor rows = idx.select(0, 0), cols = idx.select(0, 1);
  const Tensor t = distance_grad(x.index_select(0, rows) - x.index_select(0, cols),
                                 g[0].unsqueeze(-1), c.output(0).unsqueeze(-1), p);
  return {zeros_like(x).index_add(0, rows, t).index_add(0, cols, -t)};
}

// convolution3d(input, weight, bias; stride, padding, dilation, groups)
// and conv_transpose3d(...; stride, padding, output_padding, dilation,
// groups): ConvolutionBackward0, as 1.13 records conv3d and
// conv_transpose3d (Note [3-d convolution from 2-d] in tensor/conv3d.h).
V convolution3d_bw(const C& c, const V& g) {
  if (!g[0].defined()) return {Tensor(), Tensor(), Tensor()};
  auto [gi, gw, gb] =
      convolution3d_from_2d_backward(g[0], c.input(0), c.input(1), c.dims(0), c.dims(1), c.dims(2),
                                     c.int_arg(3), {c.needs(0), c.needs(1), c.needs(2)});
  return {gi, gw, gb};
}
V conv_transpose3d_bw(const C& c, const V& g) {
  if (!g[0].defined()) return {Tensor(), Tensor(), Tensor()};
  auto [gi, gw, gb] = conv_transpose3d_from_2d_backward(
      g[0], c.input(0), c.input(1), c.dims(0), c.dims(1), c.dims(2), c.dims(3), c.int_arg(4),
      {c.needs(0), c.needs(1), c.needs(2)});
  return {gi, gw, gb};
}

// _embedding_bag(weight, per_sample_weights, kept indices, their bags,
// their positions in the input, a per-row factor, max mode's rows of the
// maxima, and the weight again where per_sample_weights needs a gradient
// (its gradient through this input comes with input 0's): as 1.13's node,
// which keeps the weight only then, so that the weight may change in place
// before a backward that does not read it; mode) from F::embedding_bag
// (nn/functional/embedding.cc): 1.13's _embedding_bag_backward (sum and mean: each kept index's row
// gets its bag's gradient, times its sample weight and factor; max: each bag's gradient goes to the
// row of each feature's maximum) and _embedding_bag_per_sample_weights_backward (the dot product of
// the bag's gradient with the row; 0 for padding_idx).
V embedding_bag_bw(const C& c, const V& g) {
  V r(8);
  if (!g[0].defined()) return r;
  const Tensor &psw = c.input(1), &idx = c.input(2), &bag = c.input(3);
  const int64_t num_weights = c.input_sizes(0)[0], dim = c.input_sizes(0)[1];
  const bool max_mode = c.int_arg(0) == 2;
  if (c.needs(0)) {
    if (max_mode) {
      const Tensor& max_word = c.input(6);
      const Tensor found = max_word >= 0;
      const Tensor flat =
          (max_word.clamp_min(0) * dim + arange(dim, TensorOptions(kLong).device(g[0].device())))
              .flatten();
      r[0] = zeros({num_weights * dim}, g[0].options())
                 .index_add(0, flat, where(found, g[0], zeros_like(g[0])).flatten())
                 .view({num_weights, dim});
    } else {
      Tensor rows = g[0].index_select(0, bag);
      if (psw.defined()) rows = rows * psw.index_select(0, c.input(4)).unsqueeze(1);
      if (c.input(5).defined()) rows = rows * c.input(5).unsqueeze(1);
      r[0] = zeros({num_weights, dim}, g[0].options()).index_add(0, idx, rows);
    }
  }
  if (c.needs(1)) {
    const Tensor dots = (g[0].index_select(0, bag) * c.input(7).index_select(0, idx)).sum({1});
    r[1] = zeros({psw.size(0)}, g[0].options()).index_add(0, c.input(4), dots);
  }
  return r;
}

}  // namespace

EMBER_REGISTER_DERIVATIVES(
    {"_cdist_forward", "CdistBackward0", kSaveSelf | kSaveOther, true, cdist_bw},
    {"_euclidean_dist", "EuclideanDistBackward0", kSaveSelf | kSaveOther, true, euclidean_dist_bw},
    {"_pdist_forward", "PdistBackward0", kSaveSelf, true, pdist_bw},
    {"convolution3d", "ConvolutionBackward0", kSaveSelf | kSaveOther, false, convolution3d_bw},
    {"conv_transpose3d", "ConvolutionBackward0", kSaveSelf | kSaveOther, false,
     conv_transpose3d_bw},
    {"_embedding_bag", "EmbeddingBagBackward0", kSaveAll & ~kSaveSelf, false, embedding_bag_bw});

}  // namespace autograd
}  // namespace ember
