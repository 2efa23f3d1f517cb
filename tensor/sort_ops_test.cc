// sort_ops.h against PyTorch 1.13 (tools/golden/sort_ops.py printed every
// expected value): ties, NaN and infinities, dtypes, keepdim, negative and
// non-contiguous dims, 0-dim and empty tensors, errors. The gradients are
// checked in autograd/gradcheck_test.cc, the node names in
// nn/functional/grad_fn_names_test.cc.
#include "tensor/sort_ops.h"

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::error_of;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A tensor as the script writes it: T(sizes, values, dtype).
Tensor T(std::vector<int64_t> sizes, std::vector<double> values, ScalarType dtype) {
  return testing::from_values(sizes, values, dtype);
}

Tensor X() {
  return T({3, 5},
           {1.5, -0.5, 2.0, -0.5, 3.0, kNaN, 1.0, -kInf, 1.0, kInf, 2.0, 1.0, 2.0, 1.0, kNaN},
           kDouble);
}
Tensor L() { return T({2, 6}, {3, 1, 2, 3, 1, 5, 0, 0, 4, 4, 4, 0}, kLong); }
Tensor E() { return T({2, 4}, {2.0, 1.0, 2.0, 1.0, 4.0, -1.0, 0.5, 7.0}, kDouble); }

// Same sizes and dtype; values equal, both NaN, or within tol (relative).
using testing::expect_values;
void expect_values(const std::tuple<Tensor, Tensor>& t, const Tensor& a, const Tensor& b,
                   double tol = 0) {
  expect_values(std::get<0>(t), a, tol);
  expect_values(std::get<1>(t), b, tol);
}
void expect_values(const std::tuple<Tensor, Tensor, Tensor>& t, const Tensor& a, const Tensor& b,
                   const Tensor& c) {
  expect_values(std::get<0>(t), a);
  expect_values(std::get<1>(t), b);
  expect_values(std::get<2>(t), c);
}

TEST(SortOpsTest, Median) {
  expect_values(X().median(), T({}, {kNaN}, kDouble));
  expect_values(E().median(), T({}, {1.0}, kDouble));
  expect_values(median(L()), T({}, {2}, kLong));
  expect_values(empty({0}, kDouble).median(), T({}, {kNaN}, kDouble));
  // Empty first: PyTorch returns before it looks at the dtype.
  expect_values(empty({0}, kBool).median(), T({}, {1}, kBool));
  // Ties: the (n - 1) / 2-th of a stable sort; a row with NaN: its first.
  expect_values(X().median(1), T({3}, {1.5, kNaN, kNaN}, kDouble), T({3}, {0, 0, 4}, kLong));
  expect_values(X().median(0, true), T({1, 5}, {kNaN, 1.0, 2.0, 1.0, kNaN}, kDouble),
                T({1, 5}, {1, 1, 0, 1, 2}, kLong));
  expect_values(E().median(-1), T({2}, {1.0, 0.5}, kDouble), T({2}, {3, 2}, kLong));
  expect_values(E().t().median(0), T({2}, {1.0, 0.5}, kDouble), T({2}, {3, 2}, kLong));
  expect_values(median(L(), 1), T({2}, {2, 0}, kLong), T({2}, {2, 5}, kLong));
  expect_values(tensor(2.5, kDouble).median(0), T({}, {2.5}, kDouble), T({}, {0}, kLong));
  expect_values(empty({0, 3}).median(1), T({0}, {}, kFloat), T({0}, {}, kLong));
  EXPECT_EQ(error_of([] {
              empty({0, 3}).median(0);
            }),
            "median(): Expected reduction dim 0 to have non-zero size.");
  EXPECT_EQ(error_of([] {
              tensor({true, false}).median();
            }),
            "\"median_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] {
              tensor({true, false}).median(0);
            }),
            "\"median_out\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { X().median(2); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(SortOpsTest, NanMedian) {
  expect_values(X().nanmedian(), T({}, {1.0}, kDouble));
  expect_values(T({2}, {kNaN, kNaN}, kDouble).nanmedian(), T({}, {kNaN}, kDouble));
  expect_values(X().nanmedian(1), T({3}, {1.5, 1.0, 1.0}, kDouble), T({3}, {0, 1, 3}, kLong));
  expect_values(nanmedian(X(), 0), T({5}, {1.5, 1.0, 2.0, 1.0, 3.0}, kDouble),
                T({5}, {0, 1, 0, 1, 0}, kLong));
  expect_values(T({2, 3}, {kNaN, kNaN, 1.0, kNaN, kNaN, kNaN}, kDouble).nanmedian(1),
                T({2}, {1.0, kNaN}, kDouble), T({2}, {2, 0}, kLong));
  expect_values(L().nanmedian(1, true), T({2, 1}, {2, 0}, kLong), T({2, 1}, {2, 5}, kLong));
  EXPECT_EQ(error_of([] { tensor({true}).nanmedian(); }),
            "\"median_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).nanmedian(0); }),
            "\"median_out\" not implemented for 'Bool'");
}

// Note [Median by selection]: the CPU selects instead of sorting. Its
// element must be the one at median_rank in the stable sort (value, then
// index): signed zeros and repeated values pick by position, the sign of a
// zero comes from that element, NaN anywhere in a row, odd and even rows.
TEST(SortOpsTest, MedianSelectsTheStableSortsElement) {
  for (const int64_t len : {1, 2, 7, 8, 33, 1000}) {
    for (const ScalarType dtype : {kFloat, kDouble, kBFloat16, kInt}) {
      for (const int nan_every : {0, 3, 1}) {
        if (dtype == kInt && nan_every != 0) continue;
        std::vector<double> v(4 * len);
        for (int64_t i = 0; i < 4 * len; ++i) {
          const int64_t h = (i * 7919 + 13) % 11;
          v[i] = h < 3 ? 0.0 : h < 5 ? -0.0 : static_cast<double>(h % 5) - 2.0;
          if (dtype == kInt && v[i] == 0) v[i] = 0;
          if (nan_every != 0 && (i * 31 + len) % (nan_every * 5) == 0) v[i] = kNaN;
        }
        const Tensor x = T({4, len}, v, dtype);
        for (const bool ignore_nan : {false, true}) {
          Tensor sorted, order;
          std::tie(sorted, order) = x.sort(std::optional<bool>(true), 1);
          const Tensor nans = x.isnan().sum({1}, true);
          const Tensor k = ignore_nan ? (Scalar(len - 1) - nans).clamp_min(0).div(2, "floor")
                                      : where(nans > 0, Scalar(len) - nans, Scalar((len - 1) / 2));
          const Tensor want_v = sorted.gather(1, k).squeeze(1);
          const Tensor want_i = order.gather(1, k).squeeze(1);
          const auto got = ignore_nan ? x.nanmedian(1) : x.median(1);
          expect_values(std::get<1>(got), want_i);
          expect_values(std::get<0>(got), want_v);
          // Bitwise: the sign of a zero is the chosen element's.
          EXPECT_TRUE(signbit(std::get<0>(got)).equal(signbit(want_v)));
          const auto got_t = ignore_nan ? x.t().nanmedian(0) : x.t().median(0);
          expect_values(std::get<1>(got_t), want_i);
          const Tensor row = x.narrow(0, 1, 1).reshape({-1});
          const Tensor all = ignore_nan ? row.nanmedian() : row.median();
          expect_values(all, want_v.narrow(0, 1, 1).reshape({}));
          EXPECT_TRUE(signbit(all).equal(signbit(want_v.narrow(0, 1, 1).reshape({}))));
        }
      }
    }
  }
}

TEST(SortOpsTest, Mode) {
  expect_values(L().mode(1), T({2}, {1, 0}, kLong), T({2}, {4, 5}, kLong));
  expect_values(mode(L(), 0), T({6}, {0, 0, 2, 3, 1, 0}, kLong), T({6}, {1, 1, 0, 0, 0, 1}, kLong));
  expect_values(L().mode(), T({2}, {1, 0}, kLong), T({2}, {4, 5}, kLong));
  expect_values(X().mode(1), T({3}, {-0.5, 1.0, 1.0}, kDouble), T({3}, {3, 3, 3}, kLong));
  expect_values(T({4}, {kNaN, kNaN, kNaN, 1.0}, kDouble).mode(), T({}, {kNaN}, kDouble),
                T({}, {0}, kLong));
  expect_values(T({5}, {1.0, kNaN, kNaN, 2.0, 2.0}, kDouble).mode(), T({}, {2.0}, kDouble),
                T({}, {4}, kLong));
  expect_values(tensor({true, false, true}).mode(), T({}, {1}, kBool), T({}, {2}, kLong));
  expect_values(tensor(int64_t{4}).mode(), T({}, {4}, kLong), T({}, {0}, kLong));
  expect_values(L().t().mode(0, true), T({1, 2}, {1, 0}, kLong), T({1, 2}, {4, 5}, kLong));
  EXPECT_EQ(error_of([] {
              empty({0, 3}).mode(0);
            }),
            "mode(): Expected reduction dim 0 to have non-zero size.");
  // Rows longer than 16: std::sort's order decides among equal values
  // (Note [PyTorch's mode ties]), not the last occurrence.
  const Tensor big = (arange(60) * 7).remainder(11).remainder(4).reshape({2, 30});
  expect_values(big, T({2, 30}, {0, 3, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0, 3, 3, 2, 2, 2, 1, 1, 1,
                                 0, 0, 0, 3, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0, 3, 3, 2, 2, 2, 1,
                                 1, 1, 0, 0, 0, 3, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0, 3, 3, 2, 2},
                       kLong));
  expect_values(big.mode(1), T({2}, {2, 0}, kLong), T({2}, {3, 12}, kLong));
  expect_values(big.to(kFloat).mode(1), T({2}, {2, 0}, kFloat), T({2}, {3, 12}, kLong));
}

TEST(SortOpsTest, Msort) {
  expect_values(
      X().msort(),
      T({3, 5}, {1.5, -0.5, -kInf, -0.5, 3.0, 2.0, 1.0, 2.0, 1.0, kInf, kNaN, 1.0, 2.0, 1.0, kNaN},
        kDouble));
  expect_values(msort(L()), T({2, 6}, {0, 0, 2, 3, 1, 0, 3, 1, 4, 4, 4, 5}, kLong));
  expect_values(tensor(3.0f).msort(), T({}, {3.0}, kFloat));
}

TEST(SortOpsTest, CummaxCummin) {
  const Tensor c = T({7}, {1.0, 3.0, kNaN, 2.0, 5.0, kNaN, 1.0}, kDouble);
  expect_values(c.cummax(0), T({7}, {1.0, 3.0, kNaN, kNaN, kNaN, kNaN, kNaN}, kDouble),
                T({7}, {0, 1, 2, 2, 2, 5, 5}, kLong));
  expect_values(cummin(c, 0), T({7}, {1.0, 1.0, kNaN, kNaN, kNaN, kNaN, kNaN}, kDouble),
                T({7}, {0, 0, 2, 2, 2, 5, 5}, kLong));
  expect_values(L().cummax(1), T({2, 6}, {3, 3, 3, 3, 3, 5, 0, 0, 4, 4, 4, 4}, kLong),
                T({2, 6}, {0, 0, 0, 3, 3, 5, 0, 1, 2, 3, 4, 4}, kLong));
  expect_values(L().cummin(1), T({2, 6}, {3, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0}, kLong),
                T({2, 6}, {0, 1, 1, 1, 4, 4, 0, 1, 1, 1, 1, 5}, kLong));
  expect_values(cummax(L(), 0), T({2, 6}, {3, 1, 2, 3, 1, 5, 3, 1, 4, 4, 4, 5}, kLong),
                T({2, 6}, {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0}, kLong));
  expect_values(
      X().t().cummax(-2),
      T({5, 3}, {1.5, kNaN, 2.0, 1.5, kNaN, 2.0, 2.0, kNaN, 2.0, 2.0, kNaN, 2.0, 3.0, kNaN, kNaN},
        kDouble),
      T({5, 3}, {0, 0, 0, 0, 0, 0, 2, 0, 2, 2, 0, 2, 4, 0, 4}, kLong));
  expect_values(
      X().t().cummin(-2),
      T({5, 3},
        {1.5, kNaN, 2.0, -0.5, kNaN, 1.0, -0.5, kNaN, 1.0, -0.5, kNaN, 1.0, -0.5, kNaN, kNaN},
        kDouble),
      T({5, 3}, {0, 0, 0, 1, 0, 1, 1, 0, 1, 3, 0, 3, 3, 0, 4}, kLong));
  expect_values(tensor({false, true, false, true}).cummax(0), T({4}, {0, 1, 1, 1}, kBool),
                T({4}, {0, 1, 1, 3}, kLong));
  expect_values(tensor({true, false, true, false}).cummin(0), T({4}, {1, 0, 0, 0}, kBool),
                T({4}, {0, 1, 1, 3}, kLong));
  expect_values(tensor(2.0f).cummax(0), T({}, {2.0}, kFloat), T({}, {0}, kLong));
  expect_values(empty({0, 2}).cummax(0), T({0, 2}, {}, kFloat), T({0, 2}, {}, kLong));
  expect_values(T({5}, {-kInf, -kInf, 2.0, kInf, kInf}, kFloat).cummax(0),
                T({5}, {-kInf, -kInf, 2.0, kInf, kInf}, kFloat), T({5}, {0, 1, 2, 3, 4}, kLong));
}

TEST(SortOpsTest, Logcumsumexp) {
  const Tensor row = T({3, 5},
                       {1.5, 1.6269280110429725, 2.5239090561799076, 2.5713753196473204,
                        3.5016260581257717, kNaN, kNaN, kNaN, kNaN, kNaN, 2.0, 2.313261687518223,
                        2.8619948040582512, 3.0064088680781684, kNaN},
                       kDouble);
  expect_values(X().logcumsumexp(1), row, 1e-15);
  expect_values(logcumsumexp(X().t(), 0), row.t(), 1e-15);
  // Far below the running value, the pairwise form keeps what exp loses.
  expect_values(T({4}, {-1000.0, 0.0, -kInf, 1000.0}, kDouble).logcumsumexp(0),
                T({4}, {-1000.0, 0.0, 0.0, 1000.0}, kDouble));
  expect_values(T({5}, {-kInf, -kInf, kInf, kInf, 1.0}, kFloat).logcumsumexp(0),
                T({5}, {-kInf, -kInf, kInf, kInf, kInf}, kFloat));
  expect_values(T({2, 2}, {0.5, 1.5, 2.0, -3.0}, kFloat).logcumsumexp(0),
                T({2, 2}, {0.5, 1.5, 2.20141339302063, 1.5110477209091187}, kFloat), 1e-6);
  expect_values(tensor(1.5f).logcumsumexp(0), T({}, {1.5}, kFloat));
  EXPECT_EQ(error_of([] {
              tensor({1, 2}, kLong).logcumsumexp(0);
            }),
            "\"logcumsumexp_out_cpu\" not implemented for 'Long'");
  EXPECT_EQ(error_of([] { tensor({1.0f}).to(kHalf).logcumsumexp(0); }),
            "\"logcumsumexp_out_cpu\" not implemented for 'Half'");
}

Tensor Q() {
  return T({3, 4}, {0.5, 3.0, -1.0, 2.0, 4.0, 1.0, 1.0, 0.0, kNaN, 2.0, 1.0, 3.0}, kDouble);
}

TEST(SortOpsTest, QuantileInterpolations) {
  const Tensor q3 = T({4}, {0.0, 0.3, 0.5, 1.0}, kDouble);
  const Tensor q2 = Q().narrow(0, 0, 2);
  struct Want {
    const char* mode;
    double all;
    std::vector<double> rows, nan_rows;
  };
  const std::vector<Want> wants = {
      {"linear",
       0.9000000000000001,
       {-1.0, 0.0, kNaN, 0.34999999999999987, 0.8999999999999999, kNaN, 1.25, 1.0, kNaN, 3.0, 4.0,
        kNaN},
       {-1.0, 0.0, 1.0, 0.34999999999999987, 0.8999999999999999, 1.6, 1.25, 1.0, 2.0, 3.0, 4.0,
        3.0}},
      {"lower",
       0.5,
       {-1.0, 0.0, kNaN, -1.0, 0.0, kNaN, 0.5, 1.0, kNaN, 3.0, 4.0, kNaN},
       {-1.0, 0.0, 1.0, -1.0, 0.0, 1.0, 0.5, 1.0, 2.0, 3.0, 4.0, 3.0}},
      {"higher",
       1.0,
       {-1.0, 0.0, kNaN, 0.5, 1.0, kNaN, 2.0, 1.0, kNaN, 3.0, 4.0, kNaN},
       {-1.0, 0.0, 1.0, 0.5, 1.0, 2.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0}},
      {"midpoint",
       0.75,
       {-1.0, 0.0, kNaN, -0.25, 0.5, kNaN, 1.25, 1.0, kNaN, 3.0, 4.0, kNaN},
       {-1.0, 0.0, 1.0, -0.25, 0.5, 1.5, 1.25, 1.0, 2.0, 3.0, 4.0, 3.0}},
      {"nearest",
       1.0,
       {-1.0, 0.0, kNaN, 0.5, 1.0, kNaN, 2.0, 1.0, kNaN, 3.0, 4.0, kNaN},
       {-1.0, 0.0, 1.0, 0.5, 1.0, 2.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0}},
  };
  for (const Want& w : wants) {
    SCOPED_TRACE(w.mode);
    expect_values(q2.quantile(0.4, std::nullopt, false, w.mode), T({}, {w.all}, kDouble));
    expect_values(Q().quantile(q3, 1, false, w.mode), T({4, 3}, w.rows, kDouble));
    expect_values(nanquantile(Q(), q3, 1, false, w.mode), T({4, 3}, w.nan_rows, kDouble));
  }
}

TEST(SortOpsTest, Quantile) {
  // nearest rounds half to even, as torch.round.
  expect_values(tensor({0.0f, 1.0f, 2.0f, 3.0f, 4.0f})
                    .quantile(tensor({0.125f, 0.375f, 0.625f}), std::nullopt, false, "nearest"),
                T({3}, {0.0, 2.0, 2.0}, kFloat));
  expect_values(Q().quantile(0.5), T({}, {kNaN}, kDouble));
  expect_values(Q().nanquantile(0.5), T({}, {1.0}, kDouble));
  expect_values(quantile(Q(), 0.25, 0, true), T({1, 4}, {kNaN, 1.5, 0.0, 1.0}, kDouble));
  expect_values(Q().quantile(tensor(0.75, kDouble), -1), T({3}, {2.25, 1.75, kNaN}, kDouble));
  expect_values(Q().narrow(0, 0, 2).quantile(T({2}, {0.0, 0.3}, kDouble), std::nullopt, true),
                T({2, 1, 1}, {-1.0, 0.55}, kDouble));
  expect_values(T({2, 2}, {kNaN, kNaN, 1.0, 2.0}, kFloat).nanquantile(0.5, 1),
                T({2}, {kNaN, 1.5}, kFloat));
  expect_values(tensor({1.0f, 2.0f, 4.0f}).quantile(0.3), T({}, {1.600000023841858}, kFloat));
  expect_values(tensor(3.0f).quantile(0.5, 0), T({}, {3.0}, kFloat));
  // Non-contiguous input along a middle dim.
  expect_values(Q().t().quantile(0.25, 1, true), T({4, 1}, {kNaN, 1.5, 0.0, 1.0}, kDouble));
  EXPECT_EQ(error_of([] {
              tensor({1, 2}, kLong).quantile(0.5);
            }),
            "quantile() input tensor must be either float or double dtype");
  EXPECT_EQ(error_of([] {
              tensor({1.0f, 2.0f}).quantile(1.5);
            }),
            "quantile() q must be in the range [0, 1] but got 1.5");
  EXPECT_EQ(error_of([] {
              tensor({1.0f, 2.0f}).quantile(-0.5);
            }),
            "quantile() q must be in the range [0, 1] but got -0.5");
  EXPECT_EQ(error_of([] {
              tensor({1.0f, 2.0f}).nanquantile(2.0);
            }),
            "quantile() q must be in the range [0, 1] but got 2");
  EXPECT_EQ(error_of([] {
              tensor({1.0f, 2.0f}).quantile(tensor({0.5f, 1.5f}));
            }),
            "quantile() q values must be in the range [0, 1]");
  EXPECT_EQ(error_of([] {
              tensor({1.0f, 2.0f}).quantile(0.5, std::nullopt, false, "foo");
            }),
            "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
            "but got foo");
  EXPECT_EQ(error_of([] { empty({0}).quantile(0.5); }),
            "quantile() input tensor must be non-empty");
  EXPECT_EQ(error_of([] {
              tensor({1.0f, 2.0f}).quantile(tensor({0.5f}).reshape({1, 1}));
            }),
            "quantile() q must be a scalar or 1D tensor");
  EXPECT_EQ(error_of([] {
              tensor({1.0f, 2.0f}).quantile(tensor({0.5}, kDouble));
            }),
            "quantile() q tensor must be same dtype as the input tensor");
}

TEST(SortOpsTest, Aminmax) {
  expect_values(X().aminmax(), T({}, {kNaN}, kDouble), T({}, {kNaN}, kDouble));
  expect_values(aminmax(E()), T({}, {-1.0}, kDouble), T({}, {7.0}, kDouble));
  expect_values(L().aminmax(1), T({2}, {1, 0}, kLong), T({2}, {5, 4}, kLong));
  expect_values(L().aminmax(0, true), T({1, 6}, {0, 0, 2, 3, 1, 0}, kLong),
                T({1, 6}, {3, 1, 4, 4, 4, 5}, kLong));
  expect_values(E().aminmax(std::nullopt, true), T({1, 1}, {-1.0}, kDouble),
                T({1, 1}, {7.0}, kDouble));
  expect_values(E().t().aminmax(-1), T({4}, {2.0, -1.0, 0.5, 1.0}, kDouble),
                T({4}, {4.0, 1.0, 2.0, 7.0}, kDouble));
  expect_values(tensor({true, false}).aminmax(), T({}, {0}, kBool), T({}, {1}, kBool));
  expect_values(tensor(2.0f).aminmax(0), T({}, {2.0}, kFloat), T({}, {2.0}, kFloat));
  expect_values(empty({0, 3}).aminmax(1), T({0}, {}, kFloat), T({0}, {}, kFloat));
  EXPECT_EQ(error_of([] { empty({0}).aminmax(); }),
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
            "identity.");
  EXPECT_EQ(error_of([] {
              empty({0, 3}).aminmax(0);
            }),
            "aminmax: Expected reduction dim 0 to have non-zero size.");
}

TEST(SortOpsTest, Unique) {
  const Tensor u = T({3, 3}, {3, 1, 2, 3, 1, 5, 0, 2, 2}, kLong);
  expect_values(_unique2(u, true, true, true), T({5}, {0, 1, 2, 3, 5}, kLong),
                T({3, 3}, {3, 1, 2, 3, 1, 4, 0, 2, 2}, kLong), T({5}, {1, 2, 3, 2, 1}, kLong));
  expect_values(unique(u, true, true, true), T({5}, {0, 1, 2, 3, 5}, kLong),
                T({3, 3}, {3, 1, 2, 3, 1, 4, 0, 2, 2}, kLong), T({5}, {1, 2, 3, 2, 1}, kLong));
  expect_values(_unique2(u), T({5}, {0, 1, 2, 3, 5}, kLong), T({0}, {}, kLong), T({0}, {}, kLong));
  expect_values(_unique(u, true, true), T({5}, {0, 1, 2, 3, 5}, kLong),
                T({3, 3}, {3, 1, 2, 3, 1, 4, 0, 2, 2}, kLong));
  // Non-contiguous input: the inverse keeps its shape.
  expect_values(std::get<1>(unique(u.t(), true, true)),
                T({3, 3}, {3, 3, 0, 1, 1, 2, 2, 4, 2}, kLong));
  // -0.0 and 0.0 are one value (the first of them kept).
  expect_values(std::get<0>(unique(tensor({2.0f, -0.0f, 0.0f, 2.0f, -INFINITY}))),
                T({3}, {-kInf, -0.0, 2.0}, kFloat));
  const Tensor zeros_first = std::get<0>(unique(tensor({2.0f, -0.0f, 0.0f})));
  EXPECT_TRUE(std::signbit(zeros_first[0].item<float>()));
  // Each NaN apart, after every number (PyTorch 1.13's CPU kernel
  // misplaces and miscounts NaN; see sort_ops.h).
  expect_values(unique(T({4}, {1.0, kNaN, 1.0, kNaN}, kFloat), true, true, true),
                T({3}, {1.0, kNaN, kNaN}, kFloat), T({4}, {0, 1, 0, 2}, kLong),
                T({3}, {2, 1, 1}, kLong));
  expect_values(_unique2(tensor({true, false, true}), true, true, true), T({2}, {0, 1}, kBool),
                T({3}, {1, 0, 1}, kLong), T({2}, {1, 2}, kLong));
  expect_values(_unique2(empty({0}, kLong), true, true, true), T({0}, {}, kLong), T({0}, {}, kLong),
                T({0}, {}, kLong));
  expect_values(_unique2(tensor(int64_t{5}), true, true, true), T({1}, {5}, kLong),
                T({}, {0}, kLong), T({1}, {1}, kLong));
}

TEST(SortOpsTest, UniqueDim) {
  const Tensor ud = T({3, 4}, {1, 2, 1, 1, 0, 3, 0, 1, 1, 2, 1, 1}, kLong);
  expect_values(unique_dim(ud, 0, true, true, true), T({2, 4}, {0, 3, 0, 1, 1, 2, 1, 1}, kLong),
                T({3}, {1, 0, 1}, kLong), T({2}, {1, 2}, kLong));
  expect_values(unique(ud, true, true, true, 1), T({3, 3}, {1, 1, 2, 0, 1, 3, 1, 1, 2}, kLong),
                T({4}, {0, 2, 0, 1}, kLong), T({3}, {2, 1, 1}, kLong));
  // libtorch's unique_dim gives inverse and counts whatever is asked.
  expect_values(unique_dim(ud, -1), T({3, 3}, {1, 1, 2, 0, 1, 3, 1, 1, 2}, kLong),
                T({4}, {0, 2, 0, 1}, kLong), T({3}, {2, 1, 1}, kLong));
  expect_values(std::get<0>(unique_dim(ud.t(), 1)), T({4, 2}, {0, 1, 3, 2, 0, 1, 1, 1}, kLong));
  // ATen swaps dim with the first: the result has the swapped strides.
  const Tensor ut = T({2, 3, 2}, {1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1}, kLong);
  const auto by_last = unique_dim(ut, -1, true, true, true);
  expect_values(by_last, T({2, 3, 2}, {0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 1}, kLong),
                T({2}, {1, 0}, kLong), T({2}, {1, 1}, kLong));
  EXPECT_EQ(std::get<0>(by_last).strides(), IntArrayRef({1, 2, 6}));
  expect_values(unique_dim(empty({0, 3}), 0, true, true, true), T({0, 3}, {}, kFloat),
                T({0}, {}, kLong), T({0}, {}, kLong));
  EXPECT_EQ(error_of([] {
              unique_dim(empty({0, 3}), 1);
            }),
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
  EXPECT_EQ(error_of([] {
              unique_dim(empty({0, 0}), 0);
            }),
            "Number of zero sized dimensions is more than one, so unique cannot be applied ");
}

TEST(SortOpsTest, UniqueConsecutive) {
  expect_values(unique_consecutive(tensor({1, 1, 2, 2, 3, 1, 1, 2}, kLong), true, true),
                T({5}, {1, 2, 3, 1, 2}, kLong), T({8}, {0, 0, 1, 1, 2, 3, 3, 4}, kLong),
                T({5}, {2, 2, 1, 2, 1}, kLong));
  const Tensor u = T({3, 3}, {3, 1, 2, 3, 1, 5, 0, 2, 2}, kLong);
  expect_values(unique_consecutive(u, true, true), T({8}, {3, 1, 2, 3, 1, 5, 0, 2}, kLong),
                T({3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 7}, kLong),
                T({8}, {1, 1, 1, 1, 1, 1, 1, 2}, kLong));
  expect_values(unique_consecutive(u), T({8}, {3, 1, 2, 3, 1, 5, 0, 2}, kLong), T({0}, {}, kLong),
                T({0}, {}, kLong));
  expect_values(unique_consecutive(T({4}, {kNaN, kNaN, 1.0, 1.0}, kFloat), true, true),
                T({3}, {kNaN, kNaN, 1.0}, kFloat), T({4}, {0, 1, 2, 2}, kLong),
                T({3}, {1, 1, 2}, kLong));
  expect_values(unique_consecutive(T({2, 4}, {1, 1, 2, 1, 0, 0, 3, 0}, kLong), true, true, 1),
                T({2, 3}, {1, 2, 1, 0, 3, 0}, kLong), T({4}, {0, 0, 1, 2}, kLong),
                T({3}, {2, 1, 1}, kLong));
  const Tensor ud = T({3, 4}, {1, 2, 1, 1, 0, 3, 0, 1, 1, 2, 1, 1}, kLong);
  expect_values(unique_dim_consecutive(ud, 0, true, true),
                T({3, 4}, {1, 2, 1, 1, 0, 3, 0, 1, 1, 2, 1, 1}, kLong), T({3}, {0, 1, 2}, kLong),
                T({3}, {1, 1, 1}, kLong));
}

// The CPU collapses a 1-d input's runs in one pass: a run's value is its
// first element (signed zeros compare equal), each NaN is a run of its own,
// for every dtype and any stride.
TEST(SortOpsTest, UniqueConsecutiveOnePass) {
  const auto z = unique_consecutive(T({5}, {-0.0, 0.0, 0.0, 1.0, -0.0}, kFloat), true, true);
  expect_values(z, T({3}, {0.0, 1.0, 0.0}, kFloat), T({5}, {0, 0, 0, 1, 2}, kLong),
                T({3}, {3, 1, 1}, kLong));
  EXPECT_TRUE(std::signbit(std::get<0>(z)[0].item<float>()));
  EXPECT_TRUE(std::signbit(std::get<0>(z)[2].item<float>()));
  expect_values(unique_consecutive(T({4}, {1.5, 1.5, kNaN, 2.0}, kBFloat16), true, true),
                T({3}, {1.5, kNaN, 2.0}, kBFloat16), T({4}, {0, 0, 1, 2}, kLong),
                T({3}, {2, 1, 1}, kLong));
  expect_values(unique_consecutive(tensor({true, true, false, true}), false, true),
                T({3}, {1, 0, 1}, kBool), T({0}, {}, kLong), T({3}, {2, 1, 1}, kLong));
  const Tensor u = T({3, 3}, {3, 1, 2, 3, 1, 5, 0, 2, 2}, kLong).t();
  expect_values(unique_consecutive(u, true, true), T({6}, {3, 0, 1, 2, 5, 2}, kLong),
                T({3, 3}, {0, 0, 1, 2, 2, 3, 3, 4, 5}, kLong), T({6}, {2, 1, 2, 2, 1, 1}, kLong));
  expect_values(unique_consecutive(empty({0}), true, true), T({0}, {}, kFloat), T({0}, {}, kLong),
                T({0}, {}, kLong));
}

TEST(SortOpsTest, Histc) {
  const Tensor h = T({8}, {1.0, 2.0, 1.0, 2.5, 4.0, -1.0, kNaN, 3.0}, kDouble);
  expect_values(h.masked_select(h == h).histc(4), T({4}, {1.0, 2.0, 2.0, 2.0}, kDouble));
  expect_values(h.histc(4, 0, 3), T({4}, {1.0, 2.0, 1.0, 2.0}, kDouble));
  expect_values(histc(h, 3, 1, 2), T({3}, {3.0, 0.0, 1.0}, kDouble));
  // NaN counts in the first bin, as in PyTorch 1.13.
  expect_values(T({3}, {kNaN, kNaN, 1.5}, kFloat).histc(3, 1, 2), T({3}, {2.0, 1.0, 0.0}, kFloat));
  // Elements on float edges land where PyTorch's edges put them.
  expect_values(tensor({0.0f, 0.1f, 0.2f, 0.3f, 0.7f, 0.9f, 1.0f}).histc(10, 0, 1),
                T({10}, {1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 2.0}, kFloat));
  expect_values(tensor({2.0f, 2.0f, 2.0f}).histc(4), T({4}, {0.0, 0.0, 3.0, 0.0}, kFloat));
  expect_values(tensor({0.1f, 0.5f, 0.9f, 1.3f, 1.7f, 2.0f, 0.3f}).to(kBFloat16).histc(5),
                T({5}, {2.0, 1.0, 1.0, 1.0, 2.0}, kBFloat16));
  // PyTorch's linspace edges: here its last edge rounds below the maximum,
  // which is then left out.
  expect_values(tensor({-1.74, 0.05, 0.4, 3.06, -1.34, 1.36}, kDouble).histc(7),
                T({7}, {2.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0}, kDouble));
  // Bins by interpolation alone, the division first (Note [histc's bins]):
  // -3.453125 lands in bin 3 though it is below that bin's bfloat16 edge;
  // a float just below an edge may land in the next bin.
  expect_values(
      tensor({-1.703125f, -3.453125f, -7.5f, 2.625f, -8.0f, -0.08984375f}).to(kBFloat16).histc(7),
      T({7}, {2.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0}, kBFloat16));
  const Tensor e = linspace(-1.3, 2.9, 6);
  expect_values(
      cat({e, e.nextafter(full({6}, -1e9f)), e.nextafter(full({6}, 1e9f))}).histc(5, -1.3, 2.9),
      T({5}, {3.0, 2.0, 3.0, 3.0, 5.0}, kFloat));
  expect_values(empty({0}).histc(3), T({3}, {0.0, 0.0, 0.0}, kFloat));
  expect_values(tensor({1.0f, 2.0f, 3.0f, 4.0f}).reshape({2, 2}).t().histc(2),
                T({2}, {2.0, 2.0}, kFloat));
  // PyTorch prints the NaN bounds as -nan here (their sign bit); ember as
  // the data's NaN.
  EXPECT_NE(error_of([&] { h.histc(4); }).find("] is not finite"), std::string::npos);
  EXPECT_EQ(error_of([] {
              tensor({1.0f, INFINITY}).histc(4);
            }),
            "torch.histc: range of [1, inf] is not finite");
  EXPECT_EQ(error_of([] {
              tensor({1, 2}, kLong).histc();
            }),
            "\"histogram_cpu\" not implemented for 'Long'");
  EXPECT_EQ(error_of([] {
              tensor({1.0f, 2.0f}).histc(0);
            }),
            "torch.histogram(): bins must be > 0, but got 0 for dimension 0");
  EXPECT_EQ(error_of([] {
              tensor({1.0f, 2.0f}).histc(4, 3, 1);
            }),
            "torch.histc: max must be larger than min");
}

TEST(SortOpsTest, Bincount) {
  const Tensor b = tensor({1, 3, 1, 0, 5}, kLong);
  expect_values(b.bincount(), T({6}, {1, 2, 0, 1, 0, 1}, kLong));
  expect_values(b.bincount(std::nullopt, 8), T({8}, {1, 2, 0, 1, 0, 1, 0, 0}, kLong));
  expect_values(b.bincount(tensor({0.5f, 1.0f, 2.0f, -1.0f, 0.25f})),
                T({6}, {-1.0, 2.5, 0.0, 1.0, 0.0, 0.25}, kFloat));
  expect_values(bincount(b, tensor({0.5, 1.0, 2.0, -1.0, 0.25}, kDouble)),
                T({6}, {-1.0, 2.5, 0.0, 1.0, 0.0, 0.25}, kDouble));
  expect_values(b.bincount(tensor({1, 2, 3, 4, 5}, kLong)),
                T({6}, {4.0, 4.0, 0.0, 2.0, 0.0, 5.0}, kDouble));
  expect_values(b.to(kInt).bincount(), T({6}, {1, 2, 0, 1, 0, 1}, kLong));
  expect_values(empty({0}, kLong).bincount(std::nullopt, 3), T({3}, {0, 0, 0}, kLong));
  expect_values(empty({0}, kLong).bincount(empty({0}), 2), T({2}, {0, 0}, kLong));
  EXPECT_EQ(error_of([] {
              tensor({1, -1}, kLong).bincount();
            }),
            "bincount only supports 1-d non-negative integral inputs.");
  EXPECT_EQ(error_of([] {
              tensor({1}, kLong).reshape({1, 1}).bincount();
            }),
            "bincount only supports 1-d non-negative integral inputs.");
  EXPECT_EQ(error_of([] { tensor({1.0f}).bincount(); }),
            "\"bincount_cpu\" not implemented for 'Float'");
  EXPECT_EQ(error_of([&] { b.bincount(tensor({1.0f})); }),
            "weights should be 1-d and have the same length as input");
  EXPECT_EQ(error_of([&] { b.bincount(std::nullopt, -1); }), "minlength should be >= 0");
}

// searchsorted / bucketize against PyTorch 1.13 (tools/golden/sort_ops.py "ss"
// and "bucketize" lines).
TEST(SortOpsTest, Searchsorted) {
  const Tensor b = tensor({1.0f, 3.0f, 5.0f, 7.0f, 9.0f});
  const Tensor v = T({2, 3}, {3, 6, 9, 3, 6, kNaN}, kFloat);
  expect_values(searchsorted(b, v), T({2, 3}, {1, 3, 4, 1, 3, 5}, kLong));
  expect_values(searchsorted(b, v, false, true), T({2, 3}, {2, 3, 5, 2, 3, 5}, kLong));
  expect_values(searchsorted(b, v, false, false, "right"), T({2, 3}, {2, 3, 5, 2, 3, 5}, kLong));
  expect_values(searchsorted(b, v, true), T({2, 3}, {1, 3, 4, 1, 3, 5}, kInt));
  expect_values(searchsorted(b, 6), T({}, {3}, kLong));
  expect_values(searchsorted(tensor({1, 3, 5}, kLong), 3.5), T({}, {2}, kLong));
  const Tensor rows = tensor({{1, 3, 5}, {2, 4, 6}}, kLong);
  const Tensor rv = tensor({{3, 6}, {1, 4}}, kLong);
  expect_values(searchsorted(rows, rv), T({2, 2}, {1, 3, 0, 1}, kLong));
  expect_values(searchsorted(rows, rv, false, true), T({2, 2}, {2, 3, 0, 2}, kLong));
  expect_values(searchsorted(tensor({1, 3, 5}, kLong), tensor({2.5f, 3.0f})),
                T({2}, {1, 1}, kLong));
  const Tensor unsorted = tensor({5.0f, 1.0f, 3.0f});
  const Tensor sorter = tensor({1, 2, 0}, kLong);
  expect_values(searchsorted(unsorted, tensor({2.0f, 3.0f}), false, false, std::nullopt, sorter),
                T({2}, {1, 1}, kLong));
  expect_values(searchsorted(unsorted, tensor({2.0f, 3.0f}), false, true, std::nullopt, sorter),
                T({2}, {1, 2}, kLong));
  const Tensor vt = searchsorted(b, v.t());
  expect_values(vt, T({3, 2}, {1, 1, 3, 3, 4, 5}, kLong));
  EXPECT_TRUE(vt.is_contiguous());
  expect_values(searchsorted(b.to(kHalf), v.to(kHalf)), T({2, 3}, {1, 3, 4, 1, 3, 5}, kLong));
  expect_values(searchsorted(empty({0}), tensor({1.0f})), T({1}, {0}, kLong));
  expect_values(searchsorted(b, empty({0})), T({0}, {}, kLong));

  expect_values(bucketize(v, b), T({2, 3}, {1, 3, 4, 1, 3, 5}, kLong));
  expect_values(bucketize(v, b, false, true), T({2, 3}, {2, 3, 5, 2, 3, 5}, kLong));
  expect_values(bucketize(4, b), T({}, {2}, kLong));
  expect_values(bucketize(v, b, true), T({2, 3}, {1, 3, 4, 1, 3, 5}, kInt));
}

TEST(SortOpsTest, SearchsortedErrors) {
  const Tensor b = tensor({1.0f, 3.0f, 5.0f, 7.0f, 9.0f});
  const Tensor v = T({2, 3}, {3, 6, 9, 3, 6, kNaN}, kFloat);
  EXPECT_EQ(error_of([&] { searchsorted(b, v, false, true, "left"); }),
            "torch.searchsorted(): side and right can't be set to opposites, got side of left "
            "while right was True");
  EXPECT_EQ(error_of([&] { searchsorted(b, v, false, false, "middle"); }),
            "torch.searchsorted(): side can only be 'left' or 'right' but got middle");
  EXPECT_EQ(error_of([] {
              searchsorted(ones({2, 3}), ones({3, 3}));
            }),
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            "boundaries tensor [2, 3] and input value tensor [3, 3]");
  EXPECT_EQ(error_of([] { searchsorted(tensor(1.0f), ones({3})); }),
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
            "dimension");
  EXPECT_EQ(error_of([] {
              searchsorted(ones({2, 3}), 1.0);
            }),
            "torch.searchsorted(): input value can be a scalar only when boundaries tensor "
            "dimension is 1, but we got boundaries tensor dim(2) and input value's dim(0) "
            "numel(1)");
  EXPECT_EQ(error_of([&] {
              searchsorted(b, v, false, false, std::nullopt, tensor({0, 1}, kLong));
            }),
            "torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
            "tensor [5]and got sorter tensor [2]");
  EXPECT_EQ(error_of([&] { searchsorted(b, v, false, false, std::nullopt, arange(5, kFloat)); }),
            "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype Float");
  // PyTorch 1.13 reads out of bounds here; ember says so.
  EXPECT_EQ(error_of([&] {
              searchsorted(b, v, false, false, std::nullopt, tensor({0, 1, 2, 3, 7}, kLong));
            }),
            "torch.searchsorted(): sorter index 7 is out of range for a boundary of size 5");
  EXPECT_EQ(error_of([] {
              searchsorted(tensor({false, true}), tensor({true}));
            }),
            "\"searchsorted_out_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([&] {
              bucketize(v, ones({2, 3}));
            }),
            "boundaries tensor must be 1 dimension, but got dim(2)");
}

}  // namespace
}  // namespace ember
