// The nn kernels alone (no autograd): forward results and the backward
// kernels against PyTorch's gradients of sum(out * mk(out.shape, seed 7))
// from tools/golden/nn_ops.py. nn/functional's tests cover the same cases
// through autograd and the functional API.
#include "tensor/nn_ops.h"

#include <cmath>
#include <functional>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tensor/activation_kernels.h"
#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/random.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::GoldenEntry;

const GoldenEntry kGolden[] = {
#include "tensor/testdata/nn_ops_golden.inc"
};

struct Dt {
  const char* name;
  ScalarType dtype;
  double rel;
};
const Dt kDtypes[] = {{"f32", kFloat, 2e-5}, {"f64", kDouble, 1e-10}};

Tensor in(const std::string& c, const Dt& d, int i) {
  return testing::golden_tensor(
      testing::find_golden(kGolden, absl::StrCat(c, "/", d.name, "/in", i)));
}
const GoldenEntry& want(const std::string& c, const Dt& d, const std::string& what) {
  return testing::find_golden(kGolden, absl::StrCat(c, "/", d.name, "/", what));
}
// The generator's upstream gradient.
Tensor upstream(const Tensor& out, const Dt& d) {
  return testing::make_input(out.sizes(), d.dtype, 7);
}

TEST(NnOps, ConvolutionAndBackward) {
  struct Case {
    const char* name;
    DimVector stride, padding, dilation;
    int64_t groups;
    bool bias;
  };
  for (const Case& c : {Case{"conv2d_basic", {1, 1}, {0, 0}, {1, 1}, 1, true},
                        Case{"conv2d_stride_pad", {2, 2}, {1, 1}, {1, 1}, 1, true},
                        Case{"conv2d_dilation", {1, 2}, {1, 2}, {2, 2}, 1, false},
                        Case{"conv2d_groups", {1, 1}, {0, 0}, {1, 1}, 2, true},
                        Case{"conv1d_basic", {2}, {1}, {1}, 1, true},
                        Case{"conv1d_groups_dilation", {1}, {0}, {2}, 3, false}}) {
    for (const Dt& d : kDtypes) {
      SCOPED_TRACE(absl::StrCat(c.name, "/", d.name));
      Tensor x = in(c.name, d, 0), w = in(c.name, d, 1);
      Tensor b = c.bias ? in(c.name, d, 2) : Tensor();
      Tensor out = convolution(x, w, b, c.stride, c.padding, c.dilation, c.groups);
      EXPECT_TRUE(testing::near_golden(out, want(c.name, d, "out"), d.dtype, d.rel));
      auto [gx, gw, gb] = convolution_backward(upstream(out, d), x, w, c.stride, c.padding,
                                               c.dilation, c.groups, {true, true, c.bias});
      EXPECT_TRUE(testing::near_golden(gx, want(c.name, d, "grad0"), d.dtype, d.rel * 10));
      EXPECT_TRUE(testing::near_golden(gw, want(c.name, d, "grad1"), d.dtype, d.rel * 10));
      if (c.bias) {
        EXPECT_TRUE(testing::near_golden(gb, want(c.name, d, "grad2"), d.dtype, d.rel * 10));
      }
    }
  }
}

TEST(NnOps, PoolingAndBackward) {
  for (const Dt& d : kDtypes) {
    SCOPED_TRACE(d.name);
    Tensor x = in("max_pool2d_s2p1", d, 0);
    auto [out, idx] = max_pool2d_with_indices(x, {3}, {2}, {1}, {1}, false);
    EXPECT_TRUE(testing::near_golden(out, want("max_pool2d_s2p1", d, "out"), d.dtype, d.rel));
    Tensor gx = max_pool2d_with_indices_backward(upstream(out, d), x.sizes(), idx);
    EXPECT_TRUE(testing::near_golden(gx, want("max_pool2d_s2p1", d, "grad0"), d.dtype, d.rel));

    Tensor xa = in("avg_pool2d_pad_exclude", d, 0);
    Tensor oa = avg_pool2d(xa, {3}, {2}, {1}, false, false, std::nullopt);
    EXPECT_TRUE(testing::near_golden(oa, want("avg_pool2d_pad_exclude", d, "out"), d.dtype, d.rel));
    Tensor ga =
        avg_pool2d_backward(upstream(oa, d), xa.sizes(), {3}, {2}, {1}, false, false, std::nullopt);
    EXPECT_TRUE(
        testing::near_golden(ga, want("avg_pool2d_pad_exclude", d, "grad0"), d.dtype, d.rel));

    Tensor xd = in("adaptive_avg_pool2d_3x2", d, 0);
    Tensor od = adaptive_avg_pool2d(xd, {3, 2});
    EXPECT_TRUE(
        testing::near_golden(od, want("adaptive_avg_pool2d_3x2", d, "out"), d.dtype, d.rel));
    Tensor gd = adaptive_avg_pool2d_backward(upstream(od, d), xd.sizes());
    EXPECT_TRUE(
        testing::near_golden(gd, want("adaptive_avg_pool2d_3x2", d, "grad0"), d.dtype, d.rel));
  }
}

TEST(NnOps, NllLossAndBackward) {
  for (const Dt& d : kDtypes) {
    for (auto [red, name] : {std::pair<int64_t, const char*>{loss_reduction::kNone, "none"},
                             {loss_reduction::kMean, "mean"},
                             {loss_reduction::kSum, "sum"}}) {
      const std::string c = absl::StrCat("nll_loss_", name);
      SCOPED_TRACE(absl::StrCat(c, "/", d.name));
      Tensor x = in(c, d, 0), t = in(c, d, 1), w = in(c, d, 2);
      auto [out, total] = nll_loss_forward(x, t, w, red, 1);
      EXPECT_TRUE(testing::near_golden(out, want(c, d, "out"), d.dtype, d.rel));
      Tensor gx = nll_loss_backward(upstream(out, d), x, t, w, red, 1, total);
      EXPECT_TRUE(testing::near_golden(gx, want(c, d, "grad0"), d.dtype, d.rel));
    }
  }
}

TEST(NnOps, EmbeddingBackwardSkipsPadding) {
  for (const Dt& d : kDtypes) {
    SCOPED_TRACE(d.name);
    Tensor w = in("embedding_padding", d, 0), idx = in("embedding_padding", d, 1);
    Tensor out = embedding(w, idx, 4);
    EXPECT_TRUE(testing::near_golden(out, want("embedding_padding", d, "out"), d.dtype, d.rel));
    Tensor gw = embedding_backward(upstream(out, d), idx, w.size(0), 4);
    EXPECT_TRUE(testing::near_golden(gw, want("embedding_padding", d, "grad0"), d.dtype, d.rel));
  }
}

// bfloat16 pooling as PyTorch 1.13's CPU kernels: windows summed and
// compared in float and rounded once, so the forwards equal the float
// results rounded (checked against torch 1.13 when this was written); the
// backwards add in bfloat16, within its rounding of float's; float16 is
// refused, as there.
// The 2x2 stride-2 window in bfloat16 goes through the float kernel in
// chunks of 256 outputs (Note [2x2 max pooling]): the same values and
// first-maximum indices as float, for rows narrower than a vector, across
// chunk boundaries (a last piece under 4 wide joins the chunk before), odd
// widths and heights, many ties, and NaN rows (which the general loop takes).
TEST(NnOps, TwoByTwoMaxPoolInBFloat16AgreesWithFloat) {
  manual_seed(3);
  for (int64_t ow : {1, 3, 4, 7, 8, 13, 256, 258, 259, 260, 300, 517}) {
    for (int64_t extra : {0, 1}) {
      const Tensor x = randint(-4, 5, {2, 3, 5, 2 * ow + extra}).to(kBFloat16);  // ties
      if (ow == 300) x.select(1, 1).select(1, 2).select(1, 77).fill_(NAN);
      const Tensor xf = x.to(kFloat);
      auto [out, idx] = max_pool2d_with_indices(x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false);
      auto [out_f, idx_f] = max_pool2d_with_indices(xf, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false);
      ASSERT_EQ(out.dtype(), kBFloat16);
      EXPECT_TRUE(out.to(kFloat).equal(out_f) ||
                  (ow == 300 && out.to(kFloat).isnan().equal(out_f.isnan())))
          << ow << " " << extra;
      EXPECT_TRUE(idx.equal(idx_f)) << ow << " " << extra;
    }
  }
}

TEST(NnOps, PoolingInBFloat16) {
  const Tensor x = (testing::make_input({2, 3, 9, 10}, kDouble, 5) * 5).to(kBFloat16);
  const Tensor xf = x.to(kFloat);
  auto [out, idx] = max_pool2d_with_indices(x, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false);
  auto [out_f, idx_f] = max_pool2d_with_indices(xf, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false);
  ASSERT_EQ(out.dtype(), kBFloat16);
  EXPECT_TRUE(out.equal(out_f.to(kBFloat16)));
  EXPECT_TRUE(idx.equal(idx_f));
  for (bool count_pad : {true, false}) {
    const Tensor avg = avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}, false, count_pad, std::nullopt);
    const Tensor avg_f = avg_pool2d(xf, {3, 3}, {2, 2}, {1, 1}, false, count_pad, std::nullopt);
    EXPECT_TRUE(avg.equal(avg_f.to(kBFloat16))) << count_pad;
  }
  EXPECT_TRUE(adaptive_avg_pool2d(x, {4, 7}).equal(adaptive_avg_pool2d(xf, {4, 7}).to(kBFloat16)));

  const Tensor gy = testing::make_input(out.sizes(), kDouble, 3).to(kBFloat16);
  auto near = [](const Tensor& got, const Tensor& want) {
    ASSERT_EQ(got.dtype(), kBFloat16);
    EXPECT_LE((got.to(kFloat) - want).abs().max().item<double>(),
              2e-2 * std::max(1.0, want.abs().max().item<double>()));
  };
  near(max_pool2d_with_indices_backward(gy, x.sizes(), idx),
       max_pool2d_with_indices_backward(gy.to(kFloat), x.sizes(), idx_f));
  near(avg_pool2d_backward(gy, x.sizes(), {3, 3}, {2, 2}, {1, 1}, false, true, std::nullopt),
       avg_pool2d_backward(gy.to(kFloat), x.sizes(), {3, 3}, {2, 2}, {1, 1}, false, true,
                           std::nullopt));
  const Tensor ga = testing::make_input({2, 3, 4, 7}, kDouble, 4).to(kBFloat16);
  near(adaptive_avg_pool2d_backward(ga, x.sizes()),
       adaptive_avg_pool2d_backward(ga.to(kFloat), x.sizes()));

  // float16 too (PyTorch 2.x's CPU pooling; 1.13 refuses it): the maxima
  // are float32's, exactly.
  const Tensor xh = x.to(kHalf);
  EXPECT_TRUE(equal(std::get<0>(max_pool2d_with_indices(xh, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false)),
                    std::get<0>(max_pool2d_with_indices(xh.to(kFloat), {2, 2}, {2, 2}, {0, 0},
                                                        {1, 1}, false))
                        .to(kHalf)));
  try {
    max_pool2d_with_indices(x.to(kInt), {2, 2}, {2, 2}, {0, 0}, {1, 1}, false);
    ADD_FAILURE() << "int32 accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "\"max_pool2d\" not implemented for 'Int'");
  }
}

// Note [Fused gelu] against PyTorch 1.13 (tools/golden/gelu.py): float32
// within a few units of its last place (PyTorch's vectorized erf and exp
// round differently: 1 + erf(x / sqrt 2) cancels for negative x), and an
// absolute 1e-6 near zero; bfloat16 against PyTorch's float result rounded
// once, to one unit of bfloat16's last place.
struct GeluCase {
  const char* approximate;
  const char* dtype;
  double x, g, y, dx;
};
const GeluCase kGeluGolden[] = {
#include "tensor/testdata/gelu_golden.inc"
};

TEST(NnOps, GeluFusedMatchesPyTorch) {
  for (const GeluCase& c : kGeluGolden) {
    const ScalarType dt = std::string(c.dtype) == "float32" ? kFloat : kBFloat16;
    const Tensor x = full({1}, c.x, TensorOptions(dt));
    const Tensor g = full({1}, c.g, TensorOptions(dt));
    const double y = gelu(x, c.approximate).item<double>();
    const double dx = gelu_backward(g, x, c.approximate).item<double>();
    const double rel = dt == kFloat ? 1e-5 : 1.0 / 128, abs = dt == kFloat ? 1e-6 : 1e-8;
    EXPECT_NEAR(y, c.y, rel * std::abs(c.y) + abs) << c.approximate << " " << c.dtype << " " << c.x;
    EXPECT_NEAR(dx, c.dx, rel * std::abs(c.dx) + abs)
        << c.approximate << " " << c.dtype << " " << c.x;
  }
  // Integers are refused, as PyTorch's.
  try {
    gelu(ones({2}, TensorOptions(kLong)));
    ADD_FAILURE() << "int64 accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "\"GeluKernelImpl\" not implemented for 'Long'");
  }
}

// float gelu (libmvec erfc and exp, Note [Vectorized libm]) and its derivative (a long
// contiguous run: the vectorized loop and its tail) within a few float
// ulp of the exact values, relative to each, in both tails too (at
// x = -12 the value is ~2e-32, where 1 + erf(x) cancels to 0 even in
// double, as PyTorch's and ember's float64 gelu do; the reference here is
// erfc's). The float rounding of x / sqrt 2 and x^2 grows the relative
// error as x^2 in the tails (erfc's and exp's slopes).
TEST(NnOps, GeluFloatIsAccurateInBothTails) {
  const int64_t n = 4003;
  const Tensor x = linspace(-12, 12, n, TensorOptions(kFloat));
  const Tensor y = gelu(x), dx = gelu_backward(ones({n}), x, "none");
  for (int64_t i = 0; i < n; ++i) {
    const double xi = x[i].item<double>();
    const double cdf = 0.5 * std::erfc(-xi * M_SQRT1_2);
    const double pdf = std::exp(-0.5 * xi * xi) * M_2_SQRTPI * M_SQRT1_2 * 0.5;
    const double wy = xi * cdf, wdx = cdf + xi * pdf;
    const double rel = 3e-7 * (1 + xi * xi);
    EXPECT_NEAR(y[i].item<double>(), wy, rel * std::abs(wy) + 1e-37) << xi;
    // The derivative's two terms cancel near x = -0.75: relative to them.
    EXPECT_NEAR(dx[i].item<double>(), wdx, rel * (cdf + std::abs(xi) * pdf) + 1e-37) << xi;
  }
}

}  // namespace
}  // namespace ember
