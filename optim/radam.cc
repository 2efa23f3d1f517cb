#include "optim/radam.h"

#include <cmath>

#include "optim/fused.h"
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
  T beta1, one_m_beta1, beta2, one_m_beta2, wd, eps, bc1, bc2_sqrt, lr, rect;
};

template <typename T, bool kWd, bool kRectified>
void radam_chunk(const RAdamScalars<T> s, T* __restrict p, const T* __restrict g,
                 T* __restrict m, T* __restrict v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T grad = g[i];
    if (kWd) grad += s.wd * p[i];
    const T mi = m[i] * s.beta1 + s.one_m_beta1 * grad;
    const T vi = v[i] * s.beta2 + s.one_m_beta2 * grad * grad;
    m[i] = mi;
    v[i] = vi;
    const T corrected = mi / s.bc1;
    if (kRectified) {
      const T adaptive_lr = s.bc2_sqrt / (std::sqrt(vi) + s.eps);
      p[i] -= corrected * s.lr * adaptive_lr * s.rect;
    } else {
      p[i] -= corrected * s.lr;
    }
  }
}

// PyTorch's _single_tensor_radam, op for op.
void radam_ops(const RAdamOptions& o, const RAdamStep& s, Tensor& p, const Tensor& g, Tensor& m,
               Tensor& v) {
  const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
  Tensor grad = o.weight_decay() != 0 ? g.add(p, o.weight_decay()) : g;
  m.mul_(beta1).add_(grad, 1 - beta1);
  v.mul_(beta2).addcmul_(grad, grad, 1 - beta2);
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
  if (!st.step) st.step = 0;
  st.zeros_if_missing("exp_avg", p);
  st.zeros_if_missing("exp_avg_sq", p);
  const RAdamStep s = radam_step(o, static_cast<double>(++*st.step));
  Tensor* m = st.find("exp_avg");
  Tensor* v = st.find("exp_avg_sq");
  if (!detail::fusable(p, grad, {m, v})) {
    radam_ops(o, s, p, grad, *m, *v);
    return;
  }
  const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
  EMBER_DISPATCH_FLOAT_DOUBLE(p.dtype(), "radam", [&] {
    const RAdamScalars<scalar_t> k{static_cast<scalar_t>(beta1),
                                   static_cast<scalar_t>(1 - beta1),
                                   static_cast<scalar_t>(beta2),
                                   static_cast<scalar_t>(1 - beta2),
                                   static_cast<scalar_t>(o.weight_decay()),
                                   static_cast<scalar_t>(o.eps()),
                                   static_cast<scalar_t>(s.bias_correction1),
                                   static_cast<scalar_t>(std::sqrt(s.bias_correction2)),
                                   static_cast<scalar_t>(o.lr()),
                                   static_cast<scalar_t>(s.rect)};
    scalar_t* pp = p.data_ptr<scalar_t>();
    const scalar_t* gp = grad.data_ptr<scalar_t>();
    scalar_t* mp = m->data_ptr<scalar_t>();
    scalar_t* vp = v->data_ptr<scalar_t>();
    detail::with_flag(o.weight_decay() != 0, [&](auto wd) {
      detail::with_flag(s.rectified, [&](auto rectified) {
        detail::for_each_chunk(p.numel(), [=](int64_t begin, int64_t end) {
          radam_chunk<scalar_t, wd, rectified>(k, pp + begin, gp + begin, mp + begin, vp + begin,
                                               end - begin);
        });
      });
    });
  });
  detail::mark_written(p);
  detail::mark_written(*m);
  detail::mark_written(*v);
}

}  // namespace

RAdam::RAdam(std::vector<OptimizerParamGroup> groups, const RAdamOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  check_radam_options(defaults);
  for (auto& g : param_groups()) check_radam_options(static_cast<const RAdamOptions&>(g.options()));
}

void RAdam::step_group(OptimizerParamGroup& group) {
  const auto& o = static_cast<const RAdamOptions&>(group.options());
  for (auto& p : group.params()) {
    if (p.grad().defined()) radam_update(o, p, state_for(p));
  }
}

}  // namespace optim
}  // namespace ember
