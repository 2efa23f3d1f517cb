#include "tensor/random.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "tensor/creation.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::find_golden;
using testing::GoldenEntry;
using testing::matches_golden;
using testing::strided_view;

const GoldenEntry kGolden[] = {
#include "tensor/testdata/random_golden.inc"
};

const GoldenEntry& G(const std::string& name) { return find_golden(kGolden, name); }

// Same sizes and values (without depending on //tensor:math).
bool Same(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() &&
         testing::values_of(a) == testing::values_of(b);
}

TEST(GeneratorTest, DefaultSeedIsPyTorchs) {
  EXPECT_EQ(Generator().initial_seed(), 67280421310721ULL);
  manual_seed(42);
  EXPECT_EQ(initial_seed(), 42u);
}

TEST(RandTest, MatchesPyTorchForEveryFloatingDtype) {
  manual_seed(0);
  EXPECT_TRUE(matches_golden(rand({5}), G("rand_5_seed0")));
  manual_seed(1);
  EXPECT_TRUE(matches_golden(rand({37}), G("rand_37_seed1")));
  manual_seed(2);
  EXPECT_TRUE(matches_golden(rand({7}, kDouble), G("rand_7_double_seed2")));
  manual_seed(3);
  EXPECT_TRUE(matches_golden(rand({20}, kHalf), G("rand_20_half_seed3")));
  manual_seed(4);
  EXPECT_TRUE(matches_golden(rand({4, 5}, kBFloat16), G("rand_20_bfloat16_seed4")));
}

TEST(RandnTest, ShortTensorsUseCachedPairs) {
  manual_seed(5);
  EXPECT_TRUE(matches_golden(randn({5}), G("randn_5_seed5")));
  manual_seed(6);
  EXPECT_TRUE(matches_golden(randn({7}, kDouble), G("randn_7_double_seed6_first")));
  EXPECT_TRUE(matches_golden(randn({5}, kDouble), G("randn_7_double_seed6_second")));
}

TEST(RandnTest, VectorizedFillMatchesBitForBit) {
  manual_seed(7);
  EXPECT_TRUE(matches_golden(randn({16}), G("randn_16_seed7")));
  manual_seed(8);
  EXPECT_TRUE(matches_golden(randn({37}), G("randn_37_seed8")));
  manual_seed(9);
  EXPECT_TRUE(matches_golden(randn({10, 100}), G("randn_1000_seed9")));
  manual_seed(10);
  EXPECT_TRUE(matches_golden(randn({40}, kDouble), G("randn_40_double_seed10")));
}

TEST(RandnTest, ReducedFloatingDtypes) {
  manual_seed(11);
  EXPECT_TRUE(matches_golden(randn({33}, kHalf), G("randn_33_half_seed11")));
  manual_seed(12);
  EXPECT_TRUE(matches_golden(randn({33}, kBFloat16), G("randn_33_bfloat16_seed12")));
}

TEST(NormalTest, MeanAndStd) {
  manual_seed(13);
  EXPECT_TRUE(matches_golden(normal(2.0, 3.0, {50}), G("normal_2_3_50_seed13")));
  manual_seed(14);
  EXPECT_TRUE(matches_golden(normal(-1.0, 0.5, {5}, kDouble), G("normal_-1_0.5_5_double_seed14")));
  manual_seed(15);
  EXPECT_TRUE(matches_golden(normal(2.0, 3.0, {20}, kDouble), G("normal_2_3_20_double_seed15")));
  expect_error([] { normal(0.0, -1.0, {3}); }, "normal expects std >= 0.0, but found std -1");
  expect_error([] { randn({3}, kLong); }, "\"normal_kernel_cpu\" not implemented for 'Long'");
}

TEST(RandintTest, Values) {
  manual_seed(16);
  EXPECT_TRUE(matches_golden(randint(0, 10, {20}), G("randint_0_10_20_seed16")));
  manual_seed(17);
  EXPECT_TRUE(matches_golden(randint(-5, 5, {3, 4}, kInt), G("randint_-5_5_3x4_int32_seed17")));
  manual_seed(18);
  EXPECT_TRUE(matches_golden(randint(0, int64_t{1} << 40, {5}), G("randint_0_2p40_5_seed18")));
  manual_seed(19);
  EXPECT_TRUE(matches_golden(randint(3, 10, {6}, kByte), G("randint_3_10_6_uint8_seed19")));
  manual_seed(20);
  EXPECT_TRUE(matches_golden(randint(7, {8}, kFloat), G("randint_0_7_8_float_seed20")));
}

TEST(RandintTest, Errors) {
  expect_error([] { randint(5, 2, {3}); },
              "random_ expects 'from' to be less than 'to', but got from=5 >= to=2");
  expect_error([] { randint(0, 300, {3}, kByte); }, "to - 1 is out of bounds for unsigned char");
  expect_error([] { randint(-1, 3, {3}, kByte); }, "from is out of bounds for unsigned char");
  expect_error([] { randint(0, 3, {3}, kBool); }, "to - 1 is out of bounds for bool");
  expect_error([] { randint(-40000, 3, {3}, kShort); }, "from is out of bounds for short int");
  expect_error([] { randint(-100000, 3, {3}, kHalf); }, "from is out of bounds for c10::Half");
}

TEST(RandpermTest, Values) {
  manual_seed(21);
  EXPECT_TRUE(matches_golden(randperm(10), G("randperm_10_seed21")));
  manual_seed(22);
  EXPECT_TRUE(matches_golden(randperm(50), G("randperm_50_seed22")));
  manual_seed(23);
  EXPECT_TRUE(matches_golden(randperm(5, kInt), G("randperm_5_int32_seed23")));
  manual_seed(24);
  EXPECT_TRUE(matches_golden(randperm(30, kFloat), G("randperm_30_float_seed24")));
  expect_error([] { randperm(-1); }, "Trying to create tensor with negative dimension -1: [-1]");
  expect_error([] { randperm(3, kBool); }, "\"randperm\" not implemented for 'Bool'");
}

TEST(InPlaceTest, UniformBernoulliExponentialRandom) {
  manual_seed(25);
  Tensor u = empty({30});
  EXPECT_TRUE(matches_golden(u.uniform_(-2, 3), G("uniform_-2_3_30_seed25")));
  manual_seed(26);
  Tensor h = empty({30}, kHalf);
  EXPECT_TRUE(matches_golden(h.uniform_(-2, 3), G("uniform_-2_3_30_half_seed26")));
  manual_seed(27);
  Tensor b = empty({30});
  EXPECT_TRUE(matches_golden(b.bernoulli_(0.3), G("bernoulli_0.3_30_seed27")));
  manual_seed(28);
  Tensor bb = empty({10}, kBool);
  EXPECT_TRUE(matches_golden(bb.bernoulli_(), G("bernoulli_0.5_10_bool_seed28")));
  manual_seed(29);
  Tensor e = empty({20}, kDouble);
  EXPECT_TRUE(matches_golden(e.exponential_(1.5), G("exponential_1.5_20_double_seed29")));
  manual_seed(30);
  Tensor e1 = empty({20});
  EXPECT_TRUE(matches_golden(e1.exponential_(), G("exponential_1_20_seed30")));
  manual_seed(33);
  EXPECT_TRUE(
      matches_golden(empty({20}, kDouble).cauchy_(0.5, 2), G("cauchy_0.5_2_20_double_seed33")));
  manual_seed(34);
  EXPECT_TRUE(matches_golden(empty({20}, kHalf).cauchy_(), G("cauchy_20_half_seed34")));
  manual_seed(35);
  EXPECT_TRUE(matches_golden(empty({20}).log_normal_(), G("log_normal_20_seed35")));
  manual_seed(36);
  EXPECT_TRUE(matches_golden(empty({15}, kDouble).log_normal_(-1, 0.5),
                             G("log_normal_-1_0.5_15_double_seed36")));
  manual_seed(37);
  EXPECT_TRUE(matches_golden(empty({20}).geometric_(0.3), G("geometric_0.3_20_seed37")));
  manual_seed(38);
  EXPECT_TRUE(
      matches_golden(empty({20}, kLong).geometric_(0.7), G("geometric_0.7_20_long_seed38")));
  manual_seed(39);
  // Memory order, as PyTorch's iterator visits a lone output.
  EXPECT_TRUE(matches_golden(empty({6, 4}).t().cauchy_(), G("cauchy_4x6_transposed_seed39")));
  manual_seed(31);
  Tensor r = empty({10}, kLong);
  EXPECT_TRUE(matches_golden(r.random_(0, 100), G("random_0_100_10_seed31")));
}

TEST(InPlaceTest, BumpsVersion) {
  Tensor t = empty({4});
  const uint32_t v = t._version();
  t.uniform_();
  EXPECT_GT(t._version(), v);
}

TEST(InPlaceTest, Errors) {
  expect_error([] { empty({3}).uniform_(1, 0); },
              "uniform_ expects to return a [from, to) range, but found from=1 > to=0");
  expect_error([] { empty({3}, kLong).uniform_(); },
              "\"check_uniform_bounds\" not implemented for 'Long'");
  expect_error([] { empty({3}).bernoulli_(1.5); },
              "bernoulli_ expects p to be in [0, 1], but got p=1.5");
  expect_error([] { empty({3}).exponential_(-1); },
              "exponential_ expects lambda >= 0.0, but found lambda=-1");
  expect_error([] { empty({3}).normal_(0, -1); }, "normal expects std >= 0.0, but found std -1");
  expect_error([] { empty({3}, kLong).cauchy_(); }, "\"cauchy_cpu\" not implemented for 'Long'");
  expect_error([] { empty({3}).log_normal_(1, 0); },
               "log_normal_ expects std > 0.0, but found std=0");
  expect_error([] { empty({3}, kLong).log_normal_(); },
               "\"log_normal_cpu\" not implemented for 'Long'");
  expect_error([] { empty({3}).geometric_(1); },
               "geometric_ expects p to be in (0, 1), but got p=1");
  expect_error([] { empty({3}, kBool).geometric_(0.5); },
               "\"geometric_cpu\" not implemented for 'Bool'");
}

TEST(InPlaceTest, NonContiguousFillsInMemoryOrder) {
  manual_seed(32);
  Tensor x = empty({4, 6});
  Tensor xt = strided_view(x, {6, 4}, {1, 6});  // x.t()
  xt.uniform_();
  EXPECT_TRUE(matches_golden(x, G("uniform_transposed_seed32")));
  manual_seed(33);
  Tensor y = empty({4, 6}, kDouble);
  Tensor yt = strided_view(y, {6, 4}, {1, 6});
  yt.normal_();
  EXPECT_TRUE(matches_golden(y, G("normal_transposed_seed33")));
  manual_seed(34);
  Tensor z = zeros({4, 6});
  Tensor zs = strided_view(z, {4, 4}, {6, 1}, 1);  // z[:, 1:5]
  zs.uniform_();
  EXPECT_TRUE(matches_golden(z, G("uniform_sliced_seed34")));
}

TEST(GeneratorTest, OwnStreamLeavesDefaultAlone) {
  Generator g(123);
  manual_seed(0);
  EXPECT_TRUE(matches_golden(rand({5}, g), G("generator_123_rand_5")));
  EXPECT_TRUE(matches_golden(randn({20}, g), G("generator_123_randn_20")));
  EXPECT_TRUE(matches_golden(rand({3}), G("generator_default_after")));
  EXPECT_TRUE(matches_golden(rand({4}, Generator()), G("fresh_generator_rand_4")));
}

TEST(GeneratorTest, ReseedingRepeatsTheStream) {
  Generator g;
  g.manual_seed(77);
  Tensor a = randn({5}, g);
  Tensor p = randperm(20, g);
  g.manual_seed(77);
  EXPECT_TRUE(Same(a, randn({5}, g)));
  EXPECT_TRUE(Same(p, randperm(20, g)));
}

TEST(GeneratorTest, ConcurrentUseDrawsEachNumberOnce) {
  // Two threads share one generator; together they must consume exactly the
  // stream one thread alone would (locks make fills atomic).
  Generator g(5);
  std::vector<Tensor> parts(2);
  std::thread t0([&] { parts[0] = randint(0, 1 << 30, {20000}, g); });
  std::thread t1([&] { parts[1] = randint(0, 1 << 30, {20000}, g); });
  t0.join();
  t1.join();
  g.manual_seed(5);
  Tensor first = randint(0, 1 << 30, {20000}, g);
  Tensor second = randint(0, 1 << 30, {20000}, g);
  const bool in_order = Same(parts[0], first) && Same(parts[1], second);
  const bool swapped = Same(parts[1], first) && Same(parts[0], second);
  EXPECT_TRUE(in_order || swapped);
}

TEST(LikeTest, ShapeAndDtypeFromInput) {
  Tensor src = zeros({2, 3}, kDouble);
  Tensor r = rand_like(src);
  EXPECT_EQ(r.dtype(), kDouble);
  EXPECT_EQ(r.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(randn_like(src, kFloat).dtype(), kFloat);
  Tensor i = randint_like(zeros({4}, kInt), 3, 9);
  EXPECT_EQ(i.dtype(), kInt);
  for (int k = 0; k < 4; ++k) {
    EXPECT_GE(i.data_ptr<int32_t>()[k], 3);
    EXPECT_LT(i.data_ptr<int32_t>()[k], 9);
  }
  Tensor j = randint_like(zeros({100}, kLong), 2);
  for (int k = 0; k < 100; ++k) EXPECT_LT(j.data_ptr<int64_t>()[k], 2);
}

// Device generators (Note [Device random numbers]): their Philox state
// needs no device to be read, written or seeded.
TEST(RandomTest, DeviceGeneratorStateIsSeedThenOffset) {
  Generator g(Device(kCUDA, 0), 0x0102030405060708ULL);
  EXPECT_EQ(g.device(), Device(kCUDA, 0));
  Tensor state = g.get_state();
  ASSERT_EQ(state.dtype(), kByte);
  ASSERT_EQ(state.numel(), 16);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(state.data_ptr<uint8_t>()[i], 8 - i) << i;
  for (int i = 8; i < 16; ++i) EXPECT_EQ(state.data_ptr<uint8_t>()[i], 0) << i;
  g.impl()->reserve_philox_offset(3);
  Tensor later = g.get_state();
  EXPECT_EQ(later.data_ptr<uint8_t>()[8], 3);
  Generator h(Device(kCUDA, 0));
  h.set_state(later);
  EXPECT_EQ(h.initial_seed(), 0x0102030405060708ULL);
  EXPECT_EQ(h.impl()->philox_offset(), 3u);
  h.manual_seed(5);
  EXPECT_EQ(h.impl()->philox_offset(), 0u);
  expect_error([&] { h.set_state(zeros({3}, kByte)); }, "RNG state is wrong size");
  expect_error([&] { h.set_state(zeros({16}, kFloat)); },
               "expected a torch.ByteTensor as the RNG state");
}

// manual_seed seeds every device's default generator, those made later too.
TEST(RandomTest, ManualSeedSeedsTheDeviceGenerators) {
  manual_seed(1234);
  Generator d0 = detail::default_generator_for(Device(kCUDA, 0));
  EXPECT_EQ(d0.initial_seed(), 1234u);
  d0.impl()->reserve_philox_offset(1);
  manual_seed(99);
  EXPECT_EQ(d0.initial_seed(), 99u);
  EXPECT_EQ(d0.impl()->philox_offset(), 0u);
  EXPECT_EQ(detail::default_generator_for(Device(kCUDA, 3)).initial_seed(), 99u);
  EXPECT_EQ(detail::default_generator_for(Device(kCUDA, 3)).impl(),
            detail::default_generator_for(Device(kCUDA, 3)).impl());
  detail::manual_seed_devices(kCUDA, 7);
  EXPECT_EQ(d0.initial_seed(), 7u);
  EXPECT_EQ(initial_seed(), 99u);  // the CPU's stays
  EXPECT_EQ(detail::default_generator_for(Device(kCPU)).impl(), default_generator().impl());
}

// A tensor takes numbers from a generator of its own device type only.
TEST(RandomTest, GeneratorMustMatchTheTensorsDevice) {
  Tensor t = zeros({3});
  expect_error([&] { uniform_(t, 0, 1, Generator(Device(kCUDA, 0), 1)); },
               "Expected a 'cpu' device type for generator but found 'cuda'");
  expect_error([&] { rand({2}, Generator(Device(kCUDA, 0), 1)); },
               "Expected a 'cpu' device type for generator but found 'cuda'");
}

// bernoulli_ with tensor probabilities (broadcast to self) draws, for a
// contiguous self, what p.bernoulli() draws.
TEST(RandomTest, BernoulliWithTensorProbabilities) {
  Tensor p = tensor({0.1, 0.5, 0.9});
  manual_seed(17);
  Tensor want = p.expand({4, 3}).contiguous().bernoulli();
  manual_seed(17);
  Tensor got = zeros({4, 3}, kFloat);
  got.bernoulli_(p);
  EXPECT_TRUE(Same(got, want.to(kFloat)));
  Generator g(5), h(5);
  Tensor a = zeros({4, 3}, kDouble), b = zeros({4, 3}, kDouble);
  bernoulli_(a, p, g);
  bernoulli_(b, p, h);
  EXPECT_TRUE(Same(a, b));
  expect_error([&] { got.bernoulli_(tensor({int64_t{1}})); },
               "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'");
}

}  // namespace
}  // namespace ember
