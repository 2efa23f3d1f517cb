// more_ops.h and the small Tensor methods of more_ops.cc against PyTorch
// 1.13 (tools/golden/more_ops.py printed every expected value and message).
#include "tensor/more_ops.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "tensor/all.h"
#include "tensor/cuda/cuda.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::error_of;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor X() { return arange(12.0).view({3, 4}); }

// Equal (NaN to NaN, zeros by sign) or within tol relative.
void expect_values(const Tensor& t, const Tensor& want, double tol = 1e-12) {
  testing::expect_values(t, want, tol, /*check_zero_sign=*/true);
}

TEST(MoreOpsTest, Put) {
  expect_values(
      X().clone().put_(tensor({0, 5, -1}, kLong), tensor({9.0f, 8.0f, 7.0f})),
      tensor({{9.0f, 1.0f, 2.0f, 3.0f}, {4.0f, 8.0f, 6.0f, 7.0f}, {8.0f, 9.0f, 10.0f, 7.0f}}));
  expect_values(
      X().clone().put_(tensor({0, 0}, kLong), tensor({1.0f, 2.0f}), true),
      tensor({{3.0f, 1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f, 7.0f}, {8.0f, 9.0f, 10.0f, 11.0f}}));
  // Positions count in the logical (row-major) order, whatever the strides;
  // the result keeps them.
  const Tensor t = X().t().clone();
  Tensor& same = t.put_(tensor({1, 6}, kLong), tensor({100.0f, 200.0f}));
  EXPECT_TRUE(same.is_same(t));
  expect_values(
      t,
      tensor(
          {{0.0f, 100.0f, 8.0f}, {1.0f, 5.0f, 9.0f}, {200.0f, 6.0f, 10.0f}, {3.0f, 7.0f, 11.0f}}));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{1, 4}));
  const Tensor x = X();
  expect_values(
      x.put(tensor({1}, kLong), tensor({5.0f})),
      tensor({{0.0f, 5.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f, 7.0f}, {8.0f, 9.0f, 10.0f, 11.0f}}));
  EXPECT_EQ(x[0][1].item<float>(), 1.0f);  // put is out of place
  expect_values(tensor(3.0f).put(tensor({-1}, kLong), tensor({5.0f})), tensor(5.0f));
}

TEST(MoreOpsTest, PutErrors) {
  EXPECT_EQ(error_of([] {
              X().put_(tensor({3, 12}, kLong), tensor({1.0f, 2.0f}));
            }),
            "out of range: tried to access index 12 on a tensor of 12 elements.");
  EXPECT_EQ(error_of([] {
              X().put_(tensor({1, 2}, kLong), tensor({5.0f}));
            }),
            "put_(): Expected source and index to have the same number of elements, but got "
            "source.numel() = 1, index.numel() = 2");
  EXPECT_EQ(error_of([] { X().put_(tensor({1.0f}), tensor({5.0f})); }),
            "put_(): Expected a long tensor for index, but got Float");
  EXPECT_EQ(error_of([] { X().put_(tensor({1}, kLong), tensor({5.0}, kDouble)); }),
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            "Float and source.dtype = Double");
}

TEST(MoreOpsTest, FillDiagonal) {
  Tensor a = zeros({3, 4});
  EXPECT_TRUE(a.fill_diagonal_(5).is_same(a));
  expect_values(
      a, tensor({{5.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 5.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 5.0f, 0.0f}}));
  const Tensor tall = tensor({{5.0f, 0.0f, 0.0f}, {0.0f, 5.0f, 0.0f}, {0.0f, 0.0f, 5.0f}});
  expect_values(zeros({7, 3}).fill_diagonal_(5), cat({tall, zeros({4, 3})}));
  expect_values(zeros({7, 3}).fill_diagonal_(5, true), cat({tall, zeros({1, 3}), tall}));
  expect_values(zeros({2, 2, 2}).fill_diagonal_(1),
                tensor({{{1.0f, 0.0f}, {0.0f, 0.0f}}, {{0.0f, 0.0f}, {0.0f, 1.0f}}}));
  expect_values(zeros({3, 3}, kLong).fill_diagonal_(2.7), eye(3, kLong) * 2);
  // A transposed view is filled through its strides.
  Tensor base = zeros({4, 3});
  base.t().fill_diagonal_(1);
  expect_values(base, eye(4, 3));
  EXPECT_EQ(error_of([] {
              zeros({2, 3, 2}).fill_diagonal_(1);
            }),
            "all dimensions of input must be of equal length");
  EXPECT_EQ(error_of([] { zeros({3}).fill_diagonal_(1); }), "dimensions must larger than 1");
}

TEST(MoreOpsTest, Mvlgamma) {
  expect_values(tensor({2.5, 3.0, 1.6}, kDouble).mvlgamma(2),
                tensor({0.8570478133976193, 1.5501949939575645, 0.40990073596810456}, kDouble));
  expect_values(tensor({1.0, 3.0}, kDouble).mvlgamma(3),
                tensor({kInf, 2.694924879806965}, kDouble));
  expect_values(tensor({2, 3}, kLong).mvlgamma(2),
                tensor({0.4515827000141144f, 1.5501949787139893f}), 1e-6);
  Tensor y = tensor({2.5, 3.0}, kDouble);
  EXPECT_TRUE(y.mvlgamma_(2).is_same(y));
  expect_values(y, tensor({0.8570478133976193, 1.5501949939575645}, kDouble));
  EXPECT_EQ(error_of([] { tensor({2.5f}).mvlgamma(0); }), "p has to be greater than or equal to 1");
  EXPECT_EQ(error_of([] { tensor({true}).mvlgamma(1); }),
            "The input tensor may not be a boolean tensor.");
}

TEST(MoreOpsTest, Renorm) {
  const Tensor x = X().to(kDouble);
  expect_values(
      x.renorm(2, 0, 5),
      tensor({{0.0, 1.0, 2.0, 3.0},
              {1.7817415968764803, 2.2271769960956003, 2.6726123953147205, 3.1180477945338403},
              {2.090833483028305, 2.352187668406843, 2.613541853785381, 2.8748960391639193}},
             kDouble));
  expect_values(
      x.renorm(1, 1, 10),
      tensor({{0.0, 0.6666666622222223, 1.1111111049382716, 1.4285714217687073},
              {3.333333305555556, 3.333333311111111, 3.3333333148148148, 3.3333333174603172},
              {6.666666611111112, 5.99999996, 5.555555524691358, 5.238095213151928}},
             kDouble));
  Tensor y = x.clone();
  EXPECT_TRUE(y.renorm_(kInf, -2, 3).is_same(y));
  expect_values(
      y, tensor({{0.0, 1.0, 2.0, 3.0},
                 {1.7142856897959187, 2.1428571122448985, 2.571428534693878, 2.9999999571428577},
                 {2.1818181619834713, 2.4545454322314053, 2.7272727024793393, 2.9999999727272733}},
                kDouble));
  EXPECT_EQ(error_of([] { X().renorm(-1, 0, 3); }), "renorm: non-positive-norm not supported");
  EXPECT_EQ(error_of([] { X().renorm(2, 0, -1); }),
            "renorm: expected maxnorm to be >= 0 but got -1");
  EXPECT_EQ(error_of([] {
              tensor({1.0f, 2.0f}).renorm(2, 0, 1);
            }),
            "renorm: input needs at least 2 dimensions, got 1 dimensions");
}

TEST(MoreOpsTest, Frexp) {
  auto [m, e] = tensor({8.0, 0.3, -5.0, 0.0, kInf, kNaN, 1e-40, -0.0, 1.0, -0.75}, kDouble)
                    .to(kFloat)
                    .frexp();
  expect_values(m,
                tensor({0.5f, 0.6000000238418579f, -0.625f, 0.0f, static_cast<float>(kInf),
                        static_cast<float>(kNaN), 0.5444488525390625f, -0.0f, 0.5f, -0.75f}),
                0);
  EXPECT_TRUE(e.equal(tensor({4, -1, 3, 0, 0, 0, -132, 0, 1, 0}, kInt)));
  auto [md, ed] = frexp(tensor({8.0, 0.3, 1e-310, std::ldexp(1.0, -1074), 1e308}, kDouble));
  expect_values(md, tensor({0.5, 0.6, 0.5752618031559393, 0.5, 0.5562684646268004}, kDouble));
  EXPECT_TRUE(ed.equal(tensor({4, -1, -1029, -1073, 1024}, kInt)));
  auto [mh, eh] = tensor({3.0f, 1.0f, 6e-8f}).to(kHalf).frexp();
  expect_values(mh, tensor({0.75f, 0.5f, 0.5f}).to(kHalf), 0);
  EXPECT_TRUE(eh.equal(tensor({2, 1, -23}, kInt)));
  EXPECT_EQ(error_of([] {
              tensor({1, 2}, kLong).frexp();
            }),
            "torch.frexp() only supports floating-point dtypes");
}

TEST(MoreOpsTest, CovAndCorrcoef) {
  const Tensor c = tensor({{0.0, 1.0, 2.0}, {2.0, 1.0, 0.5}}, kDouble);
  expect_values(c.cov(), tensor({{1.0, -0.75}, {-0.75, 0.5833333333333334}}, kDouble));
  expect_values(cov(c, 0),
                tensor({{0.6666666666666666, -0.5}, {-0.5, 0.3888888888888889}}, kDouble));
  expect_values(c.cov(1, tensor({1, 2, 1}, kLong), tensor({0.5, 1.0, 2.0}, kDouble)),
                tensor({{0.6428571428571428, -0.42857142857142855},
                        {-0.42857142857142855, 0.30357142857142855}},
                       kDouble));
  expect_values(tensor({1, 2, 4}, kLong).cov(), tensor(2.3333332538604736f), 1e-7);
  expect_values(
      tensor({{0.0, 1.0, 2.0}, {2.0, 1.0, 0.5}, {1.0, 1.0, 1.0}}, kDouble).corrcoef(),
      tensor(
          {{1.0, -0.9819805060619656, kNaN}, {-0.9819805060619656, 1.0, kNaN}, {kNaN, kNaN, kNaN}},
          kDouble));
  expect_values(corrcoef(tensor({1.0f, 2.0f, 4.0f})), tensor(1.0f));
}

TEST(MoreOpsTest, CovErrors) {
  const Tensor c = tensor({{0.0, 1.0, 2.0}, {2.0, 1.0, 0.5}}, kDouble);
  EXPECT_EQ(error_of([] {
              zeros({2, 2, 2}).cov();
            }),
            "cov(): expected input to have two or fewer dimensions but got an input with 3 "
            "dimensions");
  EXPECT_EQ(error_of([&] {
              c.cov(1, tensor({1.0f, 2.0f, 1.0f}));
            }),
            "cov(): expected fweights to have integral dtype but got fweights with Float dtype");
  EXPECT_EQ(error_of([&] {
              c.cov(1, std::nullopt, tensor({1, 2, 1}, kLong));
            }),
            "cov(): expected aweights to have floating point dtype but got aweights with Long "
            "dtype");
  EXPECT_EQ(error_of([&] {
              c.cov(1, tensor({1, 2}, kLong));
            }),
            "cov(): expected fweights to have the same numel as there are observations in the "
            "input but got 2 != 3");
  EXPECT_EQ(error_of([&] {
              c.cov(1, tensor({1, -2, 1}, kLong));
            }),
            "cov(): fweights cannot be negative");
  EXPECT_EQ(error_of([&] {
              c.cov(1, tensor({0, 0, 0}, kLong));
            }),
            "cov(): weights sum to zero, can't be normalized");
}

TEST(MoreOpsTest, SmallMethods) {
  const Tensor x = X();
  EXPECT_EQ(x.ndim(), 2);
  EXPECT_EQ(x.nelement(), 12);
  EXPECT_EQ(x.get_device(), -1);
  EXPECT_FALSE(tensor({0.0f}).is_nonzero());
  EXPECT_TRUE(tensor(3, kLong).is_nonzero());
  EXPECT_TRUE(tensor({true}).view({1, 1}).is_nonzero());
  EXPECT_EQ(error_of([] { zeros({0}).is_nonzero(); }),
            "Boolean value of Tensor with no values is ambiguous");
  EXPECT_EQ(error_of([] { X().is_nonzero(); }),
            "Boolean value of Tensor with more than one value is ambiguous");
  const Tensor t = arange(24.0).view({2, 3, 4}).T();
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{4, 3, 2}));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{1, 4, 12}));
  EXPECT_EQ(t[3][2][1].item<float>(), 23.0f);
  expect_values(
      x.where(x > 5, tensor({1.0f, 2.0f, 3.0f, 4.0f})),
      tensor({{1.0f, 2.0f, 3.0f, 4.0f}, {1.0f, 2.0f, 6.0f, 7.0f}, {8.0f, 9.0f, 10.0f, 11.0f}}));
  expect_values(x.hardshrink(3), hardshrink(x, 3));
  expect_values(x.prelu(tensor({0.25f})), prelu(x, tensor({0.25f})));
}

TEST(MoreOpsTest, ResizeKeepsTheDataItHas) {
  Tensor a = tensor({1.0f, 2.0f, 3.0f});
  EXPECT_TRUE(a.resize_({2, 2}).is_same(a));
  EXPECT_EQ(a.sizes(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(a[0][0].item<float>(), 1.0f);
  EXPECT_EQ(a[1][0].item<float>(), 3.0f);
  a.resize_({2});  // shrinking keeps the storage
  expect_values(a, tensor({1.0f, 2.0f}));
  a.resize_({2, 3, 2, 2}, MemoryFormat::ChannelsLast);
  EXPECT_TRUE(a.is_contiguous(MemoryFormat::ChannelsLast));
  Tensor b = zeros({5});
  b.resize_as_(zeros({3, 2}));
  EXPECT_EQ(b.sizes(), (std::vector<int64_t>{3, 2}));
  // Refused for tensors that require grad: autograd/autograd_test.cc.
  EXPECT_EQ(error_of([] {
              tensor({1.0f}).resize_({-1, 2});
            }),
            "Trying to create tensor with negative dimension -1: [-1, 2]");
}

// Every ember tensor is strided and none is an inference tensor; pinning
// needs CUDA (Note [pin_memory without CUDA]: without it, self comes back).
TEST(MoreOpsTest, LayoutInferenceAndPinning) {
  const Tensor x = X();
  EXPECT_EQ(x.layout(), kStrided);
  EXPECT_EQ(TensorOptions().layout(kStrided).layout(), kStrided);
  std::ostringstream os;
  os << x.layout();
  EXPECT_EQ(os.str(), "Strided");
  EXPECT_FALSE(x.is_inference());
  EXPECT_FALSE(x.is_pinned());
  const Tensor y = x.t();
  const Tensor p = y.pin_memory();
  if (cuda::is_available()) {
    EXPECT_TRUE(p.is_pinned());
    EXPECT_TRUE(p.is_contiguous());
    expect_values(p, y);
    EXPECT_TRUE(p.pin_memory().is_same(p));  // already pinned
  } else {
    EXPECT_TRUE(p.is_same(y));
    EXPECT_FALSE(p.is_pinned());
  }
  EXPECT_EQ(error_of([&] { x.is_pinned(Device(kCPU)); }),
            "pin_memory: expected a CUDA device to pin for, got 'cpu'");
}

// angle of real numbers (PyTorch 1.13's values, tools/golden/sort_ops.py
// "angle" lines): pi below zero, 0 else (-0 too), NaN kept; integers and
// bool give the default dtype. Its gradient is zero (AngleBackward0).
TEST(MoreOpsTest, AngleOfRealNumbers) {
  const float pi_f = static_cast<float>(M_PI);
  expect_values(angle(tensor({-1.0f, 0.0f, 2.0f, NAN, -0.0f, -INFINITY, INFINITY})),
                tensor({pi_f, 0.0f, 0.0f, NAN, 0.0f, pi_f, 0.0f}));
  expect_values(tensor({-1, 0, 2}, kLong).angle(), tensor({pi_f, 0.0f, 0.0f}));
  expect_values(tensor({true, false}).angle(), tensor({0.0f, 0.0f}));
  expect_values(angle(tensor({-1.0f, 2.0f}).to(kHalf)), tensor({3.140625f, 0.0f}).to(kHalf));
  expect_values(angle(tensor({-1.0, 2.0}, kDouble)), tensor({M_PI, 0.0}, kDouble));
}

}  // namespace
}  // namespace ember
