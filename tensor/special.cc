// tensor/special.h's ops: the CPU kernels (the arithmetic is
// special_math.h's, shared with the CUDA kernels), the dtype rules, and the
// Tensor methods, with PyTorch 1.13's names in "not implemented" errors.

#include "tensor/special.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "tensor/autograd_hook.h"
#include "tensor/composite_ops.h"
#include "tensor/creation.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/loops.h"
#include "tensor/math.h"
#include "tensor/select_bits.h"
#include "tensor/special_kernels.h"
#include "tensor/simd_math.h"
#include "tensor/special_math.h"

namespace ember {

EMBER_DEFINE_KERNEL_TABLE(erfinv_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(lgamma_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(digamma_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(i0_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(special_i1_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(sinc_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(polygamma_kernel, IterScalarKernelFn);
EMBER_DEFINE_KERNEL_TABLE(signbit_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(copysign_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(hypot_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(nextafter_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(gcd_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(lcm_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(lshift_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(rshift_kernel, IterKernelFn);
// reduce_ops.cc's igamma / igammac register their CPU kernels.
EMBER_DEFINE_KERNEL_TABLE(igamma_kernel, IterKernelFn);
EMBER_DEFINE_KERNEL_TABLE(igammac_kernel, IterKernelFn);

namespace {

// --- CPU kernels ---------------------------------------------------------------

// One operand, floating dtypes, computed in the opmath type.
#define EMBER_SPECIAL_UNARY_CPU(op, expr)                                \
  void op##_cpu(TensorIterator& iter) {                                  \
    EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), #op "_cpu", [&] { \
      using acc_t = opmath_t<scalar_t>;                                  \
      cpu_kernel(iter, [](scalar_t in) -> scalar_t {                     \
        const acc_t x = static_cast<acc_t>(in);                          \
        return static_cast<scalar_t>(expr);                              \
      });                                                                \
    });                                                                  \
  }                                                                      \
  EMBER_REGISTER_KERNEL(op##_kernel, kCPU, &op##_cpu);
EMBER_SPECIAL_UNARY_CPU(digamma, special::digamma(x))
EMBER_SPECIAL_UNARY_CPU(i0, special::i0(x))
EMBER_SPECIAL_UNARY_CPU(sinc, special::sinc(x))
#undef EMBER_SPECIAL_UNARY_CPU

// erf^-1 of a float, vectorizable: special::erfinv<float> (a closed form,
// then four or five Newton steps on erf in double, each a libm call that
// kept the loop scalar) took 7598 us for 65536 floats where libtorch's
// scalar loop takes 2241. Here, still in double: Giles' single-precision
// approximation ("Approximating the erfinv function", GPU Computing Gems,
// 2011; relative error below 1.3e-7), then one Halley step on
// f(y) = erf(y) - |x| (cubic convergence: the step's own error is far below
// double's rounding), with f as (1 - |x|) - erfc(y) past |x| = 1/2 (1 - |x|
// is exact, so the tails keep their relative accuracy, as
// special::erfinv's). erf, erfc, exp and log1p go through libmvec (Note
// [Vectorized libm]); |x| >= 1 and NaN lanes reach them as 1/2 (Note
// [Out-of-domain lanes], tensor/unary.cc) and take their value by select.
// Rounded to float this gives special::erfinv<float>'s value: the same
// floats on a sample of 2.1 million (every 997th float of [-1, 1]).
[[gnu::always_inline]] inline float erfinv_float(float in) {
  const double x = in;
  const double ax_in = std::fabs(x);
  const bool inside = ax_in < 1.0;
  const double ax = detail::select_bits<double>(inside, ax_in, 0.5);
  const double w = -std::log1p(-ax * ax);  // ax * ax is exact
  // Both of Giles' polynomials, in w - 2.5 (w < 5) and in sqrt(w) - 3.
  const double u = w - 2.5;
  double p = 2.81022636e-08;
  p = 3.43273939e-07 + p * u;
  p = -3.5233877e-06 + p * u;
  p = -4.39150654e-06 + p * u;
  p = 0.00021858087 + p * u;
  p = -0.00125372503 + p * u;
  p = -0.00417768164 + p * u;
  p = 0.246640727 + p * u;
  p = 1.50140941 + p * u;
  const double v = std::sqrt(w) - 3.0;
  double q = -0.000200214257;
  q = 0.000100950558 + q * v;
  q = 0.00134934322 + q * v;
  q = -0.00367342844 + q * v;
  q = 0.00573950773 + q * v;
  q = -0.0076224613 + q * v;
  q = 0.00943887047 + q * v;
  q = 1.00167406 + q * v;
  q = 2.83297682 + q * v;
  double y = (w < 5.0 ? p : q) * ax;
  const double e = std::erf(y), ec = std::erfc(y);
  const double f = ax <= 0.5 ? e - ax : (1.0 - ax) - ec;
  // f' = 2 / sqrt(pi) exp(-y^2), f'' = -2 y f': y - (f / f') / (1 + y f / f').
  const double step = f / (1.12837916709551257390 * std::exp(-y * y));
  y -= step / (1.0 + y * step);
  float r = static_cast<float>(y);
  r = x < 0 ? -r : r;
  r = x == 0 ? in : r;  // keeps -0
  r = ax_in == 1.0 ? (x < 0 ? -special::inf<float>() : special::inf<float>()) : r;
  return inside | (ax_in == 1.0) ? r : special::nan<float>();  // NaN in, NaN out
}

void erfinv_cpu(TensorIterator& iter) {
  if (iter.common_dtype() == kDouble) {
    cpu_kernel(iter, [](double x) -> double { return special::erfinv(x); });
    return;
  }
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), "erfinv_cpu", [&] {
    cpu_kernel(iter, [](scalar_t in) -> scalar_t {
      return static_cast<scalar_t>(erfinv_float(static_cast<float>(in)));
    });
  });
}
EMBER_REGISTER_KERNEL(erfinv_kernel, kCPU, &erfinv_cpu);

// lgamma of a float, vectorizable: glibc's lgammaf is a scalar call (2086
// us for 65536 normal floats, libtorch's Sleef 821). In double, rounded
// once: lgamma(t) for t = x > 0, or t = 1 - x with the reflection
// lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x) below 0; Stirling's
// series from t = 8, below it the recurrence to z in [1.5, 2.5) (up to six
// factors above z, or one or two below) and the Taylor series of
// lgamma(2 + p) in p = z - 2 (coefficients (-1)^k (zeta(k) - 1) / k, to
// p^25), which keeps the relative accuracy at the zeros 1 and 2; sin(pi x)
// is the Taylor series of the fractional part (exact) so that no lane
// reaches libmvec's sin. Only log goes through libmvec (Note [Vectorized
// libm]), once per element where no lane has both t >= 8 and x < 0 (the
// reflection's log then merges with the recurrence's), twice otherwise.
// The polynomials are split in independent chains (their latency, not the
// log, set the time). On every 1009th float of either sign (4.2 million)
// the result is glibc's double lgamma rounded to float, the correctly
// rounded value (mpmath) where it differs from glibc's lgammaf (12% of
// them, by 1 ulp, up to 4 near the negative zeros); poles, infinities and
// NaN by select, as glibc: +inf at 0, -0, the negative integers and +-inf.
template <bool kTwoLogs>
[[gnu::always_inline]] inline float lgamma_float(float in) {
  const double x = in;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // t = x for x > 0, 1 - x below (the reflection's argument), >= 1 there.
  const bool neg = x < 0.0;
  const double t0 = neg ? 1.0 - x : x;
  const bool finite_t = t0 < kInf;  // also NaN: no
  const double t = detail::select_bits<double>(finite_t & (t0 > 0.0), t0, 2.0);
  // Stirling's series at t >= 8.
  const bool big = t >= 8.0;
  // Below 8: t = z + n (n = 1..6 up from z in [1.5, 2.5)), or z - n (n = 1, 2).
  const double up = std::floor(t - 1.5);  // factors above z: t in [2.5, 8): 1..6
  const double nup = big ? 0.0 : (up > 0.0 ? up : 0.0);
  const double down = t < 0.5 ? 2.0 : (t < 1.5 ? 1.0 : 0.0);
  const double z = t - nup + down;
  double prod = 1.0;
  for (int i = 0; i < 6; ++i) {
    const double f = z + static_cast<double>(i);
    prod *= static_cast<double>(i) < nup ? f : 1.0;
  }
  const double below = down == 2.0 ? t * (t + 1.0) : (down == 1.0 ? t : 1.0);
  const double p = z - 2.0;
  // lgamma(2 + p) = (1 - gamma) p + sum_k (-1)^k (zeta(k) - 1) p^k / k.
  double s0 = 0.002890510330741523285753;
  s0 = -0.007385551028673985266273 + s0 * p;
  s0 = 0.020580808427784547879 + s0 * p;
  s0 = -0.06735230105319809513325 + s0 * p;
  s0 = 0.3224670334241132182362 + s0 * p;
  s0 = 0.4227843350984671393934879 + s0 * p;
  double s1 = 0.00002050721277567069155317;
  s1 = -0.00004492623673813314170021 + s1 * p;
  s1 = 0.0000994575127818085337146 + s1 * p;
  s1 = -0.0002231547584535793797614 + s1 * p;
  s1 = 0.0005096695247430424223357 + s1 * p;
  s1 = -0.001192753911703260977114 + s1 * p;
  double s2 = 2.120718480555466586923e-7;
  s2 = -4.492469198764566043294e-7 + s2 * p;
  s2 = 9.551412130407419832857e-7 + s2 * p;
  s2 = -0.000002039215753801366236782 + s2 * p;
  s2 = 0.000004374866789907487804182 + s2 * p;
  s2 = -0.000009439488275268395903987 + s2 * p;
  double s3 = 2.483674543802478317185e-9;
  s3 = -5.183475041970046655121e-9 + s3 * p;
  s3 = 1.083865921489695409107e-8 + s3 * p;
  s3 = -2.271109460894316491032e-8 + s3 * p;
  s3 = 4.76981016936398056576e-8 + s3 * p;
  s3 = -1.004322482396809960872e-7 + s3 * p;
  double s4 = -1.192140140586091207443e-9;
  const double p2 = p * p, p6 = p2 * p2 * p2, p12 = p6 * p6;
  const double s = (s0 + p6 * s1) + p12 * (s2 + p6 * (s3 + p6 * s4));
  const double small = s * p;
  const double r = 1.0 / t, r2 = r * r;
  double st0 = -0.0005952380952380952380952;
  st0 = 0.0007936507936507936507937 + st0 * r2;
  st0 = -0.002777777777777777777778 + st0 * r2;
  st0 = 0.08333333333333333333333 + st0 * r2;
  double st1 = -0.02955065359477124183007;
  st1 = 0.00641025641025641025641 + st1 * r2;
  st1 = -0.001917526917526917526918 + st1 * r2;
  st1 = 0.0008417508417508417508418 + st1 * r2;
  const double r4 = r2 * r2, r8 = r4 * r4;
  const double st = st0 + r8 * st1;
  // |sin(pi x)| = |sin(pi frac)|, frac in [-1/2, 1/2]: Taylor's series
  // to the term in frac^23 (below 2e-18 of the value).
  const double frac = x - std::nearbyint(x);
  const double f2 = frac * frac;
  double sp0 = -0.007370430945714350777259;
  sp0 = 0.0821458866111282287988 + sp0 * f2;
  sp0 = -0.5992645293207920768877 + sp0 * f2;
  sp0 = 2.550164039877345443856 + sp0 * f2;
  sp0 = -5.167712780049970029246 + sp0 * f2;
  sp0 = 3.141592653589793238463 + sp0 * f2;
  double sp1 = -1.051847171693206445513e-11;
  sp1 = 5.392664662608128489352e-10 + sp1 * f2;
  sp1 = -2.29484289972698731102e-8 + sp1 * f2;
  sp1 = 7.952054001475512784783e-7 + sp1 * f2;
  sp1 = -0.00002191535344783021582738 + sp1 * f2;
  sp1 = 0.0004663028057676125644206 + sp1 * f2;
  const double f4 = f2 * f2, f12 = f4 * f4 * f4;
  const double sp = sp0 + f12 * sp1;
  const double sn = std::fabs(sp * frac);
  const double kPi = 3.14159265358979323846;
  double pos, refl;
  if constexpr (kTwoLogs) {
    const double l = std::log(big ? t : prod / below);
    pos = big ? (t - 0.5) * l - t + 0.9189385332046727417803 + st * r : small + l;
    refl = std::log(kPi / detail::select_bits<double>(neg, sn, 1.0)) - pos;
  } else {
    // No lane has both t >= 8 and x < 0: one log. Below 8 the reflection's
    // log(pi / |sin|) - log(prod / below) is one log of the quotient.
    const double arg = big ? t
                           : (neg ? kPi * below / (detail::select_bits<double>(neg, sn, 1.0) * prod)
                                  : prod / below);
    const double l = std::log(arg);
    pos = big ? (t - 0.5) * l - t + 0.9189385332046727417803 + st * r : small + l;
    refl = l - small;
  }
  double res = neg ? refl : pos;
  res = (t0 == kInf) ? kInf : res;                        // +-inf
  res = (neg & (frac == 0.0)) | (x == 0.0) ? kInf : res;  // poles
  res = x != x ? x : res;
  return static_cast<float>(res);
}

template <typename scalar_t>
void lgamma_run(char** data, const int64_t* strides, int64_t n) {
  if (strides[0] != sizeof(scalar_t) || strides[1] != sizeof(scalar_t)) {
    for (int64_t k = 0; k < n; ++k) {
      *reinterpret_cast<scalar_t*>(data[0] + k * strides[0]) =
          static_cast<scalar_t>(lgamma_float<true>(
              static_cast<float>(*reinterpret_cast<const scalar_t*>(data[1] + k * strides[1]))));
    }
    return;
  }
  scalar_t* out = reinterpret_cast<scalar_t*>(data[0]);
  const scalar_t* in = reinterpret_cast<const scalar_t*>(data[1]);
  constexpr int64_t kBlock = 256;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t m = std::min(kBlock, n - start);
    int two_logs = 0;  // some x <= -7 (t = 1 - x >= 8)
    for (int64_t k = 0; k < m; ++k) two_logs |= static_cast<float>(in[start + k]) <= -7.0f;
    if (two_logs) {
      for (int64_t k = 0; k < m; ++k) {
        out[start + k] =
            static_cast<scalar_t>(lgamma_float<true>(static_cast<float>(in[start + k])));
      }
    } else {
      for (int64_t k = 0; k < m; ++k) {
        out[start + k] =
            static_cast<scalar_t>(lgamma_float<false>(static_cast<float>(in[start + k])));
      }
    }
  }
}

void lgamma_cpu(TensorIterator& iter) {
  if (iter.common_dtype() == kDouble) {
    cpu_kernel(iter, [](double x) -> double { return std::lgamma(x); });
    return;
  }
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), "lgamma_cpu", [&] {
    iter.for_each([](char** data, const int64_t* strides, int64_t n) {
      lgamma_run<scalar_t>(data, strides, n);
    });
  });
}
EMBER_REGISTER_KERNEL(lgamma_kernel, kCPU, &lgamma_cpu);

// special_i1 below |x| = 30, vectorized: special::bessel_i_double's power
// series (a scalar loop of up to 60 steps with an early exit, for each
// element: 2718 us for 65536 floats, libtorch's Chebyshev series 1737) runs
// over a block of elements at once, each step one vectorizable loop, as
// many steps as the block's largest |x| needs. A lane whose own series ends
// earlier takes the extra steps unchanged: the series stops at the first
// term below 1e-17 of the sum (past its largest term: the terms shrink from
// there), less than half an ulp of it, so neither that term nor any later
// one changes the sum, and each lane's value is the scalar loop's bit for
// bit. |x| >= 30, infinities and NaN run the scalar function.
constexpr double kI1SeriesEnd = 30.0;

// The steps special::bessel_i_double's series takes for I1(ax), ax < 30.
int i1_series_steps(double ax) {
  if (!(ax > 0.0)) return 0;  // zero terms
  const double q = 0.25 * ax * ax;
  double term = 0.5 * ax;
  double sum = term;
  for (int k = 1; k < 500; ++k) {
    term *= q / (static_cast<double>(k) * static_cast<double>(k + 1));
    sum += term;
    if (term < 1e-17 * sum) return k;
  }
  return 499;
}

template <typename scalar_t>
void i1_strided(char** data, const int64_t* strides, int64_t n) {
  using acc_t = opmath_t<scalar_t>;
  constexpr int64_t kBlock = 64;
  double x[kBlock], q[kBlock], term[kBlock], sum[kBlock];
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t m = std::min(kBlock, n - start);
    const char* in = data[1] + start * strides[1];
    char* out = data[0] + start * strides[0];
    for (int64_t k = 0; k < m; ++k) {
      x[k] = static_cast<acc_t>(*reinterpret_cast<const scalar_t*>(in + k * strides[1]));
    }
    int bad = 0;
    double amax = 0;
    for (int64_t k = 0; k < m; ++k) {
      const double ax = std::fabs(x[k]);
      const bool ok = ax < kI1SeriesEnd;  // NaN: no
      bad |= !ok;
      const double a = ok ? ax : 0.0;
      q[k] = 0.25 * a * a;
      term[k] = 0.5 * a;
      sum[k] = term[k];
    }
    for (int64_t k = 0; k < m; ++k) {
      const double ax = std::fabs(x[k]);
      amax = ax < kI1SeriesEnd && ax > amax ? ax : amax;
    }
    const int steps = i1_series_steps(amax);
    for (int j = 1; j <= steps; ++j) {
      const double c = static_cast<double>(j) * static_cast<double>(j + 1);
      for (int64_t k = 0; k < m; ++k) {
        term[k] *= q[k] / c;
        sum[k] += term[k];
      }
    }
    for (int64_t k = 0; k < m; ++k) {
      const double r = x[k] < 0 ? -sum[k] : sum[k];
      *reinterpret_cast<scalar_t*>(out + k * strides[0]) =
          static_cast<scalar_t>(static_cast<acc_t>(r));
    }
    if (!bad) continue;
    for (int64_t k = 0; k < m; ++k) {
      if (std::fabs(x[k]) < kI1SeriesEnd) continue;
      *reinterpret_cast<scalar_t*>(out + k * strides[0]) =
          static_cast<scalar_t>(special::i1(static_cast<acc_t>(x[k])));
    }
  }
}

void special_i1_cpu(TensorIterator& iter) {
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), "special_i1_cpu", [&] {
    iter.for_each([](char** data, const int64_t* strides, int64_t n) {
      i1_strided<scalar_t>(data, strides, n);
    });
  });
}
EMBER_REGISTER_KERNEL(special_i1_kernel, kCPU, &special_i1_cpu);

void polygamma_cpu(TensorIterator& iter, const Scalar& n_s) {
  const int64_t n = n_s.toLong();
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), "polygamma_cpu", [&] {
    using acc_t = opmath_t<scalar_t>;
    cpu_kernel(iter, [n](scalar_t in) -> scalar_t {
      return static_cast<scalar_t>(special::polygamma(n, static_cast<acc_t>(in)));
    });
  });
}
EMBER_REGISTER_KERNEL(polygamma_kernel, kCPU, &polygamma_cpu);

// The sign bit of one value (a template, so that the branches for other
// types are discarded: comparing a bool with 0 warns).
template <typename T>
bool sign_bit(T in) {
  if constexpr (std::is_same<T, bool>::value || std::is_unsigned<T>::value) {
    return false;
  } else if constexpr (std::is_integral<T>::value) {
    return in < 0;
  } else if constexpr (std::is_same<T, double>::value) {
    // The bit itself: GCC 12 fails to vectorize std::signbit at -O3
    // (internal compiler error in extract_insn).
    uint64_t u;
    std::memcpy(&u, &in, sizeof(u));
    return (u >> 63) != 0;
  } else {
    return (special::float_bits(static_cast<float>(in)) >> 31) != 0;
  }
}

void signbit_cpu(TensorIterator& iter) {
  EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), "signbit_cpu", [&] {
    cpu_kernel(iter, [](scalar_t in) -> bool { return sign_bit(in); });
  });
}
EMBER_REGISTER_KERNEL(signbit_kernel, kCPU, &signbit_cpu);

#define EMBER_SPECIAL_BINARY_CPU(op, expr)                                      \
  void op##_cpu(TensorIterator& iter) {                                         \
    EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), #op "_cpu", [&] {        \
      using acc_t = opmath_t<scalar_t>;                                         \
      cpu_kernel(iter, [](scalar_t a_in, scalar_t b_in) -> scalar_t {           \
        const acc_t a = static_cast<acc_t>(a_in), b = static_cast<acc_t>(b_in); \
        return static_cast<scalar_t>(expr);                                     \
      });                                                                       \
    });                                                                         \
  }                                                                             \
  EMBER_REGISTER_KERNEL(op##_kernel, kCPU, &op##_cpu);
EMBER_SPECIAL_BINARY_CPU(copysign, std::copysign(a, b))
EMBER_SPECIAL_BINARY_CPU(hypot, std::hypot(a, b))
#undef EMBER_SPECIAL_BINARY_CPU

// C's nextafter on the bits, branch-free so that the loop vectorizes
// (glibc's nextafterf is a scalar call: 880 us for 65536 floats, libtorch's
// Sleef 55 us). A nonzero a moves one step in magnitude: up where it moves
// away from zero (a < b for a positive a, a > b for a negative one), down
// otherwise; zero becomes the smallest subnormal with b's sign; a == b gives
// b (so nextafter(0, -0) is -0) and a NaN gives NaN.
template <typename T, typename U>
T nextafter_bits(T a, T b) {
  static_assert(sizeof(T) == sizeof(U), "nextafter_bits: U is T's bits");
  U ua, ub;
  std::memcpy(&ua, &a, sizeof(T));
  std::memcpy(&ub, &b, sizeof(T));
  constexpr U kSign = U{1} << (8 * sizeof(U) - 1);
  U r = (a < b) == (a > 0) ? U(ua + 1) : U(ua - 1);
  r = a == 0 ? U((ub & kSign) | 1) : r;
  T out;
  std::memcpy(&out, &r, sizeof(T));
  out = a == b ? b : out;
  return (a != a) | (b != b) ? a + b : out;
}

void nextafter_cpu(TensorIterator& iter) {
  const ScalarType t = iter.common_dtype();
  if (t == kBFloat16) {
    cpu_kernel(iter, [](BFloat16 a, BFloat16 b) -> BFloat16 {
      return static_cast<BFloat16>(
          special::nextafter_bfloat16(static_cast<float>(a), static_cast<float>(b)));
    });
    return;
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(t, "nextafter_cpu", [&] {
    using bits_t = std::conditional_t<sizeof(scalar_t) == 4, uint32_t, uint64_t>;
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
      return nextafter_bits<scalar_t, bits_t>(a, b);
    });
  });
}
EMBER_REGISTER_KERNEL(nextafter_kernel, kCPU, &nextafter_cpu);

#define EMBER_INTEGER_BINARY_CPU(op, name, fn)                                       \
  void op##_cpu(TensorIterator& iter) {                                              \
    EMBER_DISPATCH_INTEGRAL_TYPES(iter.common_dtype(), name, [&] {                   \
      cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return fn(a, b); }); \
    });                                                                              \
  }                                                                                  \
  EMBER_REGISTER_KERNEL(op##_kernel, kCPU, &op##_cpu);
EMBER_INTEGER_BINARY_CPU(gcd, "gcd_cpu", special::gcd)
EMBER_INTEGER_BINARY_CPU(lcm, "lcm_cpu", special::lcm)
EMBER_INTEGER_BINARY_CPU(lshift, "lshift_cpu", special::shift_left)
EMBER_INTEGER_BINARY_CPU(rshift, "rshift_cpu", special::shift_right)
#undef EMBER_INTEGER_BINARY_CPU

// --- dtype rules and recording ---------------------------------------------------

// out = op(self) over floating dtypes (integers and bool promote), recorded
// as `name`; a defined `out` is self, in place.
Tensor float_unary(const char* name, const KernelTable<IterKernelFn>& table, const Tensor& out,
                   const Tensor& self) {
  return detail::record_out_op(
      name, out, {self},
      [&] {
        IterConfig c;
        c.promote_integer_inputs_to_float = true;
        TensorIterator iter = TensorIterator::unary_op(out, self, c);
        table(iter.device_type())(iter);
        return iter.output();
      },
      detail::no_args);
}

Tensor polygamma_out(const Tensor& out, int64_t n, const Tensor& self) {
  EMBER_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
  return detail::record_out_op(
      "polygamma", out, {self},
      [&] {
        IterConfig c;
        c.promote_integer_inputs_to_float = true;
        TensorIterator iter = TensorIterator::unary_op(out, self, c);
        polygamma_kernel(iter.device_type())(iter, Scalar(n));
        return iter.output();
      },
      [&] { return OpArgs{Scalar(n)}; });
}

// out = op(a, b) (a defined `out` is a, in place), recorded as `name` when
// `name` is not null.
Tensor binary(const char* name, const KernelTable<IterKernelFn>& table, const Tensor& out,
              const Tensor& a, const Tensor& b, bool to_float) {
  auto fwd = [&] {
    IterConfig c;
    c.promote_integer_inputs_to_float = to_float;
    TensorIterator iter = TensorIterator::binary_op(out, a, b, c);
    table(iter.device_type())(iter);
    return iter.output();
  };
  if (name == nullptr) return fwd();
  return detail::record_out_op(name, out, {a, b}, fwd, detail::no_args);
}

// The shifts and gcd/lcm refuse floating operands (after promotion) with
// PyTorch's "not implemented" name; bool with bool reaches the kernel and is
// refused there.
Tensor integer_binary(const char* kernel_name, const KernelTable<IterKernelFn>& table,
                      const Tensor& out, const Tensor& a, const Tensor& b) {
  const ScalarType t = result_type(a, b);
  if (!is_integral(t, /*include_bool=*/true)) detail::throw_not_implemented(kernel_name, t);
  return binary(nullptr, table, out, a, b, false);
}

// self <- result for an in-place form made of other ops, with the
// iterator's error when self's dtype cannot hold the result's.
Tensor& assign_result(const Tensor& self, const Tensor& result) {
  EMBER_CHECK(can_cast(result.dtype(), self.dtype()), "result type ",
              scalar_type_name(result.dtype()), " can't be cast to the desired output type ",
              scalar_type_name(self.dtype()));
  Tensor& mut = const_cast<Tensor&>(self);
  mut.copy_(result);
  return mut;
}

Tensor value_test(const Tensor& self, double inf) {
  if (!is_floating_point(self.dtype())) return zeros_like(self, kBool);
  return self == inf;
}

}  // namespace

// --- free functions ----------------------------------------------------------------

Tensor erfinv(const Tensor& self) { return float_unary("erfinv", erfinv_kernel, Tensor(), self); }
Tensor lgamma(const Tensor& self) { return float_unary("lgamma", lgamma_kernel, Tensor(), self); }
Tensor digamma(const Tensor& self) {
  return float_unary("digamma", digamma_kernel, Tensor(), self);
}
Tensor polygamma(int64_t n, const Tensor& self) { return polygamma_out(Tensor(), n, self); }
Tensor i0(const Tensor& self) { return float_unary("i0", i0_kernel, Tensor(), self); }
Tensor special_i1(const Tensor& self) {
  return float_unary("special_i1", special_i1_kernel, Tensor(), self);
}
Tensor sinc(const Tensor& self) { return float_unary("sinc", sinc_kernel, Tensor(), self); }

Tensor signbit(const Tensor& self) {
  IterConfig c;
  c.output_dtype = kBool;
  TensorIterator iter = TensorIterator::unary_op(Tensor(), self, c);
  signbit_kernel(iter.device_type())(iter);
  return iter.output();
}

Tensor copysign(const Tensor& self, const Tensor& other) {
  return binary("copysign", copysign_kernel, Tensor(), self, other, true);
}
Tensor copysign(const Tensor& self, const Scalar& other) {
  return binary("copysign_scalar", copysign_kernel, Tensor(), self, wrapped_scalar_tensor(other),
                true);
}
Tensor hypot(const Tensor& self, const Tensor& other) {
  return binary("hypot", hypot_kernel, Tensor(), self, other, false);
}
Tensor nextafter(const Tensor& self, const Tensor& other) {
  return binary("nextafter", nextafter_kernel, Tensor(), self, other, false);
}
Tensor ldexp(const Tensor& self, const Tensor& other) { return self * pow(Scalar(2.0), other); }

Tensor float_power(const Tensor& self, const Tensor& exponent) {
  return pow(self.to(kDouble), exponent.to(kDouble));
}
Tensor float_power(const Tensor& self, const Scalar& exponent) {
  return pow(self.to(kDouble), exponent);
}
Tensor float_power(const Scalar& self, const Tensor& exponent) {
  return pow(self, exponent.to(kDouble));
}

Tensor gcd(const Tensor& self, const Tensor& other) {
  return integer_binary("gcd_cpu", gcd_kernel, Tensor(), self, other);
}
Tensor lcm(const Tensor& self, const Tensor& other) {
  return integer_binary("lcm_cpu", lcm_kernel, Tensor(), self, other);
}

Tensor bitwise_left_shift(const Tensor& self, const Tensor& other) {
  return integer_binary("lshift_cpu", lshift_kernel, Tensor(), self, other);
}
Tensor bitwise_left_shift(const Tensor& self, const Scalar& other) {
  return bitwise_left_shift(self, wrapped_scalar_tensor(other));
}
Tensor bitwise_left_shift(const Scalar& self, const Tensor& other) {
  return bitwise_left_shift(wrapped_scalar_tensor(self), other);
}
Tensor bitwise_right_shift(const Tensor& self, const Tensor& other) {
  return integer_binary("rshift_cpu", rshift_kernel, Tensor(), self, other);
}
Tensor bitwise_right_shift(const Tensor& self, const Scalar& other) {
  return bitwise_right_shift(self, wrapped_scalar_tensor(other));
}
Tensor bitwise_right_shift(const Scalar& self, const Tensor& other) {
  return bitwise_right_shift(wrapped_scalar_tensor(self), other);
}
Tensor operator<<(const Tensor& self, const Tensor& other) {
  return bitwise_left_shift(self, other);
}
Tensor operator<<(const Tensor& self, const Scalar& other) {
  return bitwise_left_shift(self, other);
}
Tensor operator>>(const Tensor& self, const Tensor& other) {
  return bitwise_right_shift(self, other);
}
Tensor operator>>(const Tensor& self, const Scalar& other) {
  return bitwise_right_shift(self, other);
}

Tensor isposinf(const Tensor& self) { return value_test(self, special::inf<double>()); }
Tensor isneginf(const Tensor& self) { return value_test(self, -special::inf<double>()); }
Tensor isreal(const Tensor& self) { return ones_like(self, kBool); }

// --- methods -------------------------------------------------------------------------

#define EMBER_FLOAT_UNARY_METHODS(op)                      \
  Tensor Tensor::op() const { return ::ember::op(*this); } \
  Tensor& Tensor::op##_() const {                          \
    float_unary(#op, op##_kernel, mut(), mut());           \
    return mut();                                          \
  }
EMBER_FLOAT_UNARY_METHODS(erfinv)
EMBER_FLOAT_UNARY_METHODS(lgamma)
EMBER_FLOAT_UNARY_METHODS(digamma)
EMBER_FLOAT_UNARY_METHODS(i0)
EMBER_FLOAT_UNARY_METHODS(sinc)
#undef EMBER_FLOAT_UNARY_METHODS

Tensor Tensor::polygamma(int64_t n) const { return ::ember::polygamma(n, *this); }
Tensor& Tensor::polygamma_(int64_t n) const {
  polygamma_out(mut(), n, mut());
  return mut();
}
Tensor Tensor::signbit() const { return ::ember::signbit(*this); }

Tensor Tensor::copysign(const Tensor& other) const { return ::ember::copysign(*this, other); }
Tensor Tensor::copysign(const Scalar& other) const { return ::ember::copysign(*this, other); }
Tensor& Tensor::copysign_(const Tensor& other) const {
  binary("copysign", copysign_kernel, mut(), mut(), other, true);
  return mut();
}
Tensor& Tensor::copysign_(const Scalar& other) const {
  binary("copysign_scalar", copysign_kernel, mut(), mut(), wrapped_scalar_tensor(other), true);
  return mut();
}
Tensor Tensor::hypot(const Tensor& other) const { return ::ember::hypot(*this, other); }
Tensor& Tensor::hypot_(const Tensor& other) const {
  binary("hypot", hypot_kernel, mut(), mut(), other, false);
  return mut();
}
Tensor Tensor::nextafter(const Tensor& other) const { return ::ember::nextafter(*this, other); }
Tensor& Tensor::nextafter_(const Tensor& other) const {
  binary("nextafter", nextafter_kernel, mut(), mut(), other, false);
  return mut();
}
Tensor Tensor::ldexp(const Tensor& other) const { return ::ember::ldexp(*this, other); }
Tensor& Tensor::ldexp_(const Tensor& other) const { return mul_(::ember::pow(Scalar(2.0), other)); }

Tensor Tensor::float_power(const Tensor& exponent) const {
  return ::ember::float_power(*this, exponent);
}
Tensor Tensor::float_power(const Scalar& exponent) const {
  return ::ember::float_power(*this, exponent);
}
namespace {
void check_float_power_inplace(const Tensor& self) {
  EMBER_CHECK(self.dtype() == kDouble, "the base given to float_power_ has dtype ",
              scalar_type_name(self.dtype()), " but the operation's result requires dtype Double");
}
}  // namespace
Tensor& Tensor::float_power_(const Tensor& exponent) const {
  check_float_power_inplace(*this);
  return pow_(exponent.to(kDouble));
}
Tensor& Tensor::float_power_(const Scalar& exponent) const {
  check_float_power_inplace(*this);
  return pow_(exponent);
}

Tensor Tensor::gcd(const Tensor& other) const { return ::ember::gcd(*this, other); }
Tensor& Tensor::gcd_(const Tensor& other) const {
  integer_binary("gcd_cpu", gcd_kernel, mut(), mut(), other);
  return mut();
}
Tensor Tensor::lcm(const Tensor& other) const { return ::ember::lcm(*this, other); }
Tensor& Tensor::lcm_(const Tensor& other) const {
  integer_binary("lcm_cpu", lcm_kernel, mut(), mut(), other);
  return mut();
}

Tensor Tensor::bitwise_left_shift(const Tensor& other) const {
  return ::ember::bitwise_left_shift(*this, other);
}
Tensor Tensor::bitwise_left_shift(const Scalar& other) const {
  return ::ember::bitwise_left_shift(*this, other);
}
Tensor& Tensor::bitwise_left_shift_(const Tensor& other) const {
  integer_binary("lshift_cpu", lshift_kernel, mut(), mut(), other);
  return mut();
}
Tensor& Tensor::bitwise_left_shift_(const Scalar& other) const {
  return bitwise_left_shift_(wrapped_scalar_tensor(other));
}
Tensor Tensor::bitwise_right_shift(const Tensor& other) const {
  return ::ember::bitwise_right_shift(*this, other);
}
Tensor Tensor::bitwise_right_shift(const Scalar& other) const {
  return ::ember::bitwise_right_shift(*this, other);
}
Tensor& Tensor::bitwise_right_shift_(const Tensor& other) const {
  integer_binary("rshift_cpu", rshift_kernel, mut(), mut(), other);
  return mut();
}
Tensor& Tensor::bitwise_right_shift_(const Scalar& other) const {
  return bitwise_right_shift_(wrapped_scalar_tensor(other));
}

Tensor Tensor::isposinf() const { return ::ember::isposinf(*this); }
Tensor Tensor::isneginf() const { return ::ember::isneginf(*this); }
Tensor Tensor::isreal() const { return ::ember::isreal(*this); }

Tensor& Tensor::sgn_() const { return assign_result(*this, ::ember::sgn(*this)); }
Tensor& Tensor::deg2rad_() const { return assign_result(*this, ::ember::deg2rad(*this)); }
Tensor& Tensor::rad2deg_() const { return assign_result(*this, ::ember::rad2deg(*this)); }
Tensor& Tensor::logit_(std::optional<double> eps) const {
  return assign_result(*this, ::ember::logit(*this, eps));
}
Tensor& Tensor::xlogy_(const Tensor& other) const {
  return assign_result(*this, ::ember::xlogy(*this, other));
}
Tensor& Tensor::xlogy_(const Scalar& other) const {
  return assign_result(*this, ::ember::xlogy(*this, other));
}
Tensor& Tensor::heaviside_(const Tensor& values) const {
  return assign_result(*this, ::ember::heaviside(*this, values));
}

}  // namespace ember
