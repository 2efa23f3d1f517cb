// Derivatives of the matmul family (linalg.cc). Batch broadcasting is
// undone by the node's sum_to.
#include "autograd/derivatives.h"
#include "tensor/linalg.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// A matrix whose strides are column-major (a transposed view, as linear's
// weight.t()).
bool column_major(const Tensor& m) {
  return m.dim() == 2 && m.stride(0) == 1 && m.stride(1) == m.size(0);
}

// PyTorch's mm_mat1_backward / mm_mat2_backward: the gradient of a
// column-major operand is computed column-major (the transposed product,
// transposed back), so that it has the operand's strides: a linear layer's
// weight gradient then reaches AccumulateGrad in the weight's own layout
// and is taken as is rather than copied into it.
Tensor mat1_grad(const Tensor& g, const Tensor& mat1, const Tensor& mat2) {
  return column_major(mat1) ? mat2.mm(g.t()).t() : g.mm(mat2.t());
}
Tensor mat2_grad(const Tensor& g, const Tensor& mat1, const Tensor& mat2) {
  return column_major(mat2) ? g.t().mm(mat1).t() : mat1.t().mm(g);
}

// PyTorch's maybe_multiply: t * s, or t itself when s is 1 (addmm's usual
// alpha and beta: no pass over the gradient, no copy).
Tensor maybe_multiply(const Tensor& t, const Scalar& s) {
  return s.to<double>() == 1.0 ? t : t * s;
}

V mm_bw(const C& c, const V& g) {
  return {c.needs(0) ? mat1_grad(g[0], c.input(0), c.input(1)) : Tensor(),
          c.needs(1) ? mat2_grad(g[0], c.input(0), c.input(1)) : Tensor()};
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
  return {c.needs(0) ? maybe_multiply(g[0], beta) : Tensor(),
          c.needs(1) ? maybe_multiply(mat1_grad(g[0], c.input(1), c.input(2)), alpha) : Tensor(),
          c.needs(2) ? maybe_multiply(mat2_grad(g[0], c.input(1), c.input(2)), alpha) : Tensor()};
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
