// Gradients through linalg_spectral.h against PyTorch 1.13's values
// (tools/golden/linalg_spectral.py): det's gradient at singular matrices,
// which goes through the SVD, and symeig's backward error.
#include <string>
#include <tuple>

#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

const testing::GoldenEntry kGolden[] = {
#include "tensor/testdata/linalg_spectral_golden.inc"
};
const testing::GoldenError kErrors[] = {
#include "tensor/testdata/linalg_spectral_errors_golden.inc"
};

// The golden script's inputs.
Tensor R1() { return tensor({{1.0, 2.0, 3.0}, {2.0, 4.0, 6.0}, {-1.0, -2.0, -3.0}}, kDouble); }
Tensor R2() { return tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}, {7.0, 8.0, 9.0}}, kDouble); }
Tensor S3() { return tensor({{2.0, -1.0, 0.5}, {-1.0, 3.0, 0.25}, {0.5, 0.25, 1.0}}, kDouble); }

// The gradient of (det(X) * w).sum(); the goldens are the adjugate, near 0
// entries included (hence an absolute tolerance as well).
void expect_det_grad(const Tensor& X, const Tensor& w, const std::string& name) {
  Tensor x = X.clone().requires_grad_();
  (linalg_det(x) * w).sum().backward();
  const Tensor want = testing::golden_tensor(testing::find_golden(kGolden, name));
  EXPECT_TRUE(allclose(x.grad(), want, 1e-10, 1e-12)) << name << "\n" << x.grad() << "\n" << want;
}

TEST(LinalgSpectralGrad, DetAtSingularMatricesIsTheAdjugate) {
  expect_det_grad(R1(), tensor(1.0, kDouble), "det_grad/R1");
  expect_det_grad(R2(), tensor(1.0, kDouble), "det_grad/R2");
  expect_det_grad(stack({R2(), S3()}), tensor({1.0, -2.0}, kDouble), "det_grad/batch");
}

TEST(LinalgSpectralGrad, SymeigWithoutEigenvectorsIsNotDifferentiable) {
  testing::expect_golden_error(kErrors, "symeig backward noev", [] {
    Tensor a = S3().requires_grad_();
    std::get<0>(symeig(a)).sum().backward();
  });
}

}  // namespace
}  // namespace ember
