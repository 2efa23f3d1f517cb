// poisson and binomial (distributions.h): 1.13's samples for fixed seeds
// (tools/golden/distributions.py), the distributions' moments, edge cases
// and errors.
#include "tensor/distributions.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::find_golden;
using testing::matches_golden;

const testing::GoldenEntry kGolden[] = {
#include "tensor/testdata/distributions_golden.inc"
};
const testing::GoldenError kErrors[] = {
#include "tensor/testdata/distributions_errors_golden.inc"
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor T(std::vector<double> v, ScalarType dtype) {
  return testing::from_values({static_cast<int64_t>(v.size())}, v, dtype);
}

const std::vector<double> kRates = {0.0, 0.5, 3.0, 9.5, 10.0, 50.0, 1000.0, 2.25};
const std::vector<double> kCounts = {0.0, 5.0, 20.0, 100.0, 1000.0, 7.0, 40.0, 3.0, 60.0, -2.0};
const std::vector<double> kProbs = {0.5, 0.3, 0.5, 0.05, 0.9, 1.0, 0.75, 0.0, 0.2, 0.5};

TEST(Distributions, SameSamplesAsPyTorch) {
  EXPECT_TRUE(matches_golden(poisson(T(kRates, kDouble), Generator(42)),
                             find_golden(kGolden, "poisson/f64")));
  EXPECT_TRUE(matches_golden(poisson(T(kRates, kFloat), Generator(42)),
                             find_golden(kGolden, "poisson/f32")));
  EXPECT_TRUE(matches_golden(poisson(T(kRates, kBFloat16), Generator(42)),
                             find_golden(kGolden, "poisson/bf16")));
  EXPECT_TRUE(matches_golden(binomial(T(kCounts, kDouble), T(kProbs, kDouble), Generator(7)),
                             find_golden(kGolden, "binomial/f64")));
  EXPECT_TRUE(matches_golden(binomial(T(kCounts, kFloat), T(kProbs, kFloat), Generator(7)),
                             find_golden(kGolden, "binomial/f32")));
  // Broadcast prob; then a second op continues the same generator.
  Generator g(3);
  const Tensor c = testing::from_values({2, 1}, {10.0, 200.0}, kDouble);
  EXPECT_TRUE(matches_golden(binomial(c, T({0.1, 0.6, 0.95}, kDouble), g),
                             find_golden(kGolden, "binomial/broadcast")));
  EXPECT_TRUE(
      matches_golden(poisson(testing::from_values({2, 2}, {4.0, 40.0, 0.1, 12.0}, kFloat), g),
                     find_golden(kGolden, "poisson/after")));
  EXPECT_TRUE(matches_golden(binomial(T({5.0, 0.0}, kFloat), T({kNaN, kNaN}, kFloat), Generator(1)),
                             find_golden(kGolden, "binomial/nan_prob")));
}

TEST(Distributions, DeterministicUnderManualSeed) {
  const Tensor rates = full({100}, 7.5);
  manual_seed(11);
  const Tensor a = poisson(rates);
  const Tensor b = binomial(full({100}, 30.0), full({100}, 0.4));
  manual_seed(11);
  EXPECT_TRUE(poisson(rates).equal(a));
  EXPECT_TRUE(binomial(full({100}, 30.0), full({100}, 0.4)).equal(b));
}

// Sample mean within 5 standard errors, sample variance within 5 of its
// standard errors (for N draws; the fourth central moment as given).
void expect_moments(const Tensor& s, double mean, double var, double mu4) {
  const double n = static_cast<double>(s.numel());
  const Tensor d = s.to(kDouble);
  const double m = d.mean().item<double>();
  const double v = d.var().item<double>();
  EXPECT_NEAR(m, mean, 5 * std::sqrt(var / n)) << "mean";
  EXPECT_NEAR(v, var, 5 * std::sqrt((mu4 - var * var) / n)) << "variance";
  EXPECT_TRUE(d.eq(d.round()).all().item<bool>()) << "integers";
}

TEST(Distributions, PoissonMoments) {
  Generator g(5);
  for (double lambda : {0.7, 4.0, 9.99, 10.0, 35.0, 500.0}) {
    SCOPED_TRACE(lambda);
    // Poisson: variance lambda, fourth central moment lambda (1 + 3 lambda).
    const Tensor s = poisson(full({40000}, lambda, kDouble), g);
    expect_moments(s, lambda, lambda, lambda * (1 + 3 * lambda));
    EXPECT_GE(s.min().item<double>(), 0);
  }
}

TEST(Distributions, BinomialMoments) {
  Generator g(9);
  // Inversion (n * min(p, q) < 10) and BTRS, each with p below and above 1/2.
  for (auto [n, p] : std::vector<std::pair<double, double>>{
           {20, 0.3}, {20, 0.8}, {9, 0.5}, {100, 0.25}, {1000, 0.9}, {5000, 0.5}}) {
    SCOPED_TRACE(::testing::Message() << n << " " << p);
    const double q = 1 - p, var = n * p * q;
    const double mu4 = var * (1 + 3 * (n - 2) * p * q);
    const Tensor s = binomial(full({40000}, n, kFloat), full({40000}, p, kFloat), g);
    expect_moments(s, n * p, var, mu4);
    EXPECT_GE(s.min().item<float>(), 0);
    EXPECT_LE(s.max().item<float>(), n);
  }
}

TEST(Distributions, EdgeCases) {
  Generator g(1);
  EXPECT_TRUE(poisson(zeros({5}), g).equal(zeros({5})));
  EXPECT_TRUE(
      poisson(full({2}, std::numeric_limits<double>::infinity()), g).isinf().all().item<bool>());
  const Tensor counts = T({0, 0, 12, 12, 12, -3}, kDouble);
  const Tensor probs = T({0.5, 1.0, 0.0, 1.0, -0.5, 0.5}, kDouble);
  EXPECT_TRUE(binomial(counts, probs, g).equal(T({0, 0, 0, 12, 0, 0}, kDouble)));
  EXPECT_TRUE(
      binomial(T({4, 4}, kDouble), T({kNaN, 1.5}, kDouble), g).isnan().equal(T({1, 0}, kBool)));
  EXPECT_TRUE(binomial(T({kNaN}, kDouble), T({0.5}, kDouble), g).isnan().item<bool>());
  // Empty and 0-dim.
  EXPECT_EQ(poisson(zeros({0, 3}), g).sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(binomial(scalar_tensor(3.0), scalar_tensor(0.5), g).dim(), 0);
  // Non-contiguous rates keep their shape.
  const Tensor r = full({3, 2}, 2.0).t();
  EXPECT_EQ(poisson(r, g).sizes(), IntArrayRef({2, 3}));
}

TEST(Distributions, Errors) {
  using testing::expect_golden_error;
  expect_golden_error(kErrors, "poisson_negative", [] { poisson(T({1.0, -1.0}, kFloat)); });
  expect_golden_error(kErrors, "poisson_nan", [] { poisson(T({kNaN}, kFloat)); });
  expect_golden_error(kErrors, "poisson_long", [] { poisson(T({1, 2}, kLong)); });
  expect_golden_error(kErrors, "poisson_half", [] { poisson(T({1.0}, kHalf)); });
  expect_golden_error(kErrors, "binomial_dtypes",
                      [] { binomial(T({1.0}, kFloat), T({0.5}, kDouble)); });
  expect_golden_error(kErrors, "binomial_long_count",
                      [] { binomial(T({1}, kLong), T({0.5}, kFloat)); });
  expect_golden_error(kErrors, "binomial_long", [] { binomial(T({1}, kLong), T({1}, kLong)); });
  expect_golden_error(kErrors, "binomial_shapes", [] {
    binomial(T({1.0, 2.0}, kFloat), T({0.5, 0.5, 0.5}, kFloat));
  });
}

}  // namespace
}  // namespace ember
