// linalg_more.h against PyTorch 1.13 (tools/golden/linalg_more.py printed
// every expected value and message).
#include "tensor/linalg_more.h"

#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::error_of;

constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor d(std::vector<double> v, std::vector<int64_t> shape) {
  return tensor(v, kDouble).view(shape);
}

// The golden script's inputs.
Tensor A() { return d({4, 1, 2, 1, -3, 0.5, 2, 0.5, 5}, {3, 3}); }
Tensor A2() { return d({2, 1, 1, 3, 0, 1, -2, 1.5}, {2, 2, 2}); }
// Non-contiguous: a transpose.
Tensor AT() { return d({1, 2, 0, -1, 3, 1, 4, 0, 2}, {3, 3}).t(); }
Tensor SPD() { return d({4, 2, 0.4, 2, 5, 1, 0.4, 1, 3}, {3, 3}); }
Tensor B() { return d({1, 2, 3, 4, 5, 6}, {3, 2}); }
Tensor Sing() { return d({1, 2, 2, 4}, {2, 2}); }
Tensor U() { return d({2, 1, -1, 9, 3, 0.5, 9, 9, 4}, {3, 3}); }

// Shape, dtype, and values within tol (relative to 1 + |want|); infinities
// and NaNs must match exactly.
void expect_values(const Tensor& t, std::vector<int64_t> shape, std::vector<double> want,
                   ScalarType dtype = kDouble, double tol = 1e-12) {
  ASSERT_EQ(t.sizes(), IntArrayRef(shape));
  EXPECT_EQ(t.scalar_type(), dtype);
  ASSERT_EQ(t.numel(), static_cast<int64_t>(want.size()));
  const Tensor a = t.to(kDouble).contiguous().flatten();
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double x = a[i].item<double>(), y = want[i];
    if (std::isnan(y) || std::isinf(y)) {
      EXPECT_TRUE(std::isnan(y) ? std::isnan(x) : x == y) << "at " << i << ": " << x;
    } else {
      EXPECT_NEAR(x, y, tol * (1 + std::abs(y))) << "at " << i;
    }
  }
}

TEST(LinalgMoreTest, Inverse) {
  const std::vector<double> inv_a = {0.2932692307692308,
                                     0.07692307692307693,
                                     -0.125,
                                     0.07692307692307693,
                                     -0.3076923076923077,
                                     -0.0,
                                     -0.125,
                                     0.0,
                                     0.25};
  expect_values(A().inverse(), {3, 3}, inv_a);
  expect_values(linalg_inv(A()), {3, 3}, inv_a);
  expect_values(inverse(A2()), {2, 2, 2}, {0.6, -0.2, -0.2, 0.4, 0.75, -0.5, 1.0, 0.0});
  expect_values(AT().inverse(), {3, 3},
                {0.33333333333333337, 0.3333333333333333, -0.6666666666666667, -0.22222222222222224,
                 0.11111111111111112, 0.4444444444444445, 0.11111111111111112, -0.05555555555555556,
                 0.2777777777777778});
  expect_values(A().to(kFloat).inverse(), {3, 3}, inv_a, kFloat, 1e-6);
  expect_values(d({4}, {1, 1}).inverse(), {1, 1}, {0.25});
  expect_values(zeros({0, 0}, kDouble).inverse(), {0, 0}, {});
  expect_values(zeros({2, 0, 0}, kDouble).inverse(), {2, 0, 0}, {});
  // A A^-1 = I for a larger random batch.
  const Tensor r = randn({4, 6, 6}, kDouble) + 6 * eye(6, kDouble);
  EXPECT_TRUE(allclose(r.matmul(r.inverse()), eye(6, kDouble).expand({4, 6, 6}), 1e-10, 1e-10));
}

TEST(LinalgMoreTest, InverseErrors) {
  const std::string singular =
      "The diagonal element 2 is zero, the inversion could not be completed because the input "
      "matrix is singular.";
  EXPECT_EQ(error_of([] { Sing().inverse(); }), "linalg.inv: " + singular);
  EXPECT_EQ(error_of([] {
              d({1, 2, 0, 2, 4, 0, 0, 0, 1}, {3, 3}).inverse();
            }),
            "linalg.inv: " + singular);
  EXPECT_EQ(error_of([] {
              stack({eye(2, kDouble), Sing()}).inverse();
            }),
            "linalg.inv: (Batch element 1): " + singular);
  EXPECT_EQ(error_of([] {
              ones({2, 3}).inverse();
            }),
            "linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_EQ(error_of([] { ones({3}).inverse(); }),
            "linalg.inv: The input tensor A must have at least 2 dimensions.");
  EXPECT_EQ(error_of([] {
              ones({2, 2}, kLong).inverse();
            }),
            "linalg.inv: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_EQ(error_of([] {
              ones({2, 2}, kHalf).inverse();
            }),
            "linalg.inv: Low precision dtypes not supported. Got Half");
}

TEST(LinalgMoreTest, Det) {
  expect_values(A().det(), {}, {-52.0});
  expect_values(det(A2()), {2}, {5.0, 2.0});
  expect_values(linalg_det(A2()), {2}, {5.0, 2.0});
  expect_values(AT().det(), {}, {18.0});
  expect_values(A().to(kFloat).det(), {}, {-52.0}, kFloat, 1e-6);
  expect_values(d({-4}, {1, 1}).det(), {}, {-4.0});
  expect_values(zeros({0, 0}, kDouble).det(), {}, {1.0});
  expect_values(zeros({2, 0, 0}, kDouble).det(), {2}, {1.0, 1.0});
  // PyTorch's -0: U's diagonal (2, 0) times the pivots' sign -1.
  const Tensor s = Sing().det();
  EXPECT_EQ(s.item<double>(), 0.0);
  EXPECT_TRUE(std::signbit(s.item<double>()));
  EXPECT_FALSE(std::signbit(zeros({2, 2}, kDouble).det().item<double>()));
  EXPECT_EQ(error_of([] {
              ones({2, 3}).det();
            }),
            "linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_EQ(error_of([] { ones({3}).det(); }),
            "linalg.det: The input tensor A must have at least 2 dimensions.");
  EXPECT_EQ(error_of([] {
              ones({2, 2}, kLong).det();
            }),
            "linalg.det: Expected a floating point or complex tensor as input. Got Long");
}

TEST(LinalgMoreTest, Slogdet) {
  auto [sign, logabs] = A().slogdet();
  expect_values(sign, {}, {-1.0});
  expect_values(logabs, {}, {3.951243718581427});
  std::tie(sign, logabs) = linalg_slogdet(A2());
  expect_values(sign, {2}, {1.0, 1.0});
  expect_values(logabs, {2}, {1.6094379124341005, 0.6931471805599453});
  std::tie(sign, logabs) = slogdet(AT());
  expect_values(sign, {}, {1.0});
  expect_values(logabs, {}, {2.8903717578961645});
  std::tie(sign, logabs) = Sing().slogdet();
  expect_values(sign, {}, {0.0});
  EXPECT_TRUE(std::signbit(sign.item<double>()));
  expect_values(logabs, {}, {-kInf});
  std::tie(sign, logabs) = zeros({0, 0}, kDouble).slogdet();
  expect_values(sign, {}, {1.0});
  expect_values(logabs, {}, {0.0});
  EXPECT_EQ(error_of([] {
              ones({2, 3}).slogdet();
            }),
            "linalg.slogdet: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_EQ(error_of([] {
              ones({2, 2}, kLong).slogdet();
            }),
            "linalg.slogdet: Expected a floating point or complex tensor as input. Got Long");
}

TEST(LinalgMoreTest, Logdet) {
  expect_values(A().logdet(), {}, {std::nan("")});  // det < 0
  expect_values(logdet(A2()), {2}, {1.6094379124341005, 0.6931471805599453});
  expect_values(SPD().logdet(), {}, {3.802208139420939});
  expect_values(Sing().logdet(), {}, {-kInf});
  EXPECT_EQ(error_of([] {
              ones({2, 3}).logdet();
            }),
            "logdet: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_EQ(error_of([] {
              ones({2, 2}, kLong).logdet();
            }),
            "logdet: Expected a floating point or complex tensor as input. Got Long");
}

TEST(LinalgMoreTest, Solve) {
  expect_values(linalg_solve(A(), B()), {3, 2},
                {-0.10096153846153844, 0.14423076923076927, -0.8461538461538463, -1.076923076923077,
                 1.125, 1.25});
  expect_values(linalg_solve(A(), B().select(1, 0)), {3},
                {-0.10096153846153844, -0.8461538461538461, 1.125});
  expect_values(
      linalg_solve(AT(), B()), {3, 2},
      {-2.0, -2.0, 2.3333333333333335, 2.666666666666667, 1.3333333333333333, 1.6666666666666667});
  // B (2, 2) against A (2, 2, 2): a batch of vectors.
  expect_values(linalg_solve(A2(), d({1, 2, 3, 4}, {2, 2})), {2, 2}, {0.2, 0.6, 0.25, 3.0});
  // B (2, 3): one matrix, broadcast over A's batch.
  expect_values(linalg_solve(A2(), d({1, 2, 3, 4, 5, 6}, {2, 3})), {2, 2, 3},
                {-0.20000000000000007, 0.19999999999999996, 0.6, 1.4000000000000001, 1.6, 1.8,
                 -1.25, -1.0, -0.75, 1.0, 2.0, 3.0});
  expect_values(linalg_solve(A(), B().t(), false), {2, 3},
                {-0.10096153846153844, -0.8461538461538463, 1.125, 0.14423076923076927,
                 -1.076923076923077, 1.25});
}

TEST(LinalgMoreTest, SolveErrors) {
  EXPECT_EQ(error_of([] { linalg_solve(Sing(), ones({2}, kDouble)); }),
            "torch.linalg.solve: The solver failed because the input matrix is singular.");
  EXPECT_EQ(error_of([] {
              linalg_solve(stack({eye(2, kDouble), Sing()}), ones({2, 2}, kDouble));
            }),
            "torch.linalg.solve: (Batch element 1): The solver failed because the input matrix is "
            "singular.");
  EXPECT_EQ(error_of([] {
              linalg_solve(ones({2, 2}), ones({3}));
            }),
            "linalg.solve: Incompatible shapes of A and B for the equation AX = B (2x2 and 3x1)");
  EXPECT_EQ(error_of([] {
              linalg_solve(ones({2, 2}), ones({2, 3}), false);
            }),
            "linalg.solve: Incompatible shapes of A and B for the equation XA = B (2x2 and 2x3)");
  EXPECT_EQ(error_of([] {
              linalg_solve(ones({2, 3}), ones({3}));
            }),
            "linalg.solve: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_EQ(error_of([] {
              linalg_solve(ones({2, 2}), ones({2}, kDouble));
            }),
            "linalg.solve: Expected A and B to have the same dtype, but found A of type Float and "
            "B of type Double instead");
  EXPECT_EQ(error_of([] {
              linalg_solve(ones({2, 2}, kLong), ones({2}, kLong));
            }),
            "linalg.solve: Expected a floating point or complex tensor as input. Got Long");
}

TEST(LinalgMoreTest, TriangularSolve) {
  const std::vector<double> u = {2, 1, -1, 9, 3, 0.5, 9, 9, 4};
  auto [x, m] = B().triangular_solve(U());
  expect_values(
      x, {3, 2},
      {0.7291666666666667, 1.2083333333333335, 0.7916666666666666, 1.0833333333333333, 1.25, 1.5});
  expect_values(m, {3, 3}, u);
  std::tie(x, m) = triangular_solve(B(), U(), false);
  expect_values(x, {3, 2}, {0.5, 1.0, -0.5, -1.6666666666666665, 1.25, 2.9999999999999996});
  std::tie(x, m) = triangular_solve(B(), U(), true, true);
  expect_values(x, {3, 2}, {0.5, 1.0, 0.8333333333333333, 1.0, 1.2708333333333333, 1.625});
  std::tie(x, m) = triangular_solve(B(), U(), false, false, true);
  expect_values(x, {3, 2}, {1.0, 2.0, -6.0, -14.0, 50.0, 114.0});
  std::tie(x, m) = triangular_solve(B(), stack({U(), U().t()}));
  expect_values(x, {2, 3, 2},
                {0.7291666666666667, 1.2083333333333335, 0.7916666666666666, 1.0833333333333333,
                 1.25, 1.5, 7.25, 8.5, -2.75, -3.1666666666666665, 1.25, 1.5});
  expect_values(m, {2, 3, 3}, {2, 1, -1, 9, 3, 0.5, 9, 9, 4, 2, 9, 9, 1, 3, 9, -1, 0.5, 4});
  // A zero on the diagonal: infinities, not an error.
  std::tie(x, m) = triangular_solve(ones({2, 1}, kDouble), d({1, 2, 0, 0}, {2, 2}));
  expect_values(x, {2, 1}, {-kInf, kInf});
}

TEST(LinalgMoreTest, TriangularSolveErrors) {
  EXPECT_EQ(error_of([] { triangular_solve(ones({2}), eye(2)); }),
            "torch.triangular_solve: Expected b to have at least 2 dimensions, but it has 1 "
            "dimensions instead");
  EXPECT_EQ(error_of([] {
              triangular_solve(ones({3, 1}), eye(2));
            }),
            "Incompatible matrix sizes for triangular_solve: each A matrix is 2 by 2 but each b "
            "matrix is 3 by 1");
  EXPECT_EQ(error_of([] {
              triangular_solve(ones({2, 1}), ones({2, 3}));
            }),
            "A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_EQ(error_of([] {
              triangular_solve(ones({2, 1}), eye(2, kDouble));
            }),
            "Expected b and A to have the same dtype, but found b of type Float and A of type "
            "Double instead.");
  EXPECT_EQ(error_of([] {
              triangular_solve(ones({2, 1}, kLong), eye(2, kLong));
            }),
            "\"triangular_solve_cpu\" not implemented for 'Long'");
}

TEST(LinalgMoreTest, Cholesky) {
  const std::vector<double> l = {2.0, 0.0, 0.0, 1.0, 2.0, 0.0, 0.2, 0.4, 1.6733200530681511};
  const std::vector<double> u = {2.0, 1.0, 0.2, 0.0, 2.0, 0.4, 0.0, 0.0, 1.6733200530681511};
  expect_values(SPD().cholesky(), {3, 3}, l);
  expect_values(SPD().cholesky(true), {3, 3}, u);
  expect_values(linalg_cholesky(SPD()), {3, 3}, l);
  expect_values(linalg_cholesky(SPD(), true), {3, 3}, u);
  // Only the lower triangle is read.
  expect_values(linalg_cholesky(SPD().tril()), {3, 3}, l);
  expect_values(linalg_cholesky(stack({SPD().narrow(0, 0, 2).narrow(1, 0, 2), eye(2, kDouble)})),
                {2, 2, 2}, {2.0, 0.0, 1.0, 2.0, 1.0, 0.0, 0.0, 1.0});
  expect_values(linalg_cholesky(zeros({0, 0}, kDouble)), {0, 0}, {});
  expect_values(linalg_cholesky(d({9}, {1, 1})), {1, 1}, {3});
}

TEST(LinalgMoreTest, CholeskyErrors) {
  const std::string not_pd =
      "The factorization could not be completed because the input is not positive-definite "
      "(the leading minor of order 2 is not positive-definite).";
  EXPECT_EQ(error_of([] {
              linalg_cholesky(tensor({1.0f, 2.0f, 2.0f, 1.0f}).view({2, 2}));
            }),
            "linalg.cholesky: " + not_pd);
  EXPECT_EQ(error_of([] {
              linalg_cholesky(stack({eye(2), tensor({1.0f, 2.0f, 2.0f, 1.0f}).view({2, 2})}));
            }),
            "linalg.cholesky: (Batch element 1): " + not_pd);
  EXPECT_EQ(error_of([] {
              cholesky(tensor({1.0f, 2.0f, 2.0f, 1.0f}).view({2, 2}));
            }),
            "cholesky: " + not_pd);
  EXPECT_EQ(error_of([] {
              linalg_cholesky(ones({2, 3}));
            }),
            "linalg.cholesky: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_EQ(error_of([] {
              ones({2, 2}, kLong).cholesky();
            }),
            "\"cholesky_cpu\" not implemented for 'Long'");
  EXPECT_EQ(error_of([] {
              linalg_cholesky(ones({2, 2}, kLong));
            }),
            "linalg.cholesky: Expected a floating point or complex tensor as input. Got Long");
}

TEST(LinalgMoreTest, CholeskySolveAndInverse) {
  const Tensor L = linalg_cholesky(SPD());
  const std::vector<double> x = {
      -0.0625,           0.125, 0.3107142857142857, 0.37857142857142856, 1.5714285714285714,
      1.8571428571428572};
  expect_values(B().cholesky_solve(L), {3, 2}, x);
  expect_values(cholesky_solve(B(), L.t(), true), {3, 2}, x);
  std::vector<double> x2 = x;
  for (double v : x) x2.push_back(2 * v);
  expect_values(cholesky_solve(stack({B(), 2 * B()}), L), {2, 3, 2}, x2);
  const std::vector<double> inv = {0.3125,
                                   -0.125,
                                   -0.0,
                                   -0.125,
                                   0.2642857142857143,
                                   -0.07142857142857142,
                                   -0.0,
                                   -0.07142857142857142,
                                   0.3571428571428571};
  expect_values(L.cholesky_inverse(), {3, 3}, inv);
  expect_values(cholesky_inverse(L.t(), true), {3, 3}, inv);
  expect_values(cholesky_inverse(zeros({0, 0})), {0, 0}, {}, kFloat);

  EXPECT_EQ(error_of([] { cholesky_solve(ones({2}), eye(2)); }),
            "b should have at least 2 dimensions, but has 1 dimensions instead");
  EXPECT_EQ(error_of([] {
              cholesky_solve(ones({3, 2}), eye(2));
            }),
            "Incompatible matrix sizes for cholesky_solve: each A matrix is 2 by 2 but each b "
            "matrix is 3 by 2");
  EXPECT_EQ(error_of([] {
              cholesky_solve(ones({2, 2}), ones({2, 3}));
            }),
            "A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_EQ(error_of([] {
              cholesky_solve(ones({2, 2}), eye(2, kDouble));
            }),
            "Expected b and A to have the same dtype, but found b of type Float and A of type "
            "Double instead.");
  EXPECT_EQ(error_of([] {
              cholesky_solve(ones({2, 2}, kLong), eye(2, kLong));
            }),
            "\"cholesky_solve_cpu\" not implemented for 'Long'");
  EXPECT_EQ(error_of([] {
              cholesky_inverse(ones({2, 3}));
            }),
            "cholesky_inverse: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_EQ(error_of([] {
              cholesky_inverse(ones({2, 2}, kLong));
            }),
            "\"cholesky_inverse_out_cpu\" not implemented for 'Long'");
}

TEST(LinalgMoreTest, CudaRoundTrip) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor a = A().to(kCUDA);
  const Tensor inv = a.inverse();
  EXPECT_TRUE(inv.is_cuda());
  EXPECT_TRUE(allclose(inv.to(kCPU), A().inverse()));
  EXPECT_TRUE(allclose(a.det().to(kCPU), A().det()));
  EXPECT_TRUE(allclose(linalg_solve(a, B().to(kCUDA)).to(kCPU), linalg_solve(A(), B())));
  EXPECT_TRUE(allclose(linalg_cholesky(SPD().to(kCUDA)).to(kCPU), linalg_cholesky(SPD())));
}

// Note [LU of the transpose]: as 1.13, a C-contiguous A is factored as A^T,
// another A as itself, which shows where the factorizations differ (values
// from torch 1.13: tools/golden/lu_transpose.py).
namespace lu_transpose {
Tensor noncontiguous(const Tensor& a) { return a.t().contiguous().t(); }
bool all_nan(const Tensor& t) { return t.isnan().all().item<bool>(); }

TEST(LinalgMoreTest, FactorsTheTransposeOfAContiguousMatrix) {
  const Tensor tie = tensor({{1.0, 2.0, 3.0}, {1.0, 5.0, 7.0}, {-1.0, 0.0, 2.0}}, kDouble);
  EXPECT_EQ(tie.det().item<double>(), 7.000000000000001);
  EXPECT_EQ(noncontiguous(tie).det().item<double>(), 7.0);

  const double inf = INFINITY;
  const Tensor a1 = tensor(
      {{0.609555, -1.27003, -0.324239}, {1.9358, inf, 1.59488}, {-1.28083, 1.96262, -0.541895}},
      kDouble);
  EXPECT_EQ(a1.det().item<double>(), -inf);
  EXPECT_EQ(noncontiguous(a1).det().item<double>(), inf);
  const Tensor a2 = tensor(
      {{0.366007, 3.21165, 0.961068}, {-2.74369, -1.36667, -0.572073}, {0.962397, -inf, -2.09934}});
  auto [sign, logabs] = linalg_slogdet(a2);
  EXPECT_EQ(sign.item<float>(), 0.0f);
  EXPECT_TRUE(std::isnan(logabs.item<float>()));
  std::tie(sign, logabs) = linalg_slogdet(noncontiguous(a2));
  EXPECT_EQ(sign.item<float>(), 1.0f);
  EXPECT_EQ(logabs.item<float>(), INFINITY);

  const Tensor a3 =
      tensor({{3.2856, -3.24192, -1.56775}, {-inf, 2.01037, 1.10073}, {0.96148, 1.2348, -3.09527}},
             kDouble);
  EXPECT_TRUE(all_nan(a3.inverse()));
  EXPECT_TRUE(noncontiguous(a3).inverse().allclose(
      tensor({{-0.0, -0.0, -0.0},
              {-0.25857536077825394, -0.0, 0.13096806477629014},
              {-0.10315379772652722, -0.0, -0.2708263361885189}},
             kDouble)))
      << noncontiguous(a3).inverse();

  const Tensor a4 = tensor(
      {{-0.872898, -2.11294, 0.0499441}, {-2.83808, -4.21378, 2.37714}, {-1.99691, -inf, -2.17308}},
      kDouble);
  const Tensor b = tensor({{1.0, 2.0}, {0.5, -1.0}, {3.0, 0.25}}, kDouble);
  EXPECT_TRUE(all_nan(linalg_solve(a4, b)));
  EXPECT_TRUE(all_nan(linalg_solve(a4, b.t(), /*left=*/false)));
  EXPECT_TRUE(linalg_solve(noncontiguous(a4), b)
                  .allclose(tensor({{-1.2166876396791952, -2.4850436724634846},
                                    {0.0, 0.0},
                                    {-1.2422730072358932, -3.3875803469485044}},
                                   kDouble)))
      << linalg_solve(noncontiguous(a4), b);
}
}  // namespace lu_transpose

}  // namespace
}  // namespace ember
