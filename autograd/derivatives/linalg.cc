// Derivatives of the matmul family (linalg.cc). Batch broadcasting is
// undone by the node's sum_to.
#include "autograd/derivatives.h"
#include "tensor/linalg.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

V mm_bw(const C& c, const V& g) {
  return {c.needs(0) ? g[0].mm(c.input(1).t()) : Tensor(),
          c.needs(1) ? c.input(0).t().mm(g[0]) : Tensor()};
}
V bmm_bw(const C& c, const V& g) {
  return {c.needs(0) ? g[0].bmm(c.input(1).transpose(1, 2)) : Tensor(),
          c.needs(1) ? c.input(0).transpose(1, 2).bmm(g[0]) : Tensor()};
}
V mv_bw(const C& c, const V& g) {
  return {c.needs(0) ? outer(g[0], c.input(1)) : Tensor(),
          c.needs(1) ? c.input(0).t().mv(g[0]) : Tensor()};
}
V dot_bw(const C& c, const V& g) {
  return {c.needs(0) ? g[0] * c.input(1) : Tensor(), c.needs(1) ? g[0] * c.input(0) : Tensor()};
}
V outer_bw(const C& c, const V& g) {
  return {c.needs(0) ? g[0].mv(c.input(1)) : Tensor(),
          c.needs(1) ? g[0].t().mv(c.input(0)) : Tensor()};
}
V addmm_bw(const C& c, const V& g) {
  const Scalar beta = c.scalar(0);
  const Scalar alpha = c.scalar(1);
  return {c.needs(0) ? g[0] * beta : Tensor(),
          c.needs(1) ? g[0].mm(c.input(2).t()) * alpha : Tensor(),
          c.needs(2) ? c.input(1).t().mm(g[0]) * alpha : Tensor()};
}
// matmul with any ranks: 1-D operands become a row / a column.
V matmul_bw(const C& c, const V& g) {
  Tensor a = c.input(0), b = c.input(1), go = g[0];
  const bool a1 = a.dim() == 1, b1 = b.dim() == 1;
  if (a1) {
    a = a.unsqueeze(0);
    go = go.unsqueeze(b1 ? 0 : -2);
  }
  if (b1) {
    b = b.unsqueeze(-1);
    go = go.unsqueeze(-1);
  }
  V r(2);
  if (c.needs(0)) {
    Tensor ga = go.matmul(b.transpose(-1, -2));
    r[0] = a1 ? ga.squeeze(-2) : ga;
  }
  if (c.needs(1)) {
    Tensor gb = a.transpose(-1, -2).matmul(go);
    r[1] = b1 ? gb.squeeze(-1) : gb;
  }
  return r;
}

EMBER_REGISTER_DERIVATIVES(
    {"mm", "MmBackward0", kSaveSelf | kSaveOther, false, mm_bw},
    {"bmm", "BmmBackward0", kSaveSelf | kSaveOther, false, bmm_bw},
    {"mv", "MvBackward0", kSaveSelf | kSaveOther, false, mv_bw},
    {"outer", "OuterBackward0", kSaveSelf | kSaveOther, false, outer_bw},
    {"dot", "DotBackward0", kSaveSelf | kSaveOther, false, dot_bw},
    {"addmm", "AddmmBackward0", kSaveOther | kSaveThird, false, addmm_bw},
    {"matmul", "MatmulBackward0", kSaveSelf | kSaveOther, false, matmul_bw});

}  // namespace
}  // namespace autograd
}  // namespace ember
