// Note [Vectorizable exp and erfc]: exp_f against double
// precision over float's range, at their edges, and for NaN and inf.
#include "tensor/vec_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace ember {
namespace {

using detail::exp_f;

// Distance in units in the last place of float between got and the
// double want rounded to float (want must be finite).
double ulps(float got, double want) {
  const float w = static_cast<float>(want);
  if (got == w) return 0;
  const float up = std::nextafter(std::fabs(w), std::numeric_limits<float>::infinity());
  const double ulp = static_cast<double>(up) - std::fabs(static_cast<double>(w));
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

// Every 97th float between lo and hi, by bit pattern (both signs).
std::vector<float> sweep(float lo, float hi) {
  std::vector<float> xs;
  for (float x = lo; x < hi;) {
    xs.push_back(x);
    int32_t bits;
    std::memcpy(&bits, &x, 4);
    bits += x < 0 ? -97 : 97;
    if (x < 0 && bits < static_cast<int32_t>(0x80000000u + 97)) {
      x = 0;
      continue;
    }
    std::memcpy(&x, &bits, 4);
  }
  return xs;
}

TEST(VecMath, ExpWithinTwoUlpOverTheNormalRange) {
  double worst = 0;
  for (float x : sweep(-87.3f, 88.7f)) {
    const double e = ulps(exp_f(x), std::exp(static_cast<double>(x)));
    if (e > worst) worst = e;
    ASSERT_LE(e, 2.0) << x;
  }
  EXPECT_GT(worst, 0.0);  // the sweep did compare something
}

TEST(VecMath, ExpEdges) {
  EXPECT_EQ(exp_f(0.f), 1.f);
  EXPECT_EQ(exp_f(89.f), std::numeric_limits<float>::infinity());
  EXPECT_EQ(exp_f(std::numeric_limits<float>::infinity()), std::numeric_limits<float>::infinity());
  EXPECT_EQ(exp_f(-std::numeric_limits<float>::infinity()), 0.f);
  EXPECT_EQ(exp_f(-104.f), 0.f);
  EXPECT_EQ(exp_f(-1000.f), 0.f);
  EXPECT_TRUE(std::isnan(exp_f(std::numeric_limits<float>::quiet_NaN())));
  // Denormal results, within an ulp of the smallest denormal.
  for (float x : {-88.f, -95.5f, -100.f, -103.f}) {
    EXPECT_NEAR(exp_f(x), std::exp(static_cast<double>(x)), 1.5e-45) << x;
  }
  const double big = std::exp(static_cast<double>(88.7f));
  EXPECT_NEAR(exp_f(88.7f), big, big * 2.4e-7);
}

// Loops over arrays (the shape the compiler vectorizes) give what the
// scalar calls give, element for element.
TEST(VecMath, ArrayLoopsMatchScalarCalls) {
  std::vector<float> x = sweep(-20.f, 20.f), e(x.size());
  for (size_t i = 0; i < x.size(); ++i) e[i] = exp_f(x[i]);
  for (size_t i = 0; i < x.size(); i += 101) {
    volatile float xi = x[i];
    EXPECT_EQ(e[i], exp_f(xi)) << x[i];
  }
}

}  // namespace
}  // namespace ember
