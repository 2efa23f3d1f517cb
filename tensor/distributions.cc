#include "tensor/distributions.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/fallback.h"
#include "tensor/iterator.h"
#include "tensor/record_function.h"

namespace ember {
namespace {

// The samplers follow aten/src/ATen/native/Distributions.h (1.13): the
// order of draws and the arithmetic, in scalar_t where 1.13 computes in
// scalar_t, is what makes a seed give 1.13's samples.

double uniform(GeneratorImpl* g) { return detail::uniform_double(g); }

// Product of uniforms below 10, Hormann's PTRS (1993) from 10.
double sample_poisson(double lambda, GeneratorImpl* g) {
  if (std::isinf(lambda)) return lambda;
  if (lambda >= 10) {
    const double slam = std::sqrt(lambda);
    const double loglam = std::log(lambda);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
    const double vr = 0.9277 - 3.6224 / (b - 2);
    while (true) {
      const double u = uniform(g) - 0.5;
      const double v = uniform(g);
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
    prod *= uniform(g);
    if (prod > enlam) {
      x += 1;
    } else {
      return static_cast<double>(x);
    }
  }
}

// log(k!) - Stirling's approximation of it.
double stirling_approx_tail(double k) {
  static const double kTail[] = {0.0810614667953272,  0.0413406959554092, 0.0276779256849983,
                                 0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                                 0.0118967099458917,  0.0104112652619720, 0.00925546218271273,
                                 0.00833056343336287};
  if (k <= 9) return kTail[static_cast<size_t>(k)];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

// Kachitvichyanukul and Schmeiser's BTRS (Hormann's transformed rejection).
template <typename scalar_t>
scalar_t btrs(scalar_t count, scalar_t prob, GeneratorImpl* g) {
  const double stddev = std::sqrt(static_cast<double>(count * prob * (1 - prob)));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * prob;
  const double c = count * prob + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = prob / (1 - prob);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor((count + 1) * prob);
  while (true) {
    const double u = uniform(g) - 0.5;
    double v = uniform(g);
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
template <typename scalar_t>
scalar_t binomial_inversion(scalar_t count, scalar_t prob, GeneratorImpl* g) {
  double geom_sum = 0;
  scalar_t num_geom = 0;
  const double logprob = std::log1p(-prob);
  while (true) {
    geom_sum += std::ceil(std::log(uniform(g)) / logprob);
    if (geom_sum > count) break;
    num_geom = num_geom + 1;
  }
  return num_geom;
}

template <typename scalar_t>
scalar_t sample_binomial(scalar_t count, scalar_t prob, GeneratorImpl* g) {
  if (count <= 0 || prob <= 0) return 0;
  if (prob >= 1) return count;
  // 1.13 never returns for these (see the header).
  if (!std::isfinite(count)) return std::numeric_limits<scalar_t>::quiet_NaN();
  if (prob <= 0.5) {
    if (count * prob >= 10) return btrs(count, prob, g);
    return binomial_inversion(count, prob, g);
  }
  if (prob > 0.5) {
    const scalar_t qprob = 1 - prob;
    if (count * qprob >= 10) return count - btrs(count, qprob, g);
    return count - binomial_inversion(count, qprob, g);
  }
  return std::numeric_limits<scalar_t>::quiet_NaN();  // prob is NaN
}

GeneratorImpl* cpu_generator(const std::optional<Generator>& generator, Generator* holder) {
  *holder = generator.has_value() && generator->impl()->device().is_cpu() ? *generator
                                                                          : default_generator();
  return holder->impl();
}

void check_not_implemented(bool ok, const char* op, ScalarType t) {
  if (!ok) {
    throw Error(absl::StrCat("\"", op, "\" not implemented for '", scalar_type_name(t), "'"));
  }
}

}  // namespace

Tensor poisson(const Tensor& self, const std::optional<Generator>& generator) {
  if (detail::cpu_fallback("poisson", {self})) {
    return detail::to_device(poisson(detail::cpu(self), generator), self);
  }
  const ScalarType dtype = self.dtype();
  check_not_implemented(dtype == kFloat || dtype == kDouble || dtype == kBFloat16, "poisson_cpu",
                        dtype);
  profiler::RecordFunction range("poisson", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  // Rates are exact in double for every supported dtype, as 1.13 reads them.
  const Tensor rates = self.to(kDouble).contiguous();
  Tensor out = empty(self.sizes(), TensorOptions(kDouble));
  const double* in = rates.data_ptr<double>();
  double* o = out.data_ptr<double>();
  Generator holder;
  GeneratorImpl* g = cpu_generator(generator, &holder);
  {
    std::lock_guard<std::mutex> lock(g->mutex());
    for (int64_t i = 0; i < rates.numel(); ++i) {
      EMBER_CHECK(in[i] >= 0, "invalid Poisson rate, expected rate to be non-negative");
      o[i] = sample_poisson(in[i], g);
    }
  }
  Tensor r = out.to(dtype);
  if (scope.active()) scope.record("poisson", {self}, {r});
  return r;
}

Tensor binomial(const Tensor& count, const Tensor& prob,
                const std::optional<Generator>& generator) {
  if (detail::cpu_fallback("binomial", {count, prob})) {
    return detail::to_device(binomial(detail::cpu(count), detail::cpu(prob), generator), count);
  }
  const ScalarType dtype = count.dtype();
  EMBER_CHECK(prob.dtype() == dtype, "Found dtype ", scalar_type_name(prob.dtype()),
              " but expected ", scalar_type_name(dtype));
  check_not_implemented(dtype == kFloat || dtype == kDouble, "binomial_cpu", dtype);
  profiler::RecordFunction range("binomial", profiler::RangeKind::kOp, count, prob);
  detail::OpScope scope(count, prob);
  const DimVector shape = infer_size(count.sizes(), prob.sizes());
  const Tensor n = count.expand(shape).contiguous();
  const Tensor p = prob.expand(shape).contiguous();
  Tensor r = empty(shape, TensorOptions(dtype));
  Generator holder;
  GeneratorImpl* g = cpu_generator(generator, &holder);
  {
    std::lock_guard<std::mutex> lock(g->mutex());
    auto run = [&](auto zero) {
      using scalar_t = decltype(zero);
      const scalar_t* cn = n.data_ptr<scalar_t>();
      const scalar_t* cp = p.data_ptr<scalar_t>();
      scalar_t* o = r.data_ptr<scalar_t>();
      for (int64_t i = 0; i < r.numel(); ++i) o[i] = sample_binomial(cn[i], cp[i], g);
    };
    if (dtype == kFloat) {
      run(0.0f);
    } else {
      run(0.0);
    }
  }
  if (scope.active()) scope.record("binomial", {count, prob}, {r});
  return r;
}

}  // namespace ember
