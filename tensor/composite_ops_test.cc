// composite_ops.h against PyTorch 1.13 (tools/golden/composite_ops.py
// printed every expected value): NaN and infinities, dtypes, errors.
// Their gradients are checked in autograd/gradcheck_test.cc.
#include "tensor/composite_ops.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::error_of;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMax = std::numeric_limits<double>::max();

Tensor X() { return tensor({{1.5, -0.0, kNaN, 2.0}, {kInf, -3.0, 0.5, -kInf}}, kDouble); }
Tensor Y() { return tensor({{0.5, 2.0, 1.0, kNaN}, {1.0, -1.0, 0.0, 2.0}}, kDouble); }
Tensor D(std::vector<double> v) { return tensor(v, kDouble); }

// Equal, both NaN, or within tol (relative and absolute).
void expect_values(const Tensor& t, const Tensor& want, double tol = 1e-12) {
  testing::expect_values(t, want, tol);
}

TEST(CompositeOpsTest, NanToNum) {
  expect_values(X().nan_to_num(),
                tensor({{1.5, -0.0, 0.0, 2.0}, {kMax, -3.0, 0.5, -kMax}}, kDouble));
  expect_values(X().nan_to_num(1.0, 2.0, -2.0),
                tensor({{1.5, -0.0, 1.0, 2.0}, {2.0, -3.0, 0.5, -2.0}}, kDouble));
  expect_values(tensor({1.0, kInf, -kInf, kNaN}).to(kHalf).nan_to_num(),
                tensor({1.0, 65504.0, -65504.0, 0.0}).to(kHalf));
  expect_values(tensor({kInf, -kInf}).to(kBFloat16).nan_to_num(),
                tensor({3.3895313892515355e+38, -3.3895313892515355e+38}).to(kBFloat16));
  expect_values(tensor({1, 2}, kLong).nan_to_num(), tensor({1, 2}, kLong));
  Tensor y = X();
  EXPECT_TRUE(y.nan_to_num_(1.0, 2.0, -2.0).is_same(y));
  expect_values(y, tensor({{1.5, -0.0, 1.0, 2.0}, {2.0, -3.0, 0.5, -2.0}}, kDouble));
}

TEST(CompositeOpsTest, Diff) {
  expect_values(X().diff(), tensor({{-1.5, kNaN, kNaN}, {-kInf, 3.5, -kInf}}, kDouble));
  expect_values(X().diff(1, 0), tensor({{kInf, -3.0, kNaN, -kInf}}, kDouble));
  expect_values(X().diff(2), tensor({{kNaN, kNaN}, {kInf, -kInf}}, kDouble));
  expect_values(tensor({1, 3, 6}, kLong).diff(1, -1, tensor({0}, kLong), tensor({10, 11}, kLong)),
                tensor({1, 2, 3, 4, 1}, kLong));
  expect_values(tensor({true, false, false, true}).diff(), tensor({true, false, true}));
  EXPECT_EQ(tensor({1.0f, 2.0f, 4.0f}).diff(5).sizes(), IntArrayRef({0}));
  EXPECT_EQ(error_of([] { tensor(1.0f).diff(); }),
            "diff expects input to be at least one-dimensional");
  EXPECT_EQ(error_of([] {
              tensor({1.0f, 2.0f}).diff(1, -1, tensor({{1.0f}}));
            }),
            "diff expects prepend or append to be the same dimension as input");
}

TEST(CompositeOpsTest, Kron) {
  expect_values(tensor({{1, 2}, {3, 4}}, kLong).kron(tensor({{0, 1}, {1, 0}}, kLong)),
                tensor({{0, 1, 0, 2}, {1, 0, 2, 0}, {0, 3, 0, 4}, {3, 0, 4, 0}}, kLong));
  EXPECT_EQ(ones({2, 3}).kron(ones({4})).sizes(), IntArrayRef({2, 12}));
  expect_values(tensor({1, 2}, kLong).kron(tensor({1.5f})), tensor({1.5f, 3.0f}));
}

// 1.13 views its operands and the product, so the result keeps their
// layout (strides from 1.13: tools/parity/sweep, seed 71).
TEST(CompositeOpsTest, KronKeepsTheOperandsLayout) {
  const Tensor a = tensor({{0, 1, 0, 1}}, kBool);
  const Tensor b = tensor({{1, 0}, {0, 1}}, kBool).view({4, 1});
  const Tensor bt = tensor({1, 0, 0, 1}, kBool).view({1, 4}).t();  // [4, 1], strides (1, 4)
  EXPECT_EQ(a.kron(bt).strides(), IntArrayRef({1, 4}));
  expect_values(a.kron(bt), a.kron(b));
  const Tensor x = arange(24, TensorOptions(kInt)).view({2, 4, 3}).transpose(1, 2);
  EXPECT_EQ(x.kron(tensor(1, kInt)).strides(), IntArrayRef({12, 1, 3}));
  expect_values(x.kron(tensor(1, kInt)), x.contiguous());
  // Not viewable (1.13 raises): a copy.
  const Tensor y = arange(12, TensorOptions(kInt)).view({3, 4}).t();
  expect_values(y.kron(tensor({{1, 2}}, kInt)), y.contiguous().kron(tensor({{1, 2}}, kInt)));
}

TEST(CompositeOpsTest, NanSumAndNanMean) {
  EXPECT_TRUE(std::isnan(X().nansum().item<double>()));  // inf + -inf
  expect_values(X().nansum({1}), tensor({3.5, kNaN}, kDouble));
  EXPECT_EQ(Y().nansum().item<double>(), 5.5);
  expect_values(tensor({1, 2}, kLong).nansum(), tensor(3, kLong));
  EXPECT_TRUE(std::isnan(X().nanmean().item<double>()));
  expect_values(X().nanmean({1}), tensor({1.1666666666666667, kNaN}, kDouble));
  expect_values(Y().nanmean({0}, true), tensor({{0.75, 0.5, 0.5, 2.0}}, kDouble));
  EXPECT_EQ(error_of([] {
              tensor({1, 2}, kLong).nanmean();
            }),
            "nanmean(): expected input to have floating point dtype but got Long");
}

TEST(CompositeOpsTest, Deg2RadAndRad2Deg) {
  expect_values(tensor({180.0f, 90.0f}).deg2rad(),
                tensor({3.1415927410125732f, 1.5707963705062866f}));
  expect_values(tensor({180, 90}, kLong).deg2rad(),
                tensor({3.1415927410125732f, 1.5707963705062866f}));
  expect_values(D({3.141592653589793, 1.0}).rad2deg(), D({180.0, 57.29577951308232}));
}

TEST(CompositeOpsTest, LogAddExp) {
  expect_values(X().logaddexp(Y()), tensor({{1.8132616875182228, 2.1269280110429727, kNaN, kNaN},
                                            {kInf, -0.8730719889570274, 0.9740769841801067, 2.0}},
                                           kDouble));
  expect_values(
      tensor({kInf, -kInf, -kInf}).to(kFloat).logaddexp(tensor({kInf, -kInf, 1.0}).to(kFloat)),
      tensor({kInf, -kInf, 1.0}).to(kFloat));
  expect_values(X().logaddexp2(Y()), tensor({{2.084962500721156, 2.321928094887362, kNaN, kNaN},
                                             {kInf, -0.6780719051126376, 1.271553303163612, 2.0}},
                                            kDouble));
  EXPECT_EQ(error_of([] { tensor({1}, kLong).logaddexp(tensor({2}, kLong)); }),
            "\"logaddexp_cpu\" not implemented for 'Long'");
}

TEST(CompositeOpsTest, XLogY) {
  expect_values(
      X().xlogy(Y()),
      tensor({{-1.0397207708399179, 0.0, kNaN, kNaN}, {kNaN, kNaN, -kInf, -kInf}}, kDouble));
  expect_values(tensor({0.0f, 0.0f, 1.0f}).xlogy(tensor({0.0, kNaN, 0.0}).to(kFloat)),
                tensor({0.0f, static_cast<float>(kNaN), -std::numeric_limits<float>::infinity()}));
  expect_values(tensor({1, 2}, kLong).xlogy(tensor({2, 3}, kLong)),
                tensor({0.6931471824645996f, 2.1972246170043945f}), 1e-6);
  expect_values(tensor({1.0f, 0.0f}).xlogy(2), tensor({0.6931471824645996f, 0.0f}), 1e-6);
}

TEST(CompositeOpsTest, Cross) {
  const Tensor a = tensor({{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}});
  const Tensor b = tensor({{0.0f, 1.0f, 0.0f}, {1.0f, 0.0f, 2.0f}});
  const Tensor want = tensor({{-3.0f, 0.0f, 1.0f}, {10.0f, -2.0f, -5.0f}});
  expect_values(a.cross(b), want);
  expect_values(a.t().cross(b.t()), want.t());  // the first dim of size 3
  expect_values(a.cross(b, 1), want);
  expect_values(tensor({{1, 2, 3}}, kLong).cross(tensor({{0, 1, 0}}, kLong)),
                tensor({{-3, 0, 1}}, kLong));
  EXPECT_EQ(error_of([] { ones({2, 4}).cross(ones({2, 4})); }), "no dimension of size 3 in input");
  EXPECT_EQ(error_of([&] {
              a.cross(tensor({1.0f, 0.0f, 0.0f}));
            }),
            "linalg.cross: inputs must have the same number of dimensions.");
  EXPECT_EQ(error_of([&] { a.cross(b.to(kDouble)); }),
            "expected scalar type Float but found Double");
}

// lerp with a tensor weight runs in one pass on the CPU (half and bfloat16
// rounded after each step, as the separate ops round):
// the composition's values bit for bit (no fused multiply-add), NaN weights,
// weights at and around 0.5 and outside [0, 1], infinite ends, broadcast and
// strided operands, a length no multiple of 8, and the iterator's layout.
TEST(CompositeOpsTest, LerpTensorWeightOnePassIsTheComposition) {
  manual_seed(11);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (ScalarType t : {kFloat, kDouble, kHalf, kBFloat16}) {
    Tensor self = randn({5, 13}).to(t), end = (randn({5, 13}) * 100).to(t);
    Tensor weight = (rand({5, 13}) * 3 - 1).to(t);
    weight.index_put_({0, 1}, nan);
    weight.index_put_({1, 2}, 0.5);
    weight.index_put_({1, 3}, std::nextafter(0.5, 0.0));
    weight.index_put_({2, 4}, 0.0);
    weight.index_put_({2, 5}, 1.0);
    end.index_put_({3, 6}, inf);
    self.index_put_({3, 7}, -inf);
    self.index_put_({4, 8}, nan);
    const std::vector<std::vector<Tensor>> cases = {
        {self, end, weight},
        {self.t().contiguous().t(), end, weight},
        {self, end.slice(1, 0, 13, 1), weight[1]},
        {self, end, tensor(0.3, TensorOptions(t))},
        {self[2], end, weight.t().contiguous().t()},
    };
    for (const auto& c : cases) {
      const Tensor diff = c[1] - c[0];
      const Tensor want = where(c[2] < 0.5, c[0] + c[2] * diff, c[1] - diff * (1 - c[2]));
      const Tensor got = c[0].lerp(c[1], c[2]);
      ASSERT_EQ(got.sizes(), want.sizes());
      EXPECT_TRUE((got.isnan() == want.isnan()).all().item<bool>());
      EXPECT_TRUE(got.nan_to_num(0.0, 7.0, -7.0).equal(want.nan_to_num(0.0, 7.0, -7.0)))
          << scalar_type_name(t);
    }
  }
}

TEST(CompositeOpsTest, DistLerpLogitHeaviside) {
  const Tensor a = tensor({{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}});
  const Tensor b = tensor({{0.0f, 1.0f, 0.0f}, {1.0f, 0.0f, 2.0f}});
  EXPECT_NEAR(a.dist(b).item<float>(), 7.8102498054504395, 1e-6);
  EXPECT_EQ(a.dist(b, 1).item<float>(), 17.0f);
  EXPECT_EQ(a.dist(b, std::numeric_limits<double>::infinity()).item<float>(), 5.0f);
  expect_values(a.lerp(b, tensor({0.0f, 0.5f, 1.0f})),
                tensor({{1.0f, 1.5f, 0.0f}, {4.0f, 2.5f, 2.0f}}));
  expect_values(a.lerp(b, tensor(0.7f)),
                tensor({{0.30000001192092896f, 1.2999999523162842f, 0.9000000357627869f},
                        {1.9000000953674316f, 1.5f, 3.200000047683716f}}),
                1e-7);
  EXPECT_EQ(error_of([&] { a.lerp(b.to(kDouble), tensor(0.7f)); }),
            "expected dtype float for `end` but got dtype double");
  EXPECT_EQ(error_of([&] { a.lerp(b, tensor(0.7, kDouble)); }),
            "expected dtype float for `weight` but got dtype double");
  const float inf = std::numeric_limits<float>::infinity();
  expect_values(tensor({0.25f, 0.0f, 1.0f, 0.5f}).logit(),
                tensor({-1.0986123085021973f, -inf, inf, 0.0f}), 1e-7);
  expect_values(tensor({0.25f, 0.0f, 1.0f, -1.0f}).logit(0.1),
                tensor({-1.0986123085021973f, -2.1972246170043945f, 2.1972243785858154f,
                        -2.1972246170043945f}),
                1e-6);
  expect_values(tensor({1, 0}, kLong).logit(), tensor({inf, -inf}));
  expect_values(tensor({-1.0f, 0.0f, 2.0f, std::numeric_limits<float>::quiet_NaN()})
                    .heaviside(tensor({0.5f})),
                tensor({0.0f, 0.5f, 1.0f, 0.0f}));
  expect_values(tensor({-1, 0, 2}, kLong).heaviside(tensor({7}, kLong)), tensor({0, 7, 1}, kLong));
  EXPECT_EQ(error_of([] {
              tensor({-1.0f, 0.0f}).heaviside(tensor({1}, kLong));
            }),
            "heaviside is not yet implemented for tensors with different dtypes.");
}

TEST(CompositeOpsTest, BitwiseWithANumber) {
  expect_values(tensor({6, 3}, kLong).bitwise_and(5), tensor({4, 1}, kLong));
  expect_values(tensor({true, false}).bitwise_xor(true), tensor({false, true}));
  EXPECT_EQ(error_of([] {
              tensor({6, 3}, kLong).bitwise_or(1.5);
            }),
            "\"bitwise_or_cpu\" not implemented for 'Float'");
}

TEST(CompositeOpsTest, Baddbmm) {
  const Tensor b1 = arange(12, kFloat).reshape({2, 2, 3}),
               b2 = arange(12, kFloat).reshape({2, 3, 2});
  expect_values(ones({2, 2}).baddbmm(b1, b2, 0.5, 2),
                tensor({{{20.5f, 26.5f}, {56.5f, 80.5f}}, {{344.5f, 386.5f}, {488.5f, 548.5f}}}));
  const Tensor want =
      tensor({{{10.0f, 13.0f}, {28.0f, 40.0f}}, {{172.0f, 193.0f}, {244.0f, 274.0f}}});
  expect_values(full({2, 2, 2}, std::numeric_limits<float>::quiet_NaN()).baddbmm(b1, b2, 0), want);
  expect_values(ones({2, 2}, kLong).baddbmm(b1.to(kLong), b2.to(kLong)), (want + 1).to(kLong));
  expect_values(ones({2, 2}, kDouble).baddbmm(b1, b2), want + 1);  // batch1's dtype
  // Integers: beta and alpha truncated (0.5 -> 0: self ignored; 2.7 -> 2).
  const Tensor i1 = b1.to(kInt), i2 = b2.to(kInt);
  expect_values(ones({2, 2}, kInt).baddbmm(i1, i2, 0.5, 2.7), (want * 2).to(kInt));
  expect_values(ones({2, 2}, kInt).baddbmm(i1, i2, 1.5), (want + 1).to(kInt));
  // self expands to [b, n, p] one way, even with beta 0 (1.13's message).
  for (double beta : {1.0, 0.0}) {
    EXPECT_EQ(error_of([&] {
                ones({2, 1, 3}).baddbmm(ones({2, 1, 3}), ones({2, 3, 1}), beta);
              }),
              "The expanded size of the tensor (1) must match the existing size (3) at "
              "non-singleton dimension 2.  Target sizes: [2, 1, 1].  Tensor sizes: [2, 1, 3]");
  }
}

TEST(CompositeOpsTest, SgnAndPositive) {
  expect_values(X().sgn(), tensor({{1.0, 0.0, 0.0, 1.0}, {1.0, -1.0, 1.0, -1.0}}, kDouble));
  const Tensor x = X();
  EXPECT_TRUE(x.positive().is_same(x));
  EXPECT_EQ(error_of([] { tensor({true}).positive(); }),
            "The `+` operator, on a bool tensor is not supported.");
}

}  // namespace
}  // namespace ember
