// Derivatives of tensor/linalg_more.h's ops, PyTorch 1.13's formulas
// (derivatives.yaml, FunctionsManual.cpp), written with public ops
// (linalg_solve, triangular_solve, matmul) so that they differentiate again.
#include "autograd/derivatives.h"
#include "autograd/grad_mode.h"
#include "tensor/creation.h"
#include "tensor/linalg.h"
#include "tensor/linalg_factor.h"
#include "tensor/linalg_more.h"
#include "tensor/linalg_spectral.h"
#include "tensor/shape.h"
#include "tensor/shape_ops.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// linalg_inv: -A^-T g A^-T.
V linalg_inv_bw(const C& c, const V& g) {
  const Tensor inv_t = c.output(0).mT();
  return {-inv_t.matmul(g[0].matmul(inv_t))};
}

// s A^-T for a batch of scalars s (d det / dA = det A^-T): linalg_solve
// with A^T, as PyTorch's formula for invertible A when it must stay
// differentiable. A singular A throws the solver's error (linalg_det_bw
// then goes through an SVD).
Tensor scaled_inverse_t(const Tensor& A, const Tensor& s) {
  const int64_t n = A.size(-1);
  DimVector sizes(s.sizes().begin(), s.sizes().end());
  sizes.push_back(n);
  return linalg_solve(A.mT(), s.unsqueeze(-1).expand(sizes).diag_embed());
}

// linalg_det: det A^-T where A is invertible. Where the solve finds a
// singular matrix, the adjugate through an SVD A = U diag(S) Vh, as
// PyTorch's singular case: gA = det(U) det(Vh) U diag(g prod_{j!=i} S_j) Vh
// (for every matrix of the batch; it holds for invertible ones too).
V linalg_det_bw(const C& c, const V& g) {
  const Tensor& A = c.input(0);
  try {
    return {scaled_inverse_t(A, g[0] * c.output(0))};
  } catch (const Error&) {
  }
  auto [U, S, Vh] = linalg_svd(A);
  const Tensor alpha = linalg_det(U) * linalg_det(Vh);
  const Tensor eye_n = eye(S.size(-1), S.options());
  // Row i: S with S_i replaced by 1.
  const Tensor others = (S.unsqueeze(-2) * (1 - eye_n) + eye_n).prod(-1);
  const Tensor D = (g[0] * alpha).unsqueeze(-1) * others;
  return {(U * D.unsqueeze(-2)).matmul(Vh)};
}

// linalg_slogdet: only logabsdet is differentiable (sign is piecewise
// constant): g_logabsdet A^-T. As 1.13: under create_graph a solve that
// stays differentiable (and raises for a singular A); otherwise the solve
// with the forward's LU (of A^T when A is C-contiguous, Note [LU of the
// transpose]), which gives 1.13's inf/NaN for a singular A instead of
// raising.
V linalg_slogdet_bw(const C& c, const V& g) {
  const Tensor& A = c.input(0);
  if (!g[1].defined()) return {Tensor()};
  if (GradMode::is_enabled()) return {scaled_inverse_t(A, g[1])};
  const bool use_a_t = A.is_contiguous();
  const auto [LU, pivots, info] = linalg_lu_factor_ex(use_a_t ? A.mT() : A);
  (void)info;
  const Tensor d = g[1].unsqueeze(-1).expand(pivots.sizes()).diag_embed();
  return {linalg_lu_solve(LU, pivots, d, /*left=*/true, /*adjoint=*/!use_a_t)};
}

// B is a batch of vectors (PyTorch's linalg_solve_is_vector_rhs).
bool is_vector_rhs(IntArrayRef a, IntArrayRef b) {
  if (b.size() == 1) return true;
  return b.size() + 1 == a.size() && b == a.slice(0, a.size() - 1);
}

// linalg_solve (args: left): gB = A^-T g (or g A^-T), gA = -gB X^T (or
// -X^T gB).
V linalg_solve_bw(const C& c, const V& g) {
  const Tensor& A = c.input(0);
  const bool left = c.bool_arg(0);
  const bool vector = is_vector_rhs(c.input_sizes(0), c.input_sizes(1));
  const int64_t vdim = left ? -1 : -2;
  const Tensor gX = vector ? g[0].unsqueeze(vdim) : g[0];
  const Tensor X = vector ? c.output(0).unsqueeze(vdim) : c.output(0);
  const Tensor gB = linalg_solve(A.mT(), gX, left);
  Tensor gA;
  if (c.needs(0)) gA = left ? -gB.matmul(X.mT()) : -X.mT().matmul(gB);
  return {gA, c.needs(1) ? (vector ? gB.squeeze(vdim) : gB) : Tensor()};
}

// triangular_solve (args: upper, transpose, unitriangular): the gradient
// of b solves the transposed system; A's is kept to the triangle the op
// reads, plus the gradient of the returned copy of A.
V triangular_solve_bw(const C& c, const V& g) {
  const Tensor& A = c.input(1);
  const Tensor& X = c.output(0);
  const bool upper = c.bool_arg(0), transpose = c.bool_arg(1), unitriangular = c.bool_arg(2);
  const Tensor gb = std::get<0>(triangular_solve(g[0], A, upper, !transpose, unitriangular));
  Tensor gA;
  if (c.needs(1)) {
    gA = transpose ? -X.matmul(gb.mT()) : -gb.matmul(X.mT());
    gA = upper ? gA.triu(unitriangular ? 1 : 0) : gA.tril(unitriangular ? -1 : 0);
    gA = gA + g[1];
  }
  return {gb, gA};
}

// cholesky / linalg_cholesky (args: upper): with L lower,
// gA = L^-T Phi(L^T gL) L^-1, Phi taking the lower triangle with the
// diagonal halved, made symmetric.
V cholesky_bw(const C& c, const V& g) {
  const bool upper = c.bool_arg(0);
  const Tensor L = upper ? c.output(0).mT() : c.output(0);
  const Tensor gL = upper ? g[0].mT() : g[0];
  Tensor phi = L.mT().matmul(gL).tril();
  phi = 0.5 * (phi + phi.tril(-1).mT());
  const Tensor left = std::get<0>(triangular_solve(phi, L, false, true));
  return {std::get<0>(triangular_solve(left.mT(), L, false, true)).mT()};
}

// cholesky_solve(b, L, upper): gb = cholesky_solve(g, L); with
// S = gb X^T + X gb^T, gL = -S L (lower) or -L S (upper).
V cholesky_solve_bw(const C& c, const V& g) {
  const Tensor& L = c.input(1);
  const bool upper = c.bool_arg(0);
  const Tensor gb = cholesky_solve(g[0], L, upper);
  Tensor gL;
  if (c.needs(1)) {
    Tensor common = gb.matmul(c.output(0).mT());
    common = common + common.mT();
    gL = upper ? -L.matmul(common) : -common.matmul(L);
  }
  return {gb, gL};
}

// cholesky_inverse(L, upper): with S = A^-1 (g + g^T) A^-1, gL = -S L
// (lower) or -L S (upper).
V cholesky_inverse_bw(const C& c, const V& g) {
  const Tensor& L = c.input(0);
  const Tensor& inv = c.output(0);
  const Tensor common = inv.matmul((g[0] + g[0].mT()).matmul(inv));
  return {c.bool_arg(0) ? -L.matmul(common) : -common.matmul(L)};
}

EMBER_REGISTER_DERIVATIVES(
    {"linalg_inv", "LinalgInvExBackward0", 0, true, linalg_inv_bw},
    {"linalg_det", "LinalgDetBackward0", kSaveSelf, true, linalg_det_bw},
    {"linalg_slogdet", "LinalgSlogdetBackward0", kSaveSelf, false, linalg_slogdet_bw},
    {"linalg_solve", "LinalgSolveExBackward0", kSaveSelf, true, linalg_solve_bw},
    {"triangular_solve", "TriangularSolveBackward0", kSaveOther, true, triangular_solve_bw, false,
     /*unsaved_outputs=*/2},
    {"cholesky", "CholeskyBackward0", 0, true, cholesky_bw},
    {"linalg_cholesky", "LinalgCholeskyExBackward0", 0, true, cholesky_bw},
    {"cholesky_solve", "CholeskySolveBackward0", kSaveOther, true, cholesky_solve_bw},
    {"cholesky_inverse", "CholeskyInverseBackward0", kSaveSelf, true, cholesky_inverse_bw});

}  // namespace
}  // namespace autograd
}  // namespace ember
