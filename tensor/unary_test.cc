// Unary elementwise ops against PyTorch 1.13 (tools/golden/math.py).

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::check;
using testing::check_error;
using In = std::vector<Tensor>;
using UnaryFn = Tensor (*)(const Tensor&);

struct FloatOp {
  const char* name;
  UnaryFn fn;
};

// Every floating function, each on a transposed float view, an int64 tensor
// (-> default float), a sliced half view and a double tensor.
const FloatOp kFloatOps[] = {
    {"sqrt", &sqrt},   {"rsqrt", &rsqrt},   {"exp", &exp},       {"exp2", &exp2},
    {"expm1", &expm1}, {"log", &log},       {"log2", &log2},     {"log10", &log10},
    {"log1p", &log1p}, {"sin", &sin},       {"cos", &cos},       {"tan", &tan},
    {"asin", &asin},   {"acos", &acos},     {"atan", &atan},     {"sinh", &sinh},
    {"cosh", &cosh},   {"tanh", &tanh},     {"sigmoid", &sigmoid}, {"erf", &erf},
    {"reciprocal", &reciprocal},
};

class FloatUnaryTest : public ::testing::TestWithParam<FloatOp> {};

TEST_P(FloatUnaryTest, TransposedFloat) {
  check(std::string(GetParam().name) + "_float_transposed", [](In& x) { return GetParam().fn(x[0]); });
}
TEST_P(FloatUnaryTest, IntegerBecomesDefaultFloat) {
  check(std::string(GetParam().name) + "_long", [](In& x) { return GetParam().fn(x[0]); });
}
TEST_P(FloatUnaryTest, SlicedHalf) {
  check(std::string(GetParam().name) + "_half", [](In& x) { return GetParam().fn(x[0]); });
}
TEST_P(FloatUnaryTest, Double) {
  check(std::string(GetParam().name) + "_double", [](In& x) { return GetParam().fn(x[0]); });
}

INSTANTIATE_TEST_SUITE_P(AllOps, FloatUnaryTest, ::testing::ValuesIn(kFloatOps),
                         [](const ::testing::TestParamInfo<FloatOp>& info) {
                           return std::string(info.param.name);
                         });

TEST(FloatUnaryMethodTest, MethodsMatchFunctions) {
  check("exp_bool", [](In& x) { return x[0].exp(); });
  check("sqrt_inplace", [](In& x) { return x[0].sqrt_(); });
  check("reciprocal_int_zero", [](In& x) { return x[0].reciprocal(); });
}

TEST(FloatUnaryMethodTest, InPlaceOnIntegerFails) {
  check_error("err_sqrt_inplace_long", [](In& x) { x[0].sqrt_(); });
  check_error("err_sigmoid_inplace_long", [](In& x) { x[0].sigmoid_(); });
}

// Note [Out-of-domain lanes]: the functions whose vector loops replace
// out-of-domain lanes (negative, zero, |x| > 1, infinities, NaN) by a
// constant give C's results there, mixed with ordinary lanes in the same
// vectors, in float and double.
template <typename T>
void expect_guarded_like_libm(ScalarType dtype) {
  const T inf = std::numeric_limits<T>::infinity();
  const T values[] = {T(0),
                      -T(0),
                      T(-1),
                      T(-2),
                      T(1),
                      T(2),
                      T(0.5),
                      T(-0.5),
                      inf,
                      -inf,
                      std::numeric_limits<T>::quiet_NaN(),
                      T(1e-30),
                      T(-1e-30),
                      T(3),
                      T(-1.5),
                      std::numeric_limits<T>::denorm_min()};
  std::vector<double> xs;
  for (int r = 0; r < 5; ++r) {
    for (T v : values) xs.push_back(v);
  }
  const Tensor x = tensor(xs, TensorOptions(kDouble)).to(dtype);
  struct Case {
    const char* name;
    UnaryFn fn;
    T (*libm)(T);
  };
  const Case cases[] = {
      {"log", &log, [](T v) { return std::log(v); }},
      {"log2", &log2, [](T v) { return std::log2(v); }},
      {"log10", &log10, [](T v) { return std::log10(v); }},
      {"log1p", &log1p, [](T v) { return std::log1p(v); }},
      {"asin", &asin, [](T v) { return std::asin(v); }},
      {"acos", &acos, [](T v) { return std::acos(v); }},
      {"acosh", &acosh, [](T v) { return std::acosh(v); }},
      {"atanh", &atanh, [](T v) { return std::atanh(v); }},
  };
  for (const Case& c : cases) {
    const Tensor got = c.fn(x).contiguous();
    const T* g = got.data_ptr<T>();
    for (size_t i = 0; i < xs.size(); ++i) {
      const T want = c.libm(static_cast<T>(xs[i]));
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(g[i])) << c.name << "(" << xs[i] << ") = " << g[i];
      } else if (std::isinf(want) || want == 0) {
        EXPECT_EQ(g[i], want) << c.name << "(" << xs[i] << ")";
        EXPECT_EQ(std::signbit(g[i]), std::signbit(want)) << c.name << "(" << xs[i] << ")";
      } else {
        EXPECT_NEAR(g[i], want, std::fabs(want) * 4 * std::numeric_limits<T>::epsilon())
            << c.name << "(" << xs[i] << ")";
      }
    }
  }
}

TEST(GuardedUnaryTest, OutOfDomainLanesGiveLibmResults) {
  expect_guarded_like_libm<float>(kFloat);
  expect_guarded_like_libm<double>(kDouble);
}

TEST(SigmoidTest, StableAtExtremes) {
  check("sigmoid_extremes", [](In& x) { return sigmoid(x[0]); });
  check("sigmoid_extremes_double", [](In& x) { return x[0].sigmoid(); });
  check("sigmoid_bfloat16", [](In& x) { return sigmoid(x[0]); });
}

TEST(NegTest, Values) {
  check("neg_int", [](In& x) { return neg(x[0]); });
  check("neg_float", [](In& x) { return -x[0]; });
  check("neg_half", [](In& x) { return x[0].neg(); });
  check("neg_uint8", [](In& x) { return negative(x[0]); });
  check("neg_inplace", [](In& x) { return x[0].neg_(); });
  check_error("err_neg_bool", [](In& x) { -x[0]; });
}

TEST(AbsTest, Values) {
  check("abs_int8", [](In& x) { return abs(x[0]); });
  check("abs_float", [](In& x) { return x[0].abs(); });
  check("abs_uint8", [](In& x) { return abs(x[0]); });
  check("abs_bfloat16", [](In& x) { return absolute(x[0]); });
  check_error("err_abs_bool", [](In& x) { abs(x[0]); });
}

TEST(SignTest, Values) {
  check("sign_float", [](In& x) { return sign(x[0]); });
  check("sign_int", [](In& x) { return x[0].sign(); });
  check("sign_uint8", [](In& x) { return sign(x[0]); });
  check("sign_bool", [](In& x) { return sign(x[0]); });
}

struct RoundingOp {
  const char* name;
  UnaryFn fn;
};
const RoundingOp kRoundingOps[] = {
    {"floor", &floor}, {"ceil", &ceil}, {"round", &round}, {"trunc", &trunc}, {"frac", &frac}};

class RoundingTest : public ::testing::TestWithParam<RoundingOp> {};

TEST_P(RoundingTest, Float) {
  check(std::string(GetParam().name) + "_float", [](In& x) { return GetParam().fn(x[0]); });
}
TEST_P(RoundingTest, Double) {
  check(std::string(GetParam().name) + "_double", [](In& x) { return GetParam().fn(x[0]); });
}
TEST_P(RoundingTest, Half) {
  check(std::string(GetParam().name) + "_half", [](In& x) { return GetParam().fn(x[0]); });
}

INSTANTIATE_TEST_SUITE_P(AllOps, RoundingTest, ::testing::ValuesIn(kRoundingOps),
                         [](const ::testing::TestParamInfo<RoundingOp>& info) {
                           return std::string(info.param.name);
                         });

TEST(RoundingIntegerTest, IdentityOnIntegers) {
  check("floor_int", [](In& x) { return floor(x[0]); });
  check("ceil_int", [](In& x) { return x[0].ceil(); });
  check("round_int", [](In& x) { return round(x[0]); });
  check("trunc_int", [](In& x) { return trunc(x[0]); });
  check("floor_inplace_int", [](In& x) { return x[0].floor_(); });
  check("floor_inplace_float", [](In& x) { return x[0].floor_(); });
}

TEST(RoundingIntegerTest, Errors) {
  check_error("err_floor_bool", [](In& x) { floor(x[0]); });
  check_error("err_round_bool", [](In& x) { round(x[0]); });
  check_error("err_ceil_bool", [](In& x) { ceil(x[0]); });
  check_error("err_trunc_bool", [](In& x) { trunc(x[0]); });
  check_error("err_frac_int", [](In& x) { frac(x[0]); });
}

TEST(RoundDecimalsTest, Values) {
  check("round_decimals_2", [](In& x) { return round(x[0], 2); });
  check("round_decimals_neg", [](In& x) { return x[0].round(-1); });
  check("round_decimals_double", [](In& x) { return round(x[0], 3); });
  check_error("err_round_decimals_int", [](In& x) { round(x[0], 1); });
}

TEST(LogicalNotTest, Values) {
  check("logical_not_float", [](In& x) { return logical_not(x[0]); });
  check("logical_not_int", [](In& x) { return x[0].logical_not(); });
  check("logical_not_inplace_float", [](In& x) { return x[0].logical_not_(); });
  check("logical_not_operator", [](In& x) { return !x[0]; });
}

TEST(BitwiseNotTest, Values) {
  check("bitwise_not_int", [](In& x) { return bitwise_not(x[0]); });
  check("bitwise_not_uint8", [](In& x) { return x[0].bitwise_not(); });
  check("bitwise_not_bool", [](In& x) { return ~x[0]; });
  check_error("err_bitwise_not_float", [](In& x) { bitwise_not(x[0]); });
}

}  // namespace
}  // namespace ember
