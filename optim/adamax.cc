#include "optim/adamax.h"

#include <algorithm>
#include <cmath>

#include "optim/fused.h"
#include "tensor/dispatch.h"
#include "tensor/math.h"

namespace ember {
namespace optim {

AdamaxOptions::AdamaxOptions(double lr) : lr_(lr) {}

void AdamaxOptions::visit(OptionVisitor& v) {
  v.field("lr", lr_);
  v.field("betas", betas_);
  v.field("eps", eps_);
  v.field("weight_decay", weight_decay_);
  v.field("maximize", maximize_);
}

namespace {

void check_adamax_options(const AdamaxOptions& o) {
  detail::check_adam_options(o.lr(), o.eps(), o.betas(), o.weight_decay());
}

// The per-step scalars in the parameter's type, passed by value so that
// the loop keeps them in registers (see sgd.cc).
template <typename T>
struct AdamaxScalars {
  T beta1, one_m_beta1, beta2, eps, wd, neg_clr, sign;
};

template <typename T, bool kWd>
void adamax_chunk(const AdamaxScalars<T> s, T* __restrict p, const T* __restrict g,
                  T* __restrict m, T* __restrict u, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T grad = s.sign * g[i];
    if (kWd) grad += s.wd * p[i];
    const T mi = m[i] * s.beta1 + s.one_m_beta1 * grad;
    m[i] = mi;
    const T ui = std::max(u[i] * s.beta2, std::abs(grad) + s.eps);
    u[i] = ui;
    p[i] += s.neg_clr * (mi / ui);
  }
}

// PyTorch's _single_tensor_adamax, op for op (its cat + amax is the
// elementwise maximum).
void adamax_ops(const AdamaxOptions& o, double clr, Tensor& p, const Tensor& g, Tensor& m,
                Tensor& u) {
  const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
  Tensor grad = o.maximize() ? g.neg() : g;
  if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
  m.mul_(beta1).add_(grad, 1 - beta1);
  u.copy_(maximum(u.mul_(beta2), grad.abs().add_(o.eps())));
  p.addcdiv_(m, u, -clr);
}

void adamax_update(const AdamaxOptions& o, Tensor& p, ParamState& st) {
  const Tensor& grad = p.grad();
  if (!st.step) st.step = 0;
  st.zeros_if_missing("exp_avg", p);
  st.zeros_if_missing("exp_inf", p);
  const int64_t step = ++*st.step;
  const double beta1 = std::get<0>(o.betas());
  const double clr = o.lr() / (1 - std::pow(beta1, static_cast<double>(step)));
  // Looked up after both exist: creating one may move the other.
  Tensor* m = st.find("exp_avg");
  Tensor* u = st.find("exp_inf");
  if (!detail::fusable(p, grad, {m, u})) {
    adamax_ops(o, clr, p, grad, *m, *u);
    return;
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(p.dtype(), "adamax", [&] {
    const AdamaxScalars<scalar_t> s{static_cast<scalar_t>(beta1),
                                    static_cast<scalar_t>(1 - beta1),
                                    static_cast<scalar_t>(std::get<1>(o.betas())),
                                    static_cast<scalar_t>(o.eps()),
                                    static_cast<scalar_t>(o.weight_decay()),
                                    static_cast<scalar_t>(-clr),
                                    o.maximize() ? scalar_t(-1) : scalar_t(1)};
    scalar_t* pp = p.data_ptr<scalar_t>();
    const scalar_t* gp = grad.data_ptr<scalar_t>();
    scalar_t* mp = m->data_ptr<scalar_t>();
    scalar_t* up = u->data_ptr<scalar_t>();
    detail::with_flag(o.weight_decay() != 0, [&](auto wd) {
      detail::for_each_chunk(p.numel(), [=](int64_t begin, int64_t end) {
        adamax_chunk<scalar_t, wd>(s, pp + begin, gp + begin, mp + begin, up + begin,
                                   end - begin);
      });
    });
  });
  detail::mark_written(p);
  detail::mark_written(*m);
  detail::mark_written(*u);
}

}  // namespace

Adamax::Adamax(std::vector<OptimizerParamGroup> groups, const AdamaxOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  set_option_check(check_adamax_options);
}

void Adamax::step_group(OptimizerParamGroup& group) {
  const auto& o = static_cast<const AdamaxOptions&>(group.options());
  for (auto& p : group.params()) {
    if (p.grad().defined()) adamax_update(o, p, state_for(p));
  }
}

}  // namespace optim
}  // namespace ember
