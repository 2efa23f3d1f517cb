#include "optim/adadelta.h"

#include <cmath>

#include "optim/fused.h"
#include "tensor/dispatch.h"

namespace ember {
namespace optim {

AdadeltaOptions::AdadeltaOptions(double lr) : lr_(lr) {}

void AdadeltaOptions::visit(OptionVisitor& v) {
  v.field("lr", lr_);
  v.field("rho", rho_);
  v.field("eps", eps_);
  v.field("weight_decay", weight_decay_);
  v.field("maximize", maximize_);
}

namespace {

void check_adadelta_options(const AdadeltaOptions& o) {
  detail::check_option(o.lr() >= 0, "Invalid learning rate", o.lr());
  detail::check_option(o.rho() >= 0 && o.rho() <= 1, "Invalid rho value", o.rho());
  detail::check_option(o.eps() >= 0, "Invalid epsilon value", o.eps());
  detail::check_option(o.weight_decay() >= 0, "Invalid weight_decay value", o.weight_decay());
}

// The hyper-parameters in the parameter's type, passed by value so that
// the loop keeps them in registers (see sgd.cc).
template <typename T>
struct AdadeltaScalars {
  T neg_lr, rho, one_m_rho, eps, wd, sign;
};

template <typename T, bool kWd>
void adadelta_chunk(const AdadeltaScalars<T> s, T* __restrict p, const T* __restrict g,
                    T* __restrict sq, T* __restrict acc, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T grad = s.sign * g[i];
    if (kWd) grad += s.wd * p[i];
    const T sqi = sq[i] * s.rho + s.one_m_rho * grad * grad;
    sq[i] = sqi;
    const T delta = std::sqrt(acc[i] + s.eps) / std::sqrt(sqi + s.eps) * grad;
    acc[i] = acc[i] * s.rho + s.one_m_rho * delta * delta;
    p[i] += s.neg_lr * delta;
  }
}

// PyTorch's _single_tensor_adadelta, op for op.
void adadelta_ops(const AdadeltaOptions& o, Tensor& p, const Tensor& g, Tensor& sq, Tensor& acc) {
  Tensor grad = o.maximize() ? g.neg() : g;
  if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
  sq.mul_(o.rho()).addcmul_(grad, grad, 1 - o.rho());
  Tensor std = sq.add(o.eps()).sqrt_();
  Tensor delta = acc.add(o.eps()).sqrt_().div_(std).mul_(grad);
  acc.mul_(o.rho()).addcmul_(delta, delta, 1 - o.rho());
  p.add_(delta, -o.lr());
}

void adadelta_update(const AdadeltaOptions& o, Tensor& p, ParamState& st) {
  const Tensor& grad = p.grad();
  if (!st.step) st.step = 0;
  st.zeros_if_missing("square_avg", p);
  st.zeros_if_missing("acc_delta", p);
  ++*st.step;
  // Looked up after both exist: creating one may move the other.
  Tensor* sq = st.find("square_avg");
  Tensor* acc = st.find("acc_delta");
  if (!detail::fusable(p, grad, {sq, acc})) {
    adadelta_ops(o, p, grad, *sq, *acc);
    return;
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(p.dtype(), "adadelta", [&] {
    const AdadeltaScalars<scalar_t> s{
        static_cast<scalar_t>(-o.lr()),  static_cast<scalar_t>(o.rho()),
        static_cast<scalar_t>(1 - o.rho()), static_cast<scalar_t>(o.eps()),
        static_cast<scalar_t>(o.weight_decay()), o.maximize() ? scalar_t(-1) : scalar_t(1)};
    scalar_t* pp = p.data_ptr<scalar_t>();
    const scalar_t* gp = grad.data_ptr<scalar_t>();
    scalar_t* sqp = sq->data_ptr<scalar_t>();
    scalar_t* accp = acc->data_ptr<scalar_t>();
    detail::with_flag(o.weight_decay() != 0, [&](auto wd) {
      detail::for_each_chunk(p.numel(), [=](int64_t begin, int64_t end) {
        adadelta_chunk<scalar_t, wd>(s, pp + begin, gp + begin, sqp + begin, accp + begin,
                                     end - begin);
      });
    });
  });
  detail::mark_written(p);
  detail::mark_written(*sq);
  detail::mark_written(*acc);
}

}  // namespace

Adadelta::Adadelta(std::vector<OptimizerParamGroup> groups, const AdadeltaOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  set_option_check(check_adadelta_options);
}

void Adadelta::step_group(OptimizerParamGroup& group) {
  const auto& o = static_cast<const AdadeltaOptions&>(group.options());
  for (auto& p : group.params()) {
    if (p.grad().defined()) adadelta_update(o, p, state_for(p));
  }
}

}  // namespace optim
}  // namespace ember
