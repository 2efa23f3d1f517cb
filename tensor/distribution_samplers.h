#ifndef EMBER_TENSOR_DISTRIBUTION_SAMPLERS_H_
#define EMBER_TENSOR_DISTRIBUTION_SAMPLERS_H_

// The samplers of poisson and binomial (distributions.cc), shared by the
// CPU loop and the CUDA kernels (tensor/cuda/distributions.cu, which nvcc
// compiles with this header as an extra input, as special_math.h).
// Header-only and free of ember's other headers. `uniform` is any callable
// giving doubles in [0, 1): the CPU's is the generator's
// at::uniform_real_distribution<double> stream, the device's an element's
// own Philox counters.
//
// They follow aten/src/ATen/native/Distributions.h (1.13): the order of
// draws and the arithmetic (in scalar_t where 1.13 computes in scalar_t,
// else double, as 1.13's CPU kernels) is what makes a CPU seed give 1.13's
// samples. The device computes the same steps, also in double.

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define EMBER_SAMPLER_HD __host__ __device__
#else
#define EMBER_SAMPLER_HD
#endif

namespace ember {
namespace samplers {

// Product of uniforms below 10, Hormann's PTRS (1993) from 10. A rate of
// +inf gives +inf (1.13: INT64_MIN); the caller refuses negative rates.
template <typename Uniform>
EMBER_SAMPLER_HD double poisson(double lambda, Uniform& uniform) {
  if (std::isinf(lambda)) return lambda;
  if (lambda >= 10) {
    const double slam = std::sqrt(lambda);
    const double loglam = std::log(lambda);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
    const double vr = 0.9277 - 3.6224 / (b - 2);
    while (true) {
      const double u = uniform() - 0.5;
      const double v = uniform();
      const double us = 0.5 - std::fabs(u);
      const auto k = static_cast<int64_t>(std::floor((2 * a / us + b) * u + lambda + 0.43));
      if (us >= 0.07 && v <= vr) return static_cast<double>(k);
      if (k < 0 || (us < 0.013 && v > us)) continue;
      if (std::log(v) + std::log(invalpha) - std::log(a / (us * us) + b) <=
          -lambda + k * loglam - std::lgamma(static_cast<double>(k) + 1)) {
        return static_cast<double>(k);
      }
    }
  }
  if (lambda == 0) return 0;
  const double enlam = std::exp(-lambda);
  int64_t x = 0;
  double prod = 1.0;
  while (true) {
    prod *= uniform();
    if (prod > enlam) {
      x += 1;
    } else {
      return static_cast<double>(x);
    }
  }
}

// log(k!) - Stirling's approximation of it.
EMBER_SAMPLER_HD inline double stirling_approx_tail(double k) {
  if (k <= 9) {
    switch (static_cast<int>(k)) {
      case 0:
        return 0.0810614667953272;
      case 1:
        return 0.0413406959554092;
      case 2:
        return 0.0276779256849983;
      case 3:
        return 0.02079067210376509;
      case 4:
        return 0.0166446911898211;
      case 5:
        return 0.0138761288230707;
      case 6:
        return 0.0118967099458917;
      case 7:
        return 0.0104112652619720;
      case 8:
        return 0.00925546218271273;
      default:
        return 0.00833056343336287;
    }
  }
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

// Kachitvichyanukul and Schmeiser's BTRS (Hormann's transformed rejection).
template <typename scalar_t, typename Uniform>
EMBER_SAMPLER_HD scalar_t btrs(scalar_t count, scalar_t prob, Uniform& uniform) {
  const double stddev = std::sqrt(static_cast<double>(count * prob * (1 - prob)));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * prob;
  const double c = count * prob + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = prob / (1 - prob);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor((count + 1) * prob);
  while (true) {
    const double u = uniform() - 0.5;
    double v = uniform();
    const double us = 0.5 - std::fabs(u);
    const auto k = static_cast<scalar_t>(std::floor((2 * a / us + b) * u + c));
    if (k < 0 || k > count) continue;
    if (us >= 0.07 && v <= v_r) return k;
    v = std::log(v * alpha / (a / (us * us) + b));
    const double upperbound = (m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
                              (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
                              (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) +
                              stirling_approx_tail(m) + stirling_approx_tail(count - m) -
                              stirling_approx_tail(k) - stirling_approx_tail(count - k);
    if (v <= upperbound) return k;
  }
}

// The number of geometric waiting times that fit in count.
template <typename scalar_t, typename Uniform>
EMBER_SAMPLER_HD scalar_t binomial_inversion(scalar_t count, scalar_t prob, Uniform& uniform) {
  double geom_sum = 0;
  scalar_t num_geom = 0;
  const double logprob = std::log1p(-prob);
  while (true) {
    geom_sum += std::ceil(std::log(uniform()) / logprob);
    if (geom_sum > count) break;
    num_geom = num_geom + 1;
  }
  return num_geom;
}

// count <= 0 or prob <= 0 give 0, prob >= 1 gives count, a NaN prob NaN;
// a NaN or infinite count with 0 < prob < 1 gives NaN (1.13 never returns).
template <typename scalar_t, typename Uniform>
EMBER_SAMPLER_HD scalar_t binomial(scalar_t count, scalar_t prob, Uniform& uniform) {
  if (count <= 0 || prob <= 0) return 0;
  if (prob >= 1) return count;
  if (!std::isfinite(count)) return static_cast<scalar_t>(NAN);
  if (prob <= 0.5) {
    if (count * prob >= 10) return btrs(count, prob, uniform);
    return binomial_inversion(count, prob, uniform);
  }
  if (prob > 0.5) {
    const scalar_t qprob = 1 - prob;
    if (count * qprob >= 10) return count - btrs(count, qprob, uniform);
    return count - binomial_inversion(count, qprob, uniform);
  }
  return static_cast<scalar_t>(NAN);  // prob is NaN
}

}  // namespace samplers
}  // namespace ember

#undef EMBER_SAMPLER_HD

#endif  // EMBER_TENSOR_DISTRIBUTION_SAMPLERS_H_
