// Issue 22's parity defects against PyTorch 1.13 (tools/golden/parity.py
// printed every expected value): in-place and out-of-place twins, numbers
// that do not fit a dtype (checked_convert), bool subtraction, uint8 masks,
// int64 average pooling, bernoulli(p) under a seed, the pooling backwards
// with ATen's signature; what //tools/parity:sweep found (sort's overloads
// and layout, bfloat16 lerp).
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::error_of;

Tensor X() { return tensor({{5.0f, -7.0f, 9.0f}, {-4.5f, 3.0f, 8.0f}}); }
Tensor Y() { return tensor({2.0f, 3.0f, -4.0f}); }
Tensor I() { return tensor({{5, -7, 9}, {-4, 3, 8}}, kLong); }

void expect_values(const Tensor& t, const Tensor& want) {
  ASSERT_EQ(t.sizes(), want.sizes());
  EXPECT_EQ(t.dtype(), want.dtype());
  EXPECT_TRUE(t.allclose(want, 1e-6, 1e-6)) << t << "\nwant\n" << want;
}

TEST(ParityTest, InPlaceTwinsOfBinaryOps) {
  Tensor a = X();
  EXPECT_TRUE(a.fmod_(Y()).is_same(a));
  expect_values(a, tensor({{1.0f, -1.0f, 1.0f}, {-0.5f, 0.0f, 0.0f}}));
  expect_values(X().fmod_(2.5), tensor({{0.0f, -2.0f, 1.5f}, {-2.0f, 0.5f, 0.5f}}));
  expect_values(X().remainder_(Y()), tensor({{1.0f, 2.0f, -3.0f}, {1.5f, 0.0f, 0.0f}}));
  expect_values(I().remainder_(3), tensor({{2, 2, 0}, {2, 0, 2}}, kLong));
  expect_values(X().floor_divide_(Y()), tensor({{2.0f, -3.0f, -3.0f}, {-3.0f, 1.0f, -2.0f}}));
  expect_values(I().floor_divide_(2), tensor({{2, -4, 4}, {-2, 1, 4}}, kLong));
  EXPECT_EQ(error_of([] { I().floor_divide_(2.5); }),
            "result type Float can't be cast to the desired output type Long");
  expect_values(X().atan2_(Y()), tensor({{1.1902899742126465f, -1.1659045219421387f,
                                          1.989020586013794f},
                                         {-1.1525720357894897f, 0.7853981852531433f,
                                          2.0344438552856445f}}));
  expect_values(X().lerp_(zeros({2, 3}), 0.25),
                tensor({{3.75f, -5.25f, 6.75f}, {-3.375f, 2.25f, 6.0f}}));
  expect_values(X().clamp_min_(0), tensor({{5.0f, 0.0f, 9.0f}, {0.0f, 3.0f, 8.0f}}));
  expect_values(X().clamp_max_(0), tensor({{0.0f, -7.0f, 0.0f}, {-4.5f, 0.0f, 0.0f}}));
  expect_values(X().clip_(-5, 5), X().clamp(-5, 5));
  expect_values(X().negative_(), -X());
  expect_values(X().absolute_(), X().abs());
}

TEST(ParityTest, InPlaceComparisonsKeepSelfsDtype) {
  expect_values(X().eq_(3.0), tensor({{0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}}));
  expect_values(X().lt_(Y()), tensor({{0.0f, 1.0f, 0.0f}, {1.0f, 0.0f, 0.0f}}));
  expect_values(I().ge_(3), tensor({{1, 0, 1}, {0, 1, 1}}, kLong));
  expect_values(X().logical_and_(tensor({true, false, true})),
                tensor({{1.0f, 0.0f, 1.0f}, {1.0f, 0.0f, 1.0f}}));
  expect_values(I().bitwise_xor_(tensor({1, 2, 3}, kLong)),
                tensor({{4, -5, 10}, {-3, 1, 11}}, kLong));
  // The result must keep self's shape.
  EXPECT_EQ(error_of([] { tensor({1.0f, 2.0f, 3.0f}).lt_(X()); }),
            "lt_: output with shape [3] doesn't match the broadcast shape [2, 3]");
}

TEST(ParityTest, InPlaceTwinsOfOtherFamilies) {
  expect_values(X().tril_(), tensor({{5.0f, 0.0f, 0.0f}, {-4.5f, 3.0f, 0.0f}}));
  expect_values(X().triu_(1), tensor({{0.0f, -7.0f, 9.0f}, {0.0f, 0.0f, 8.0f}}));
  expect_values(X().cumsum_(1), tensor({{5.0f, -2.0f, 7.0f}, {-4.5f, -1.5f, 6.5f}}));
  expect_values(X().cumprod_(0), tensor({{5.0f, -7.0f, 9.0f}, {-22.5f, -21.0f, 72.0f}}));
  expect_values(ones({2, 2}).addmm_(X(), X().t(), 0.5, 2),
                tensor({{310.5f, 57.5f}, {57.5f, 187.0f}}));
}

TEST(ParityTest, OutOfPlaceTwinsLeaveSelfAlone) {
  const Tensor x = X();
  expect_values(x.index_add(1, tensor({0, 2}, kLong), ones({2, 2}), 3),
                tensor({{8.0f, -7.0f, 12.0f}, {-1.5f, 3.0f, 11.0f}}));
  expect_values(x.index_fill(0, tensor({1}, kLong), -1.0),
                tensor({{5.0f, -7.0f, 9.0f}, {-1.0f, -1.0f, -1.0f}}));
  expect_values(x.index_copy(1, tensor({1}, kLong), tensor({{10.0f}, {20.0f}})),
                tensor({{5.0f, 10.0f, 9.0f}, {-4.5f, 20.0f, 8.0f}}));
  expect_values(zeros({3}).masked_scatter(tensor({{true, false, true}}), tensor({1.0f, 2.0f})),
                tensor({{1.0f, 0.0f, 2.0f}}));
  expect_values(x.index_put({tensor({0, 1}, kLong), tensor({2, 0}, kLong)}, tensor(7.0f)),
                tensor({{5.0f, -7.0f, 7.0f}, {7.0f, 3.0f, 8.0f}}));
  expect_values(x, X());
}

TEST(ParityTest, BernoulliOfATensorDrawsAsPyTorch) {
  manual_seed(3);
  expect_values(tensor({0.1f, 0.5f, 0.9f, 0.3f, 0.7f, 0.2f}).bernoulli(), ones({6}));
  manual_seed(0);
  expect_values(full({8}, 0.5f).bernoulli(),
                tensor({1.0f, 0.0f, 1.0f, 1.0f, 1.0f, 0.0f, 1.0f, 0.0f}));
  manual_seed(0);
  expect_values(full({8}, 0.5, kDouble).bernoulli(),
                tensor({0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0}, kDouble));
  EXPECT_EQ(error_of([] { tensor({1.5f}).bernoulli(); }),
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)");
  EXPECT_EQ(error_of([] { tensor({1}, kLong).bernoulli(); }),
            "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'");
}

TEST(ParityTest, NumbersThatDoNotFitTheDtypeAreRefused) {
  const Tensor u = tensor({1, 2, 3}, kByte);
  const Tensor m = tensor({true, false, true});
  const std::string u8 = "value cannot be converted to type uint8_t without overflow";
  EXPECT_EQ(error_of([&] { u.masked_fill(m, -2.5); }), u8);
  EXPECT_EQ(error_of([&] { u.masked_fill(m, 256); }), u8);
  expect_values(u.masked_fill(m, -1), tensor({255, 2, 255}, kByte));  // wraps from below
  EXPECT_EQ(error_of([&] { full_like(u, 300); }), u8);
  EXPECT_EQ(error_of([] { full({2}, 300, kByte); }), u8);
  expect_values(u.clone().fill_(-129), tensor({127, 127, 127}, kByte));
  EXPECT_EQ(error_of([&] { u.clone().fill_(std::nan("")); }), u8);
  EXPECT_EQ(error_of([] { zeros({2}, kChar).fill_(200); }),
            "value cannot be converted to type int8_t without overflow");
  EXPECT_EQ(error_of([] { zeros({2}, kInt).fill_(3e9); }),
            "value cannot be converted to type int without overflow");
  EXPECT_EQ(error_of([] { zeros({2}, kHalf).fill_(70000); }),
            "value cannot be converted to type at::Half without overflow");
  EXPECT_TRUE(std::isinf(zeros({2}, kHalf).fill_(INFINITY)[0].item<double>()));
  EXPECT_EQ(error_of([] { zeros({2}).fill_(1e300); }),
            "value cannot be converted to type float without overflow");
  EXPECT_EQ(error_of([&] { u.clone().index_fill_(0, tensor({0}, kLong), 300); }), u8);
  EXPECT_EQ(error_of([&] { u.clone().scatter_(0, tensor({0}, kLong), 300); }), u8);
  EXPECT_EQ(error_of([&] { u.clamp(std::nullopt, 300); }), u8);
  expect_values(u.clamp(-1), tensor({255, 255, 255}, kByte));
  EXPECT_EQ(error_of([&] { add(u, u, 300); }), u8);
  // Arithmetic with a number wraps without a word, as in PyTorch.
  expect_values(u + 300, tensor({45, 46, 47}, kByte));
}

TEST(ParityTest, SubtractionWithABoolIsRefused) {
  const std::string msg =
      "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
      "invert a mask, use the `~` or `logical_not()` operator instead.";
  EXPECT_EQ(error_of([] { tensor({1.0f, 2.0f}) - true; }), msg);
  EXPECT_EQ(error_of([] { true - tensor({1.0f, 2.0f}); }), msg);
  EXPECT_EQ(error_of([] { tensor({true}) - 1; }), msg);
  EXPECT_EQ(error_of([] { tensor({1.0f}).sub_(true); }), msg);
}

TEST(ParityTest, Uint8MasksHoldZerosAndOnes) {
  EXPECT_EQ(error_of([] {
              tensor({1.0f, 2.0f, 3.0f}).masked_fill(tensor({1, 0, 2}, kByte), 0.0);
            }),
            "Mask tensor can take 0 and 1 values only");
  expect_values(tensor({1.0f, 2.0f, 3.0f}).masked_fill(tensor({1, 0, 1}, kByte), 0.0),
                tensor({0.0f, 2.0f, 0.0f}));
}

TEST(ParityTest, AvgPool2dOfInt64Truncates) {
  expect_values(avg_pool2d(arange(16).view({1, 1, 4, 4}), {2, 2}, {2, 2}, {0, 0}, false, true,
                           std::nullopt),
                tensor({2, 4, 10, 12}, kLong).view({1, 1, 2, 2}));
  expect_values(avg_pool2d(arange(-8, 8).view({1, 1, 4, 4}), {3, 3}, {1, 1}, {1, 1}, false,
                           true, std::nullopt),
                tensor({-2, -3, -2, -1, -2, -3, -2, -1, 0, 1, 2, 1, 1, 2, 2, 2}, kLong)
                    .view({1, 1, 4, 4}));
  EXPECT_EQ(error_of([] {
              avg_pool2d(arange(16, kInt).view({1, 1, 4, 4}), {2, 2}, {2, 2}, {0, 0}, false, true,
                         std::nullopt);
            }),
            "\"avg_pool2d\" not implemented for 'Int'");
}

// ATen's signatures (grad_output, self, ...): the values are those of the
// sizes overloads, the strides follow self's memory format whatever
// grad_output's (parity.py prints PyTorch's), and a grad_output of the
// wrong size is refused with PyTorch's message.
TEST(ParityTest, PoolingBackwardsWithSelfTakeItsMemoryFormat) {
  const MemoryFormat cl = MemoryFormat::ChannelsLast;
  const Tensor x = arange(2 * 3 * 4 * 4, kFloat).reshape({2, 3, 4, 4});
  const Tensor gy = arange(2 * 3 * 2 * 2, kFloat).reshape({2, 3, 2, 2});
  const std::vector<int64_t> rows{48, 16, 4, 1}, channels_last{48, 1, 12, 3};
  struct Self {
    Tensor self;
    std::vector<int64_t> strides;
  };
  for (const Self& s :
       {Self{x, rows}, Self{x.contiguous(cl), channels_last}, Self{x.transpose(2, 3), rows}}) {
    const Tensor idx = std::get<1>(max_pool2d_with_indices(s.self, {2, 2}, {2, 2}));
    for (const Tensor& g : {gy, gy.contiguous(cl)}) {
      const Tensor avg =
          avg_pool2d_backward(g, s.self, {2, 2}, {2, 2}, {0, 0}, false, true, std::nullopt);
      const Tensor adaptive = _adaptive_avg_pool2d_backward(g, s.self);
      const Tensor max =
          max_pool2d_with_indices_backward(g, s.self, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, idx);
      EXPECT_EQ(avg.strides().vec(), s.strides);
      EXPECT_EQ(adaptive.strides().vec(), s.strides);
      EXPECT_EQ(max.strides().vec(), s.strides);
      expect_values(avg, avg_pool2d_backward(gy, x.sizes(), {2, 2}, {2, 2}, {0, 0}, false, true,
                                             std::nullopt));
      expect_values(adaptive, adaptive_avg_pool2d_backward(gy, x.sizes()));
      expect_values(max, max_pool2d_with_indices_backward(gy, s.self.sizes(), idx));
    }
  }
  // A 3-D input keeps the row-major layout.
  const Tensor x3 = x[0];
  EXPECT_TRUE(avg_pool2d_backward(gy[0], x3, {2, 2}, {2, 2}, {0, 0}, false, true, std::nullopt)
                  .is_contiguous());
  EXPECT_EQ(error_of([&] {
              avg_pool2d_backward(gy.narrow(2, 0, 1), x, {2, 2}, {2, 2}, {0, 0}, false, true,
                                  std::nullopt);
            }),
            "Expected a tensor of dimension 4 and tensor.size[2] == 2 but got: dimension 4 and "
            "tensor.size[2] = 1");
  const Tensor idx = std::get<1>(max_pool2d_with_indices(x, {2, 2}, {2, 2}));
  EXPECT_EQ(error_of([&] {
              max_pool2d_with_indices_backward(gy, x, {3, 3}, {2, 2}, {0, 0}, {1, 1}, false, idx);
            }),
            "Expected a tensor of dimension 4 and tensor.size[2] == 1 but got: dimension 4 and "
            "tensor.size[2] = 2");
  EXPECT_EQ(error_of([&] { _adaptive_avg_pool2d_backward(gy[0], x); }),
            "_adaptive_avg_pool2d_backward: grad_output of size [3, 2, 2] does not match an input "
            "of size [2, 3, 4, 4]");
}

// libtorch's sort(stable, dim, descending) overload (a third positional
// argument used to mean stable here, so libtorch's `sort(true, 0, true)`
// sorted along dim 1), and results that keep the input's strides.
TEST(ParityTest, SortTakesLibtorchsStableOverloadAndKeepsTheLayout) {
  const Tensor t = tensor({{3.0f, 1.0f, 2.0f}, {1.0f, 3.0f, 1.0f}});
  auto [v, i] = t.sort(/*stable=*/true, /*dim=*/0, /*descending=*/true);
  expect_values(v, tensor({{3.0f, 3.0f, 2.0f}, {1.0f, 1.0f, 1.0f}}));
  expect_values(i, tensor({{0, 1, 0}, {1, 0, 1}}, kLong));
  auto [v2, i2] = sort(t, std::optional<bool>(true), 0, true);
  EXPECT_TRUE(equal(v2, v) && equal(i2, i));
  expect_values(t.argsort(/*stable=*/true, /*dim=*/1), tensor({{1, 2, 0}, {0, 2, 1}}, kLong));
  expect_values(argsort(t, true, 1), tensor({{1, 2, 0}, {0, 2, 1}}, kLong));
  expect_values(t.argsort(0), tensor({{1, 0, 1}, {0, 1, 0}}, kLong));  // an int: a dim
  const Tensor tt = tensor({{3.0f, 1.0f}, {1.0f, 3.0f}, {2.0f, 1.0f}}).t();
  auto [tv, ti] = tt.sort(1);
  EXPECT_EQ(tv.strides().vec(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ti.strides().vec(), (std::vector<int64_t>{1, 2}));
  expect_values(tv, tensor({{1.0f, 2.0f, 3.0f}, {1.0f, 1.0f, 3.0f}}));
  expect_values(ti, tensor({{1, 2, 0}, {0, 2, 1}}, kLong));
  const Tensor cl =
      arange(24, kFloat).flip(0).reshape({1, 2, 3, 4}).contiguous(MemoryFormat::ChannelsLast);
  EXPECT_EQ(cl.argsort(1).strides().vec(), (std::vector<int64_t>{24, 1, 8, 2}));
}

// float16 in float, rounded once, as PyTorch 2.x (1.13 refused it).
TEST(ParityTest, LerpInHalfIsFloatRoundedOnce) {
  const Tensor a = tensor({1.5f, -2.5f, 0.1f}), b = tensor({3.0f, 7.0f, -0.2f});
  const Tensor r = a.to(kHalf).lerp(b.to(kHalf), 0.3);
  EXPECT_EQ(r.dtype(), kHalf);
  EXPECT_TRUE(equal(r, a.to(kHalf).to(kFloat).lerp(b.to(kHalf).to(kFloat), 0.3).to(kHalf)));
}

// PyTorch 1.13 takes self + w * (end - self) for every weight below 0.5,
// negative ones included: with end = -inf and w = -3.308, +inf (the other
// form gives NaN); from 0.5 on, end - (end - self) * (1 - w).
TEST(ParityTest, LerpBranchesOnWeightBelowOneHalf) {
  const Tensor s = tensor({-0.099f}), e = tensor({-std::numeric_limits<float>::infinity()});
  EXPECT_EQ(s.lerp(e, -3.308).item<float>(), std::numeric_limits<float>::infinity());
  EXPECT_EQ(s.lerp(e, tensor({-3.308f})).item<float>(), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(s.lerp(e, 0.7).item<float>()));
}

TEST(ParityTest, LerpInBFloat16) {
  const Tensor r =
      tensor({1.0f, 2.0f, -3.0f}).to(kBFloat16).lerp(tensor({3.0f, 5.0f, 7.0f}).to(kBFloat16), 0.3);
  EXPECT_EQ(r.dtype(), kBFloat16);
  const std::vector<float> want{1.6015625f, 2.90625f, 1.1920928955078125e-07f};
  for (int k = 0; k < 3; ++k) EXPECT_EQ(r[k].item<float>(), want[k]) << k;
}

// The activations whose PyTorch kernels take floating dtypes only refuse
// integers with PyTorch's message (their compositions here promoted them);
// hardtanh and relu6 clamp integers in their own dtype.
TEST(ParityTest, ActivationsRefuseIntegersAsPyTorchDoes) {
  const Tensor x = tensor({-2, 0, 3}, kLong);
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> ops = {
      {"silu", [](const Tensor& t) { return silu(t); }},
      {"mish", [](const Tensor& t) { return mish(t); }},
      {"softplus", [](const Tensor& t) { return softplus(t); }},
      {"log_sigmoid", [](const Tensor& t) { return log_sigmoid(t); }},
      {"hardsigmoid", [](const Tensor& t) { return hardsigmoid(t); }},
      {"hardswish", [](const Tensor& t) { return hardswish(t); }},
      {"leaky_relu", [](const Tensor& t) { return leaky_relu(t); }},
      {"elu", [](const Tensor& t) { return elu(t); }},
      {"celu", [](const Tensor& t) { return celu(t); }},
      {"softshrink", [](const Tensor& t) { return softshrink(t, 0.5); }},
      {"hardshrink", [](const Tensor& t) { return hardshrink(t, 0.5); }},
  };
  for (const auto& [name, f] : ops) {
    const std::string kernel = name == "celu" ? "elu" : name;
    EXPECT_EQ(error_of([&, f = f] { f(x); }), "\"" + kernel + "_cpu\" not implemented for 'Long'")
        << name;
    EXPECT_EQ(f(x.to(kFloat)).dtype(), kFloat) << name;
  }
  expect_values(hardtanh(x, -0.5, 2.5), tensor({0, 0, 2}, kLong));
  expect_values(hardtanh(x.to(kByte), 0.5, 2.5), tensor({2, 0, 2}, kByte));
  expect_values(hardtanh(x.to(kByte), -0.5, 2.5), tensor({2, 0, 2}, kByte));  // limits truncated
  EXPECT_EQ(error_of([&] { hardtanh(x.to(kByte), -1, 1); }),
            "cannot do hardtanh on an unsigned type with negative limits");
  EXPECT_EQ(error_of([&] { hardtanh(x > 0, -1, 1); }), "Bool inputs not supported for hardtanh");
  expect_values(hardtanh(x, 0, 6), tensor({0, 0, 3}, kLong));  // relu6
  EXPECT_EQ(error_of([&] { threshold(x > 0, 0, 1); }),
            "\"threshold_cpu\" not implemented for 'Bool'");
}

// The out-of-place index ops that PyTorch implements as structured ops
// (scatter, scatter_add, index_add, index_copy, masked_scatter), and
// log_sigmoid, give row-major results whatever self's layout; index_fill
// keeps it (parity.py prints PyTorch's strides).
TEST(ParityTest, StructuredIndexOpsGiveRowMajorResults) {
  const Tensor xt = arange(12, kFloat).reshape({4, 3}).t();
  const Tensor i = tensor({{0, 1, 0, 1}}, kLong), ii = tensor({0, 2}, kLong);
  const std::vector<int64_t> rows{4, 1}, kept{1, 3};
  EXPECT_EQ(xt.scatter(0, i, 1.0).strides().vec(), rows);
  EXPECT_EQ(xt.scatter_add(0, i, xt.narrow(0, 0, 1)).strides().vec(), rows);
  EXPECT_EQ(xt.index_add(1, ii, ones({3, 2})).strides().vec(), rows);
  EXPECT_EQ(xt.index_copy(1, ii, ones({3, 2})).strides().vec(), rows);
  EXPECT_EQ(xt.masked_scatter(xt > 4, zeros({12})).strides().vec(), rows);
  EXPECT_EQ(log_sigmoid(xt).strides().vec(), rows);
  EXPECT_EQ(xt.index_fill(1, ii, 2.0).strides().vec(), kept);
  expect_values(
      xt.index_add(1, ii, ones({3, 2})),
      tensor({{1.0f, 3.0f, 7.0f, 9.0f}, {2.0f, 4.0f, 8.0f, 10.0f}, {3.0f, 5.0f, 9.0f, 11.0f}}));
}

// asinh, acosh, atanh and erfc (parity.py prints PyTorch's), float64 with
// infinities, NaN and out-of-domain inputs; integers promote to float.
TEST(ParityTest, InverseHyperbolicsAndErfc) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  const Tensor v = tensor({-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, inf, -inf, nan}, kDouble);
  const std::vector<std::pair<Tensor, std::vector<double>>> cases = {
      {v.asinh(),
       {-1.6472311463710958, -0.881373587019543, -0.48121182505960347, 0.0, 0.48121182505960347,
        0.881373587019543, 1.8184464592320668, inf, -inf, nan}},
      {v.acosh(), {nan, nan, nan, nan, nan, 0.0, 1.762747174039086, inf, nan, nan}},
      {v.atanh(),
       {nan, -inf, -0.5493061443340548, 0.0, 0.5493061443340548, inf, nan, nan, nan, nan}},
      {v.erfc(),
       {1.999593047982555, 1.8427007929497148, 1.5204998778130465, 1.0, 0.4795001221869535,
        0.15729920705028513, 2.209049699858544e-05, 0.0, 2.0, nan}},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    const auto& [got, want] = cases[k];
    ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size()));
    for (size_t i = 0; i < want.size(); ++i) {
      const double g = got[i].item<double>(), w = want[i];
      EXPECT_TRUE(std::isnan(w) ? std::isnan(g)
                                : (g == w || std::abs(g - w) <= 1e-15 * std::abs(w)))
          << k << " at " << i << ": " << g << ", want " << w;
    }
  }
  EXPECT_EQ(tensor({1, 2}, kLong).asinh().dtype(), kFloat);
  EXPECT_EQ(tensor({1, 2}, kLong).erfc().dtype(), kFloat);
  Tensor x = tensor({0.5f});
  EXPECT_TRUE(x.atanh_().is_same(x));
  EXPECT_NEAR(x.item<float>(), 0.5493061542510986, 1e-7);
}

using Strides = std::vector<int64_t>;

// Products with nothing to multiply (an empty result, or an empty inner
// dim: zeros) return before the dtype check, in the dtype of the operand
// ATen allocates like: mm self's, bmm batch2's, mv vec's (parity.py).
TEST(ParityTest, EmptyProductsSkipTheDtypeCheck) {
  Tensor r = mm(empty({0, 3}, kBFloat16), empty({3, 0}));
  EXPECT_EQ(r.dtype(), kBFloat16);
  EXPECT_EQ(r.sizes().vec(), (Strides{0, 0}));
  expect_values(mm(empty({2, 0}, kBool), empty({0, 2}, kBool)), zeros({2, 2}, kBool));
  expect_values(mm(empty({2, 0}), empty({0, 2}, kDouble)), zeros({2, 2}));
  r = bmm(empty({2, 0, 3}, kBFloat16), empty({2, 3, 4}));
  EXPECT_EQ(r.dtype(), kFloat);
  EXPECT_EQ(r.sizes().vec(), (Strides{2, 0, 4}));
  expect_values(bmm(empty({2, 2, 0}), empty({2, 0, 3}, kLong)), zeros({2, 2, 3}, kLong));
  r = mv(empty({0, 3}, kBFloat16), ones({3}, kInt));
  EXPECT_EQ(r.dtype(), kInt);
  EXPECT_EQ(r.sizes().vec(), (Strides{0}));
  expect_values(mv(empty({2, 0}), empty({0}, kDouble)), zeros({2}, kDouble));
  expect_values(matmul(empty({3, 2, 0}), empty({0, 2}, kDouble)), zeros({3, 2, 2}));
  // With something to multiply, the checks stay.
  EXPECT_EQ(error_of([] {
              mm(ones({2, 3}, kBool), ones({3, 2}, kBool));
            }),
            "\"addmm_impl_cpu_\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] {
              mm(ones({2, 3}), ones({3, 2}, kDouble));
            }),
            "expected scalar type Float but found Double");
}

// An empty index reads and writes nothing: ATen checks neither its dtype
// nor its shape (the src dtype still is).
TEST(ParityTest, EmptyIndexIsNotChecked) {
  const Tensor x = arange(6, kFloat).reshape({2, 3});
  expect_values(x.scatter_add(0, empty({3, 0}, kInt), empty({0, 3})), x);
  expect_values(x.scatter(0, empty({3, 0, 0}, kLong), 1.0), x);
  const Tensor g = x.gather(0, empty({3, 0}, kInt));
  EXPECT_EQ(g.sizes().vec(), (Strides{3, 0}));
  EXPECT_EQ(g.dtype(), kFloat);
  EXPECT_EQ(error_of([&] {
              x.scatter_add(0, empty({3, 0}, kLong), empty({0, 3}, kDouble));
            }),
            "scatter(): Expected self.dtype to be equal to src.dtype");
  EXPECT_EQ(error_of([&] { x.scatter_add(0, tensor({{1}}, kInt), x); }),
            "scatter(): Expected dtype int64 for index");
}

// softmax of an empty integer tensor is that empty tensor; argmax/argmin
// over a dim of size 1 give zeros, and of an empty result nothing, before
// the bool check; norm(-inf) over an empty dim is 0 in 1.13 (as inf's).
TEST(ParityTest, EmptyAndSizeOneReductionsSkipTheDtypeCheck) {
  Tensor r = softmax(empty({0, 3}, kLong), 0);
  EXPECT_EQ(r.dtype(), kLong);
  EXPECT_EQ(r.sizes().vec(), (Strides{0, 3}));
  EXPECT_EQ(log_softmax(empty({2, 0}, kInt), -1).dtype(), kInt);
  EXPECT_EQ(error_of([] { softmax(ones({3}, kLong), 0); }),
            "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'");
  expect_values(ones({1, 3}, kBool).argmax(0), zeros({3}, kLong));
  expect_values(ones({1}, kBool).argmin(0, /*keepdim=*/true), zeros({1}, kLong));
  EXPECT_EQ(empty({0, 3}, kBool).argmax(1).sizes().vec(), (Strides{0}));
  EXPECT_EQ(error_of([] { ones({3}, kBool).argmax(0); }),
            "\"argmax_cpu\" not implemented for 'Bool'");
  const double inf = std::numeric_limits<double>::infinity();
  expect_values(empty({0, 3}).norm(-inf, {0}), zeros({3}));
  expect_values(empty({0, 3}).norm(inf, {0}), zeros({3}));
}

// cat (so roll and stack) keeps a channels-last format common to its
// inputs, whatever their dtypes; otherwise row-major (parity.py).
TEST(ParityTest, CatKeepsACommonChannelsLastFormat) {
  const Tensor cl =
      arange(120, kFloat).reshape({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast);
  const Tensor xt = arange(12, kFloat).reshape({4, 3}).t();
  EXPECT_EQ(cat({cl, cl.to(kDouble)}).strides().vec(), (Strides{60, 1, 15, 3}));
  EXPECT_EQ(cat({cl, cl.contiguous()}).strides().vec(), (Strides{60, 20, 5, 1}));
  EXPECT_EQ(cat({cl.narrow(1, 0, 1), cl.narrow(1, 0, 1)}, 1).strides().vec(),
            (Strides{40, 1, 10, 2}));
  EXPECT_EQ(cl.roll(1, 0).strides().vec(), (Strides{60, 1, 15, 3}));
  expect_values(cl.roll(1, 0).flatten().narrow(0, 0, 3), tensor({60.0f, 61.0f, 62.0f}));
  EXPECT_EQ(xt.roll(1, 0).strides().vec(), (Strides{4, 1}));
  // stack is ATen's cat along dim, then a view splitting it.
  const Tensor s = stack({cl, cl});
  EXPECT_EQ(s.strides().vec(), (Strides{120, 60, 1, 15, 3}));
  expect_values(s[1], cl);
  EXPECT_EQ(stack({cl, cl}, 2).strides().vec(), (Strides{120, 1, 60, 15, 3}));
  EXPECT_EQ(stack({cl, cl}, 4).strides().vec(), (Strides{120, 40, 10, 2, 1}));
  EXPECT_EQ(stack({xt, xt}).strides().vec(), (Strides{12, 4, 1}));
}

// Advanced indexing lays its result out as PyTorch's index TensorIterator:
// by self's strides (the indexed dims broadcast), then the index's.
TEST(ParityTest, AdvancedIndexingKeepsTheLayout) {
  using namespace indexing;
  const Tensor cl =
      arange(120, kFloat).reshape({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast);
  const Tensor perm = arange(24, kFloat).reshape({2, 3, 4}).permute({2, 0, 1});
  const Tensor xt = arange(12, kFloat).reshape({4, 3}).t();
  const Tensor i01 = tensor({0, 1}, kLong), i12 = tensor({1, 2}, kLong);
  EXPECT_EQ(cl.index({i01}).strides().vec(), (Strides{60, 1, 15, 3}));
  EXPECT_EQ(cl.index({Slice(), Slice(), i12}).strides().vec(), (Strides{30, 1, 3, 6}));
  EXPECT_EQ(cl.index({Ellipsis, i12}).strides().vec(), (Strides{24, 2, 6, 1}));
  const Tensor p = perm.index({Slice(), Slice(), i01});
  EXPECT_EQ(p.strides().vec(), (Strides{2, 8, 1}));
  expect_values(p.flatten().narrow(0, 0, 4), tensor({0.0f, 4.0f, 12.0f, 16.0f}));
  EXPECT_EQ(perm.index({Slice(), i01}).strides().vec(), (Strides{1, 4, 8}));
  const Tensor t = xt.index({tensor(true)});
  EXPECT_EQ(t.strides().vec(), (Strides{12, 1, 3}));
  expect_values(t[0], xt);
  EXPECT_EQ(xt.index({i01}).strides().vec(), (Strides{4, 1}));
}

// pow(number, x) is row-major whatever x's layout (ATen's pow.Scalar
// allocates contiguously), so ldexp follows its first operand; matrix_exp
// keeps its input's layout.
TEST(ParityTest, PowOfANumberIsRowMajorAndMatrixExpKeepsTheLayout) {
  const Tensor xt = arange(12, kFloat).reshape({4, 3}).t();
  const Tensor p = pow(2, xt);
  EXPECT_EQ(p.strides().vec(), (Strides{4, 1}));
  expect_values(p.flatten().narrow(0, 4, 2), tensor({2.0f, 16.0f}));
  EXPECT_EQ(ldexp(xt, xt).strides().vec(), (Strides{1, 3}));
  const Tensor e = matrix_exp(xt.narrow(1, 0, 3) / 10);
  EXPECT_EQ(e.strides().vec(), (Strides{1, 3}));
  expect_values(e.flatten().narrow(0, 0, 3),
                tensor({1.1185626983642578f, 0.6446033716201782f, 1.1706442832946777f}));
  EXPECT_EQ(matrix_exp(arange(18, kFloat).reshape({2, 3, 3}).transpose(1, 2) / 20).strides().vec(),
            (Strides{9, 1, 3}));
}

// ATen's CPU round(decimals) scales in the input's dtype: bfloat16 rounds
// the scaled value to bfloat16 before rounding to an integer.
TEST(ParityTest, RoundDecimalsInBFloat16ScalesInBFloat16) {
  const Tensor b = tensor({-1.1484f, 2.71828f, 123.456f, -0.05f}).to(kBFloat16);
  expect_values(b.round(1).to(kFloat), tensor({-1.203125f, 2.703125f, 123.0f, -0.0f}));
  expect_values(b.round(-1).to(kFloat), tensor({-0.0f, 0.0f, 120.0f, -0.0f}));
  expect_values(b.round(4).to(kFloat), tensor({-1.1484375f, 2.71875f, 124.0f, -0.050048828125f}));
}

// An empty matrix factors before the kernels' dtype check (parity.py):
// lu_factor/linalg_lu of an empty bool or int matrix, svdvals of an empty
// float16 one, give empty results of that dtype.
TEST(ParityTest, EmptyMatricesFactorWhateverTheirDtype) {
  auto [LU, pivots] = linalg_lu_factor(empty({0, 3}, kBool));
  EXPECT_EQ(LU.dtype(), kBool);
  EXPECT_EQ(LU.sizes().vec(), (Strides{0, 3}));
  EXPECT_EQ(pivots.dtype(), kInt);
  EXPECT_EQ(pivots.sizes().vec(), (Strides{0}));
  auto [P, L, U] = linalg_lu(empty({2, 0, 3}, kInt));
  EXPECT_EQ(P.dtype(), kInt);
  EXPECT_EQ(U.sizes().vec(), (Strides{2, 0, 3}));
  const Tensor s = linalg_svdvals(empty({0, 3}, kHalf));
  EXPECT_EQ(s.dtype(), kHalf);
  EXPECT_EQ(s.sizes().vec(), (Strides{0}));
  EXPECT_EQ(error_of([] {
              linalg_lu_factor(ones({2, 2}, kInt));
            }),
            "\"lu_cpu\" not implemented for 'Int'");
  EXPECT_EQ(error_of([] {
              linalg_svdvals(empty({3, 0}, kInt));
            }),
            "linalg.svd: Expected a floating point or complex tensor as input. Got Int");
}

// xlogy, heaviside, logaddexp and tensor-weight lerp are compositions here;
// their results take the layout ATen's TensorIterator gives over their
// inputs (the first input that orders two dims decides; a broadcast one
// does not), as parity.py prints (Note [Composite layouts]).
TEST(ParityTest, CompositeElementwiseOpsTakeTheIteratorsLayout) {
  const Tensor x = arange(12, kFloat).reshape({4, 3}).t() + 1;  // [3, 4], transposed
  const Tensor c = arange(12, kFloat).reshape({3, 4}) + 1;
  const Tensor e = (arange(4, kFloat) + 1).expand({3, 4});
  const Strides cols{1, 3}, rows{4, 1};
  const Tensor xl = xlogy(e, x);
  EXPECT_EQ(xl.strides().vec(), cols);
  expect_values(xl[1], tensor({0.6931471824645996f, 3.2188758850097656f, 6.2383246421813965f,
                               9.591581344604492f}));
  EXPECT_EQ(xlogy(c, x).strides().vec(), rows);
  EXPECT_EQ(xlogy(x, c).strides().vec(), cols);
  const Tensor h = heaviside(tensor({-1.0f, 0.0f, 2.0f, 3.0f}).expand({3, 4}), x);
  EXPECT_EQ(h.strides().vec(), cols);
  expect_values(h[1], tensor({0.0f, 5.0f, 1.0f, 1.0f}));
  const Tensor l = logaddexp(e, x);
  EXPECT_EQ(l.strides().vec(), cols);
  expect_values(l[0], tensor({1.6931471824645996f, 4.126927852630615f, 7.0181498527526855f,
                              10.00247573852539f}));
  EXPECT_EQ(logaddexp2(x, c).strides().vec(), cols);
  EXPECT_EQ(lerp(c, e, x).strides().vec(), rows);
  const Tensor lp = lerp(x, c, c / 20);
  EXPECT_EQ(lp.strides().vec(), cols);
  expect_values(lp[2], tensor({5.699999809265137f, 8.0f, 10.100000381469727f, 12.0f}));
}

// Operators with a number on the left: Python's rsub, true division and
// remainder (tensor.h), and libtorch's comparison and bitwise operators.
TEST(ParityTest, OperatorsWithANumberOnTheLeft) {
  const Tensor l = tensor({1, 2}, kLong);
  expect_values(2.5 - l, tensor({1.5f, 0.5f}));
  expect_values(3 / l, tensor({3.0f, 1.5f}));
  expect_values(7 % tensor({3, -4}, kLong), tensor({1, -1}, kLong));
  expect_values(7.5 % tensor({2, -4}, kLong), tensor({1.5f, -0.5f}));
  const Tensor t = tensor({{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}}).t();
  EXPECT_EQ((1 - t).strides(), t.strides());
  EXPECT_EQ((1 % t).strides(), t.strides());
  // Comparisons and bitwise operators with the number on the left.
  expect_values(2 < l, tensor({false, false}));
  expect_values(2 <= l, tensor({false, true}));
  expect_values(2 > l, tensor({true, false}));
  expect_values(2 >= l, tensor({true, true}));
  expect_values(2 == l, tensor({false, true}));
  expect_values(2 != l, tensor({true, false}));
  expect_values(6 & tensor({3, 5}, kLong), tensor({2, 4}, kLong));
  expect_values(tensor({3, 5}, kLong) | 8, tensor({11, 13}, kLong));
  expect_values(1 ^ tensor({3, 5}, kLong), tensor({2, 4}, kLong));
}

}  // namespace
}  // namespace ember
