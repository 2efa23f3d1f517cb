#include "optim/adam.h"

#include <cmath>

#include "optim/fused.h"
#include "tensor/dispatch.h"
#include "tensor/math.h"

namespace ember {
namespace optim {

AdamOptions::AdamOptions(double lr) : lr_(lr) {}
AdamWOptions::AdamWOptions(double lr) : lr_(lr) {}

// Both option kinds, visited the same way.
template <typename O>
static void visit_adam(O& o, OptionVisitor& v) {
  v.field("lr", o.lr());
  v.field("betas", o.betas());
  v.field("eps", o.eps());
  v.field("weight_decay", o.weight_decay());
  v.field("amsgrad", o.amsgrad());
  v.field("maximize", o.maximize());
}
void AdamOptions::visit(OptionVisitor& v) { visit_adam(*this, v); }
void AdamWOptions::visit(OptionVisitor& v) { visit_adam(*this, v); }

namespace {

// The hyper-parameters of one group, for either optimizer.
struct AdamHyper {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad, maximize, decoupled;  // decoupled: AdamW

  template <typename O>
  static AdamHyper of(const O& o, bool decoupled) {
    return {o.lr(), std::get<0>(o.betas()), std::get<1>(o.betas()), o.eps(), o.weight_decay(),
            o.amsgrad(), o.maximize(), decoupled};
  }

  void check() const {
    detail::check_option(lr >= 0, "Invalid learning rate", lr);
    detail::check_option(eps >= 0, "Invalid epsilon value", eps);
    detail::check_option(beta1 >= 0 && beta1 < 1, "Invalid beta parameter at index 0", beta1);
    detail::check_option(beta2 >= 0 && beta2 < 1, "Invalid beta parameter at index 1", beta2);
    detail::check_option(weight_decay >= 0, "Invalid weight_decay value", weight_decay);
  }
};

// Per-step scalars, computed in double as PyTorch's Python floats are.
struct AdamStep {
  double step_size, bias_correction2_sqrt;
  AdamStep(const AdamHyper& h, int64_t step)
      : step_size(h.lr / (1 - std::pow(h.beta1, static_cast<double>(step)))),
        bias_correction2_sqrt(std::sqrt(1 - std::pow(h.beta2, static_cast<double>(step)))) {}
};

// One pass over a contiguous parameter (Note [Fused updates]).
template <typename T>
void adam_fused(const AdamHyper& h, const AdamStep& s, T* p, const T* g, T* m, T* v, T* vmax,
                int64_t n) {
  const T beta1 = static_cast<T>(h.beta1), beta2 = static_cast<T>(h.beta2);
  const T one_m_beta1 = static_cast<T>(1 - h.beta1), one_m_beta2 = static_cast<T>(1 - h.beta2);
  const T wd = static_cast<T>(h.weight_decay), eps = static_cast<T>(h.eps);
  const T decay = static_cast<T>(1 - h.lr * h.weight_decay);
  const T bc2_sqrt = static_cast<T>(s.bias_correction2_sqrt);
  const T neg_step_size = static_cast<T>(-s.step_size);
  const T sign = h.maximize ? T(-1) : T(1);
  const bool decoupled = h.decoupled;
  detail::for_each_chunk(n, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      T grad = sign * g[i];
      if (decoupled) {
        p[i] *= decay;
      } else if (wd != 0) {
        grad += wd * p[i];
      }
      m[i] = m[i] * beta1 + one_m_beta1 * grad;
      v[i] = v[i] * beta2 + one_m_beta2 * grad * grad;
      T second = v[i];
      if (vmax != nullptr) {
        vmax[i] = std::max(vmax[i], v[i]);
        second = vmax[i];
      }
      const T denom = std::sqrt(second) / bc2_sqrt + eps;
      p[i] += neg_step_size * m[i] / denom;
    }
  });
}

// PyTorch's _single_tensor_adam / _single_tensor_adamw (not capturable), op
// for op.
void adam_ops(const AdamHyper& h, const AdamStep& s, Tensor& p, const Tensor& g, Tensor& m,
              Tensor& v, Tensor* vmax) {
  Tensor grad = h.maximize ? g.neg() : g;
  if (h.decoupled) {
    p.mul_(1 - h.lr * h.weight_decay);
  } else if (h.weight_decay != 0) {
    grad = grad.add(p, h.weight_decay);
  }
  m.mul_(h.beta1).add_(grad, 1 - h.beta1);
  v.mul_(h.beta2).addcmul_(grad, grad, 1 - h.beta2);
  Tensor denom;
  if (vmax != nullptr) {
    vmax->copy_(maximum(*vmax, v));
    denom = (vmax->sqrt() / s.bias_correction2_sqrt).add_(h.eps);
  } else {
    denom = (v.sqrt() / s.bias_correction2_sqrt).add_(h.eps);
  }
  p.addcdiv_(m, denom, -s.step_size);
}

void adam_update(const AdamHyper& h, Tensor& p, ParamState& st) {
  const Tensor& grad = p.grad();
  if (!st.step) st.step = 0;
  st.zeros_if_missing("exp_avg", p);
  st.zeros_if_missing("exp_avg_sq", p);
  if (h.amsgrad) st.zeros_if_missing("max_exp_avg_sq", p);
  // Looked up after all are created: creating one may move the others.
  Tensor* mp = st.find("exp_avg");
  Tensor* vp = st.find("exp_avg_sq");
  Tensor* vmax = h.amsgrad ? st.find("max_exp_avg_sq") : nullptr;
  const AdamStep s(h, ++*st.step);
  if (!detail::fusable(p, grad, {mp, vp}) || (vmax != nullptr && !detail::fusable(p, *vmax, {}))) {
    adam_ops(h, s, p, grad, *mp, *vp, vmax);
    return;
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(p.dtype(), "adam", [&] {
    adam_fused<scalar_t>(h, s, p.data_ptr<scalar_t>(), grad.data_ptr<scalar_t>(),
                         mp->data_ptr<scalar_t>(), vp->data_ptr<scalar_t>(),
                         vmax ? vmax->data_ptr<scalar_t>() : nullptr, p.numel());
  });
  detail::mark_written(p);
  detail::mark_written(*mp);
  detail::mark_written(*vp);
  if (vmax != nullptr) detail::mark_written(*vmax);
}

}  // namespace

Adam::Adam(std::vector<OptimizerParamGroup> groups, const AdamOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  AdamHyper::of(defaults, false).check();
  for (auto& g : param_groups()) {
    AdamHyper::of(static_cast<const AdamOptions&>(g.options()), false).check();
  }
}

void Adam::step_group(OptimizerParamGroup& group) {
  const auto h = AdamHyper::of(static_cast<const AdamOptions&>(group.options()), false);
  for (auto& p : group.params()) {
    if (p.grad().defined()) adam_update(h, p, state_for(p));
  }
}

AdamW::AdamW(std::vector<OptimizerParamGroup> groups, const AdamWOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  AdamHyper::of(defaults, true).check();
  for (auto& g : param_groups()) {
    AdamHyper::of(static_cast<const AdamWOptions&>(g.options()), true).check();
  }
}

void AdamW::step_group(OptimizerParamGroup& group) {
  const auto h = AdamHyper::of(static_cast<const AdamWOptions&>(group.options()), true);
  for (auto& p : group.params()) {
    if (p.grad().defined()) adam_update(h, p, state_for(p));
  }
}

}  // namespace optim
}  // namespace ember
