// The gradients of linalg_factor.h's ops against PyTorch 1.13's values and
// backward errors (tools/golden/linalg_factor.py; the forward values are
// checked in tensor/linalg_factor_test.cc, the formulas against finite
// differences in gradcheck_test.cc).
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "autograd/autograd.h"
#include "gtest/gtest.h"
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

void expect_golden(const Tensor& t, const std::string& name, double rel) {
  const GoldenEntry& g = testing::find_golden(kGolden, name);
  EXPECT_TRUE(testing::near_golden(t, g, g.dtype, rel)) << name;
}

void expect_error(const std::string& name, const std::function<void()>& f) {
  testing::expect_golden_error(kErrors, name, f);
}

// Gradients of sum(out * w), w = linspace(-1, 1) over each output.
Tensor weighted(const std::vector<Tensor>& outs) {
  Tensor total = zeros({}, kDouble);
  for (const Tensor& o : outs) {
    if (!o.requires_grad() || o.numel() == 0) continue;
    total = total + (o * linspace(-1, 1, o.numel(), kDouble).view(o.sizes())).sum();
  }
  return total;
}

TEST(LinalgFactorGradTest, MatchPyTorch) {
  const auto leaf = [](const Tensor& t) { return t.clone().requires_grad_(); };
  for (const char* n : {"tall", "wide"}) {
    Tensor x = leaf(in(n));
    auto [Q, R] = linalg_qr(x);
    weighted({Q, R}).backward();
    expect_golden(x.grad(), absl::StrCat("grad/qr/", n, "/grad0"), 1e-10);
  }
  {
    Tensor x = leaf(in("sq"));
    auto [Q, R] = linalg_qr(x, "complete");
    weighted({Q, R}).backward();
    expect_golden(x.grad(), "grad/qr/sq_complete/grad0", 1e-10);
  }
  {
    auto [a0, tau0] = geqrf(in("tall"));
    Tensor a = leaf(a0), tau = leaf(tau0);
    weighted({linalg_householder_product(a, tau)}).backward();
    expect_golden(a.grad(), "grad/orgqr/grad0", 1e-10);
    expect_golden(tau.grad(), "grad/orgqr/grad1", 1e-10);
  }
  for (const char* n : {"sq", "wide", "tall"}) {
    Tensor x = leaf(in(n));
    weighted({std::get<0>(linalg_lu_factor(x))}).backward();
    expect_golden(x.grad(), absl::StrCat("grad/lu_factor/", n, "/grad0"), 1e-10);
  }
  {
    Tensor x = leaf(in("tall"));
    auto [P, L, U] = linalg_lu(x);
    weighted({L, U}).backward();
    expect_golden(x.grad(), "grad/linalg_lu/tall/grad0", 1e-10);
  }
  {
    auto [LU0, piv] = linalg_lu_factor(in("sq"));
    Tensor LU = leaf(LU0), B = leaf(in("B"));
    weighted({linalg_lu_solve(LU, piv, B)}).backward();
    expect_golden(LU.grad(), "grad/lu_solve/grad0", 1e-10);
    expect_golden(B.grad(), "grad/lu_solve/grad1", 1e-10);
  }
}

// As PyTorch's output_differentiability: P has no grad_fn.
TEST(LinalgFactorGradTest, PermutationIsNotDifferentiable) {
  Tensor x = in("sq").requires_grad_();
  auto [P, L, U] = linalg_lu(x);
  EXPECT_FALSE(P.requires_grad());
  EXPECT_TRUE(L.requires_grad() && U.requires_grad());
  auto [LU, piv] = linalg_lu_factor(x);
  auto [P2, L2, U2] = lu_unpack(LU, piv);
  EXPECT_FALSE(P2.requires_grad());
  EXPECT_EQ(L2.grad_fn()->name(), "LuUnpackBackward0");
}

TEST(LinalgFactorGradTest, BackwardErrors) {
  expect_error("qr r backward", [] {
    Tensor x = in("tall").requires_grad_();
    std::get<1>(linalg_qr(x, "r")).sum().backward();
  });
  expect_error("qr complete tall backward", [] {
    Tensor x = in("tall").requires_grad_();
    std::get<0>(linalg_qr(x, "complete")).sum().backward();
  });
  expect_error("geqrf backward", [] {
    Tensor x = in("sq").requires_grad_();
    std::get<0>(geqrf(x)).sum().backward();
  });
  expect_error("ormqr backward", [] {
    auto [a, tau] = geqrf(in("tall"));
    ormqr(a.requires_grad_(), tau, in("C4")).sum().backward();
  });
}

}  // namespace
}  // namespace ember
