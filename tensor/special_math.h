#ifndef EMBER_TENSOR_SPECIAL_MATH_H_
#define EMBER_TENSOR_SPECIAL_MATH_H_

// The special functions behind tensor/special.cc's ops (digamma, polygamma,
// erfinv, i0/i1, sinc), reduce_ops.cc's igamma/igammac, and the integer
// ones (gcd, lcm, bit shifts), shared
// by the CPU kernels and the CUDA ones (tensor/cuda/special.cu, which nvcc
// compiles with this header as an extra input, as int_pow.h). Header-only
// and free of ember's other headers so that nvcc can compile it for the
// device. T is float or double: the CPU and the GPU compute in the same
// type, with the same steps, so they agree to rounding.
//
// The algorithms are the textbook ones PyTorch's also uses (reflection,
// recurrence and an asymptotic series for digamma and trigamma;
// Euler-Maclaurin summation for the Hurwitz zeta function), so that the
// values at poles and non-finite points are PyTorch's: digamma(+0) = -inf,
// digamma(-0) = +inf, NaN at negative integers; trigamma(-1) is large and
// finite (sin(pi * -1) is not exactly 0), as PyTorch's.

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__CUDACC__)
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif

namespace ember {
namespace special {

template <typename T>
EMBER_HOST_DEVICE inline T pi() {
  return static_cast<T>(3.14159265358979323846264338327950288);
}
// (numeric_limits' members are host functions to nvcc.)
template <typename T>
EMBER_HOST_DEVICE inline T inf() {
  return static_cast<T>(HUGE_VAL);
}
template <typename T>
EMBER_HOST_DEVICE inline T nan() {
  return static_cast<T>(NAN);
}
template <typename T>
EMBER_HOST_DEVICE inline T epsilon() {
  return std::is_same<T, float>::value ? static_cast<T>(FLT_EPSILON) : static_cast<T>(DBL_EPSILON);
}

// psi(x) = d/dx log Gamma(x).
template <typename T>
EMBER_HOST_DEVICE inline T digamma(T x) {
  if (x == T(0)) return std::copysign(inf<T>(), -x);  // the pole, signed as PyTorch
  T result = 0;
  if (x < T(0)) {
    if (x == std::trunc(x)) return nan<T>();  // negative integers; also -inf
    // psi(x) = psi(1 - x) - pi / tan(pi x), with x's fractional part in the
    // tangent for accuracy, and in double (as PyTorch): pi * 0.5f is not
    // pi / 2, and float's tan there is 2e7 where the answer is 0.
    const double frac = static_cast<double>(x) - std::trunc(static_cast<double>(x));
    result = static_cast<T>(-pi<double>() / std::tan(pi<double>() * frac));
    x = T(1) - x;
  }
  while (x < T(10)) {
    result -= T(1) / x;
    x += T(1);
  }
  if (x == T(10)) return result + static_cast<T>(2.25175258906672110764);  // psi(10)
  // psi(x) ~ log x - 1/(2x) - sum_k B_2k / (2k x^2k), seven terms.
  T series = 0;
  if (x < static_cast<T>(1e17)) {
    const T z = T(1) / (x * x);
    // B_2k / 2k for k = 7 .. 1 (Horner's order).
    const T c[] = {static_cast<T>(1.0 / 12),  static_cast<T>(-691.0 / 32760),
                   static_cast<T>(1.0 / 132), static_cast<T>(-1.0 / 240),
                   static_cast<T>(1.0 / 252), static_cast<T>(-1.0 / 120),
                   static_cast<T>(1.0 / 12)};
    T p = c[0];
    for (int i = 1; i < 7; ++i) p = p * z + c[i];
    series = z * p;
  }
  return result + std::log(x) - T(0.5) / x - series;
}

// psi'(x): reflection below 1/2, six steps of the recurrence, then the
// asymptotic series 1/x + 1/(2x^2) + sum_k B_2k / x^(2k+1).
template <typename T>
EMBER_HOST_DEVICE inline T trigamma(T x) {
  T sign = 1;
  T result = 0;
  if (x < T(0.5)) {
    sign = -1;
    const T s = std::sin(pi<T>() * x);
    result -= pi<T>() * pi<T>() / (s * s);
    x = T(1) - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += T(1) / (x * x);
    x += T(1);
  }
  const T ixx = T(1) / (x * x);
  result += (T(1) + T(1) / (T(2) * x) +
             ixx * (T(1) / T(6) - ixx * (T(1) / T(30) - ixx * (T(1) / T(42))))) /
            x;
  return sign * result;
}

// The Hurwitz zeta function sum_k (k + q)^-s for s > 1 by Euler-Maclaurin
// summation: at least nine terms directly (until q + k > 9), then the
// integral, half the last term, and up to twelve Bernoulli corrections.
// Poles (q a non-positive integer) give inf; q < 0 with a non-integer s NaN.
template <typename T>
EMBER_HOST_DEVICE inline T zeta(T s, T q) {
  const T eps = epsilon<T>();
  if (s == T(1)) return inf<T>();
  if (s < T(1)) return nan<T>();
  if (q <= T(0)) {
    if (q == std::floor(q)) return inf<T>();
    if (s != std::floor(s)) return nan<T>();  // q^-s is not real
  }
  // (2k)! / B_2k for k = 1 .. 12.
  const T a[] = {static_cast<T>(12.0),
                 static_cast<T>(-720.0),
                 static_cast<T>(30240.0),
                 static_cast<T>(-1209600.0),
                 static_cast<T>(47900160.0),
                 static_cast<T>(-1.8924375803183791606e9),
                 static_cast<T>(7.47242496e10),
                 static_cast<T>(-2.950130727918164224e12),
                 static_cast<T>(1.1646782814350067249e14),
                 static_cast<T>(-4.5979787224074726105e15),
                 static_cast<T>(1.8152105401943546773e17),
                 static_cast<T>(-7.1661652561756670113e18)};
  T sum = std::pow(q, -s);
  T term = 0;
  T at = q;
  int i = 0;
  while (i < 9 || at <= T(9)) {
    ++i;
    at += T(1);
    term = std::pow(at, -s);
    sum += term;
    if (std::fabs(term / sum) < eps) return sum;
  }
  const T w = at;
  sum += term * w / (s - T(1));
  sum -= T(0.5) * term;
  T rising = 1;  // s (s + 1) ... (s + 2k - 2)
  T k = 0;
  for (int j = 0; j < 12; ++j) {
    rising *= s + k;
    term /= w;
    const T t = rising * term / a[j];
    sum += t;
    if (std::fabs(t / sum) < eps) return sum;
    k += T(1);
    rising *= s + k;
    term /= w;
    k += T(1);
  }
  return sum;
}

// The n-th derivative of digamma (n >= 0; the op checks the sign). The zeta
// sum is taken in double whatever T (PyTorch's CPU accumulates it in
// double: in float, its terms underflow and its cancellations lose digits).
template <typename T>
EMBER_HOST_DEVICE inline T polygamma(int64_t n, T x) {
  if (n == 0) return digamma(x);
  if (n == 1) return trigamma(x);
  const T nn = static_cast<T>(n);
  const T sign = (n % 2) ? T(1) : T(-1);
  const T z = static_cast<T>(zeta(static_cast<double>(n) + 1.0, static_cast<double>(x)));
  return sign * std::exp(std::lgamma(nn + T(1))) * z;
}

// erf^-1 on [-1, 1]: Winitzki's closed form (relative error ~2e-3), then
// Newton's method on erf (|x| <= 1/2) or on erfc with 1 - |x| (exact for
// |x| >= 1/2), which keeps the tails accurate. In double; erfinv<float>
// rounds the double result once.
EMBER_HOST_DEVICE inline double erfinv_double(double x) {
  if (!(x >= -1.0 && x <= 1.0)) return nan<double>();  // NaN too
  if (x == 1.0) return inf<double>();
  if (x == -1.0) return -inf<double>();
  if (x == 0.0) return x;  // keeps -0
  const double ax = std::fabs(x);
  const double a = 0.147;
  const double l = std::log1p(-ax * ax);  // log(1 - x^2)
  const double t = 2.0 / (pi<double>() * a) + 0.5 * l;
  double y = std::sqrt(std::sqrt(t * t - l / a) - t);
  const double two_over_sqrt_pi = 1.12837916709551257390;
  if (ax <= 0.5) {
    for (int i = 0; i < 4; ++i) {
      y -= (std::erf(y) - ax) / (two_over_sqrt_pi * std::exp(-y * y));
    }
  } else {
    const double c = 1.0 - ax;
    for (int i = 0; i < 5; ++i) {
      const double d = two_over_sqrt_pi * std::exp(-y * y);
      if (d == 0.0) break;
      y += (std::erfc(y) - c) / d;
    }
  }
  return x < 0 ? -y : y;
}
template <typename T>
EMBER_HOST_DEVICE inline T erfinv(T x) {
  return static_cast<T>(erfinv_double(static_cast<double>(x)));
}

// The modified Bessel functions I0 and I1 (nu = 0 or 1), in double: the
// power series below |x| = 30 (positive terms: no cancellation), the
// asymptotic expansion e^x / sqrt(2 pi x) * sum_k (-1)^k a_k(nu) / x^k
// above (its terms shrink until k ~ 2|x|). Infinities give NaN, as
// PyTorch's.
EMBER_HOST_DEVICE inline double bessel_i_double(int nu, double x) {
  if (std::isnan(x) || std::isinf(x)) return nan<double>();
  const double ax = std::fabs(x);
  double r;
  if (ax < 30.0) {
    const double q = 0.25 * ax * ax;
    double term = nu == 0 ? 1.0 : 0.5 * ax;
    double sum = term;
    for (int k = 1; k < 500; ++k) {
      term *= q / (static_cast<double>(k) * static_cast<double>(k + nu));
      sum += term;
      if (term < 1e-17 * sum) break;
    }
    r = sum;
  } else {
    const double mu = 4.0 * nu * nu;
    double term = 1.0;
    double sum = 1.0;
    for (int k = 1; k < 60; ++k) {
      const double odd = 2.0 * k - 1.0;
      const double next = -term * (mu - odd * odd) / (8.0 * k * ax);
      if (std::fabs(next) >= std::fabs(term)) break;
      term = next;
      sum += term;
      if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
    }
    // e^x / sqrt(2 pi x) without overflowing e^x first near the top.
    r = std::exp(ax - 0.5 * std::log(2.0 * pi<double>() * ax)) * sum;
  }
  return (nu == 1 && x < 0) ? -r : r;
}
template <typename T>
EMBER_HOST_DEVICE inline T i0(T x) {
  return static_cast<T>(bessel_i_double(0, static_cast<double>(x)));
}
template <typename T>
EMBER_HOST_DEVICE inline T i1(T x) {
  return static_cast<T>(bessel_i_double(1, static_cast<double>(x)));
}

// sin(pi x) / (pi x), 1 at 0; the product pi * x in T (float: PyTorch's
// -2.78e-08 at 1, not 0).
template <typename T>
EMBER_HOST_DEVICE inline T sinc(T x) {
  if (x == T(0)) return T(1);
  const T p = pi<T>() * x;
  return std::sin(p) / p;
}

// gcd and lcm of integers, non-negative (gcd(0, 0) = 0, lcm(0, b) = 0).
template <typename T>
EMBER_HOST_DEVICE inline T gcd(T a, T b) {
  if constexpr (std::is_signed<T>::value) {
    a = a < 0 ? static_cast<T>(-a) : a;
    b = b < 0 ? static_cast<T>(-b) : b;
  }
  while (b != 0) {
    const T r = static_cast<T>(a % b);
    a = b;
    b = r;
  }
  return a;
}
template <typename T>
EMBER_HOST_DEVICE inline T lcm(T a, T b) {
  const T g = gcd(a, b);
  if (g == 0) return 0;
  T r = static_cast<T>(a / g * b);
  if constexpr (std::is_signed<T>::value) r = r < 0 ? static_cast<T>(-r) : r;
  return r;
}

// Shifts with defined results for every count (PyTorch 2.x's rule; 1.13
// shifted by count mod the register width, undefined in C++): a count that
// is negative (as a signed number of T's width) or at least T's bits gives
// 0 for a left shift and a >> (bits - 1) for a right shift.
template <typename T>
EMBER_HOST_DEVICE inline T shift_left(T a, T b) {
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  using S = std::make_signed_t<T>;
  using U = std::make_unsigned_t<T>;
  if (static_cast<S>(b) < 0 || static_cast<int64_t>(b) >= kBits) return 0;
  return static_cast<T>(static_cast<U>(a) << static_cast<int>(b));
}
template <typename T>
EMBER_HOST_DEVICE inline T shift_right(T a, T b) {
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  using S = std::make_signed_t<T>;
  if (static_cast<S>(b) < 0 || static_cast<int64_t>(b) >= kBits) {
    return static_cast<T>(a >> (kBits - 1));
  }
  return static_cast<T>(a >> static_cast<int>(b));
}

// The bits of a float, on either side.
EMBER_HOST_DEVICE inline uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
#endif
}
EMBER_HOST_DEVICE inline float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
#endif
}

// nextafter for bfloat16 values held exactly in floats: the neighbour one
// bfloat16 ulp (1 << 16 in the float's bits) from a towards b.
EMBER_HOST_DEVICE inline float nextafter_bfloat16(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return nan<float>();
  if (a == b) return b;
  if (a == 0.0f) return std::copysign(bits_float(1u << 16), b);  // smallest subnormal
  uint32_t u = float_bits(a);
  if ((a < b) == (a > 0.0f)) {
    u += 1u << 16;  // away from zero
  } else {
    u -= 1u << 16;
  }
  return bits_float(u);
}

// --- the regularized incomplete gamma functions ------------------------------
// P(a, x) = gamma(a, x) / Gamma(a) (igamma) and Q = 1 - P (igammac), for
// a, x >= 0, with PyTorch's values at the edges: NaN for a negative or NaN
// argument, for a = x = 0 and for a = x = inf; P(0, x > 0) = 1; P(a, 0) = 0;
// P(inf, finite x) = 0; P(finite a, inf) = 1. Each is computed where it is
// small (a series for P below the peak x ~ a, Legendre's continued fraction
// for Q above it, a series for Q at small x), the other as 1 minus it. The
// factor x^a e^-x / Gamma(a) goes through log1p(t) - t with t = x/a - 1 and
// Stirling's remainder, so that near x ~ a, even for large a, it keeps
// full precision (exp(a log x - x - lgamma(a)) would lose log2(a log x) bits).

// log(1 + t) - t, accurate near t = 0.
template <typename T>
EMBER_HOST_DEVICE inline T log1pmx(T t) {
  if (std::fabs(t) >= T(0.5)) return std::log1p(t) - t;
  // -t^2/2 + t^3/3 - ...: |t| < 1/2, at most ~60 terms.
  T term = t, sum = 0;
  for (int k = 2; k < 80; ++k) {
    term *= -t;
    const T add = term / static_cast<T>(k);
    sum += add;
    if (std::fabs(add) <= std::fabs(sum) * epsilon<T>()) break;
  }
  return sum;
}

// lgamma(a) - ((a - 1/2) log a - a + log(2 pi) / 2), Stirling's remainder.
template <typename T>
EMBER_HOST_DEVICE inline T stirling_remainder(T a) {
  if (a < T(10)) {
    return std::lgamma(a) -
           ((a - T(0.5)) * std::log(a) - a + T(0.918938533204672741780329736405617639861));
  }
  const T r = T(1) / a, r2 = r * r;
  return r *
         (T(1) / T(12) -
          r2 * (T(1) / T(360) - r2 * (T(1) / T(1260) -
                                      r2 * (T(1) / T(1680) -
                                            r2 * (T(1) / T(1188) - r2 * (T(691) / T(360360) -
                                                                         r2 * (T(1) / T(156))))))));
}

// x^a e^-x / Gamma(a) for a, x > 0 (finite).
template <typename T>
EMBER_HOST_DEVICE inline T igamma_factor(T a, T x) {
  // Far from the peak the direct form is as accurate, and x/a - 1 would
  // lose x's digits when x << a.
  if (std::fabs(x - a) > T(0.4) * a) return std::exp(a * std::log(x) - x - std::lgamma(a));
  const T t = (x - a) / a;
  return std::sqrt(a / (T(2) * pi<T>())) * std::exp(a * log1pmx(t) - stirling_remainder(a));
}

// P(a, x) by its power series, x below or near the peak.
template <typename T>
EMBER_HOST_DEVICE inline T igamma_series(T a, T x) {
  T term = 1, sum = 1;
  for (int n = 1; n < 100000; ++n) {
    term *= x / (a + static_cast<T>(n));
    sum += term;
    if (term <= sum * epsilon<T>()) break;
  }
  return igamma_factor(a, x) / a * sum;
}

// Q(a, x) by Legendre's continued fraction (modified Lentz), x > 1.1, x >= a.
template <typename T>
EMBER_HOST_DEVICE inline T igammac_fraction(T a, T x) {
  const T tiny = std::is_same<T, float>::value ? T(1e-30) : T(1e-300);
  T b = x + T(1) - a;
  T c = T(1) / tiny, d = T(1) / b, h = d;
  for (int n = 1; n < 100000; ++n) {
    const T an = -static_cast<T>(n) * (static_cast<T>(n) - a);
    b += T(2);
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = T(1) / d;
    const T delta = d * c;
    h *= delta;
    if (std::fabs(delta - T(1)) <= epsilon<T>()) break;
  }
  return igamma_factor(a, x) * h;
}

// Q(a, x) at small x: 1 - x^a / Gamma(a + 1) - x^a / Gamma(a) *
// sum_{n>=1} (-x)^n / (n! (a + n)).
template <typename T>
EMBER_HOST_DEVICE inline T igammac_small_x(T a, T x) {
  T fac = 1, sum = 0;
  for (int n = 1; n < 2000; ++n) {
    fac *= -x / static_cast<T>(n);
    const T term = fac / (a + static_cast<T>(n));
    sum += term;
    if (std::fabs(term) <= std::fabs(sum) * epsilon<T>()) break;
  }
  const T logx = std::log(x);
  return -std::expm1(a * logx - std::lgamma(a + T(1))) - std::exp(a * logx - std::lgamma(a)) * sum;
}

// Q(a, x) for a, x > 0 finite.
template <typename T>
EMBER_HOST_DEVICE inline T igammac_positive(T a, T x) {
  if (x > T(1.1)) return x < a ? T(1) - igamma_series(a, x) : igammac_fraction(a, x);
  const bool p_small = x <= T(0.5) ? T(-0.4) / std::log(x) < a : x * T(1.1) < a;
  return p_small ? T(1) - igamma_series(a, x) : igammac_small_x(a, x);
}

template <typename T>
EMBER_HOST_DEVICE inline T igamma(T a, T x) {
  if (std::isnan(a) || std::isnan(x) || a < T(0) || x < T(0)) return nan<T>();
  if (a == T(0)) return x > T(0) ? T(1) : nan<T>();
  if (x == T(0)) return T(0);
  if (std::isinf(a)) return std::isinf(x) ? nan<T>() : T(0);
  if (std::isinf(x)) return T(1);
  if (x > T(1) && x > a) return T(1) - igammac_positive(a, x);
  return igamma_series(a, x);
}

template <typename T>
EMBER_HOST_DEVICE inline T igammac(T a, T x) {
  if (std::isnan(a) || std::isnan(x) || a < T(0) || x < T(0)) return nan<T>();
  if (a == T(0)) return x > T(0) ? T(0) : nan<T>();
  if (x == T(0)) return T(1);
  if (std::isinf(a)) return std::isinf(x) ? nan<T>() : T(1);
  if (std::isinf(x)) return T(0);
  return igammac_positive(a, x);
}

}  // namespace special
}  // namespace ember

#endif  // EMBER_TENSOR_SPECIAL_MATH_H_
