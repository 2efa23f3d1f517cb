#include "optim/asgd.h"

#include <algorithm>
#include <cmath>

#include "optim/fused.h"
#include "tensor/dispatch.h"

namespace ember {
namespace optim {

ASGDOptions::ASGDOptions(double lr) : lr_(lr) {}

void ASGDOptions::visit(OptionVisitor& v) {
  v.field("lr", lr_);
  v.field("lambd", lambd_);
  v.field("alpha", alpha_);
  v.field("t0", t0_);
  v.field("weight_decay", weight_decay_);
  v.field("maximize", maximize_);
}

namespace {

void check_asgd_options(const ASGDOptions& o) {
  detail::check_option(o.lr() >= 0, "Invalid learning rate", o.lr());
  detail::check_option(o.weight_decay() >= 0, "Invalid weight_decay value", o.weight_decay());
}

// The per-step scalars in the parameter's type, passed by value so that
// the loop keeps them in registers (see sgd.cc).
template <typename T>
struct AsgdScalars {
  T wd, decay, neg_eta, mu, sign;
};

// kAverage: mu != 1, ax moves towards p; otherwise ax becomes p.
template <typename T, bool kWd, bool kAverage>
void asgd_chunk(const AsgdScalars<T> s, T* __restrict p, const T* __restrict g, T* __restrict ax,
                int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T grad = s.sign * g[i];
    if (kWd) grad += s.wd * p[i];
    const T param = p[i] * s.decay + s.neg_eta * grad;
    p[i] = param;
    ax[i] = kAverage ? ax[i] + (param - ax[i]) * s.mu : param;
  }
}

// PyTorch's _single_tensor_asgd, op for op.
void asgd_ops(const ASGDOptions& o, double eta, double mu, Tensor& p, const Tensor& g,
              Tensor& ax) {
  Tensor grad = o.maximize() ? g.neg() : g;
  if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
  p.mul_(1 - o.lambd() * eta);
  p.add_(grad, -eta);
  if (mu != 1) {
    ax.add_(p.sub(ax).mul(mu));
  } else {
    ax.copy_(p);
  }
}

void asgd_update(const ASGDOptions& o, Tensor& p, ParamState& st) {
  const Tensor& grad = p.grad();
  if (!st.step) st.step = 0;
  const double eta = st.scalar("eta", o.lr());
  const double mu = st.scalar("mu", 1.0);
  st.zeros_if_missing("ax", p);
  const double step = static_cast<double>(++*st.step);
  Tensor* ax = st.find("ax");
  if (!detail::fusable(p, grad, {ax})) {
    asgd_ops(o, eta, mu, p, grad, *ax);
  } else {
    EMBER_DISPATCH_FLOAT_DOUBLE(p.dtype(), "asgd", [&] {
      const AsgdScalars<scalar_t> s{static_cast<scalar_t>(o.weight_decay()),
                                    static_cast<scalar_t>(1 - o.lambd() * eta),
                                    static_cast<scalar_t>(-eta), static_cast<scalar_t>(mu),
                                    o.maximize() ? scalar_t(-1) : scalar_t(1)};
      scalar_t* pp = p.data_ptr<scalar_t>();
      const scalar_t* gp = grad.data_ptr<scalar_t>();
      scalar_t* axp = ax->data_ptr<scalar_t>();
      detail::with_flag(o.weight_decay() != 0, [&](auto wd) {
        detail::with_flag(mu != 1, [&](auto average) {
          detail::for_each_chunk(p.numel(), [=](int64_t begin, int64_t end) {
            asgd_chunk<scalar_t, wd, average>(s, pp + begin, gp + begin, axp + begin,
                                              end - begin);
          });
        });
      });
    });
    detail::mark_written(p);
    detail::mark_written(*ax);
  }
  st.set_scalar("eta", o.lr() / std::pow(1 + o.lambd() * o.lr() * step, o.alpha()));
  st.set_scalar("mu", 1 / std::max(1.0, step - o.t0()));
}

}  // namespace

ASGD::ASGD(std::vector<OptimizerParamGroup> groups, const ASGDOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  set_option_check(check_asgd_options);
}

void ASGD::step_group(OptimizerParamGroup& group) {
  const auto& o = static_cast<const ASGDOptions&>(group.options());
  for (auto& p : group.params()) {
    if (p.grad().defined()) asgd_update(o, p, state_for(p));
  }
}

}  // namespace optim
}  // namespace ember
