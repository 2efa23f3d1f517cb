#include "optim/radam.h"

#include <cmath>
#include <tuple>

#include "optim/fused.h"
#include "optim/moments.h"
#include "tensor/dispatch.h"

namespace ember {
namespace optim {

RAdamOptions::RAdamOptions(double lr) : lr_(lr) {}

void RAdamOptions::visit(OptionVisitor& v) {
  v.field("lr", lr_);
  v.field("betas", betas_);
  v.field("eps", eps_);
  v.field("weight_decay", weight_decay_);
}

namespace {

void check_radam_options(const RAdamOptions& o) {
  detail::check_adam_options(o.lr(), o.eps(), o.betas(), o.weight_decay());
}

// The per-step numbers, in double as PyTorch's Python floats.
struct RAdamStep {
  double bias_correction1, bias_correction2;
  bool rectified;  // rho_t > 5: the adaptive update, scaled by rect
  double rect;
};

RAdamStep radam_step(const RAdamOptions& o, double step) {
  const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
  RAdamStep s{1 - std::pow(beta1, step), 1 - std::pow(beta2, step), false, 0};
  // The maximum and the current length of the approximated SMA.
  const double rho_inf = 2 / (1 - beta2) - 1;
  const double rho_t = rho_inf - 2 * step * std::pow(beta2, step) / s.bias_correction2;
  if (rho_t > 5.) {
    s.rectified = true;
    s.rect = std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                       ((rho_inf - 4) * (rho_inf - 2) * rho_t));
  }
  return s;
}

// The per-step scalars in the parameter's type, passed by value so that
// the loop keeps them in registers (see sgd.cc).
template <typename T>
struct RAdamScalars {
  detail::MomentScalars<T> moments;
  T eps, bc1, bc2_sqrt, lr, rect;
};

template <typename T, bool kWd, bool kRectified>
void radam_chunk(const RAdamScalars<T> s, T* __restrict p, const T* __restrict g, T* __restrict m,
                 T* __restrict v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    detail::update_moments<kWd>(s.moments, p[i], g[i], m[i], v[i]);
    const T corrected = m[i] / s.bc1;
    if (kRectified) {
      const T adaptive_lr = s.bc2_sqrt / (std::sqrt(v[i]) + s.eps);
      p[i] -= corrected * s.lr * adaptive_lr * s.rect;
    } else {
      p[i] -= corrected * s.lr;
    }
  }
}

// PyTorch's _single_tensor_radam, op for op.
void radam_ops(const RAdamOptions& o, const RAdamStep& s, Tensor& p, const Tensor& g, Tensor& m,
               Tensor& v) {
  detail::update_moments(o.betas(), o.weight_decay(), p, g, m, v);
  Tensor corrected = m / s.bias_correction1;
  if (s.rectified) {
    Tensor adaptive_lr = std::sqrt(s.bias_correction2) / v.sqrt().add_(o.eps());
    p.add_(corrected * o.lr() * adaptive_lr * s.rect, -1.0);
  } else {
    p.add_(corrected * o.lr(), -1.0);
  }
}

void radam_update(const RAdamOptions& o, Tensor& p, ParamState& st) {
  const Tensor& grad = p.grad();
  Tensor *m, *v;
  std::tie(m, v) = detail::moments_of(st, p);
  const RAdamStep s = radam_step(o, static_cast<double>(++*st.step));
  if (!detail::fusable(p, grad, {m, v})) {
    radam_ops(o, s, p, grad, *m, *v);
    return;
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(p.dtype(), "radam", [&] {
    const RAdamScalars<scalar_t> k{
        detail::MomentScalars<scalar_t>::of(o.betas(), o.weight_decay()),
        static_cast<scalar_t>(o.eps()), static_cast<scalar_t>(s.bias_correction1),
        static_cast<scalar_t>(std::sqrt(s.bias_correction2)), static_cast<scalar_t>(o.lr()),
        static_cast<scalar_t>(s.rect)};
    detail::with_flag(o.weight_decay() != 0, [&](auto wd) {
      detail::with_flag(s.rectified, [&](auto rectified) {
        detail::for_each_moment_chunk<scalar_t>(p, grad, *m, *v, [=](auto... chunk) {
          radam_chunk<scalar_t, wd, rectified>(k, chunk...);
        });
      });
    });
  });
}

}  // namespace

RAdam::RAdam(std::vector<OptimizerParamGroup> groups, const RAdamOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  set_option_check(check_radam_options);
}

void RAdam::step_group(OptimizerParamGroup& group) {
  const auto& o = static_cast<const RAdamOptions&>(group.options());
  for (auto& p : group.params()) {
    if (p.grad().defined()) radam_update(o, p, state_for(p));
  }
}

}  // namespace optim
}  // namespace ember
