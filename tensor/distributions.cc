#include "tensor/distributions.h"

#include <cstdint>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/dispatch.h"
#include "tensor/distribution_samplers.h"
#include "tensor/distributions_kernels.h"
#include "tensor/error.h"
#include "tensor/fallback.h"
#include "tensor/iterator.h"
#include "tensor/record_function.h"

namespace ember {
namespace {

// The CPU's uniforms: the generator's at::uniform_real_distribution<double>
// stream, as 1.13's cpu_serial_kernel draws them (the caller holds the
// generator's mutex).
struct CpuUniform {
  GeneratorImpl* g;
  double operator()() { return detail::uniform_double(g); }
};

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

// The seed and offset of one draw on t's device: from `generator` (which
// must be a generator of t's device type) or the device's default.
detail::RandomFill device_draw(const std::optional<Generator>& generator, const Tensor& t) {
  Generator gen = detail::default_generator_for(t.device());
  if (generator.has_value()) {
    EMBER_CHECK(generator->device().type() == t.device().type(), "Expected a '",
                device_type_name(t.device().type()), "' device type for generator but found '",
                device_type_name(generator->device().type()), "'");
    gen = *generator;
  }
  detail::RandomFill draw;
  detail::reserve_device_draw(draw, gen);
  return draw;
}

}  // namespace

EMBER_DEFINE_KERNEL_TABLE(poisson_kernel, PoissonFn);
EMBER_DEFINE_KERNEL_TABLE(binomial_kernel, BinomialFn);

Tensor poisson(const Tensor& self, const std::optional<Generator>& generator) {
  const bool on_device = !self.is_cpu() && poisson_kernel.has(self.device().type());
  if (!on_device && detail::cpu_fallback("poisson", {self})) {
    return detail::to_device(poisson(detail::cpu(self), generator), self);
  }
  const ScalarType dtype = self.dtype();
  if (on_device) {
    check_not_implemented(is_floating_point(dtype), "poisson_cuda", dtype);
  } else {
    check_not_implemented(dtype == kFloat || dtype == kDouble || dtype == kBFloat16, "poisson_cpu",
                          dtype);
  }
  profiler::RecordFunction range("poisson", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  Tensor r;
  if (on_device) {
    r = empty(self.sizes(), self.options());
    const detail::RandomFill draw = device_draw(generator, self);
    poisson_kernel(self.device())(self.contiguous(), r, draw);
  } else {
    // Rates are exact in double for every supported dtype, as 1.13 reads them.
    const Tensor rates = self.to(kDouble).contiguous();
    Tensor out = empty(self.sizes(), TensorOptions(kDouble));
    const double* in = rates.data_ptr<double>();
    double* o = out.data_ptr<double>();
    Generator holder;
    GeneratorImpl* g = cpu_generator(generator, &holder);
    {
      std::lock_guard<std::mutex> lock(g->mutex());
      CpuUniform uniform{g};
      for (int64_t i = 0; i < rates.numel(); ++i) {
        EMBER_CHECK(in[i] >= 0, "invalid Poisson rate, expected rate to be non-negative");
        o[i] = samplers::poisson(in[i], uniform);
      }
    }
    r = out.to(dtype);
  }
  if (scope.active()) scope.record("poisson", {self}, {r});
  return r;
}

Tensor binomial(const Tensor& count, const Tensor& prob,
                const std::optional<Generator>& generator) {
  const Device device = detail::common_device({count, prob});
  const bool on_device = !device.is_cpu() && binomial_kernel.has(device.type());
  if (!on_device && detail::cpu_fallback("binomial", {count, prob})) {
    return detail::to_device(binomial(detail::cpu(count), detail::cpu(prob), generator), count);
  }
  const ScalarType dtype = count.dtype();
  EMBER_CHECK(prob.dtype() == dtype, "Found dtype ", scalar_type_name(prob.dtype()),
              " but expected ", scalar_type_name(dtype));
  if (on_device) {
    check_not_implemented(is_floating_point(dtype), "binomial_cuda", dtype);
  } else {
    check_not_implemented(dtype == kFloat || dtype == kDouble, "binomial_cpu", dtype);
  }
  profiler::RecordFunction range("binomial", profiler::RangeKind::kOp, count, prob);
  detail::OpScope scope(count, prob);
  const DimVector shape = infer_size(count.sizes(), prob.sizes());
  const Tensor n = count.expand(shape).contiguous();
  const Tensor p = prob.expand(shape).contiguous();
  Tensor r = empty(shape, count.options());
  if (on_device) {
    const detail::RandomFill draw = device_draw(generator, count);
    binomial_kernel(device)(n, p, r, draw);
  } else {
    Generator holder;
    GeneratorImpl* g = cpu_generator(generator, &holder);
    std::lock_guard<std::mutex> lock(g->mutex());
    CpuUniform uniform{g};
    EMBER_DISPATCH_FLOAT_DOUBLE(dtype, "binomial_cpu", [&] {
      const scalar_t* cn = n.data_ptr<scalar_t>();
      const scalar_t* cp = p.data_ptr<scalar_t>();
      scalar_t* o = r.data_ptr<scalar_t>();
      for (int64_t i = 0; i < r.numel(); ++i) o[i] = samplers::binomial(cn[i], cp[i], uniform);
    });
  }
  if (scope.active()) scope.record("binomial", {count, prob}, {r});
  return r;
}

}  // namespace ember
