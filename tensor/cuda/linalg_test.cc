// The LAPACK-backed linalg ops on CUDA (cuSOLVER/cuBLAS entries of
// tensor/lapack_kernels.h, tensor/cuda/cusolver.cc) against the CPU's
// (OpenBLAS) on the same inputs: the LU family (inv, det, slogdet, logdet,
// solve, lu_factor, lu_solve, lu, lu_unpack) and the Cholesky family
// (cholesky, cholesky_solve, cholesky_inverse, triangular_solve) and eigh
// (eigh, eigvalsh, symeig) and QR (linalg_qr, geqrf, householder_product,
// orgqr, ormqr), SVD (svd, svdvals, pinv, matrix_rank) and lstsq (gels),
// batched
// and not, float and double, transposed inputs; pivots and infos exactly,
// the same errors for singular and non-positive-definite inputs, results
// on the device without a fallback. Needs a GPU; skips without one.

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensor/all.h"
#include "tensor/cuda/ops_testing.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace cuda_testing {
namespace {

using ::ember::testing::error_of;

std::string shape_of(const Tensor& t) {
  return absl::StrCat("[", absl::StrJoin(t.sizes(), ", "), "]");
}

// t's batch dims followed by rows, cols.
DimVector with_batch(const Tensor& t, int64_t rows, int64_t cols) {
  DimVector s(t.sizes().begin(), t.sizes().end() - 2);
  s.push_back(rows);
  s.push_back(cols);
  return s;
}

constexpr ScalarType kFloatDouble[] = {kFloat, kDouble};

double tol(ScalarType t) { return t == kFloat ? 1e-4 : 1e-10; }

// Well-conditioned square matrices (..., n, n): random plus n on the
// diagonal.
Tensor square(IntArrayRef batch, int64_t n, ScalarType t) {
  std::vector<int64_t> shape(batch.begin(), batch.end());
  shape.push_back(n);
  shape.push_back(n);
  return (values(shape, kDouble, 1) + eye(n, TensorOptions(kDouble)) * n).to(t);
}

// Symmetric positive-definite matrices of the same shapes.
Tensor spd(IntArrayRef batch, int64_t n, ScalarType t) {
  const Tensor a = square(batch, n, kDouble);
  return (a.matmul(a.mT()) + eye(n, TensorOptions(kDouble))).to(t);
}

// The inputs each op sees: unbatched, batched, a transposed batch.
std::vector<Tensor> squares(ScalarType t) {
  return {square({}, 5, t), square({3}, 4, t), square({2, 3}, 6, t).mT(), square({2}, 0, t)};
}

// No op below may fall back to the CPU: the fallback warns on stderr.
class CudaLinalgTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::is_available()) ::testing::internal::CaptureStderr();
  }
  void TearDown() override {
    if (!cuda::is_available()) return;
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(err.find("falls back to run on the CPU"), std::string::npos) << err;
  }
};

TEST_F(CudaLinalgTest, InverseMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloatDouble) {
    for (const Tensor& a : squares(t)) {
      SCOPED_TRACE(shape_of(a));
      expect_matches(linalg_inv(a.to(kCuda)), linalg_inv(a), tol(t), tol(t));
      expect_matches(a.to(kCuda).inverse(), a.inverse(), tol(t), tol(t));
    }
  }
}

TEST_F(CudaLinalgTest, DeterminantsMatchTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloatDouble) {
    std::vector<Tensor> inputs = squares(t);
    // Negative determinants, a singular matrix (det 0, logdet -inf).
    inputs.push_back(-square({2}, 3, t));
    inputs.push_back(tensor({{1.0, 2.0}, {2.0, 4.0}}).to(t));
    for (const Tensor& a : inputs) {
      SCOPED_TRACE(shape_of(a));
      const Tensor d = a.to(kCuda);
      expect_matches(linalg_det(d), linalg_det(a), tol(t), tol(t));
      const auto [s, l] = linalg_slogdet(d);
      const auto [cs, cl] = linalg_slogdet(a);
      expect_matches(s, cs, 0, 0);
      expect_matches(l, cl, tol(t), tol(t));
      expect_matches(logdet(d), logdet(a), tol(t), tol(t));
    }
  }
}

TEST_F(CudaLinalgTest, SolveMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloatDouble) {
    const Tensor A = square({2, 3}, 4, t);
    const Tensor B = values({2, 3, 4, 2}, t);
    for (bool left : {true, false}) {
      const Tensor b = left ? B : B.mT();
      expect_matches(linalg_solve(A.to(kCuda), b.to(kCuda), left), linalg_solve(A, b, left), tol(t),
                     tol(t));
      expect_matches(linalg_solve(A.mT().to(kCuda), b.to(kCuda), left),
                     linalg_solve(A.mT(), b, left), tol(t), tol(t));
    }
    // A vector right-hand side, a broadcast batch.
    const Tensor v = values({4}, t);
    expect_matches(linalg_solve(A.to(kCuda), v.to(kCuda)), linalg_solve(A, v), tol(t), tol(t));
    const Tensor a1 = square({}, 4, t);
    expect_matches(linalg_solve(a1.to(kCuda), B.to(kCuda)), linalg_solve(a1, B), tol(t), tol(t));
  }
}

TEST_F(CudaLinalgTest, SingularInputsRaiseTheCpuErrors) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloatDouble) {
    Tensor batch = square({3}, 3, t);
    batch[1].zero_();
    batch[1][0][0] = 1;
    batch[2][1].copy_(batch[2][0]);
    const Tensor one = batch[1];
    const Tensor rhs = values({3, 3, 2}, t);
    for (const Tensor& a : {batch, one}) {
      SCOPED_TRACE(shape_of(a));
      const Tensor d = a.to(kCuda);
      EXPECT_EQ(error_of([&] { linalg_inv(d); }), error_of([&] { linalg_inv(a); }));
      EXPECT_EQ(error_of([&] { linalg_lu_factor(d); }), error_of([&] { linalg_lu_factor(a); }));
      const Tensor b = a.dim() == 3 ? rhs : rhs[0];
      EXPECT_EQ(error_of([&] { linalg_solve(d, b.to(kCuda)); }),
                error_of([&] { linalg_solve(a, b); }));
      // lu_factor_ex reports instead of raising: the same infos.
      expect_matches(std::get<2>(linalg_lu_factor_ex(d)), std::get<2>(linalg_lu_factor_ex(a)));
    }
    EXPECT_NE(error_of([&] { linalg_inv(batch.to(kCuda)); }), "(no error)");
  }
}

TEST_F(CudaLinalgTest, LuFactorizationsMatchTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloatDouble) {
    std::vector<Tensor> inputs = squares(t);
    inputs.push_back(values({2, 5, 3}, t));  // tall
    inputs.push_back(values({3, 6}, t));     // wide
    inputs.push_back(values({4, 3}, t).mT());
    for (const Tensor& a : inputs) {
      SCOPED_TRACE(shape_of(a));
      const auto [LU, piv, info] = linalg_lu_factor_ex(a.to(kCuda));
      const auto [cLU, cpiv, cinfo] = linalg_lu_factor_ex(a);
      expect_matches(LU, cLU, tol(t), tol(t));
      expect_matches(piv, cpiv);
      expect_matches(info, cinfo);
      const auto [P, L, U] = linalg_lu(a.to(kCuda));
      const auto [cP, cL, cU] = linalg_lu(a);
      expect_matches(P, cP, 0, 0);
      expect_matches(L, cL, tol(t), tol(t));
      expect_matches(U, cU, tol(t), tol(t));
      const auto [uP, uL, uU] = lu_unpack(LU, piv);
      expect_matches(uP, cP, 0, 0);
      expect_matches(uL, cL, tol(t), tol(t));
      expect_matches(uU, cU, tol(t), tol(t));
    }
  }
}

TEST_F(CudaLinalgTest, LuSolveMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloatDouble) {
    for (const Tensor& A : {square({3}, 4, t), square({3}, 4, t).mT()}) {
      const auto [LU, piv] = linalg_lu_factor(A);
      const Tensor B = values({3, 4, 2}, t);
      for (bool left : {true, false}) {
        for (bool adjoint : {false, true}) {
          SCOPED_TRACE(absl::StrCat("left ", left, " adjoint ", adjoint));
          const Tensor b = left ? B : B.mT();
          expect_matches(linalg_lu_solve(LU.to(kCuda), piv.to(kCuda), b.to(kCuda), left, adjoint),
                         linalg_lu_solve(LU, piv, b, left, adjoint), tol(t), tol(t));
        }
      }
      expect_matches(lu_solve(B.to(kCuda), LU.to(kCuda), piv.to(kCuda)), lu_solve(B, LU, piv),
                     tol(t), tol(t));
    }
  }
  // Bad pivots: PyTorch's checks, as on the CPU.
  const Tensor LU = square({}, 3, kDouble);
  const Tensor bad = tensor({0, 2, 3}).to(kInt);
  const Tensor B = values({3, 1}, kDouble);
  EXPECT_EQ(error_of([&] { linalg_lu_solve(LU.to(kCuda), bad.to(kCuda), B.to(kCuda)); }),
            error_of([&] { linalg_lu_solve(LU, bad, B); }));
  const Tensor high = tensor({1, 4, 3}).to(kInt);
  EXPECT_EQ(error_of([&] { lu_unpack(LU.to(kCuda), high.to(kCuda)); }),
            error_of([&] { lu_unpack(LU, high); }));
  EXPECT_NE(error_of([&] { lu_unpack(LU, high); }), "(no error)");
}

TEST_F(CudaLinalgTest, CholeskyMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloatDouble) {
    for (const Tensor& a :
         {spd({}, 5, t), spd({2, 3}, 4, t), spd({3}, 4, t).mT(), spd({2}, 0, t)}) {
      SCOPED_TRACE(shape_of(a));
      for (bool upper : {false, true}) {
        expect_matches(linalg_cholesky(a.to(kCuda), upper), linalg_cholesky(a, upper), tol(t),
                       tol(t));
        expect_matches(cholesky(a.to(kCuda), upper), cholesky(a, upper), tol(t), tol(t));
        const Tensor L = linalg_cholesky(a, upper);
        expect_matches(cholesky_inverse(L.to(kCuda), upper), cholesky_inverse(L, upper),
                       tol(t) * 10, tol(t) * 10);
        const Tensor B = values({a.size(-1), 3}, t);
        expect_matches(cholesky_solve(B.to(kCuda), L.to(kCuda), upper), cholesky_solve(B, L, upper),
                       tol(t) * 10, tol(t) * 10);
      }
    }
  }
}

TEST_F(CudaLinalgTest, NotPositiveDefiniteRaisesTheCpuError) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloatDouble) {
    Tensor batch = spd({3}, 3, t);
    batch[2][1][1] = -5;
    for (const Tensor& a : {batch, batch[2]}) {
      SCOPED_TRACE(shape_of(a));
      const Tensor d = a.to(kCuda);
      EXPECT_EQ(error_of([&] { linalg_cholesky(d); }), error_of([&] { linalg_cholesky(a); }));
      EXPECT_EQ(error_of([&] { cholesky(d); }), error_of([&] { cholesky(a); }));
      EXPECT_NE(error_of([&] { cholesky(d); }), "(no error)");
    }
  }
}

TEST_F(CudaLinalgTest, TriangularSolveMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloatDouble) {
    const Tensor A = square({2, 3}, 4, t);
    const Tensor B = values({2, 3, 4, 5}, t);
    for (const Tensor& a : {A, A.mT(), A[0][1]}) {
      for (bool upper : {true, false}) {
        for (bool transpose : {false, true}) {
          for (bool unit : {false, true}) {
            SCOPED_TRACE(absl::StrCat(shape_of(a), upper, transpose, unit));
            const auto [X, M] = triangular_solve(B.to(kCuda), a.to(kCuda), upper, transpose, unit);
            const auto [cX, cM] = triangular_solve(B, a, upper, transpose, unit);
            expect_matches(X, cX, tol(t) * 10, tol(t) * 10);
            expect_matches(M, cM, 0, 0);
          }
        }
      }
    }
  }
}

// Eigenvalues ascending as the CPU's; eigenvectors up to sign: |V| and the
// reconstruction V diag(L) V^T.
TEST_F(CudaLinalgTest, EighMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloatDouble) {
    for (const Tensor& a : {spd({}, 5, t) - 20, spd({2, 3}, 4, t), spd({3}, 6, t).mT(),
                            square({2}, 4, t), spd({2}, 0, t)}) {
      SCOPED_TRACE(shape_of(a));
      const Tensor d = a.to(kCuda);
      for (const char* uplo : {"L", "U"}) {
        const auto [L, V] = linalg_eigh(d, uplo);
        const auto [cL, cV] = linalg_eigh(a, uplo);
        expect_matches(L, cL, tol(t), tol(t));
        expect_matches(V.abs(), cV.abs(), tol(t) * 10, tol(t) * 10);
        expect_matches(V.matmul(L.unsqueeze(-1) * V.mT()), cV.matmul(cL.unsqueeze(-1) * cV.mT()),
                       tol(t) * 10, tol(t) * 10);
        expect_matches(linalg_eigvalsh(d, uplo), linalg_eigvalsh(a, uplo), tol(t), tol(t));
      }
      const auto [S, U] = symeig(d, true);
      const auto [cS, cU] = symeig(a, true);
      expect_matches(S, cS, tol(t), tol(t));
      expect_matches(U.abs(), cU.abs(), tol(t) * 10, tol(t) * 10);
      expect_matches(std::get<0>(symeig(d)), std::get<0>(symeig(a)), tol(t), tol(t));
    }
  }
}

// QR: Q and R up to the signs of R's rows (|Q|, |R| and Q R = A);
// householder_product and ormqr, given the same reflectors, as the CPU's.
TEST_F(CudaLinalgTest, QrMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloatDouble) {
    for (const Tensor& a : {values({5, 3}, t), values({3, 5}, t), values({2, 4, 4}, t),
                            values({2, 3, 6, 4}, t).mT(), values({2, 0, 3}, t)}) {
      SCOPED_TRACE(shape_of(a));
      const Tensor d = a.to(kCuda);
      for (const char* mode : {"reduced", "complete", "r"}) {
        SCOPED_TRACE(mode);
        const auto [Q, R] = linalg_qr(d, mode);
        const auto [cQ, cR] = linalg_qr(a, mode);
        expect_matches(R.abs(), cR.abs(), tol(t) * 10, tol(t) * 10);
        if (std::string(mode) != "r") {
          expect_matches(Q.abs(), cQ.abs(), tol(t) * 10, tol(t) * 10);
          expect_matches(Q.matmul(R), a, tol(t) * 10, tol(t) * 10);
        }
      }
      const auto [g, tau] = geqrf(d);
      const auto [cg, ctau] = geqrf(a);
      expect_matches(g.abs(), cg.abs(), tol(t) * 10, tol(t) * 10);
      expect_matches(tau, ctau, tol(t) * 10, tol(t) * 10);
      if (a.size(-2) >= a.size(-1)) {
        expect_matches(linalg_householder_product(cg.to(kCuda), ctau.to(kCuda)),
                       linalg_householder_product(cg, ctau), tol(t) * 10, tol(t) * 10);
        expect_matches(orgqr(cg.to(kCuda), ctau.to(kCuda)), orgqr(cg, ctau), tol(t) * 10,
                       tol(t) * 10);
      }
      for (bool left : {true, false}) {
        for (bool transpose : {false, true}) {
          const int64_t m = a.size(-2);
          DimVector shape(a.sizes().begin(), a.sizes().end() - 2);
          shape.push_back(left ? m : 2);
          shape.push_back(left ? 2 : m);
          const Tensor c = values(shape, t);
          expect_matches(ormqr(cg.to(kCuda), ctau.to(kCuda), c.to(kCuda), left, transpose),
                         ormqr(cg, ctau, c, left, transpose), tol(t) * 10, tol(t) * 10);
        }
      }
    }
  }
}

// SVD (cuSOLVER's gesvd; a wide matrix through its transpose): S as the
// CPU's, U and Vh up to sign (|U diag(S) Vh| reconstructions and A), and
// what builds on it (svdvals, pinv, matrix_rank).
TEST_F(CudaLinalgTest, SvdMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloatDouble) {
    for (const Tensor& a :
         {values({5, 3}, t), values({3, 5}, t), values({2, 4, 4}, t), values({2, 3, 6, 4}, t).mT(),
          values({2, 3, 2, 5}, t).mT(), values({2, 0, 3}, t)}) {
      SCOPED_TRACE(shape_of(a));
      const Tensor d = a.to(kCuda);
      for (bool full : {true, false}) {
        const auto [U, S, Vh] = linalg_svd(d, full);
        const auto [cU, cS, cVh] = linalg_svd(a, full);
        ASSERT_EQ(U.sizes(), cU.sizes());
        ASSERT_EQ(Vh.sizes(), cVh.sizes());
        expect_matches(S, cS, tol(t) * 10, tol(t) * 10);
        const int64_t k = S.size(-1);
        const Tensor r = U.narrow(-1, 0, k).matmul(S.unsqueeze(-1) * Vh.narrow(-2, 0, k));
        expect_matches(r, a, tol(t) * 10, tol(t) * 10);
        // Orthonormal columns and rows.
        expect_matches(
            U.mT().matmul(U),
            eye(U.size(-1), U.options().device(kCPU)).expand(with_batch(U, U.size(-1), U.size(-1))),
            tol(t) * 10, tol(t) * 10);
        expect_matches(Vh.matmul(Vh.mT()),
                       eye(Vh.size(-2), Vh.options().device(kCPU))
                           .expand(with_batch(Vh, Vh.size(-2), Vh.size(-2))),
                       tol(t) * 10, tol(t) * 10);
      }
      expect_matches(linalg_svdvals(d), linalg_svdvals(a), tol(t) * 10, tol(t) * 10);
      expect_matches(linalg_pinv(d), linalg_pinv(a), tol(t) * 100, tol(t) * 100);
      expect_matches(linalg_matrix_rank(d), linalg_matrix_rank(a));
    }
    // A rank-deficient matrix.
    const Tensor low = values({6, 2}, t).matmul(values({2, 5}, t));
    expect_matches(linalg_matrix_rank(low.to(kCuda)), linalg_matrix_rank(low));
  }
}

// Note [Non-finite input to the SVD] on the device: NaN raises the CPU's
// error, infinities give NaN singular values.
TEST_F(CudaLinalgTest, SvdOfNonFiniteInputsAsTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor a = values({3, 4, 3}, kDouble);
  a[1][2][0] = std::numeric_limits<double>::infinity();
  expect_matches(linalg_svdvals(a.to(kCuda)), linalg_svdvals(a), 1e-10, 1e-10);
  const auto [U, S, Vh] = linalg_svd(a.to(kCuda), false);
  const auto [cU, cS, cVh] = linalg_svd(a, false);
  expect_matches(S, cS, 1e-10, 1e-10);
  expect_matches(U[1], cU[1], 0, 0);
  expect_matches(Vh[1], cVh[1], 0, 0);
  a[2][0][0] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(error_of([&] { linalg_svd(a.to(kCuda)); }), error_of([&] { linalg_svd(a); }));
  EXPECT_NE(error_of([&] { linalg_svd(a); }), "(no error)");
}

// driver= on CUDA: cuSOLVER's names accepted (all computed by gesvd),
// others PyTorch's error.
TEST_F(CudaLinalgTest, SvdDriversOnCuda) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor a = values({2, 5, 3}, kDouble);
  for (const char* driver : {"gesvd", "gesvdj", "gesvda"}) {
    expect_matches(std::get<1>(linalg_svd(a.to(kCuda), false, driver)),
                   std::get<1>(linalg_svd(a, false)), 1e-10, 1e-10);
    expect_matches(linalg_svdvals(a.to(kCuda), driver), linalg_svdvals(a), 1e-10, 1e-10);
  }
  EXPECT_EQ(error_of([&] { linalg_svd(a.to(kCuda), true, "gesdd"); }),
            "torch.linalg.svd: unknown svd driver gesdd in svd_cusolver computation. Check doc "
            "at https://pytorch.org/docs/stable/generated/torch.linalg.svd.html");
}

// lstsq on CUDA: gels only (PyTorch's default and only driver there), as
// the CPU's gels for full-rank inputs: tall (with residuals), square, wide
// (minimum norm), batched and broadcast, a vector right-hand side.
TEST_F(CudaLinalgTest, LstsqMatchesTheCpuGels) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloatDouble) {
    for (const auto& [A, B] :
         std::vector<std::pair<Tensor, Tensor>>{{values({6, 3}, t), values({6, 2}, t)},
                                                {square({2}, 4, t), values({2, 4, 3}, t)},
                                                {values({3, 5}, t), values({3, 2}, t)},
                                                {values({2, 3, 7, 4}, t), values({7, 2}, t)},
                                                {values({2, 4, 6}, t).mT(), values({2, 6}, t)},
                                                {values({0, 3}, t), values({0, 2}, t)}}) {
      SCOPED_TRACE(shape_of(A));
      const auto [X, res, rank, sv] = linalg_lstsq(A.to(kCuda), B.to(kCuda));
      const auto [cX, cres, crank, csv] = linalg_lstsq(A, B, std::nullopt, "gels");
      expect_matches(X, cX, tol(t) * 100, tol(t) * 100);
      expect_matches(res, cres, tol(t) * 100, tol(t) * 100);
      expect_matches(rank, crank);
      expect_matches(sv, csv);
      expect_matches(std::get<0>(linalg_lstsq(A.to(kCuda), B.to(kCuda), std::nullopt, "gels")), cX,
                     tol(t) * 100, tol(t) * 100);
    }
  }
  const Tensor a = values({4, 3}, kDouble).to(kCuda);
  for (const char* driver : {"gelsy", "gelsd", "gelss", "other"}) {
    EXPECT_EQ(error_of([&] { linalg_lstsq(a, a, std::nullopt, driver); }),
              "torch.linalg.lstsq: `driver` other than `gels` is not supported on CUDA");
  }
}

}  // namespace
}  // namespace cuda_testing
}  // namespace ember
