// The 1-d, 3-d and adaptive max poolings against PyTorch
// (tools/golden/nn_ops_extra.py), their indices, and finite differences.
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/conv.h"
#include "nn/functional/pooling.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_extra_case;
using testing::expect_nn_extra_error;
using V = std::vector<Tensor>;

// The values and gradients, then the indices (out1) of the f64 case.
template <typename Fn>
void check_with_indices(const std::string& name, Fn fn) {
  check_extra_case(name, 1, {0}, [&](const V& x) { return std::get<0>(fn(x[0])); });
  Tensor idx = std::get<1>(fn(testing::extra_case_input(name, "f64", 0)));
  EXPECT_TRUE(testing::near_golden(idx, testing::nn_extra_golden(name + "/f64/out1"), kLong))
      << name;
}

TEST(MaxPool1d, MatchesPyTorch) {
  check_with_indices("max_pool1d", [](const Tensor& x) {
    return F::max_pool1d_with_indices(x, F::MaxPool1dFuncOptions(3).stride(2).padding(1));
  });
  check_with_indices("max_pool1d_ceil_dil", [](const Tensor& x) {
    return F::max_pool1d_with_indices(x.transpose(0, 1),
                                      F::MaxPool1dFuncOptions(2).dilation(2).ceil_mode(true));
  });
  check_extra_case("max_pool1d_unbatched", 1, {0}, [](const V& x) { return F::max_pool1d(x[0], 2); });
}

TEST(MaxPool3d, MatchesPyTorch) {
  check_with_indices("max_pool3d",
                     [](const Tensor& x) { return F::max_pool3d_with_indices(x, 2); });
  check_with_indices("max_pool3d_options", [](const Tensor& x) {
    return F::max_pool3d_with_indices(x, F::MaxPool3dFuncOptions({3, 2, 2})
                                             .stride({2, 1, 2})
                                             .padding({1, 0, 1})
                                             .dilation({1, 2, 1})
                                             .ceil_mode(true));
  });
  check_with_indices("max_pool3d_unbatched_nc", [](const Tensor& x) {
    return F::max_pool3d_with_indices(x.transpose(1, 3), 2);
  });
  // Ties: the first maximum in (d, h, w) order, as PyTorch.
  check_with_indices("max_pool3d_ties", [](const Tensor& x) {
    return F::max_pool3d_with_indices(x, F::MaxPool3dFuncOptions(2).stride(1));
  });
}

// Note [Empty pooling windows] (autograd/derivatives/pooling.cc): a dilated
// depth window in the padding only. Values and indices are 1.13's
// (index 6 lies past the plane of 6); 1.13's backward adds the gradient
// there, into the next plane or past the buffer; ember gives none.
TEST(MaxPool3d, EmptyWindowsGetNoGradient) {
  Tensor x = arange(12, kDouble).view({1, 2, 1, 2, 3}).requires_grad_();
  auto [v, i] = F::max_pool3d_with_indices(
      x, F::MaxPool3dFuncOptions(2).stride(1).padding({1, 0, 1}).dilation({2, 1, 1}));
  ASSERT_EQ(v.sizes(), IntArrayRef({1, 2, 1, 1, 4}));
  EXPECT_TRUE(v.eq(-std::numeric_limits<double>::infinity()).all().item<bool>());
  EXPECT_TRUE(i.flatten().equal(tensor(std::vector<int64_t>{6, 6, 7, 8, 6, 6, 7, 8}, kLong)));
  EXPECT_EQ(std::string(v.grad_fn()->name()), "MaxPool3DWithIndicesBackward0");
  Tensor go = ones_like(v).requires_grad_();
  Tensor g = autograd::grad({v}, {x}, {go}, true, true)[0];
  EXPECT_TRUE(g.equal(zeros_like(x)));
  Tensor gg = autograd::grad({g}, {go}, {ones_like(g)})[0];
  EXPECT_TRUE(gg.equal(zeros_like(go)));
}

// The same in 2-d (index 3 or 4, past a plane of 3), through double backward.
TEST(MaxPool2d, EmptyWindowsGetNoGradient) {
  Tensor x = arange(6, kDouble).view({1, 2, 1, 3}).requires_grad_();
  auto [v, i] =
      F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions(2).stride(1).padding(1).dilation(2));
  EXPECT_TRUE(v.eq(-std::numeric_limits<double>::infinity()).all().item<bool>());
  EXPECT_TRUE(i.flatten().equal(tensor(std::vector<int64_t>{4, 3, 4, 4, 3, 4}, kLong)));
  Tensor go = ones_like(v).requires_grad_();
  Tensor g = autograd::grad({v}, {x}, {go}, true, true)[0];
  EXPECT_TRUE(g.equal(zeros_like(x)));
  Tensor gg = autograd::grad({g}, {go}, {ones_like(g)})[0];
  EXPECT_TRUE(gg.equal(zeros_like(go)));
}

TEST(AvgPool1d, MatchesPyTorch) {
  check_extra_case("avg_pool1d", 1, {0}, [](const V& x) {
    return F::avg_pool1d(x[0], F::AvgPool1dFuncOptions(3).stride(2).padding(1));
  });
  check_extra_case("avg_pool1d_ceil_exclude", 1, {0}, [](const V& x) {
    return F::avg_pool1d(
        x[0], F::AvgPool1dFuncOptions(4).stride(3).padding(2).ceil_mode(true).count_include_pad(false));
  });
  check_extra_case("avg_pool1d_unbatched", 1, {0},
                   [](const V& x) { return F::avg_pool1d(x[0].t(), 2); });
}

TEST(AvgPool3d, MatchesPyTorch) {
  check_extra_case("avg_pool3d", 1, {0}, [](const V& x) { return F::avg_pool3d(x[0], 2); });
  check_extra_case("avg_pool3d_options", 1, {0}, [](const V& x) {
    return F::avg_pool3d(x[0], F::AvgPool3dFuncOptions({3, 2, 3})
                                   .stride({2, 1, 2})
                                   .padding({1, 0, 1})
                                   .ceil_mode(true)
                                   .count_include_pad(false));
  });
  check_extra_case("avg_pool3d_ceil_include", 1, {0}, [](const V& x) {
    return F::avg_pool3d(x[0], F::AvgPool3dFuncOptions(3).stride(2).padding(1).ceil_mode(true));
  });
  check_extra_case("avg_pool3d_divisor", 1, {0}, [](const V& x) {
    return F::avg_pool3d(x[0], F::AvgPool3dFuncOptions(2).stride(1).divisor_override(3));
  });
}

// The CPU loop (Note [Average pooling 3-d on the CPU]): a NaN reaches only
// the windows holding it; a transposed or unbatched input gives the
// contiguous batched input's numbers.
TEST(AvgPool3d, CpuLoopNaNAndLayouts) {
  for (ScalarType t : {kFloat, kDouble}) {
    Tensor x = randn({2, 3, 5, 7, 6}, t);
    x[1][2][4][6][5].fill_(std::numeric_limits<double>::quiet_NaN());
    const auto o = F::AvgPool3dFuncOptions(3).stride(2).padding(1).ceil_mode(true);
    const Tensor y = F::avg_pool3d(x, o);
    ASSERT_EQ(y.sizes(), IntArrayRef({2, 3, 3, 4, 4}));
    EXPECT_EQ(y.isnan().sum().item<int64_t>(), 2);
    EXPECT_TRUE(y[1][2][2][3][2].isnan().item<bool>());
    EXPECT_TRUE(y[1][2][2][3][3].isnan().item<bool>());
    const Tensor yt = F::avg_pool3d(x.transpose(3, 4).contiguous().transpose(3, 4), o);
    EXPECT_TRUE(yt.nan_to_num(0).equal(y.nan_to_num(0)));
    EXPECT_TRUE(F::avg_pool3d(x[0], o).equal(y[0]));
  }
}

// Long rows (windows inside the input along W summed eight at a time), on
// integers, whose sums are exact in any order: the sums of a convolution
// with ones, divided by 27.
TEST(AvgPool3d, CpuLoopLongRowsAreWindowSums) {
  const Tensor x = randint(-8, 8, {1, 2, 4, 5, 43}, kDouble);
  for (int64_t stride : {1, 2}) {
    const Tensor y = F::avg_pool3d(x, F::AvgPool3dFuncOptions(3).stride(stride).padding(1));
    const Tensor sums = F::conv3d(x.view({2, 1, 4, 5, 43}), ones({1, 1, 3, 3, 3}, kDouble),
                                  F::Conv3dFuncOptions().stride(stride).padding(1));
    EXPECT_TRUE(y.equal((sums / 27).view(y.sizes()))) << stride;
    EXPECT_TRUE(F::avg_pool3d(x.to(kFloat), F::AvgPool3dFuncOptions(3).stride(stride).padding(1))
                    .equal((sums.to(kFloat) / 27).view(y.sizes())))
        << stride;
  }
}

// adaptive_avg_pool3d's CPU loop: overlapping windows (5 -> 3 along W:
// [0, 2), [1, 4), [3, 5)), a NaN in the two that hold it, a transposed input
// the contiguous one's numbers.
TEST(AdaptiveAvgPool, ThreeDCpuLoop) {
  for (ScalarType t : {kFloat, kDouble}) {
    Tensor x = randn({2, 3, 4, 6, 5}, t);
    x[1][0][3][5][1].fill_(std::numeric_limits<double>::quiet_NaN());
    const Tensor y = F::adaptive_avg_pool3d(x, F::AdaptiveAvgPool3dFuncOptions({3, 4, 3}));
    ASSERT_EQ(y.sizes(), IntArrayRef({2, 3, 3, 4, 3}));
    EXPECT_EQ(y.isnan().sum().item<int64_t>(), 2);
    EXPECT_TRUE(y[1][0][2][3][0].isnan().item<bool>());
    EXPECT_TRUE(y[1][0][2][3][1].isnan().item<bool>());
    const Tensor yt = F::adaptive_avg_pool3d(x.transpose(2, 4).contiguous().transpose(2, 4),
                                             F::AdaptiveAvgPool3dFuncOptions({3, 4, 3}));
    EXPECT_TRUE(yt.nan_to_num(0).equal(y.nan_to_num(0)));
    // The window [1, 3) x [0, 2) x [0, 2) of sample 0, channel 2.
    const Tensor w = x[0][2].slice(0, 1, 3).slice(1, 0, 2).slice(2, 0, 2);
    EXPECT_NEAR(y[0][2][1][0][0].item<double>(), w.mean().item<double>(), 1e-6);
  }
}

TEST(AdaptiveAvgPool, OneAndThreeD) {
  check_extra_case("adaptive_avg_pool1d", 1, {0},
                   [](const V& x) { return F::adaptive_avg_pool1d(x[0], 3); });
  check_extra_case("adaptive_avg_pool1d_unbatched", 1, {0},
                   [](const V& x) { return F::adaptive_avg_pool1d(x[0], 4); });
  check_extra_case("adaptive_avg_pool3d", 1, {0},
                   [](const V& x) { return F::adaptive_avg_pool3d(x[0], {2, 3, 1}); });
  check_extra_case("adaptive_avg_pool3d_unbatched", 1, {0},
                   [](const V& x) { return F::adaptive_avg_pool3d(x[0], 2); });
}

TEST(AdaptiveMaxPool, MatchesPyTorch) {
  check_with_indices("adaptive_max_pool1d",
                     [](const Tensor& x) { return F::adaptive_max_pool1d_with_indices(x, 3); });
  check_with_indices("adaptive_max_pool1d_unbatched",
                     [](const Tensor& x) { return F::adaptive_max_pool1d_with_indices(x, 5); });
  check_with_indices("adaptive_max_pool2d", [](const Tensor& x) {
    return F::adaptive_max_pool2d_with_indices(x, {3, 2});
  });
  check_with_indices("adaptive_max_pool2d_unbatched_nc", [](const Tensor& x) {
    return F::adaptive_max_pool2d_with_indices(x.transpose(1, 2), 4);
  });
  check_with_indices("adaptive_max_pool2d_ties", [](const Tensor& x) {
    return F::adaptive_max_pool2d_with_indices(x, {2, 3});
  });
  check_with_indices("adaptive_max_pool2d_upsample", [](const Tensor& x) {
    return F::adaptive_max_pool2d_with_indices(x, {5, 4});
  });
}

// 1.13's CPU kernels scan a window in row-major order and take a value when
// it is greater than the running maximum or NaN: ties keep the first
// maximum, NaNs the last NaN (1.13 prints index 3 for the NaN window below,
// in every layout, and 1 for the tie).
TEST(AdaptiveMaxPool, NaNsGiveTheLastNaNAndTiesTheFirstMaximum) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (ScalarType t : {kFloat, kDouble}) {
    const Tensor x = tensor({1.0, nan, 3.0, nan, 5.0, 2.0, 7.0, 7.0, 1.0}).to(t).view({1, 1, 3, 3});
    for (const Tensor& in : {x, x.contiguous(MemoryFormat::ChannelsLast)}) {
      auto [v, i] = F::adaptive_max_pool2d_with_indices(in, 1);
      EXPECT_TRUE(std::isnan(v.item<double>()));
      EXPECT_EQ(i.item<int64_t>(), 3);
    }
    auto [v3, i3] = F::adaptive_max_pool3d_with_indices(x.unsqueeze(2), 1);
    EXPECT_TRUE(std::isnan(v3.item<double>()));
    EXPECT_EQ(i3.item<int64_t>(), 3);
    auto [v1, i1] =
        F::adaptive_max_pool1d_with_indices(tensor({1.0, nan, nan, 2.0}).to(t).view({1, 4}), 1);
    EXPECT_TRUE(std::isnan(v1.item<double>()));
    EXPECT_EQ(i1.item<int64_t>(), 2);
    const Tensor ties =
        tensor({1.0, 7.0, 3.0, 7.0, 5.0, 2.0, 7.0, 7.0, 1.0}).to(t).view({1, 1, 3, 3});
    EXPECT_EQ(std::get<1>(F::adaptive_max_pool2d_with_indices(ties, 1)).item<int64_t>(), 1);
    EXPECT_EQ(
        std::get<1>(F::adaptive_max_pool3d_with_indices(ties.unsqueeze(2), 1)).item<int64_t>(), 1);
    // Windows that overlap (3 -> 2: [0, 2) and [1, 3)) and -inf everywhere.
    const Tensor low =
        full({1, 1, 3, 3}, -std::numeric_limits<double>::infinity(), TensorOptions(t));
    auto [vl, il] = F::adaptive_max_pool2d_with_indices(low, 2);
    EXPECT_TRUE(il.equal(tensor({int64_t{0}, 1, 3, 4}).view({1, 1, 2, 2})));
    EXPECT_TRUE(vl.eq(-std::numeric_limits<double>::infinity()).all().item<bool>());
  }
}

// 1.13's layouts (CPU): adaptive_max_pool2d keeps a channels-last input
// channels-last (values, indices, gradient); the 3-d poolings of a
// channels_last_3d input give contiguous results and gradients.
TEST(PoolingNd, LayoutsMatchPyTorch) {
  Tensor x2 = randn({2, 3, 5, 6}).contiguous(MemoryFormat::ChannelsLast).requires_grad_();
  auto [v2, i2] = F::adaptive_max_pool2d_with_indices(x2, {2, 3});
  EXPECT_TRUE(v2.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TRUE(i2.is_contiguous(MemoryFormat::ChannelsLast));
  Tensor g2 = autograd::grad({v2}, {x2}, {randn(v2.sizes())})[0];
  EXPECT_TRUE(g2.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_FALSE(g2.is_contiguous());

  Tensor x3 = randn({2, 3, 4, 5, 6}).contiguous(MemoryFormat::ChannelsLast3d).requires_grad_();
  const std::vector<Tensor> outs = {
      F::avg_pool3d(x3, F::AvgPool3dFuncOptions(2)), F::max_pool3d(x3, F::MaxPool3dFuncOptions(2)),
      F::adaptive_avg_pool3d(x3, F::AdaptiveAvgPool3dFuncOptions({2, 3, 2})),
      F::adaptive_max_pool3d(x3, F::AdaptiveMaxPool3dFuncOptions({2, 3, 2}))};
  for (const Tensor& out : outs) {
    EXPECT_TRUE(out.is_contiguous()) << out.grad_fn()->name();
    Tensor g = autograd::grad({out}, {x3}, {randn(out.sizes())})[0];
    EXPECT_TRUE(g.is_contiguous()) << out.grad_fn()->name();
  }
}

TEST(PoolingNd, Gradcheck) {
  manual_seed(0);
  // Distinct values keep the maxima away from ties, where finite
  // differences are undefined.
  Tensor x = randperm(2 * 5 * 4 * 6, kDouble).view({1, 2, 5, 4, 6}).div(7).requires_grad_(true);
  auto check = [&](const std::function<Tensor(const Tensor&)>& f) {
    EXPECT_EQ(autograd::gradcheck([&](const V& v) { return V{f(v[0])}; }, {x}), "");
  };
  check([](const Tensor& t) {
    return F::max_pool3d(t, F::MaxPool3dFuncOptions(2).stride({1, 2, 2}).padding(1));
  });
  check([](const Tensor& t) {
    return F::avg_pool3d(t, F::AvgPool3dFuncOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false));
  });
  check([](const Tensor& t) { return F::adaptive_avg_pool3d(t, {2, 3, 4}); });
  check([](const Tensor& t) { return F::adaptive_max_pool2d(t.flatten(1, 2), {3, 4}); });
  check([](const Tensor& t) { return F::adaptive_max_pool1d(t.flatten(2), 7); });
  check([](const Tensor& t) { return F::max_pool1d(t.flatten(2), F::MaxPool1dFuncOptions(3).padding(1)); });
  check([](const Tensor& t) { return F::avg_pool1d(t.flatten(2), F::AvgPool1dFuncOptions(4).stride(3)); });
}

TEST(PoolingNd, Errors) {
  auto r = [](IntArrayRef s) { return zeros(s); };
  expect_nn_extra_error("max_pool1d_dims", [&] { F::max_pool1d(r({2, 3, 4, 5}), 2); });
  expect_nn_extra_error("max_pool1d_pad",
                        [&] { F::max_pool1d(r({2, 3, 8}), F::MaxPool1dFuncOptions(2).padding(2)); });
  expect_nn_extra_error("max_pool3d_dims", [&] { F::max_pool3d(r({2, 3, 4}), 2); });
  expect_nn_extra_error("max_pool3d_pad", [&] {
    F::max_pool3d(r({1, 2, 4, 4, 4}), F::MaxPool3dFuncOptions(2).padding({0, 2, 0}));
  });
  expect_nn_extra_error("max_pool3d_small", [&] { F::max_pool3d(r({1, 2, 4, 1, 4}), 2); });
  expect_nn_extra_error("max_pool3d_stride",
                        [&] { F::max_pool3d(r({1, 2, 4, 4, 4}), F::MaxPool3dFuncOptions(2).stride(0)); });
  expect_nn_extra_error("avg_pool1d_dims", [&] { F::avg_pool1d(r({2, 3, 4, 5}), 2); });
  expect_nn_extra_error("avg_pool1d_pad",
                        [&] { F::avg_pool1d(r({2, 3, 8}), F::AvgPool1dFuncOptions(2).padding(2)); });
  expect_nn_extra_error("avg_pool3d_dims", [&] { F::avg_pool3d(r({2, 3, 4}), 2); });
  expect_nn_extra_error("avg_pool3d_pad",
                        [&] { F::avg_pool3d(r({1, 2, 4, 4, 4}), F::AvgPool3dFuncOptions(2).padding(2)); });
  expect_nn_extra_error("avg_pool3d_small", [&] { F::avg_pool3d(r({1, 2, 1, 4, 4}), 2); });
  expect_nn_extra_error("avg_pool3d_divisor", [&] {
    F::avg_pool3d(r({1, 2, 4, 4, 4}), F::AvgPool3dFuncOptions(2).divisor_override(0));
  });
  expect_nn_extra_error("adaptive_avg_pool1d_dims", [&] { F::adaptive_avg_pool1d(r({2, 3, 4, 5}), 2); });
  expect_nn_extra_error("adaptive_avg_pool3d_dims", [&] { F::adaptive_avg_pool3d(r({2, 3, 4}), 2); });
  expect_nn_extra_error("adaptive_max_pool1d_dims", [&] { F::adaptive_max_pool1d(r({3}), 2); });
  expect_nn_extra_error("adaptive_max_pool2d_dims",
                        [&] { F::adaptive_max_pool2d(r({2, 3, 4, 5, 6}), 2); });
  expect_nn_extra_error("adaptive_max_pool2d_empty", [&] { F::adaptive_max_pool2d(r({2, 3, 0, 5}), 2); });
}

}  // namespace
}  // namespace ember
