// special.cu's kernels against the CPU's on the same inputs: the special
// functions (over a range that crosses their poles and switch points), the
// float-format and integer ops over every dtype they take, on contiguous,
// transposed and broadcast operands. Needs a GPU; skips without one.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tensor/all.h"
#include "tensor/cuda/ops_testing.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using ::ember::testing::error_of;
using namespace ::ember::cuda_testing;  // NOLINT

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Poles, infinities, NaN and the algorithms' switch points (digamma's 10,
// the Bessel functions' 30, erfinv's 1/2).
Tensor specials(ScalarType t) {
  return tensor({kNan, kInf, -kInf, 0.0, -0.0, -1.0, -2.5, 0.5, -0.5, 0.999, 10.0, 29.99, 30.0,
                 35.0, 1e-8, 3.7})
      .to(t);
}

template <typename F>
void expect_both_layouts(const Tensor& x, F f, double tol) {
  const Tensor dx = x.to(kCuda);
  expect_matches(f(dx), f(x), tol, tol);
  expect_matches(f(dx.t()), f(x.t()), tol, tol);
}

TEST(CudaSpecialTest, SpecialFunctionsMatchTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    // The CUDA math library's sin/exp/lgamma differ from glibc's by an ulp
    // or two; digamma and polygamma add up many terms.
    const double tol = std::max(rtol_for(t), 1e-10);
    const Tensor a = values({9, 14}, t, 40);
    const Tensor u = values({9, 14}, t, 1);  // erfinv's domain
    expect_both_layouts(
        u, [](const Tensor& x) { return x.erfinv(); }, tol);
    expect_both_layouts(
        a, [](const Tensor& x) { return x.lgamma(); }, tol);
    expect_both_layouts(
        a, [](const Tensor& x) { return x.digamma(); }, tol);
    for (int64_t n : {1, 2, 3}) {
      expect_both_layouts(
          a, [n](const Tensor& x) { return x.polygamma(n); }, tol);
    }
    expect_both_layouts(
        a, [](const Tensor& x) { return x.i0(); }, tol);
    expect_both_layouts(
        a, [](const Tensor& x) { return special_i1(x); }, tol);
    expect_both_layouts(
        a, [](const Tensor& x) { return x.sinc(); }, tol);
    const Tensor s = specials(t);
    const Tensor ds = s.to(kCuda);
    for (auto f :
         {+[](const Tensor& x) { return x.erfinv(); }, +[](const Tensor& x) { return x.lgamma(); },
          +[](const Tensor& x) { return x.digamma(); },
          +[](const Tensor& x) { return x.polygamma(2); }, +[](const Tensor& x) { return x.i0(); },
          +[](const Tensor& x) { return special_i1(x); },
          +[](const Tensor& x) { return x.sinc(); }}) {
      expect_matches(f(ds), f(s), tol, tol);
    }
  }
  // Integers promote to float on the device too.
  const Tensor i = tensor({1, 2, 3}, kLong);
  expect_matches(i.to(kCuda).digamma(), i.digamma(), 1e-6, 1e-6);
}

TEST(CudaSpecialTest, SignbitCopysignHypotNextafter) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t :
       {kByte, kChar, kShort, kInt, kLong, kBool, kHalf, kBFloat16, kFloat, kDouble}) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor x = t == kBool || is_integral(t, false) ? values({5, 7}, t) : specials(t);
    expect_matches(x.to(kCuda).signbit(), x.signbit());
  }
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor a = values({6, 5}, t), b = values({6, 5}, t, 3);
    const Tensor da = a.to(kCuda), db = b.to(kCuda);
    expect_matches(da.copysign(db), a.copysign(b), 0, 0);
    expect_matches(da.t().copysign(db.t()), a.t().copysign(b.t()), 0, 0);
    expect_matches(da.copysign(-0.0), a.copysign(-0.0), 0, 0);
    // Broadcast: a column against the whole.
    expect_matches(da.slice(1, 0, 1).hypot(db), a.slice(1, 0, 1).hypot(b), rtol_for(t), 0);
    if (t != kHalf) {
      expect_matches(da.nextafter(db), a.nextafter(b), 0, 0);
      expect_matches(specials(t).to(kCuda).nextafter(specials(t).flip({0}).to(kCuda)),
                     specials(t).nextafter(specials(t).flip({0})), 0, 0);
    }
  }
  const Tensor h = tensor({1.0}).to(kHalf).to(kCuda);
  EXPECT_NE(error_of([&] { h.nextafter(h); }).find("not implemented for 'Half'"),
            std::string::npos);
}

// igamma / igammac (reduce_ops.h): the same special_math.h code on both
// devices, over a grid crossing every branch (series, continued fraction,
// small-x series) and the edges (0, inf, NaN, negative).
TEST(CudaSpecialTest, IncompleteGammaMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor grid_a = tensor({0.001, 0.3, 1.0, 2.5, 9.9, 25.0, 150.0, 1000.0}, kDouble);
  const Tensor grid_x = tensor({0.0, 1e-5, 0.4, 0.9, 1.05, 3.0, 24.0, 160.0, 990.0}, kDouble);
  const Tensor a = grid_a.view({8, 1}).expand({8, 9}).contiguous();
  const Tensor x = grid_x.view({1, 9}).expand({8, 9}).contiguous();
  const Tensor ea = tensor({0.0, 0.0, 1.0, kInf, kInf, 2.0, -1.0, kNan, 1.0}, kDouble);
  const Tensor ex = tensor({0.0, 1.0, 0.0, 1.0, kInf, kInf, 1.0, 1.0, -0.5}, kDouble);
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    // Float loses digits in lgamma/exp at large a; half/bfloat16 round.
    const double tol = t == kDouble ? 1e-12 : std::max(rtol_for(t), 1e-4);
    const Tensor ta = a.to(t), tx = x.to(t);
    expect_matches(ta.to(kCuda).igamma(tx.to(kCuda)), ta.igamma(tx), tol, tol);
    expect_matches(igammac(ta.to(kCuda).t(), tx.to(kCuda).t()), igammac(ta.t(), tx.t()), tol, tol);
    expect_matches(igamma(ea.to(t).to(kCuda), ex.to(t).to(kCuda)), igamma(ea.to(t), ex.to(t)), 0,
                   0);
    expect_matches(igammac(ea.to(t).to(kCuda), ex.to(t).to(kCuda)), igammac(ea.to(t), ex.to(t)), 0,
                   0);
  }
  EXPECT_NE(error_of([] {
              igamma(tensor({1, 2}, kLong).to(kCuda), tensor({1, 2}, kLong).to(kCuda));
            }).find("not implemented for 'Long'"),
            std::string::npos);
}

TEST(CudaSpecialTest, GcdLcmAndShiftsEveryIntegerDtype) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kByte, kChar, kShort, kInt, kLong}) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor a = values({7, 6}, t, 60), b = values({7, 6}, t, 60);
    const Tensor da = a.to(kCuda), db = b.to(kCuda);
    expect_matches(da.gcd(db), a.gcd(b));
    expect_matches(da.lcm(db), a.lcm(b));
    expect_matches(da.t().gcd(db.t()), a.t().gcd(b.t()));
    // Counts inside and outside the width, negative ones included.
    const Tensor c = values({7, 6}, t, 70);
    expect_matches(da << c.to(kCuda), a << c);
    expect_matches(da >> c.to(kCuda), a >> c);
    expect_matches(da << 3, a << 3);
    expect_matches(da.slice(1, 0, 1) >> c.to(kCuda), a.slice(1, 0, 1) >> c);  // broadcast
  }
}

}  // namespace
}  // namespace ember
