#include "nn/functional/pooling.h"

#include <cmath>
#include <functional>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_case;
using V = std::vector<Tensor>;

TEST(MaxPool2d, KernelTwoWithIndices) {
  check_case("max_pool2d_k2", 1, {0}, [](const V& x) { return F::max_pool2d(x[0], 2); });
  auto [out, idx] = F::max_pool2d_with_indices(testing::case_input("max_pool2d_k2", "f64", 0), 2);
  EXPECT_TRUE(testing::near_golden(idx, testing::nn_golden("max_pool2d_k2/f64/out1"), kLong));
}
TEST(MaxPool2d, NanWinsAndFirstMaximumOnTies) {
  // PyTorch: tensor([[[[nan, 2.]]]]), indices tensor([[[[1, 2]]]]).
  const double nan = std::nan("");
  Tensor x = tensor({1.0, nan, 2.0, 2.0, 3.0, 2.0, 1.0, 2.0}).view({1, 1, 2, 4});
  auto [out, idx] = F::max_pool2d_with_indices(x, 2);
  EXPECT_TRUE(std::isnan(out.index({0, 0, 0, 0}).item<double>()));
  EXPECT_EQ(out.index({0, 0, 0, 1}).item<double>(), 2.0);
  EXPECT_EQ(testing::values_of(idx), (std::vector<double>{1, 2}));
}
// Note [2x2 max pooling]'s unrolled path against PyTorch 1.13's values:
// ties, -inf, NaN (the last NaN of a window wins), ceil_mode's partial
// windows at the edges, float and double.
TEST(MaxPool2d, TwoByTwoFastPathEdgeCases) {
  const double inf = INFINITY, nan = std::nan("");
  for (ScalarType dt : {kFloat, kDouble}) {
    Tensor x = tensor({1.0, 1.0, -inf, -inf, 2.0, 0.0, 0.0, 1.0, -inf, nan, 3.0, 7.0, 5.0, 5.0, 4.0,
                       4.0, 1.0, 2.0},
                      dt)
                   .view({1, 1, 3, 6});
    auto [out, idx] = F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions(2).ceil_mode(true));
    // [[1, nan, 7], [5, 4, 2]], indices [[0, 9, 11], [12, 14, 17]]
    EXPECT_EQ(testing::values_of(idx), (std::vector<double>{0, 9, 11, 12, 14, 17}));
    std::vector<double> v = testing::values_of(out);
    EXPECT_TRUE(std::isnan(v[1]));
    v[1] = 0;
    EXPECT_EQ(v, (std::vector<double>{1, 0, 7, 5, 4, 2}));
    Tensor y = tensor({nan, 1.0, nan, 0.0, 2.0, nan, 3.0, 3.0}, dt).view({1, 1, 2, 4});
    auto [out2, idx2] = F::max_pool2d_with_indices(y, 2);
    EXPECT_EQ(testing::values_of(idx2), (std::vector<double>{5, 2}));
  }
}
// Rows of 4 to 20 windows (the AVX2 and SSE paths, overlapping tails) full of ties, with -inf and
// NaN at some places, against PyTorch's rule written out here: in each window, in row-major order,
// the first maximum wins and any NaN after it wins.
TEST(MaxPool2d, TwoByTwoWideRowsMatchPyTorchsRule) {
  const double inf = INFINITY, nan = std::nan("");
  for (ScalarType dt : {kFloat, kDouble}) {
    for (bool ceil : {false, true}) {
      for (int64_t w : {37, 40, 16, 13, 9}) {
        const int64_t h = 9;
        std::vector<double> v(2 * h * w);
        for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7919) % 5);
        v[3 * w + 17] = nan;  // one NaN row per plane
        v[h * w + 5] = -inf;
        v[h * w + w + 4] = nan;
        v[h * w + w + 5] = nan;
        Tensor x = tensor(v, dt).view({1, 2, h, w});
        auto [out, idx] = F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions(2).ceil_mode(ceil));
        const int64_t oh = ceil ? (h + 1) / 2 : h / 2, ow = ceil ? (w + 1) / 2 : w / 2;
        ASSERT_EQ(out.sizes(), IntArrayRef({1, 2, oh, ow}));
        const std::vector<double> got = testing::values_of(out), got_idx = testing::values_of(idx);
        for (int64_t p = 0; p < 2; ++p) {
          for (int64_t oy = 0; oy < oh; ++oy) {
            for (int64_t ox = 0; ox < ow; ++ox) {
              double m = -inf;
              int64_t best = 2 * oy * w + 2 * ox;
              for (int64_t y = 2 * oy; y < std::min(2 * oy + 2, h); ++y) {
                for (int64_t xx = 2 * ox; xx < std::min(2 * ox + 2, w); ++xx) {
                  const double e = v[p * h * w + y * w + xx];
                  if (e > m || std::isnan(e)) {
                    m = e;
                    best = y * w + xx;
                  }
                }
              }
              const int64_t k = (p * oh + oy) * ow + ox;
              SCOPED_TRACE(::testing::Message() << dt << " ceil " << ceil << " w " << w << " at "
                                                << p << "," << oy << "," << ox);
              EXPECT_EQ(got_idx[k], best);
              if (std::isnan(m)) {
                EXPECT_TRUE(std::isnan(got[k]));
              } else {
                EXPECT_EQ(got[k], m);
              }
            }
          }
        }
      }
    }
  }
}
TEST(MaxPool2d, StridePadding) {
  check_case("max_pool2d_s2p1", 1, {0}, [](const V& x) {
    return F::max_pool2d(x[0], F::MaxPool2dFuncOptions(3).stride(2).padding(1));
  });
}
TEST(MaxPool2d, CeilModeDilation) {
  check_case("max_pool2d_ceil_dil", 1, {0}, [](const V& x) {
    return F::max_pool2d(
        x[0], F::MaxPool2dFuncOptions({3, 2}).stride({2, 1}).dilation({1, 2}).ceil_mode(true));
  });
}
TEST(MaxPool2d, UnbatchedNonContiguous) {
  check_case("max_pool2d_unbatched_nc", 1, {0},
             [](const V& x) { return F::max_pool2d(x[0].transpose(1, 2), 2); });
}
TEST(AvgPool2d, KernelTwo) {
  check_case("avg_pool2d_k2", 1, {0}, [](const V& x) { return F::avg_pool2d(x[0], 2); });
}
TEST(AvgPool2d, PaddingExcluded) {
  check_case("avg_pool2d_pad_exclude", 1, {0}, [](const V& x) {
    return F::avg_pool2d(x[0],
                         F::AvgPool2dFuncOptions(3).stride(2).padding(1).count_include_pad(false));
  });
}
TEST(AvgPool2d, CeilMode) {
  check_case("avg_pool2d_ceil", 1, {0}, [](const V& x) {
    return F::avg_pool2d(x[0],
                         F::AvgPool2dFuncOptions({3, 2}).stride(2).padding(1).ceil_mode(true));
  });
}
TEST(AvgPool2d, DivisorOverride) {
  check_case("avg_pool2d_divisor", 1, {0}, [](const V& x) {
    return F::avg_pool2d(x[0].transpose(2, 3), F::AvgPool2dFuncOptions(2).divisor_override(3));
  });
}
TEST(AdaptiveAvgPool2d, Sizes) {
  check_case("adaptive_avg_pool2d_3x2", 1, {0}, [](const V& x) {
    return F::adaptive_avg_pool2d(x[0], {3, 2});
  });
  check_case("adaptive_avg_pool2d_1", 1, {0},
             [](const V& x) { return F::adaptive_avg_pool2d(x[0], 1); });
}

TEST(Pool2d, GradNames) {
  Tensor x = randn({1, 2, 4, 4}).requires_grad_(true);
  EXPECT_EQ(F::max_pool2d(x, 2).grad_fn()->name(), "MaxPool2DWithIndicesBackward0");
  EXPECT_EQ(F::avg_pool2d(x, 2).grad_fn()->name(), "AvgPool2DBackward0");
  EXPECT_EQ(F::adaptive_avg_pool2d(x, 2).grad_fn()->name(), "AdaptiveAvgPool2DBackward0");
}

// float16 on the CPU (PyTorch 2.x's; 1.13 refuses it): windows computed in
// float and rounded once, so the results are float32's rounded to float16.
TEST(Pool2d, HalfOnTheCpuIsFloatRoundedOnce) {
  manual_seed(3);
  const Tensor x = randn({2, 3, 7, 6});
  const Tensor h = x.to(kHalf);
  const Tensor xf = h.to(kFloat);  // the same values, in float
  EXPECT_TRUE(equal(F::max_pool2d(h, 2), F::max_pool2d(xf, 2).to(kHalf)));
  EXPECT_TRUE(equal(F::avg_pool2d(h, F::AvgPool2dFuncOptions(3).stride(2).padding(1)),
                    F::avg_pool2d(xf, F::AvgPool2dFuncOptions(3).stride(2).padding(1)).to(kHalf)));
  EXPECT_TRUE(equal(F::adaptive_avg_pool2d(h, 3), F::adaptive_avg_pool2d(xf, 3).to(kHalf)));
  // And the backward, through autograd.
  const Tensor hl = h.clone().requires_grad_();
  F::max_pool2d(hl, 2).sum().backward();
  const Tensor fl = xf.clone().requires_grad_();
  F::max_pool2d(fl, 2).sum().backward();
  EXPECT_EQ(hl.grad().dtype(), kHalf);
  EXPECT_TRUE(equal(hl.grad(), fl.grad().to(kHalf)));
}

TEST(Pool2d, Errors) {
  using testing::expect_nn_error;
  expect_nn_error("max_pool2d_dims", [] { F::max_pool2d(zeros({2, 3}), 2); });
  expect_nn_error("max_pool2d_pad", [] {
    F::max_pool2d(zeros({1, 1, 5, 5}), F::MaxPool2dFuncOptions(3).padding(2));
  });
  expect_nn_error("max_pool2d_small", [] { F::max_pool2d(zeros({1, 1, 2, 2}), 3); });
  expect_nn_error("max_pool2d_dilation", [] {
    F::max_pool2d(zeros({1, 1, 5, 5}), F::MaxPool2dFuncOptions(2).dilation(0));
  });
  expect_nn_error("avg_pool2d_divisor", [] {
    F::avg_pool2d(zeros({1, 1, 5, 5}), F::AvgPool2dFuncOptions(2).divisor_override(0));
  });
  expect_nn_error("adaptive_avg_pool2d_dims", [] { F::adaptive_avg_pool2d(zeros({2, 3}), 2); });
}

TEST(Pool2d, Gradcheck) {
  TensorOptions d = TensorOptions(kDouble).requires_grad(true);
  Tensor x = randn({2, 2, 7, 6}, d);
  auto check = [&](std::function<Tensor(const Tensor&)> f) {
    return autograd::gradcheck(
        [&](const autograd::variable_list& v) { return autograd::variable_list{f(v[0])}; }, {x});
  };
  EXPECT_EQ(check([](const Tensor& t) {
              return F::max_pool2d(t,
                                   F::MaxPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true));
            }),
            "");
  EXPECT_EQ(check([](const Tensor& t) {
              return F::avg_pool2d(
                  t,
                  F::AvgPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(
                      false));
            }),
            "");
  EXPECT_EQ(check([](const Tensor& t) { return F::adaptive_avg_pool2d(t, {4, 5}); }), "");
}

// Note [Channels-last pooling]: the native channels-last kernels' gradients
// against finite differences, on 5 channels (not a vector's width), and the
// input gradients come back channels-last.
TEST(Pool2d, ChannelsLastGradcheck) {
  Tensor x = randn({2, 5, 7, 6}, kDouble).contiguous(MemoryFormat::ChannelsLast);
  x.requires_grad_();
  const std::vector<std::function<Tensor(const Tensor&)>> pools = {
      [](const Tensor& t) {
        return F::max_pool2d(t, F::MaxPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true));
      },
      [](const Tensor& t) {
        return F::avg_pool2d(
            t, F::AvgPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(
                   false));
      },
      [](const Tensor& t) {
        return F::adaptive_avg_pool2d(t, {4, 5});
      }};
  for (size_t i = 0; i < pools.size(); ++i) {
    const auto& f = pools[i];
    EXPECT_EQ(
        autograd::gradcheck(
            [&](const autograd::variable_list& v) { return autograd::variable_list{f(v[0])}; },
            {x}),
        "")
        << i;
    const Tensor y = f(x);
    EXPECT_TRUE(y.is_contiguous(MemoryFormat::ChannelsLast)) << i;
    const Tensor gy = randn(y.sizes(), kDouble).contiguous(MemoryFormat::ChannelsLast);
    const Tensor gx = autograd::grad({y}, {x}, {gy})[0];
    EXPECT_TRUE(gx.is_contiguous(MemoryFormat::ChannelsLast)) << i;
  }
}

}  // namespace
}  // namespace ember
