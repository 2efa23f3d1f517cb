// Random numbers generated on the device (Note [Device random numbers] in
// tensor/random.cc): the distributions' moments and Kolmogorov-Smirnov
// distances over 2^20 samples, seeding and state replay, independence from
// the launch geometry and the output's strides, and the device engine
// against the host's Philox (tensor/philox.h, checked against Random123's
// known answers by //tensor:philox_test). Needs a GPU; skips without one.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "tensor/all.h"
#include "tensor/cuda/ops_testing.h"
#include "tensor/philox.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using cuda_testing::kCuda;

constexpr int64_t kN = int64_t{1} << 20;

std::vector<double> host_values(const Tensor& t) {
  Tensor h = t.to(Device(kCPU)).to(kDouble).contiguous().view({-1});
  const double* p = h.data_ptr<double>();
  return std::vector<double>(p, p + h.numel());
}

struct Moments {
  double mean, var, min, max;
};

Moments moments_of(const Tensor& t) {
  const std::vector<double> v = host_values(t);
  double s = 0, lo = v[0], hi = v[0];
  for (double x : v) {
    s += x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  const double mean = s / v.size();
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return {mean, ss / (v.size() - 1), lo, hi};
}

// The Kolmogorov-Smirnov distance between t's values and `cdf`.
template <typename Cdf>
double ks_distance(const Tensor& t, const Cdf& cdf) {
  std::vector<double> v = host_values(t);
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  double d = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const double f = cdf(v[i]);
    d = std::max({d, f - i / n, (i + 1) / n - f});
  }
  return d;
}
// The 0.1% critical value of the KS distance for n samples, 1.95 / sqrt(n).
const double kKsBound = 1.95 / std::sqrt(static_cast<double>(kN));

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

TEST(CudaRandomTest, UniformMomentsAndDistribution) {
  SKIP_WITHOUT_CUDA_DEVICE();
  manual_seed(1);
  for (ScalarType dt : {kFloat, kDouble}) {
    SCOPED_TRACE(scalar_type_name(dt));
    Tensor x = rand({kN}, TensorOptions(dt).device(kCuda));
    ASSERT_TRUE(x.is_cuda());
    ASSERT_EQ(x.dtype(), dt);
    const Moments m = moments_of(x);
    // Standard errors: 0.29 / 1024 for the mean, 7.3e-5 for the variance.
    EXPECT_NEAR(m.mean, 0.5, 1.5e-3);
    EXPECT_NEAR(m.var, 1.0 / 12, 4e-4);
    EXPECT_GE(m.min, 0.0);
    EXPECT_LT(m.max, 1.0);
    EXPECT_LT(ks_distance(x, [](double v) { return std::clamp(v, 0.0, 1.0); }), kKsBound);
  }
  Tensor y = empty({kN}, TensorOptions(kFloat).device(kCuda)).uniform_(-2, 3);
  const Moments m = moments_of(y);
  EXPECT_NEAR(m.mean, 0.5, 5 * 5 * 0.29 / 1024);
  EXPECT_NEAR(m.var, 25.0 / 12, 25 * 4e-4);
  EXPECT_GE(m.min, -2.0);
  EXPECT_LT(m.max, 3.0);
  EXPECT_LT(ks_distance(y, [](double v) { return std::clamp((v + 2) / 5, 0.0, 1.0); }), kKsBound);
}

TEST(CudaRandomTest, ReducedPrecisionUniformStaysBelowTo) {
  SKIP_WITHOUT_CUDA_DEVICE();
  manual_seed(2);
  for (ScalarType dt : {kHalf, kBFloat16}) {
    SCOPED_TRACE(scalar_type_name(dt));
    Tensor x = rand({kN}, TensorOptions(dt).device(kCuda));
    const Moments m = moments_of(x);
    EXPECT_NEAR(m.mean, 0.5, 5e-3);
    EXPECT_GE(m.min, 0.0);
    EXPECT_LT(m.max, 1.0);  // a value rounded up to 1 becomes 0, as in PyTorch
  }
}

TEST(CudaRandomTest, NormalMomentsAndDistribution) {
  SKIP_WITHOUT_CUDA_DEVICE();
  manual_seed(3);
  for (ScalarType dt : {kFloat, kDouble}) {
    SCOPED_TRACE(scalar_type_name(dt));
    Tensor x = randn({kN}, TensorOptions(dt).device(kCuda));
    const Moments m = moments_of(x);
    // Standard errors 1 / 1024 and sqrt(2) / 1024.
    EXPECT_NEAR(m.mean, 0.0, 5e-3);
    EXPECT_NEAR(m.var, 1.0, 7e-3);
    EXPECT_LT(ks_distance(x, normal_cdf), kKsBound);
    // Odd element counts end mid-pair; the tail is still normal.
    EXPECT_GT(m.max, 4.0);
    EXPECT_LT(m.min, -4.0);
  }
  Tensor y = normal(3, 2, {kN}, TensorOptions(kDouble).device(kCuda));
  const Moments m = moments_of(y);
  EXPECT_NEAR(m.mean, 3.0, 1e-2);
  EXPECT_NEAR(std::sqrt(m.var), 2.0, 1e-2);
  EXPECT_LT(ks_distance(y, [](double v) { return normal_cdf((v - 3) / 2); }), kKsBound);
  Tensor h = randn({kN}, TensorOptions(kHalf).device(kCuda));
  const Moments mh = moments_of(h);
  EXPECT_NEAR(mh.mean, 0.0, 1e-2);
  EXPECT_NEAR(mh.var, 1.0, 2e-2);
}

TEST(CudaRandomTest, ExponentialMomentsAndDistribution) {
  SKIP_WITHOUT_CUDA_DEVICE();
  manual_seed(4);
  for (ScalarType dt : {kFloat, kDouble}) {
    SCOPED_TRACE(scalar_type_name(dt));
    Tensor x = empty({kN}, TensorOptions(dt).device(kCuda)).exponential_(2);
    const Moments m = moments_of(x);
    // Mean 1/2 (standard error 0.5 / 1024), variance 1/4 (0.71 / 1024).
    EXPECT_NEAR(m.mean, 0.5, 2.5e-3);
    EXPECT_NEAR(m.var, 0.25, 3.5e-3);
    EXPECT_GE(m.min, 0.0);
    EXPECT_LT(ks_distance(x, [](double v) { return v <= 0 ? 0.0 : 1 - std::exp(-2 * v); }),
              kKsBound);
  }
}

TEST(CudaRandomTest, BernoulliFrequencies) {
  SKIP_WITHOUT_CUDA_DEVICE();
  manual_seed(5);
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBool, kByte, kInt, kLong}) {
    SCOPED_TRACE(scalar_type_name(dt));
    Tensor x = empty({kN}, TensorOptions(dt).device(kCuda)).bernoulli_(0.3);
    const Moments m = moments_of(x);
    EXPECT_NEAR(m.mean, 0.3, 2.5e-3);  // standard error 0.46 / 1024
    EXPECT_EQ(m.min, 0.0);
    EXPECT_EQ(m.max, 1.0);
  }
  Tensor z = empty({1000}, TensorOptions(kFloat).device(kCuda));
  EXPECT_EQ(moments_of(z.bernoulli_(0.0)).max, 0.0);
  EXPECT_EQ(moments_of(z.bernoulli_(1.0)).min, 1.0);
}

// Probabilities from a tensor, broadcast over self; and p.bernoulli().
TEST(CudaRandomTest, BernoulliWithTensorProbabilities) {
  SKIP_WITHOUT_CUDA_DEVICE();
  manual_seed(6);
  for (ScalarType pt : {kFloat, kDouble}) {
    SCOPED_TRACE(scalar_type_name(pt));
    Tensor p = tensor({0.2, 0.9, 0.0, 1.0}).to(pt).view({4, 1}).to(kCuda);
    Tensor x = empty({4, kN / 4}, TensorOptions(kFloat).device(kCuda));
    x.bernoulli_(p);
    Tensor rows = x.mean({1}).to(Device(kCPU)).to(kDouble);
    const double* r = rows.data_ptr<double>();
    EXPECT_NEAR(r[0], 0.2, 4e-3);
    EXPECT_NEAR(r[1], 0.9, 3e-3);
    EXPECT_EQ(r[2], 0.0);
    EXPECT_EQ(r[3], 1.0);
    Tensor probs = full({kN}, 0.75, TensorOptions(pt).device(kCuda));
    Tensor b = probs.bernoulli();
    ASSERT_TRUE(b.is_cuda());
    EXPECT_EQ(b.dtype(), pt);
    EXPECT_NEAR(moments_of(b).mean, 0.75, 2.5e-3);
  }
}

TEST(CudaRandomTest, RandomStaysInItsRange) {
  SKIP_WITHOUT_CUDA_DEVICE();
  manual_seed(7);
  Tensor x = randint(3, 10, {kN}, TensorOptions(kLong).device(kCuda));
  EXPECT_EQ(x.dtype(), kLong);
  const Moments m = moments_of(x);
  EXPECT_EQ(m.min, 3.0);
  EXPECT_EQ(m.max, 9.0);
  EXPECT_NEAR(m.mean, 6.0, 1e-2);
  Tensor counts = x.to(Device(kCPU)).view({-1});
  for (int64_t v = 3; v < 10; ++v) {
    const double freq = counts.eq(v).to(kDouble).mean().item<double>();
    EXPECT_NEAR(freq, 1.0 / 7, 2e-3) << v;
  }
  // Negative bounds, and every integer and floating dtype.
  for (ScalarType dt : {kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble}) {
    SCOPED_TRACE(scalar_type_name(dt));
    Tensor y = empty({kN}, TensorOptions(dt).device(kCuda)).random_(-5, 5);
    const Moments my = moments_of(y);
    EXPECT_EQ(my.min, -5.0);
    EXPECT_EQ(my.max, 4.0);
    EXPECT_NEAR(my.mean, -0.5, 2e-2);
  }
  Tensor u8 = empty({kN}, TensorOptions(kByte).device(kCuda)).random_(0, 256);
  EXPECT_EQ(moments_of(u8).min, 0.0);
  EXPECT_EQ(moments_of(u8).max, 255.0);
  Tensor bits = empty({kN}, TensorOptions(kBool).device(kCuda)).random_(0, 2);
  EXPECT_NEAR(moments_of(bits).mean, 0.5, 3e-3);
  // A range of 2^40 takes 64-bit draws.
  Tensor wide = empty({kN}, TensorOptions(kLong).device(kCuda)).random_(0, int64_t{1} << 40);
  const Moments mw = moments_of(wide);
  EXPECT_GE(mw.min, 0.0);
  EXPECT_LT(mw.max, std::ldexp(1.0, 40));
  EXPECT_NEAR(mw.mean / std::ldexp(1.0, 40), 0.5, 2e-3);
  EXPECT_GT(mw.max, std::ldexp(1.0, 39) * 1.99);
  // Bounds the dtype cannot hold are refused before anything runs.
  Tensor i8 = empty({4}, TensorOptions(kChar).device(kCuda));
  EXPECT_THAT(::ember::testing::error_of([&] { i8.random_(-200, 0); }),
              ::testing::HasSubstr("from is out of bounds for signed char"));
}


bool same(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.to(Device(kCPU)).equal(b.to(Device(kCPU)));
}

TEST(CudaRandomTest, SameSeedSameNumbersOtherSeedOthers) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const TensorOptions o = TensorOptions(kFloat).device(kCuda);
  auto draw = [&] {
    return std::vector<Tensor>{rand({1000}, o), randn({1001}, o), randint(0, 100, {999}, o.dtype(kLong)),
                               empty({77}, o).bernoulli_(0.4), empty({513}, o.dtype(kDouble)).exponential_()};
  };
  manual_seed(11);
  const std::vector<Tensor> a = draw();
  manual_seed(11);
  const std::vector<Tensor> b = draw();
  manual_seed(12);
  const std::vector<Tensor> c = draw();
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(same(a[i], b[i])) << i;
    EXPECT_FALSE(same(a[i], c[i])) << i;
  }
  // Consecutive fills take new offsets: no two share their numbers.
  EXPECT_FALSE(same(a[0], rand({1000}, o)));
  manual_seed(11);
  Tensor first = rand({1000}, o), second = rand({1000}, o);
  EXPECT_FALSE(same(first, second));
  // cuda::manual_seed (current device), cuda::manual_seed_all and
  // ember::manual_seed all seed device 0 alike.
  cuda::manual_seed(11);
  EXPECT_TRUE(same(rand({1000}, o), a[0]));
  cuda::manual_seed_all(11);
  EXPECT_TRUE(same(rand({1000}, o), a[0]));
}

// Device fills draw from the device's generator: the CPU's stream is left
// as it was (CPU golden values stay PyTorch's).
TEST(CudaRandomTest, DeviceFillsLeaveTheCpuStreamAlone) {
  SKIP_WITHOUT_CUDA_DEVICE();
  manual_seed(3);
  Tensor want = rand({5});
  manual_seed(3);
  randn({100}, TensorOptions(kCuda));
  Tensor got = rand({5});
  EXPECT_TRUE(got.equal(want));
}

TEST(CudaRandomTest, RngStateReplaysTheSameNumbers) {
  SKIP_WITHOUT_CUDA_DEVICE();
  manual_seed(0x0102030405060708ULL);
  Tensor state = cuda::get_rng_state();
  ASSERT_TRUE(state.is_cpu());
  ASSERT_EQ(state.dtype(), kByte);
  ASSERT_EQ(state.numel(), 16);
  const uint8_t* b = state.data_ptr<uint8_t>();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(b[i], 8 - i) << i;  // the seed, little-endian
  for (int i = 8; i < 16; ++i) EXPECT_EQ(b[i], 0) << i;    // offset 0
  const TensorOptions o = TensorOptions(kFloat).device(kCuda);
  Tensor a = randn({4096}, o);
  Tensor a2 = rand({100}, o);
  Tensor after = cuda::get_rng_state();
  EXPECT_EQ(after.data_ptr<uint8_t>()[8], 2);  // one offset per fill
  cuda::set_rng_state(state);
  EXPECT_TRUE(same(randn({4096}, o), a));
  EXPECT_TRUE(same(rand({100}, o), a2));
  // The state of device 0 by index, and an explicit generator's.
  cuda::set_rng_state(after, 0);
  Tensor c = rand({100}, o);
  cuda::set_rng_state(after);
  EXPECT_TRUE(same(rand({100}, o), c));
  Generator g = cuda::default_generator(0);
  EXPECT_EQ(g.device().type(), kCUDA);
  EXPECT_THAT(::ember::testing::error_of([&] { cuda::set_rng_state(zeros({3}, kByte)); }),
              ::testing::HasSubstr("RNG state is wrong size"));
}

// An element's value depends on the seed, the offset and its row-major
// position only: a small fill (one block) equals the start of a large one
// (many blocks, grid-strided), and a strided output holds, position by
// position, what a contiguous one holds.
TEST(CudaRandomTest, ValuesDoNotDependOnLaunchGeometryOrStrides) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const TensorOptions o = TensorOptions(kFloat).device(kCuda);
  for (int kind = 0; kind < 4; ++kind) {
    SCOPED_TRACE(kind);
    auto fill = [&](Tensor t) {
      switch (kind) {
        case 0: t.uniform_(); break;
        case 1: t.normal_(); break;
        case 2: t.exponential_(); break;
        default: t.random_(0, 1000); break;
      }
      return t;
    };
    cuda::manual_seed(21);
    Tensor big = fill(empty({int64_t{1} << 24}, o));
    cuda::manual_seed(21);
    Tensor small = fill(empty({1003}, o));
    EXPECT_TRUE(same(small, big.slice(0, 0, 1003)));

    cuda::manual_seed(22);
    Tensor dense = fill(empty({48, 64}, o));
    cuda::manual_seed(22);
    Tensor transposed = fill(empty({64, 48}, o).t());
    EXPECT_FALSE(transposed.is_contiguous());
    EXPECT_TRUE(same(transposed, dense));
    // Every other column of a wider tensor: the rest stays untouched.
    Tensor base = full({48, 128}, -7.0, o);
    cuda::manual_seed(22);
    fill(base.slice(1, 0, 128, 2));
    EXPECT_TRUE(same(base.slice(1, 0, 128, 2), dense));
    EXPECT_TRUE(base.slice(1, 1, 128, 2).eq(-7.0).all().item<bool>());
  }
}

// The device runs the same Philox4x32-10 as the host's (whose known
// answers //tensor:philox_test checks): a float uniform is the top 24 bits
// of word i % 4 of the draw at counter (i / 4, offset), keyed by the seed.
TEST(CudaRandomTest, DeviceEngineIsTheHostsPhilox) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const uint64_t seed = 0x243f6a8885a308d3ULL, offset = 5;
  Tensor state = empty({16}, kByte);
  for (int i = 0; i < 8; ++i) {
    state.data_ptr<uint8_t>()[i] = static_cast<uint8_t>(seed >> (8 * i));
    state.data_ptr<uint8_t>()[8 + i] = static_cast<uint8_t>(offset >> (8 * i));
  }
  cuda::set_rng_state(state);
  Tensor x = rand({4099}, TensorOptions(kFloat).device(kCuda)).to(Device(kCPU));
  const float* v = x.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const Philox4x32 d = philox_draw(seed, offset, static_cast<uint64_t>(i / 4));
    const float want = static_cast<float>(d.v[i % 4] >> 8) / 16777216.0f;
    ASSERT_EQ(v[i], want) << i;
  }
  // random_ over a range below 2^32: from + word % range.
  cuda::set_rng_state(state);
  Tensor r = empty({9}, TensorOptions(kLong).device(kCuda)).random_(-3, 1000).to(Device(kCPU));
  for (int64_t i = 0; i < 9; ++i) {
    const Philox4x32 d = philox_draw(seed, offset, static_cast<uint64_t>(i / 4));
    EXPECT_EQ(r.data_ptr<int64_t>()[i], -3 + static_cast<int64_t>(d.v[i % 4] % 1003)) << i;
  }
}

TEST(CudaRandomTest, GeneratorsBelongToADevice) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor x = empty({8}, TensorOptions(kFloat).device(kCuda));
  EXPECT_EQ(::ember::testing::error_of([&] { uniform_(x, 0, 1, Generator(5)); }),
            "Expected a 'cuda' device type for generator but found 'cpu'");
  Generator g(kCuda, 9), h(kCuda, 9);
  Tensor a = rand({100}, g, TensorOptions(kFloat).device(kCuda));
  Tensor b = rand({100}, h, TensorOptions(kFloat).device(kCuda));
  EXPECT_TRUE(same(a, b));
  EXPECT_FALSE(same(a, rand({100}, g, TensorOptions(kFloat).device(kCuda))));
  EXPECT_EQ(g.get_state().data_ptr<uint8_t>()[8], 2);
}

TEST(CudaRandomTest, RandpermIsAReproduciblePermutation) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType dt : {kLong, kInt, kFloat}) {
    SCOPED_TRACE(scalar_type_name(dt));
    manual_seed(8);
    Tensor p = randperm(10000, TensorOptions(dt).device(kCuda));
    ASSERT_TRUE(p.is_cuda());
    EXPECT_EQ(p.dtype(), dt);
    Tensor sorted = std::get<0>(sort(p.to(Device(kCPU)).to(kLong)));
    EXPECT_TRUE(sorted.equal(arange(10000, TensorOptions(kLong))));
    EXPECT_FALSE(p.to(Device(kCPU)).to(kLong).equal(arange(10000, TensorOptions(kLong))));
    manual_seed(8);
    EXPECT_TRUE(same(randperm(10000, TensorOptions(dt).device(kCuda)), p));
  }
  EXPECT_EQ(randperm(0, TensorOptions(kCuda)).numel(), 0);
}

TEST(CudaRandomTest, FactoriesAndLikes) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor t = zeros({3, 4}, TensorOptions(kDouble).device(kCuda));
  for (const Tensor& r : {rand_like(t), randn_like(t), randint_like(t, 5), randint_like(t, -2, 2)}) {
    EXPECT_TRUE(r.is_cuda());
    EXPECT_EQ(r.dtype(), kDouble);
    EXPECT_EQ(r.sizes(), t.sizes());
  }
  Tensor leaf = rand({3}, TensorOptions(kFloat).device(kCuda).requires_grad(true));
  EXPECT_TRUE(leaf.requires_grad());
  EXPECT_TRUE(leaf.is_cuda());
  EXPECT_EQ(rand({0}, TensorOptions(kCuda)).numel(), 0);
  Tensor scalar = rand({}, TensorOptions(kCuda));
  EXPECT_EQ(scalar.dim(), 0);
  EXPECT_EQ(::ember::testing::error_of([&] { empty({2}, TensorOptions(kLong).device(kCuda)).normal_(); }),
            "\"normal_kernel_cuda\" not implemented for 'Long'");
}

// No random op falls back to the host (which would warn, Note [CPU
// fallback]).
TEST(CudaRandomTest, NothingFallsBackToTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  ::testing::internal::CaptureStderr();
  const TensorOptions o = TensorOptions(kFloat).device(kCuda);
  rand({10}, o);
  randn({10}, o);
  randint(4, {10}, o);
  normal(1, 2, {10}, o);
  empty({10}, o).bernoulli_(0.5);
  empty({10}, o).bernoulli_(full({10}, 0.5, o));
  full({10}, 0.5, o).bernoulli();
  empty({10}, o).random_(0, 3);
  empty({10}, o).exponential_();
  cuda::synchronize();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace ember
