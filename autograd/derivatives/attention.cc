// The derivative of the fused attention op (Note [Fused attention] in
// tensor/attention.h).
#include <limits>

#include "autograd/derivatives.h"
#include "autograd/grad_mode.h"
#include "tensor/attention.h"
#include "tensor/creation.h"
#include "tensor/linalg.h"
#include "tensor/math.h"
#include "tensor/shape.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// _scaled_dot_product_flash_attention(q, k, v, mask; is_causal, scale)
// -> (out, logsumexp). The kernel recomputes the probabilities block by
// block; with create_graph (or a gradient for logsumexp, which no public op
// returns) the same gradient comes from public ops instead, so that it is
// differentiable again.
V flash_attention_bw(const C& c, const V& g) {
  const Tensor &q = c.input(0), &k = c.input(1), &v = c.input(2), &mask = c.input(3);
  const bool is_causal = c.bool_arg(0);
  const double scale = c.double_arg(1);
  const Tensor go = g[0].defined() ? g[0] : zeros_like(c.output(0));
  V r(4);
  if (!GradMode::is_enabled() && !g[1].defined()) {
    std::tie(r[0], r[1], r[2]) = _scaled_dot_product_flash_attention_backward(
        go, q, k, v, c.output(0), c.output(1), mask, is_causal, scale);
    return r;
  }
  constexpr double kNegInf = -std::numeric_limits<double>::infinity();
  Tensor scores = matmul(q, k.transpose(-2, -1)) * scale;
  if (mask.defined()) scores = scores + mask;
  if (is_causal) {
    const int64_t L = q.size(-2), S = k.size(-2);
    scores = scores.masked_fill(ones({L, S}, TensorOptions(kBool).device(q.device())).triu(1),
                                kNegInf);
  }
  // Rows with every key masked have zero probabilities (and no gradient).
  Tensor p = _safe_softmax(scores);
  Tensor dp = matmul(go, v.transpose(-2, -1));
  Tensor ds = p * (dp - (p * dp).sum({-1}, /*keepdim=*/true));
  if (g[1].defined()) ds = ds + p * g[1].unsqueeze(-1);
  if (c.needs(0)) r[0] = matmul(ds, k) * scale;
  if (c.needs(1)) r[1] = matmul(ds.transpose(-2, -1), q) * scale;
  if (c.needs(2)) r[2] = matmul(p.transpose(-2, -1), go);
  return r;
}

EMBER_REGISTER_DERIVATIVES({"_scaled_dot_product_flash_attention",
                            "ScaledDotProductFlashAttentionForCpuBackward0", kSaveAll, true,
                            flash_attention_bw, /*undefined_grads=*/true});

}  // namespace
}  // namespace autograd
}  // namespace ember
