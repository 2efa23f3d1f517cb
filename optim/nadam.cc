#include "optim/nadam.h"

#include <cmath>
#include <tuple>

#include "optim/fused.h"
#include "optim/moments.h"
#include "tensor/dispatch.h"

namespace ember {
namespace optim {

NAdamOptions::NAdamOptions(double lr) : lr_(lr) {}

void NAdamOptions::visit(OptionVisitor& v) {
  v.field("lr", lr_);
  v.field("betas", betas_);
  v.field("eps", eps_);
  v.field("weight_decay", weight_decay_);
  v.field("momentum_decay", momentum_decay_);
}

namespace {

void check_nadam_options(const NAdamOptions& o) {
  detail::check_adam_options(o.lr(), o.eps(), o.betas(), o.weight_decay());
  detail::check_option(o.momentum_decay() >= 0, "Invalid momentum_decay value",
                       o.momentum_decay());
}

// The per-step numbers, in double as PyTorch's Python floats.
struct NAdamStep {
  double bias_correction2, grad_coef, avg_coef;  // the coefficients of grad/denom, exp_avg/denom
};

// The per-step scalars in the parameter's type, passed by value so that
// the loop keeps them in registers (see sgd.cc).
template <typename T>
struct NAdamScalars {
  detail::MomentScalars<T> moments;
  T eps, bc2, grad_coef, avg_coef;
};

template <typename T, bool kWd>
void nadam_chunk(const NAdamScalars<T> s, T* __restrict p, const T* __restrict g, T* __restrict m,
                 T* __restrict v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const T grad = detail::update_moments<kWd>(s.moments, p[i], g[i], m[i], v[i]);
    const T denom = std::sqrt(v[i] / s.bc2) + s.eps;
    // Two addcdiv_ in PyTorch: p += c1 * grad / denom, then p += c2 * m / denom.
    const T after_grad = p[i] + s.grad_coef * (grad / denom);
    p[i] = after_grad + s.avg_coef * (m[i] / denom);
  }
}

// PyTorch's _single_tensor_nadam, op for op.
void nadam_ops(const NAdamOptions& o, const NAdamStep& st, Tensor& p, const Tensor& g, Tensor& m,
               Tensor& v) {
  Tensor grad = detail::update_moments(o.betas(), o.weight_decay(), p, g, m, v);
  Tensor denom = v.div(st.bias_correction2).sqrt().add_(o.eps());
  p.addcdiv_(grad, denom, st.grad_coef);
  p.addcdiv_(m, denom, st.avg_coef);
}

void nadam_update(const NAdamOptions& o, Tensor& p, ParamState& st) {
  const Tensor& grad = p.grad();
  double mu_product = st.scalar("mu_product", 1.0);
  Tensor *m, *v;
  std::tie(m, v) = detail::moments_of(st, p);
  const double step = static_cast<double>(++*st.step);
  const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
  // The momentum cache mu_t and mu_{t+1}.
  const double mu = beta1 * (1. - 0.5 * std::pow(0.96, step * o.momentum_decay()));
  const double mu_next = beta1 * (1. - 0.5 * std::pow(0.96, (step + 1) * o.momentum_decay()));
  mu_product *= mu;
  st.set_scalar("mu_product", mu_product);
  const double mu_product_next = mu_product * mu * mu_next;
  const NAdamStep s{1 - std::pow(beta2, step), -o.lr() * (1. - mu) / (1. - mu_product),
                    -o.lr() * mu_next / (1. - mu_product_next)};
  if (!detail::fusable(p, grad, {m, v})) {
    nadam_ops(o, s, p, grad, *m, *v);
    return;
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(p.dtype(), "nadam", [&] {
    const NAdamScalars<scalar_t> k{
        detail::MomentScalars<scalar_t>::of(o.betas(), o.weight_decay()),
        static_cast<scalar_t>(o.eps()), static_cast<scalar_t>(s.bias_correction2),
        static_cast<scalar_t>(s.grad_coef), static_cast<scalar_t>(s.avg_coef)};
    detail::with_flag(o.weight_decay() != 0, [&](auto wd) {
      detail::for_each_moment_chunk<scalar_t>(
          p, grad, *m, *v, [=](auto... chunk) { nadam_chunk<scalar_t, wd>(k, chunk...); });
    });
  });
}

}  // namespace

NAdam::NAdam(std::vector<OptimizerParamGroup> groups, const NAdamOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  set_option_check(check_nadam_options);
}

void NAdam::step_group(OptimizerParamGroup& group) {
  const auto& o = static_cast<const NAdamOptions&>(group.options());
  for (auto& p : group.params()) {
    if (p.grad().defined()) nadam_update(o, p, state_for(p));
  }
}

}  // namespace optim
}  // namespace ember
