// Derivatives of tensor/linalg_factor.h's ops. The formulas are the
// standard ones PyTorch 1.13 uses (FunctionsManual.cpp: linalg_qr_backward,
// linalg_lu_backward, householder_product_backward, linalg_lu_solve_LU),
// derived and written here with public ops (matmul, triangular_solve,
// lu_unpack, linalg_lu_solve) so that they differentiate again.
#include "autograd/derivatives.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/linalg.h"
#include "tensor/linalg_factor.h"
#include "tensor/linalg_more.h"
#include "tensor/shape.h"
#include "tensor/shape_ops.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// Zeros of t's batch shape followed by (rows, cols).
Tensor zeros_batch(const Tensor& t, int64_t rows, int64_t cols) {
  DimVector s(t.sizes().begin(), t.sizes().end() - 2);
  s.push_back(rows);
  s.push_back(cols);
  return zeros(s, t.options());
}

// X R^-T for upper-triangular R: R X^T = Y^T.
Tensor solve_right_upper_t(const Tensor& Y, const Tensor& R) {
  return std::get<0>(triangular_solve(Y.mT(), R, /*upper=*/true)).mT();
}

// L^-T X for unit lower-triangular L.
Tensor solve_left_unit_lower_t(const Tensor& X, const Tensor& L) {
  return std::get<0>(triangular_solve(X, L, /*upper=*/false, /*transpose=*/true,
                                      /*unitriangular=*/true));
}

// --- QR ---------------------------------------------------------------------------

// A = Q R with A (m, n), m >= n, Q (m, n), R (n, n): with
// M = R gR^T - gQ^T Q, gA = (gQ + Q copyltu(M)) R^-T, copyltu(M) the
// symmetric matrix with M's lower triangle.
Tensor qr_backward_tall(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  const Tensor M = R.matmul(gR.mT()) - gQ.mT().matmul(Q);
  const Tensor sym = M.tril() + M.tril(-1).mT();
  return solve_right_upper_t(gQ + Q.matmul(sym), R);
}

// linalg_qr (args: mode). A wide A = [X | Y] (m < n) has Q, U = qr(X) and
// R = [U | Q^T Y].
V linalg_qr_bw(const C& c, const V& g) {
  const std::string& mode = c.str(0);
  EMBER_CHECK(mode != "r",
              "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
              "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
              "linalg.qr.");
  const int64_t m = c.input_sizes(0)[c.input_sizes(0).size() - 2];
  const int64_t n = c.input_sizes(0).back();
  EMBER_CHECK(!(mode == "complete" && m > n),
              "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  const Tensor& Q = c.output(0);
  const Tensor& R = c.output(1);
  if (m >= n) return {qr_backward_tall(g[0], g[1], Q, R)};
  const Tensor Y = c.input(0).narrow(-1, m, n - m);
  const Tensor U = R.narrow(-1, 0, m);
  const Tensor gU = g[1].narrow(-1, 0, m), gV = g[1].narrow(-1, m, n - m);
  const Tensor gX = qr_backward_tall(g[0] + Y.matmul(gV.mT()), gU, Q, U);
  return {cat({gX, Q.matmul(gV)}, -1)};
}

// Functions with no derivative in PyTorch 1.13.
constexpr char kGeqrf[] = "geqrf";
constexpr char kOrmqr[] = "ormqr";

// linalg_householder_product(A, tau): Q = H_0 ... H_{k-1} E, H_i =
// I - tau_i v_i v_i^T, E the first n columns of I. With F_i = H_0...H_{i-1}
// and S_i = H_{i+1}...H_{k-1} E, a_i = F_i v_i and b_i = S_i^T v_i:
// g tau_i = -a_i^T gQ b_i, g v_i = -tau_i (F_i^T gQ b_i + S_i gQ^T a_i).
V householder_product_bw(const C& c, const V& g) {
  const Tensor& A = c.input(0);
  const Tensor& tau = c.input(1);
  const Tensor& gQ = g[0];
  const int64_t m = A.size(-2), n = A.size(-1), k = tau.size(-1);
  if (k == 0) return {zeros_like(A), zeros_like(tau)};
  const Tensor I = eye(m, A.options());
  const Tensor V = (A.tril(-1) + eye(m, n, A.options())).narrow(-1, 0, k);
  std::vector<Tensor> v(k), H(k);
  for (int64_t i = 0; i < k; ++i) {
    v[i] = V.select(-1, i).unsqueeze(-1);  // (..., m, 1)
    H[i] = I - tau.select(-1, i).unsqueeze(-1).unsqueeze(-1) * v[i].matmul(v[i].mT());
  }
  std::vector<Tensor> S(k);
  S[k - 1] = eye(m, n, A.options()).expand(gQ.sizes());
  for (int64_t i = k - 1; i > 0; --i) S[i - 1] = H[i].matmul(S[i]);
  std::vector<Tensor> gv(k), gtau(k);
  Tensor F;  // undefined: the identity
  for (int64_t i = 0; i < k; ++i) {
    const Tensor a = F.defined() ? F.matmul(v[i]) : v[i];
    const Tensor b = S[i].mT().matmul(v[i]);
    const Tensor gQb = gQ.matmul(b);
    const Tensor t = tau.select(-1, i).unsqueeze(-1).unsqueeze(-1);
    gtau[i] = -(a.mT().matmul(gQb)).squeeze(-1).squeeze(-1);
    const Tensor left = F.defined() ? F.mT().matmul(gQb) : gQb;
    gv[i] = (-t * (left + S[i].matmul(gQ.mT().matmul(a)))).squeeze(-1);
    F = F.defined() ? F.matmul(H[i]) : H[i];
  }
  Tensor gA = stack(gv, -1).tril(-1);
  if (k < n) gA = cat({gA, zeros_batch(gA, m, n - k)}, -1);
  return {gA, stack(gtau, -1)};
}

// --- LU ---------------------------------------------------------------------------

// The gradient of A = P L U (A (m, n), L (m, k) unit lower, U (k, n)) from
// gL and gU. Square: gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T;
// the wide and tall cases add the off-square block's dependence on L or U.
Tensor lu_backward(const Tensor& gL_in, const Tensor& gU_in, const Tensor& P, const Tensor& L,
                   const Tensor& U) {
  const int64_t m = L.size(-2), n = U.size(-1);
  const Tensor gL = gL_in.tril(-1), gU = gU_in.triu();
  if (m == n) {
    const Tensor inner = L.mT().matmul(gL).tril(-1) + gU.matmul(U.mT()).triu();
    return P.matmul(solve_right_upper_t(solve_left_unit_lower_t(inner, L), U));
  }
  if (m < n) {
    // U = [U1 | U2], U2 = L^-1 P^T A2.
    const Tensor U1 = U.narrow(-1, 0, m), U2 = U.narrow(-1, m, n - m);
    const Tensor gU1 = gU.narrow(-1, 0, m), gU2 = gU.narrow(-1, m, n - m);
    const Tensor inner =
        (L.mT().matmul(gL) - gU2.matmul(U2.mT())).tril(-1) + gU1.matmul(U1.mT()).triu();
    const Tensor gA1 = solve_right_upper_t(solve_left_unit_lower_t(inner, L), U1);
    const Tensor gA2 = solve_left_unit_lower_t(gU2, L);
    return P.matmul(cat({gA1, gA2}, -1));
  }
  // m > n: L = [L1; L2], L2 = (P^T A)_2 U^-1.
  const Tensor L1 = L.narrow(-2, 0, n), L2 = L.narrow(-2, n, m - n);
  const Tensor gL1 = gL.narrow(-2, 0, n), gL2 = gL.narrow(-2, n, m - n);
  const Tensor inner =
      L1.mT().matmul(gL1).tril(-1) + (gU.matmul(U.mT()) - L2.mT().matmul(gL2)).triu();
  const Tensor top = solve_left_unit_lower_t(inner, L1);
  return P.matmul(solve_right_upper_t(cat({top, gL2}, -2), U));
}

// linalg_lu_factor_ex (args: pivot): L and U packed in LU.
V linalg_lu_factor_ex_bw(const C& c, const V& g) {
  const Tensor& LU = c.output(0);
  auto [P, L, U] = lu_unpack(LU, c.output(1));
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  const Tensor& gLU = g[0];
  return {lu_backward(gLU.narrow(-1, 0, k), gLU.narrow(-2, 0, k), P, L, U)};
}

// linalg_lu (args: pivot): P is piecewise constant (and, as in PyTorch, not
// a differentiable output).
V linalg_lu_bw(const C& c, const V& g) {
  return {lu_backward(g[1], g[2], c.output(0), c.output(1), c.output(2))};
}

// lu_unpack (args: unpack_data, unpack_pivots): L's strict lower and U's
// upper triangle are LU's; P does not depend on LU.
V lu_unpack_bw(const C& c, const V& g) {
  if (!c.bool_arg(0)) return {Tensor(), Tensor()};
  const IntArrayRef s = c.input_sizes(0);
  const int64_t m = s[s.size() - 2], n = s.back();
  Tensor gL = g[1].tril(-1), gU = g[2].triu();
  if (m < n) gL = cat({gL, zeros_batch(gL, m, n - m)}, -1);
  if (m > n) gU = cat({gU, zeros_batch(gU, m - n, n)}, -2);
  return {gL + gU, Tensor()};
}

// linalg_lu_solve(LU, pivots, B) (args: left, adjoint): gB solves the
// adjoint system; A's gradient (as linalg_solve's) then goes to LU
// through A = P L U: gLU = tril(P^T gA U^T, -1) + triu(L^T P^T gA).
V linalg_lu_solve_bw(const C& c, const V& g) {
  const Tensor& LU = c.input(0);
  const Tensor& pivots = c.input(1);
  const Tensor& X = c.output(0);
  const bool left = c.bool_arg(0), adjoint = c.bool_arg(1);
  const Tensor gB = linalg_lu_solve(LU, pivots, g[0], left, !adjoint);
  Tensor gLU;
  if (c.needs(0)) {
    Tensor gA;
    if (left) {
      gA = adjoint ? -X.matmul(gB.mT()) : -gB.matmul(X.mT());
    } else {
      gA = adjoint ? -gB.mT().matmul(X) : -X.mT().matmul(gB);
    }
    auto [P, L, U] = lu_unpack(LU, pivots);
    const Tensor PtgA = P.mT().matmul(gA);
    gLU = PtgA.matmul(U.mT()).tril(-1) + L.mT().matmul(PtgA).triu();
  }
  return {gLU, Tensor(), c.needs(2) ? gB : Tensor()};
}

EMBER_REGISTER_DERIVATIVES({"linalg_qr", "LinalgQrBackward0", kSaveSelf, true, linalg_qr_bw},
                           {"geqrf", "GeqrfBackward0", 0, false, not_implemented<kGeqrf>},
                           {"linalg_householder_product", "LinalgHouseholderProductBackward0",
                            kSaveSelf | kSaveOther, false, householder_product_bw},
                           {"ormqr", "OrmqrBackward0", 0, false, not_implemented<kOrmqr>},
                           {"linalg_lu_factor_ex", "LinalgLuFactorExBackward0", 0, true,
                            linalg_lu_factor_ex_bw},
                           {"linalg_lu", "LinalgLuBackward0", 0, true, linalg_lu_bw, false, 0,
                            /*nondifferentiable_outputs=*/1},
                           {"lu_unpack", "LuUnpackBackward0", 0, false, lu_unpack_bw, false, 0,
                            /*nondifferentiable_outputs=*/1},
                           {"linalg_lu_solve", "LinalgLuSolveBackward0", kSaveSelf | kSaveOther,
                            true, linalg_lu_solve_bw});

}  // namespace
}  // namespace autograd
}  // namespace ember
