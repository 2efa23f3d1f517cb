#ifndef EMBER_TENSOR_VEC_MATH_H_
#define EMBER_TENSOR_VEC_MATH_H_

// Note [Vectorizable exp and erfc]: float exp written as plain arithmetic,
// without branches or calls, so that the compiler vectorizes the loops
// that call it (8 lanes with AVX2). glibc's expf is a call the compiler
// cannot vectorize without -ffast-math: in a GPT training step on one
// core it was 7% of the time (attention's softmax), where libtorch runs
// Sleef's vectorized one. Double keeps std::exp. GCC vectorizes the loops
// only with -fno-trapping-math (VEC_MATH_COPTS in tensor/BUILD.bazel):
// otherwise it keeps the selects as branches. (GELU's erfc, once here
// too, now vectorizes through libmvec: Note [Vectorized libm].)
//
// exp_f: Cephes' expf (Cody-Waite reduction by ln 2, a degree-6
// polynomial), within 2 ulp of exp over float's range; inf above 88.72,
// denormals then 0 below -87.3, NaN for NaN.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace ember {
namespace detail {

[[gnu::always_inline]] inline float float_from_bits(int32_t i) {
  float f;
  std::memcpy(&f, &i, sizeof f);
  return f;
}

[[gnu::always_inline]] inline float exp_f(float x) {
  const bool nan = x != x;
  const float xc = nan ? 0.f : std::min(std::max(x, -104.f), 89.f);
  // n = round(x / ln 2) (adding and subtracting 1.5 * 2^23 rounds to
  // nearest); r = x - n ln 2 in two parts.
  const float n = (xc * 1.44269504088896341f + 12582912.f) - 12582912.f;
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = p * r * r + r + 1.f;
  // 2^n in two normal factors, so that n in [-150, 128] underflows
  // through the denormals and overflows to inf as exp does.
  const int32_t ni = static_cast<int32_t>(n);
  const int32_t n1 = ni >> 1, n2 = ni - n1;
  const float scaled = y * float_from_bits((n1 + 127) << 23) * float_from_bits((n2 + 127) << 23);
  return nan ? x : scaled;
}

// The same on float, the standard library's on double (for templates).
inline float vec_exp(float x) { return exp_f(x); }
inline double vec_exp(double x) { return std::exp(x); }

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_VEC_MATH_H_
