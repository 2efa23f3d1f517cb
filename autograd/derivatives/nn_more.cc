// Derivatives of nn ops that PyTorch 1.13 records as one node where ember
// used to record the nodes of a composite (issue 22): glu, the margin
// losses, rrelu_with_noise, and the Tensor-number overloads of div and mul
// that ATen's own composites record (DivBackward1, MulBackward1). The ops
// are recorded in //nn/functional (activation.cc, loss.cc); the formulas
// are 1.13's *_backward kernels written with public ops, so that double
// backward works through them.
#include <cstdint>
#include <utility>

#include "autograd/derivatives.h"
#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"
#include "tensor/shape.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// div(self, other: number) -> DivBackward1, mul(self, other: number) ->
// MulBackward1 (args: other).
V div_scalar_bw(const C& c, const V& g) { return {g[0] / c.scalar(0)}; }
V mul_scalar_bw(const C& c, const V& g) { return {g[0] * c.scalar(0)}; }

// 1.13's glu_backward(grad_output, self; dim): with s = sigmoid(b) of the
// halves [a, b], [s * grad, (1 - s) * s * a * grad]. Recorded as its own op
// (GluBackwardBackward0 under create_graph, as 1.13).
Tensor glu_backward(const Tensor& go, const Tensor& x, int64_t dim) {
  detail::OpScope scope(go, x);
  const int64_t half = x.size(dim) / 2;
  const Tensor a = x.narrow(dim, 0, half);
  const Tensor s = x.narrow(dim, half, half).sigmoid();
  Tensor r = cat({s * go, (1 - s) * s * a * go}, dim);
  if (scope.active()) scope.record("glu_backward", {go, x}, {r}, {Scalar(dim)});
  return r;
}
V glu_bw(const C& c, const V& g) { return {glu_backward(g[0], c.input(0), c.int_arg(0))}; }
// glu_backward's derivative (inputs: grad_output, self; args: dim), with
// sd = s (1 - s) and the incoming gradient's halves [h1, h2]:
// grad_output: h1 s + h2 sd a; a: h2 sd go; b: (h1 go + h2 a go (1 - 2 s)) sd.
V glu_backward_bw(const C& c, const V& g) {
  const Tensor& go = c.input(0);
  const Tensor& x = c.input(1);
  const int64_t dim = c.int_arg(0);
  const int64_t half = x.size(dim) / 2;
  const Tensor a = x.narrow(dim, 0, half);
  const Tensor s = x.narrow(dim, half, half).sigmoid();
  const Tensor sd = s * (1 - s);
  const Tensor h1 = g[0].narrow(dim, 0, half), h2 = g[0].narrow(dim, half, half);
  V r(2);
  if (c.needs(0)) r[0] = h1 * s + h2 * sd * a;
  if (c.needs(1)) r[1] = cat({h2 * sd * go, (h1 * go + h2 * a * go * (1 - 2 * s)) * sd}, dim);
  return r;
}

// ATen's (nframe, dim) of the margin losses' inputs: [], [C] or [N, C].
std::pair<int64_t, int64_t> margin_frames(const Tensor& x) {
  const int64_t nd = x.dim();
  return {nd <= 1 ? 1 : x.size(0), nd == 0 ? 1 : x.size(nd - 1)};
}

// The per-element gradient `gi` [nframe, dim] times grad_output: one number
// unless the loss is per sample (reduction none with a per-sample result).
Tensor times_grad_output(const Tensor& gi, const Tensor& go, int64_t reduction, int64_t nframe) {
  if (reduction != loss_reduction::kNone || go.dim() == 0) return gi * go.reshape({});
  return gi * go.reshape({nframe, 1});
}

// 1.13's multi_margin_loss_backward (inputs: self, target, weight; args: p,
// margin, reduction): with z = margin - x[y] + x[d] and g = 1 / dim (mean:
// 1 / (nframe * dim)), d != y gets g (p = 1) or 2 g z (p = 2) where z > 0,
// times weight[y]; x[y] gets minus their sum. Target and weight get none
// (1.13 refuses a weight that requires grad when recording).
// Note [Margin losses' backward has no derivative]: 1.13's
// multi_margin_loss_backward and multilabel_margin_loss_backward have none;
// under create_graph their result's node is NotImplemented and backward
// through it raises "derivative for aten::..._backward is not implemented".
// The formulas are recorded as those ops, which have no table entry.
V multi_margin_loss_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  detail::OpScope scope(g[0], x);
  if (x.numel() == 0) return {zeros_like(x)};
  const int64_t p = c.int_arg(0);
  const Scalar margin = c.scalar(1);
  const int64_t reduction = c.int_arg(2);
  const auto [nframe, dim] = margin_frames(x);
  const Tensor xs = x.reshape({nframe, dim});
  const Tensor t = c.input(1).reshape({nframe, 1}).to(kLong);
  const Tensor z = (margin - xs.gather(1, t)) + xs;
  const Tensor active = (z > 0).logical_and(ones_like(xs, kBool).scatter(1, t, Scalar(false)));
  const double scale =
      1.0 / static_cast<double>(reduction == loss_reduction::kMean ? nframe * dim : dim);
  Tensor h = p == 1 ? active.to(x.dtype()) * scale : where(active, z * (2 * scale), Scalar(0.0));
  const Tensor& w = c.input(2);
  if (w.defined())
    h = h * w.reshape({dim}).to(x.dtype()).index_select(0, t.reshape({nframe})).unsqueeze(1);
  const Tensor gi = h.scatter(1, t, -h.sum({1}, /*keepdim=*/true));
  Tensor r = times_grad_output(gi, g[0], reduction, nframe).reshape(x.sizes());
  // Note [Margin losses' backward has no derivative].
  if (scope.active()) {
    scope.record("multi_margin_loss_backward", {g[0], x, c.input(1), w}, {r},
                 {Scalar(p), margin, Scalar(reduction)});
  }
  return {r};
}

// 1.13's multilabel_margin_loss_backward (inputs: self, target; args:
// reduction): a sample's targets are its classes up to the first negative
// one (is_target marks them); each pair of a target k and a non-target d
// with z = 1 - x[k] + x[d] > 0 adds g to d and takes g from k (g as above).
V multilabel_margin_loss_bw(const C& c, const V& g) {
  const Tensor& x = c.input(0);
  detail::OpScope scope(g[0], x);  // Note [Margin losses' backward has no derivative]
  if (x.numel() == 0) return {zeros_like(x)};
  const int64_t reduction = c.int_arg(0);
  const auto [nframe, dim] = margin_frames(x);
  const Tensor xs = x.reshape({nframe, dim});
  const Tensor t = c.input(1).reshape({nframe, dim}).to(kLong);
  const Tensor valid = (t >= 0).to(kLong).cumprod(1).to(kBool);
  const Tensor idx = where(valid, t, 0);
  const Tensor is_target =
      zeros({nframe, dim}, TensorOptions().dtype(kLong)).scatter_add(1, idx, valid.to(kLong)) > 0;
  const Tensor z = (1 - xs.gather(1, idx)).unsqueeze(2) + xs.unsqueeze(1);  // [n, k, d]
  const Tensor active = (z > 0)
                            .logical_and(valid.unsqueeze(2))
                            .logical_and(is_target.logical_not().unsqueeze(1))
                            .to(x.dtype());
  const double scale =
      1.0 / static_cast<double>(reduction == loss_reduction::kMean ? nframe * dim : dim);
  const Tensor gi = (active.sum({1}) - zeros_like(xs).scatter_add(1, idx, active.sum({2}))) * scale;
  Tensor r = times_grad_output(gi, g[0], reduction, nframe).reshape(x.sizes());
  if (scope.active()) {
    scope.record("multilabel_margin_loss_backward", {g[0], x, c.input(1)}, {r},
                 {Scalar(reduction)});
  }
  return {r};
}

// 1.13's rrelu_with_noise_backward (args: lower, upper, training): the
// noise (the slopes drawn) in training unless upper - lower <= 1e-6, else
// leaky_relu's with slope (lower + upper) / 2, on self (functional: inputs
// self, noise) or on the result (in place: self_is_result).
// Recorded as its own op, rrelu_with_noise_backward(grad_output, self or
// result, noise; lower, upper, training): RreluWithNoiseBackwardBackward0
// under create_graph, as 1.13 (linear in grad_output; none for the rest).
Tensor rrelu_with_noise_backward(const Tensor& go, const Tensor& self_or_result,
                                 const Tensor& noise, double lower, double upper, bool training) {
  detail::OpScope scope(go, self_or_result);
  Tensor r = training && upper - lower > 1e-6
                 ? go * noise
                 : where(self_or_result > 0, go, go * Scalar((lower + upper) / 2));
  if (scope.active()) {
    scope.record("rrelu_with_noise_backward", {go, self_or_result, noise}, {r},
                 {Scalar(lower), Scalar(upper), Scalar(training)});
  }
  return r;
}
V rrelu_with_noise_backward_bw(const C& c, const V& g) {
  V r(3);
  if (c.needs(0)) {
    r[0] = rrelu_with_noise_backward(g[0], c.input(1), c.input(2), c.double_arg(0), c.double_arg(1),
                                     c.bool_arg(2));
  }
  if (c.needs(1)) r[1] = zeros_like(c.input(1));
  return r;
}
Tensor rrelu_grad(const C& c, const Tensor& g, const Tensor& self_or_result) {
  return rrelu_with_noise_backward(g, self_or_result, c.input(1), c.double_arg(0), c.double_arg(1),
                                   c.bool_arg(2));
}
V rrelu_with_noise_bw(const C& c, const V& g) {
  return {rrelu_grad(c, g[0], c.input(0)), Tensor()};
}
V rrelu_with_noise_inplace_bw(const C& c, const V& g) {
  return {rrelu_grad(c, g[0], c.output(0)), Tensor()};
}

}  // namespace

EMBER_REGISTER_DERIVATIVES({"div_scalar", "DivBackward1", 0, false, div_scalar_bw},
                           {"mul_scalar", "MulBackward1", 0, false, mul_scalar_bw},
                           {"glu", "GluBackward0", kSaveSelf, false, glu_bw},
                           {"glu_backward", "GluBackwardBackward0", kSaveAll, false,
                            glu_backward_bw},
                           {"rrelu_with_noise_backward", "RreluWithNoiseBackwardBackward0",
                            kSaveOther | kSaveThird, false, rrelu_with_noise_backward_bw},
                           {"multi_margin_loss", "MultiMarginLossBackward0", kSaveAll, false,
                            multi_margin_loss_bw},
                           {"multilabel_margin_loss", "MultilabelMarginLossBackward0",
                            kSaveSelf | kSaveOther, false, multilabel_margin_loss_bw},
                           {"rrelu_with_noise", "RreluWithNoiseBackward0", kSaveSelf | kSaveOther,
                            false, rrelu_with_noise_bw},
                           {"rrelu_with_noise_", "RreluWithNoiseBackward1", kSaveOther, true,
                            rrelu_with_noise_inplace_bw});

}  // namespace autograd
}  // namespace ember
