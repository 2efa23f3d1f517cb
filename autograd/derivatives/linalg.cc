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
V addmm_bw(const C& c, const V& g) {
  const Scalar beta = c.scalar(0);
  const Scalar alpha = c.scalar(1);
  return {c.needs(0) ? g[0] * beta : Tensor(),
          c.needs(1) ? g[0].mm(c.input(2).t()) * alpha : Tensor(),
          c.needs(2) ? c.input(1).t().mm(g[0]) * alpha : Tensor()};
}
EMBER_REGISTER_DERIVATIVES(
    {"mm", "MmBackward0", kSaveSelf | kSaveOther, false, mm_bw},
    {"bmm", "BmmBackward0", kSaveSelf | kSaveOther, false, bmm_bw},
    {"mv", "MvBackward0", kSaveSelf | kSaveOther, false, mv_bw},
    {"dot", "DotBackward0", kSaveSelf | kSaveOther, false, dot_bw},
    {"addmm", "AddmmBackward0", kSaveOther | kSaveThird, false, addmm_bw});

}  // namespace
}  // namespace autograd
}  // namespace ember
