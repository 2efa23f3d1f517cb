// linalg_factor.h against PyTorch 1.13 (tools/golden/linalg_factor.py wrote
// every expected value and message into testdata/). The gradients' values
// and backward errors are checked in //autograd:linalg_factor_grad_test.
#include "tensor/linalg_factor.h"

#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::GoldenEntry;
using testing::GoldenError;

const GoldenEntry kGolden[] = {
#include "tensor/testdata/linalg_factor_golden.inc"
};
const GoldenError kErrors[] = {
#include "tensor/testdata/linalg_factor_errors_golden.inc"
};

Tensor in(const std::string& name) {
  return testing::golden_tensor(testing::find_golden(kGolden, "in/" + name));
}

// t against the golden `name`: its dtype and shape, values within rel
// (LAPACK's rounding may differ by a few ulps between builds); integer
// results exactly.
void expect_golden(const Tensor& t, const std::string& name, double rel = 1e-12) {
  const GoldenEntry& g = testing::find_golden(kGolden, name);
  const bool integral = g.dtype == kInt || g.dtype == kLong;
  EXPECT_TRUE(testing::near_golden(t, g, g.dtype, integral ? 0 : (g.dtype == kFloat ? 1e-5 : rel)))
      << name;
}

template <typename Tuple>
void expect_tuple(const Tuple& r, const std::string& name) {
  expect_golden(std::get<0>(r), name + "/0");
  expect_golden(std::get<1>(r), name + "/1");
  if constexpr (std::tuple_size<Tuple>::value > 2) expect_golden(std::get<2>(r), name + "/2");
}

void expect_error(const std::string& name, const std::function<void()>& f) {
  testing::expect_golden_error(kErrors, name, f);
}

const char* const kMatrices[] = {"sq", "tall", "wide", "batch"};

TEST(LinalgFactorTest, Qr) {
  for (const char* n : kMatrices) {
    SCOPED_TRACE(n);
    for (const char* mode : {"reduced", "complete", "r"}) {
      expect_tuple(linalg_qr(in(n), mode), absl::StrCat("qr/", n, "/", mode));
    }
  }
  // Non-contiguous input.
  expect_tuple(linalg_qr(in("sq").t()), "qr/sqT/reduced");
  expect_tuple(linalg_qr(in("tall").to(kFloat)), "qr/float/reduced");
  expect_tuple(qr(in("tall")), "torch.qr/tall/some");
  expect_tuple(in("tall").qr(false), "torch.qr/tall/full");
  // R is column-major, as PyTorch returns it (the parity sweep's strides).
  for (const char* mode : {"reduced", "complete", "r"}) {
    const Tensor R = std::get<1>(linalg_qr(in("tall"), mode));
    EXPECT_EQ(R.stride(-2), 1) << mode;
    EXPECT_EQ(R.stride(-1), R.size(-2)) << mode;
  }
  expect_tuple(linalg_qr(zeros({0, 3}, kDouble)), "qr/empty/reduced");
  expect_tuple(linalg_qr(zeros({3, 0}, kDouble), "complete"), "qr/empty/complete");
  expect_tuple(linalg_qr(zeros({2, 0, 0}, kDouble)), "qr/empty_batch/reduced");
  // Q R = A for a larger random batch.
  const Tensor A = randn({3, 7, 5}, kDouble);
  auto [Q, R] = linalg_qr(A);
  EXPECT_TRUE(allclose(Q.matmul(R), A, 1e-10, 1e-10));
  EXPECT_TRUE(allclose(Q.mT().matmul(Q), eye(5, kDouble).expand({3, 5, 5}), 1e-10, 1e-10));
}

TEST(LinalgFactorTest, Householder) {
  for (const char* n : kMatrices) expect_tuple(geqrf(in(n)), absl::StrCat("geqrf/", n));
  expect_tuple(in("sq").t().geqrf(), "geqrf/sqT");
  auto [a, tau] = geqrf(in("tall"));
  expect_golden(orgqr(a, tau), "orgqr/tall");
  expect_golden(a.orgqr(tau), "orgqr/tall");
  expect_golden(linalg_householder_product(in("tall"), tau.narrow(0, 0, 1)), "orgqr/tall/k1");
  auto [ab, taub] = geqrf(in("batch"));
  expect_golden(linalg_householder_product(ab, taub), "orgqr/batch");
  const Tensor C4 = in("C4");
  expect_golden(ormqr(a, tau, C4), "ormqr/10");
  expect_golden(a.ormqr(tau, C4, true, true), "ormqr/11");
  expect_golden(ormqr(a, tau, C4.t(), false), "ormqr/00");
  expect_golden(ormqr(a, tau, C4.t(), false, true), "ormqr/01");
}

TEST(LinalgFactorTest, Lu) {
  for (const char* n : kMatrices) {
    SCOPED_TRACE(n);
    expect_tuple(linalg_lu_factor_ex(in(n)), absl::StrCat("lu_factor_ex/", n));
    expect_tuple(linalg_lu(in(n)), absl::StrCat("linalg_lu/", n));
  }
  expect_tuple(linalg_lu_factor_ex(in("sq").t()), "lu_factor_ex/sqT");
  expect_tuple(linalg_lu(in("sq").t()), "linalg_lu/sqT");
  expect_tuple(linalg_lu_factor_ex(in("batch").select(0, 2)), "lu_factor_ex/singular");
  expect_tuple(linalg_lu_factor_ex(in("sq").to(kFloat)), "lu_factor_ex/float");
  expect_tuple(linalg_lu_factor_ex(zeros({2, 0, 3}, kDouble)), "lu_factor_ex/empty");
  expect_tuple(in("sq").lu(true, true), "tensor_lu/sq");
  auto [LU, piv] = linalg_lu_factor(in("sq"));
  expect_golden(LU, "lu_factor_ex/sq/0");
  expect_golden(piv, "lu_factor_ex/sq/1");
  // Tensor.lu never raises for a singular matrix (PyTorch 1.13).
  expect_golden(std::get<2>(in("batch").select(0, 2).lu()), "lu_factor_ex/singular/2");
  expect_tuple(lu_unpack(LU, piv), "lu_unpack/sq");
  for (const char* n : {"wide", "tall"}) {
    auto [LUn, pivn] = linalg_lu_factor(in(n));
    expect_tuple(lu_unpack(LUn, pivn), absl::StrCat("lu_unpack/", n));
  }
  expect_tuple(lu_unpack(tensor({2, 1, 1, 3}, kLong).view({2, 2}), tensor({2, 2}, kInt)),
               "lu_unpack/long");
  expect_tuple(linalg_lu(zeros({2, 0, 3}, kDouble)), "linalg_lu/empty_batch");
  expect_golden(linalg_lu_solve(zeros({0, 0}, kDouble), zeros({0}, kInt), zeros({0, 2}, kDouble)),
                "lu_solve/empty");
  auto [P, L, U] = lu_unpack(LU, piv, false, false);
  EXPECT_EQ(P.numel(), 0);
  EXPECT_EQ(L.numel(), 0);
  EXPECT_EQ(U.numel(), 0);
  // P L U = A for a larger random batch.
  const Tensor A = randn({2, 6, 4}, kDouble);
  auto [P2, L2, U2] = linalg_lu(A);
  EXPECT_TRUE(allclose(P2.matmul(L2).matmul(U2), A, 1e-10, 1e-10));
}

TEST(LinalgFactorTest, LuSolve) {
  auto [LU, piv] = linalg_lu_factor(in("sq"));
  const Tensor B = in("B");
  expect_golden(lu_solve(B, LU, piv), "lu_solve/old");
  expect_golden(B.lu_solve(LU, piv), "lu_solve/old");
  expect_golden(linalg_lu_solve(LU, piv, B), "lu_solve/10");
  expect_golden(linalg_lu_solve(LU, piv, B, true, true), "lu_solve/11");
  expect_golden(linalg_lu_solve(LU, piv, B.t(), false), "lu_solve/00");
  expect_golden(linalg_lu_solve(LU, piv, B.t(), false, true), "lu_solve/01");
  auto [LUb, pivb] = linalg_lu_factor(in("batch").narrow(0, 0, 2));
  expect_golden(linalg_lu_solve(LUb, pivb, B.narrow(0, 0, 2)), "lu_solve/batch");
}

TEST(LinalgFactorTest, Errors) {
  const Tensor f22 = ones({2, 2});
  expect_error("qr 1d", [] { linalg_qr(ones({2})); });
  expect_error("qr long", [] { linalg_qr(ones({2, 2}, kLong)); });
  expect_error("qr mode", [&] { linalg_qr(f22, "foo"); });
  expect_error("qr half", [] { linalg_qr(ones({2, 2}, kHalf)); });
  expect_error("geqrf 1d", [] { geqrf(ones({2})); });
  expect_error("geqrf long", [] { ones({2, 2}, kLong).geqrf(); });
  expect_error("orgqr 1d", [] { orgqr(ones({2}), ones({1})); });
  expect_error("orgqr wide", [] { orgqr(ones({2, 3}), ones({1})); });
  expect_error("orgqr tau long", [] { orgqr(ones({3, 2}), ones({3})); });
  expect_error("orgqr tau ndim", [] { orgqr(ones({3, 2}), ones({1, 2})); });
  expect_error("orgqr tau batch", [] { orgqr(ones({2, 3, 2}), ones({3, 2})); });
  expect_error("orgqr dtype", [] { orgqr(ones({3, 2}), ones({2}, kDouble)); });
  expect_error("orgqr long", [] { orgqr(ones({3, 2}, kLong), ones({2}, kLong)); });
  expect_error("ormqr 1d", [] { ormqr(ones({2}), ones({1}), ones({2, 2})); });
  expect_error("ormqr other 1d", [] { ormqr(ones({2, 2}), ones({1}), ones({2})); });
  expect_error("ormqr tau", [] { ormqr(ones({3, 2}), ones({3}), ones({3, 2})); });
  expect_error("ormqr shape", [] { ormqr(ones({3, 2}), ones({2}), ones({4, 2})); });
  expect_error("ormqr shape right", [] { ormqr(ones({3, 2}), ones({2}), ones({2, 4}), false); });
  expect_error("ormqr dtype", [] { ormqr(ones({3, 2}), ones({2}), ones({3, 2}, kDouble)); });
  expect_error("ormqr batch", [] { ormqr(ones({2, 3, 2}), ones({2, 2}), ones({3, 3, 2})); });
  expect_error("lu_factor 1d", [] { linalg_lu_factor(ones({2})); });
  expect_error("lu_factor long", [] { linalg_lu_factor(ones({2, 2}, kLong)); });
  expect_error("lu_factor pivot", [&] { linalg_lu_factor(f22, false); });
  expect_error("linalg_lu pivot", [&] { linalg_lu(f22, false); });
  expect_error("lu_factor singular", [] { linalg_lu_factor(in("batch").select(0, 2)); });
  expect_error("lu_factor singular batch", [] { linalg_lu_factor(in("batch")); });
  expect_error("lu_factor_ex check",
               [] { linalg_lu_factor_ex(in("batch").select(0, 2), true, true); });
  expect_error("lu long", [] { ones({2, 2}, kLong).lu(); });
  expect_error("linalg_lu long", [] { linalg_lu(ones({2, 2}, kLong)); });
  expect_error("lu_unpack 1d", [] { lu_unpack(ones({2}), ones({2}, kInt)); });
  expect_error("lu_unpack pivots dtype", [&] { lu_unpack(f22, ones({2})); });
  expect_error("lu_unpack pivots range", [&] { lu_unpack(f22, tensor({3, 2}, kInt)); });
  auto [LU, piv] = linalg_lu_factor(in("sq"));
  expect_error("lu_solve nonsquare", [&] { linalg_lu_solve(ones({3, 2}), piv, ones({3, 2})); });
  expect_error("lu_solve B 1d", [&] { linalg_lu_solve(LU, piv, ones({3}, kDouble)); });
  expect_error("lu_solve shape", [&] { linalg_lu_solve(LU, piv, ones({2, 2}, kDouble)); });
  expect_error("lu_solve shape right", [&] {
    linalg_lu_solve(LU, piv, ones({2, 2}, kDouble), false);
  });
  expect_error("lu_solve dtype", [&] { linalg_lu_solve(LU, piv, ones({3, 2})); });
  expect_error("lu_solve pivots dtype", [&] {
    linalg_lu_solve(LU, piv.to(kLong), ones({3, 2}, kDouble));
  });
  expect_error("lu_solve pivots shape", [&] {
    linalg_lu_solve(LU, piv.narrow(0, 0, 2), ones({3, 2}, kDouble));
  });
  expect_error("ormqr k>m", [] { ormqr(ones({2, 3}), ones({3}), ones({2, 2})); });
  expect_error("ormqr k>m right", [] { ormqr(ones({2, 3}), ones({3}), ones({2, 2}), false); });
  expect_error("ormqr tau ndim", [] { ormqr(ones({3, 2}), ones({1, 2}), ones({3, 2})); });
  expect_error("ormqr other ndim", [] { ormqr(ones({3, 2}), ones({2}), ones({1, 3, 2})); });
  expect_error("ormqr tau batch", [] { ormqr(ones({2, 3, 2}), ones({3, 2}), ones({2, 3, 2})); });
  expect_error("ormqr tau dtype", [] { ormqr(ones({3, 2}), ones({2}, kDouble), ones({3, 2})); });
  expect_error("ormqr long", [] {
    ormqr(ones({3, 2}, kLong), ones({2}, kLong), ones({3, 2}, kLong));
  });
  expect_error("orgqr tau 0d", [] { linalg_householder_product(ones({3, 2}), scalar_tensor(1)); });
  expect_error("qr bfloat16", [] { linalg_qr(ones({2, 2}, kBFloat16)); });
  expect_error("lu_factor half", [] { linalg_lu_factor(ones({2, 2}, kHalf)); });
  expect_error("lu_factor_ex pivot", [&] { linalg_lu_factor_ex(f22, false); });
  expect_error("lu_solve LU 1d", [&] { linalg_lu_solve(ones({3}), piv, ones({3, 2})); });
  expect_error("lu_solve LU long", [&] {
    linalg_lu_solve(ones({3, 3}, kLong), piv, ones({3, 2}, kLong));
  });
  expect_error("lu_solve pivots batch", [&] {
    linalg_lu_solve(LU, piv.expand({2, 3}), ones({3, 2}, kDouble));
  });
  expect_error("lu_solve B batch", [&] {
    linalg_lu_solve(LU.expand({2, 3, 3}), piv.expand({2, 3}), ones({3, 3, 2}, kDouble));
  });
  expect_error("lu_solve pivots small", [&] {
    linalg_lu_solve(LU, tensor({5, 0, -1}, kInt), ones({3, 2}, kDouble));
  });
  expect_error("lu_solve pivots large", [&] {
    linalg_lu_solve(LU, tensor({5, 2, 3}, kInt), ones({3, 2}, kDouble));
  });
  expect_error("old lu_solve shape", [&] { lu_solve(ones({2, 2}, kDouble), LU, piv); });
  expect_error("old lu_solve dtype", [&] { ones({3, 2}).lu_solve(LU, piv); });
}

// CUDA inputs go to LAPACK on the CPU and come back (tools/gpu_checks.sh runs
// this where there is a GPU).
TEST(LinalgFactorTest, CudaRoundTrip) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor A = in("tall"), Ac = A.to(kCUDA);
  auto [Q, R] = linalg_qr(Ac);
  EXPECT_TRUE(Q.is_cuda() && R.is_cuda());
  expect_tuple(std::make_tuple(Q.to(kCPU), R.to(kCPU)), "qr/tall/reduced");
  auto [a, tau] = geqrf(Ac);
  EXPECT_TRUE(a.is_cuda() && tau.is_cuda());
  expect_golden(orgqr(a, tau).to(kCPU), "orgqr/tall");
  expect_golden(ormqr(a, tau, in("C4").to(kCUDA)).to(kCPU), "ormqr/10");
  auto [LU, piv, info] = linalg_lu_factor_ex(in("sq").to(kCUDA));
  EXPECT_TRUE(LU.is_cuda() && piv.is_cuda() && info.is_cuda());
  expect_tuple(std::make_tuple(LU.to(kCPU), piv.to(kCPU), info.to(kCPU)), "lu_factor_ex/sq");
  auto [P, L, U] = linalg_lu(Ac);
  expect_tuple(std::make_tuple(P.to(kCPU), L.to(kCPU), U.to(kCPU)), "linalg_lu/tall");
  expect_golden(linalg_lu_solve(LU, piv, in("B").to(kCUDA)).to(kCPU), "lu_solve/10");
  expect_error("lu_factor singular", [] { linalg_lu_factor(in("batch").select(0, 2).to(kCUDA)); });
}

}  // namespace
}  // namespace ember
