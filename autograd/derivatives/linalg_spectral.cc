// Derivatives of tensor/linalg_spectral.h's ops: PyTorch 1.13's svd_backward,
// linalg_eig_backward (hermitian case), pinv_backward,
// linalg_lstsq_backward and the matrix exponential's block-matrix formula
// (FunctionsManual.cpp, derivatives.yaml), written with public ops so that
// they differentiate again. Singular vectors and eigenvectors are defined
// up to sign, so only losses that do not depend on the sign have a
// well-defined gradient (the gradchecks use such losses).
#include "autograd/derivatives.h"
#include "tensor/creation.h"
#include "tensor/linalg.h"
#include "tensor/linalg_spectral.h"
#include "tensor/shape.h"
#include "tensor/shape_ops.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

Tensor skew(const Tensor& X) { return X - X.mT(); }

// X with its diagonal replaced by d (d undefined: zeros).
Tensor with_diagonal(const Tensor& X, const Tensor& d) {
  Tensor r = X - X.diagonal(0, -2, -1).diag_embed();
  return d.defined() ? r + d.diag_embed() : r;
}

// linalg_svd (args: full_matrices), outputs (U, S, Vh). Full matrices
// contribute only their first k = min(m, n) vectors.
V linalg_svd_bw(const C& c, const V& g) {
  Tensor U = c.output(0), Vh = c.output(2);
  const Tensor& S = c.output(1);
  Tensor gU = g[0], gVh = g[2];
  const Tensor& gS = g[1];
  if (!gU.defined() && !gS.defined() && !gVh.defined()) return {Tensor()};
  const int64_t m = U.size(-2), n = Vh.size(-1), k = S.size(-1);
  if (c.bool_arg(0)) {
    U = U.narrow(-1, 0, k);
    Vh = Vh.narrow(-2, 0, k);
    if (gU.defined()) gU = gU.narrow(-1, 0, k);
    if (gVh.defined()) gVh = gVh.narrow(-2, 0, k);
  }
  if (!gU.defined() && !gVh.defined()) return {(U * gS.unsqueeze(-2)).matmul(Vh)};
  const Tensor gV = gVh.defined() ? gVh.mT() : Tensor();
  const Tensor S2 = S * S;
  // E_ij = S_j^2 - S_i^2 off the diagonal, 1 on it.
  const Tensor E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye(k, S.options());
  Tensor ret;
  if (gU.defined() && gV.defined()) {
    ret = (skew(U.mT().matmul(gU)) * S.unsqueeze(-2) + S.unsqueeze(-1) * skew(Vh.matmul(gV))) / E;
  } else if (gU.defined()) {
    ret = skew(U.mT().matmul(gU)) / E * S.unsqueeze(-2);
  } else {
    ret = S.unsqueeze(-1) * (skew(Vh.matmul(gV)) / E);
  }
  if (gS.defined()) ret = ret + gS.diag_embed();
  Tensor gA;
  if (m > k && gU.defined()) {
    // The part of gU outside U's span.
    const Tensor gUSinv = gU / S.unsqueeze(-2);
    gA = (U.matmul(ret) + gUSinv - U.matmul(U.mT().matmul(gUSinv))).matmul(Vh);
  } else if (n > k && gV.defined()) {
    const Tensor gVSinv = gV / S.unsqueeze(-2);
    const Tensor V = Vh.mT();
    gA = U.matmul(ret.matmul(Vh) + gVSinv.mT() - gVSinv.mT().matmul(V).matmul(Vh));
  } else {
    gA = U.matmul(ret).matmul(Vh);
  }
  return {gA};
}

// Eigendecomposition of a symmetric matrix, outputs (L, V):
// gA = V (diag(gL) + (V^T gV) / E) V^T with E_ij = L_j - L_i off the
// diagonal.
Tensor eigh_backward(const Tensor& L, const Tensor& Vec, const Tensor& gL, const Tensor& gV) {
  if (!gV.defined()) return (Vec * gL.unsqueeze(-2)).matmul(Vec.mT());
  const int64_t n = L.size(-1);
  const Tensor E = L.unsqueeze(-2) - L.unsqueeze(-1) + eye(n, L.options());
  const Tensor ret = with_diagonal(Vec.mT().matmul(gV) / E, gL);
  return Vec.matmul(ret).matmul(Vec.mT());
}

V linalg_eigh_bw(const C& c, const V& g) {
  if (!g[0].defined() && !g[1].defined()) return {Tensor()};
  return {eigh_backward(c.output(0), c.output(1), g[0], g[1])};
}

// symeig (args: eigenvectors): without eigenvectors there is nothing to
// differentiate through (PyTorch's error).
V symeig_bw(const C& c, const V& g) {
  EMBER_CHECK(c.bool_arg(0),
              "linalg_eig_backward: torch.symeig(A, eigenvectors=False) is not differentiable. "
              "Use torch.linalg.eigvalsh(A) instead.");
  if (!g[0].defined() && !g[1].defined()) return {Tensor()};
  return {eigh_backward(c.output(0), c.output(1), g[0], g[1])};
}

// The gradient of pinv(A) (Golub and Pereyra), PyTorch's pinv_backward.
Tensor pinv_backward(const Tensor& grad, const Tensor& pinvA, const Tensor& A) {
  const int64_t m = A.size(-2), n = A.size(-1);
  const Tensor pinvAh = pinvA.mT();
  const Tensor gradh = grad.mT();
  if (m <= n) {
    const Tensor K = gradh.matmul(pinvA);
    const Tensor KpinvAh = K.matmul(pinvAh);
    return -(pinvA.matmul(K)).mT() + KpinvAh - A.matmul(pinvA).matmul(KpinvAh) +
           pinvAh.matmul(pinvA).matmul(gradh - K.matmul(A));
  }
  const Tensor K = pinvA.matmul(gradh);
  const Tensor pinvAhK = pinvAh.matmul(K);
  return -(K.matmul(pinvA)).mT() + (gradh - A.matmul(K)).matmul(pinvA).matmul(pinvAh) + pinvAhK -
         pinvAhK.matmul(pinvA).matmul(A);
}

V linalg_pinv_bw(const C& c, const V& g) { return {pinv_backward(g[0], c.output(0), c.input(0))}; }

// linalg_lstsq (outputs: the solution X = pinv(A) B only):
// gB = pinv(A)^T gX, gA from pinv's gradient gX B^T.
V linalg_lstsq_bw(const C& c, const V& g) {
  const Tensor& A = c.input(0);
  const Tensor& B = c.input(1);
  const bool vector = B.dim() == A.dim() - 1;
  const Tensor gX = vector ? g[0].unsqueeze(-1) : g[0];
  const Tensor Bm = vector ? B.unsqueeze(-1) : B;
  const Tensor pinvA = linalg_pinv(A);
  Tensor gA, gB;
  if (c.needs(0)) gA = pinv_backward(gX.matmul(Bm.mT()), pinvA, A);
  if (c.needs(1)) {
    gB = pinvA.mT().matmul(gX);
    if (vector) gB = gB.squeeze(-1);
  }
  return {gA, gB};
}

// The derivative of exp at A^T applied to g: the upper-right block of
// exp([[A^T, g], [0, A^T]]).
V linalg_matrix_exp_bw(const C& c, const V& g) {
  const Tensor At = c.input(0).mT();
  const int64_t n = At.size(-1);
  const Tensor top = cat({At, g[0]}, -1);
  const Tensor bottom = cat({zeros_like(At), At}, -1);
  const Tensor E = linalg_matrix_exp(cat({top, bottom}, -2));
  return {E.narrow(-2, 0, n).narrow(-1, n, n)};
}

EMBER_REGISTER_DERIVATIVES(
    {"linalg_svd", "LinalgSvdBackward0", 0, true, linalg_svd_bw, /*undefined_grads=*/true},
    {"linalg_eigh", "LinalgEighBackward0", 0, true, linalg_eigh_bw, /*undefined_grads=*/true},
    {"symeig", "SymeigBackward0", 0, true, symeig_bw, /*undefined_grads=*/true},
    {"linalg_pinv", "LinalgPinvBackward0", kSaveSelf, true, linalg_pinv_bw},
    {"linalg_lstsq", "LinalgLstsqBackward0", kSaveSelf | kSaveOther, false, linalg_lstsq_bw},
    {"linalg_matrix_exp", "LinalgMatrixExpBackward0", kSaveSelf, false, linalg_matrix_exp_bw});

}  // namespace
}  // namespace autograd
}  // namespace ember
