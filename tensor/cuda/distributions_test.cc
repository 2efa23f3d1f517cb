// poisson and binomial drawn on the device (distributions.cu): each
// element's samples follow its distribution (means and variances over many
// draws), the edge cases give the CPU's values, a seed gives the same
// samples again and a non-contiguous input the same samples position by
// position, and a negative rate raises the CPU's error at the next
// synchronization. Needs a GPU; skips without one.

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tensor/all.h"
#include "tensor/cuda/cuda.h"
#include "tensor/cuda/ops_testing.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using ::ember::testing::error_of;
using namespace ::ember::cuda_testing;  // NOLINT

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Per row of `draws` (on the host, double): its mean and variance.
void row_moments(const Tensor& draws, std::vector<double>* mean, std::vector<double>* var) {
  const Tensor d = draws.to(Device(kCPU)).to(kDouble);
  const Tensor m = d.mean({1});
  const Tensor v = d.var({1});
  for (int64_t r = 0; r < d.size(0); ++r) {
    mean->push_back(m[r].item<double>());
    var->push_back(v[r].item<double>());
  }
}

TEST(CudaDistributionsTest, PoissonFollowsEachRate) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const std::vector<double> rates = {0.5, 3.0, 9.5, 10.0, 50.0, 1000.0};
  const int64_t n = 40000;
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor lam = tensor(rates).to(t).view({-1, 1}).expand({-1, n});
    manual_seed(11);
    const Tensor draws = poisson(lam.to(kCuda));
    ASSERT_TRUE(draws.is_cuda());
    ASSERT_EQ(draws.dtype(), t);
    ASSERT_EQ(draws.sizes(), lam.sizes());
    const Tensor host = draws.to(Device(kCPU)).to(kDouble);
    EXPECT_TRUE(host.eq(host.round()).all().item<bool>()) << "samples are whole numbers";
    EXPECT_TRUE(host.ge(0).all().item<bool>());
    std::vector<double> mean, var;
    row_moments(draws, &mean, &var);
    for (size_t r = 0; r < rates.size(); ++r) {
      const double lambda = rates[r];
      // Five standard errors of the mean; the variance within 5%
      // (bfloat16 and half round the large samples, so only the mean there).
      EXPECT_NEAR(mean[r], lambda, 5 * std::sqrt(lambda / n) + (lambda > 256 ? 2 : 0))
          << "rate " << lambda;
      if (t == kFloat || t == kDouble) {
        EXPECT_NEAR(var[r], lambda, 0.05 * lambda) << "rate " << lambda;
      }
    }
  }
}

TEST(CudaDistributionsTest, PoissonEdgeRatesAreTheCpus) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor lam = tensor({0.0, kInf, 0.0, 1e-30}).to(kCuda);
  const Tensor r = poisson(lam).to(Device(kCPU));
  EXPECT_EQ(r[0].item<double>(), 0);
  EXPECT_EQ(r[1].item<double>(), kInf);
  EXPECT_EQ(r[2].item<double>(), 0);
  EXPECT_EQ(r[3].item<double>(), 0);
  EXPECT_EQ(poisson(empty({0, 3}, TensorOptions(kFloat).device(kCuda))).sizes(),
            IntArrayRef({0, 3}));
}

TEST(CudaDistributionsTest, SameSeedSameSamplesAndStridesDoNotMatter) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor lam = (rand({64, 48}) * 30).to(kCuda);
  manual_seed(5);
  const Tensor a = poisson(lam);
  const Tensor b = poisson(lam);
  manual_seed(5);
  const Tensor a2 = poisson(lam);
  expect_same(a2, a.to(Device(kCPU)));
  EXPECT_FALSE(a.equal(b)) << "consecutive draws use different offsets";
  // A transposed copy of the rates: position i of the result draws as
  // position i of a contiguous input.
  const Tensor lam_t = lam.t().contiguous().t();
  ASSERT_FALSE(lam_t.is_contiguous());
  manual_seed(5);
  expect_same(poisson(lam_t), a.to(Device(kCPU)));
  // An explicit generator: the same samples for the same seed.
  Generator g1(kCuda, 99), g2(kCuda, 99);
  expect_same(binomial(lam, full_like(lam, 0.3), g1),
              binomial(lam, full_like(lam, 0.3), g2).to(Device(kCPU)));
}

TEST(CudaDistributionsTest, NegativeOrNaNRateRaisesAtTheNextSynchronization) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (double bad : {-1.0, kNaN}) {
    const std::string e = error_of([&] {
      Tensor r = poisson(tensor({1.0, bad, 2.0}).to(kCuda));
      r.to(Device(kCPU));
    });
    EXPECT_EQ(e, "invalid Poisson rate, expected rate to be non-negative");
  }
  // The device stays usable and the record is cleared.
  EXPECT_EQ(poisson(tensor({0.0}).to(kCuda)).to(Device(kCPU)).item<double>(), 0);
}

TEST(CudaDistributionsTest, BinomialFollowsCountAndProb) {
  SKIP_WITHOUT_CUDA_DEVICE();
  // Inversion (count * p < 10) and BTRS, both sides of p = 0.5.
  const std::vector<double> counts = {5, 20, 100, 1000, 40, 300};
  const std::vector<double> probs = {0.3, 0.4, 0.05, 0.9, 0.75, 0.5};
  const int64_t n = 40000;
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor c = tensor(counts).to(t).view({-1, 1}).expand({-1, n}).to(kCuda);
    const Tensor p = tensor(probs).to(t).view({-1, 1}).to(kCuda);  // broadcast
    manual_seed(3);
    const Tensor draws = binomial(c, p.expand({-1, n}));
    ASSERT_TRUE(draws.is_cuda());
    ASSERT_EQ(draws.dtype(), t);
    const Tensor host = draws.to(Device(kCPU)).to(kDouble);
    EXPECT_TRUE(host.eq(host.round()).all().item<bool>());
    std::vector<double> mean, var;
    row_moments(draws, &mean, &var);
    for (size_t r = 0; r < counts.size(); ++r) {
      const double cnt = counts[r], pr = probs[r];
      const double v = cnt * pr * (1 - pr);
      EXPECT_NEAR(mean[r], cnt * pr, 5 * std::sqrt(v / n) + (cnt * pr > 256 ? 2 : 0))
          << "count " << cnt << " prob " << pr;
      if (t == kFloat || t == kDouble) {
        EXPECT_NEAR(var[r], v, 0.05 * v);
      }
      const Tensor row = host[static_cast<int64_t>(r)];
      EXPECT_TRUE(row.ge(0).all().item<bool>());
      EXPECT_TRUE(row.le(cnt).all().item<bool>());
    }
  }
}

TEST(CudaDistributionsTest, BinomialEdgeCasesAreTheCpus) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor c = tensor({0.0, -2.0, 7.0, 7.0, 7.0, 5.0, kInf});
  const Tensor p = tensor({0.5, 0.5, 0.0, 1.0, 1.5, kNaN, 0.5});
  const Tensor cpu = binomial(c, p, Generator(1));
  const Tensor dev = binomial(c.to(kCuda), p.to(kCuda)).to(Device(kCPU));
  // No element of these draws anything: the values are fixed.
  EXPECT_TRUE(dev.nan_to_num(-1).equal(cpu.nan_to_num(-1)));
  EXPECT_EQ(dev[2].item<double>(), 0);
  EXPECT_EQ(dev[3].item<double>(), 7);
  EXPECT_TRUE(std::isnan(dev[5].item<double>()));
  EXPECT_TRUE(std::isnan(dev[6].item<double>()));
}

TEST(CudaDistributionsTest, ErrorsNameTheProblem) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor x = ones({3}, TensorOptions(kFloat).device(kCuda));
  EXPECT_EQ(error_of([&] { poisson(x, Generator(1)); }),
            "Expected a 'cuda' device type for generator but found 'cpu'");
  EXPECT_EQ(error_of([&] { poisson(x.to(kLong)); }), "\"poisson_cuda\" not implemented for 'Long'");
  EXPECT_EQ(error_of([&] { binomial(x, x.to(kDouble)); }), "Found dtype Double but expected Float");
}

}  // namespace
}  // namespace ember
