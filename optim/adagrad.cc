#include "optim/adagrad.h"

#include <cmath>

#include "optim/fused.h"
#include "tensor/creation.h"
#include "tensor/dispatch.h"

namespace ember {
namespace optim {

AdagradOptions::AdagradOptions(double lr) : lr_(lr) {}

void AdagradOptions::visit(OptionVisitor& v) {
  v.field("lr", lr_);
  v.field("lr_decay", lr_decay_);
  v.field("eps", eps_);
  v.field("weight_decay", weight_decay_);
  v.field("initial_accumulator_value", initial_accumulator_value_);
  v.field("maximize", maximize_);
}

namespace {

void check_adagrad_options(const AdagradOptions& o) {
  detail::check_option(o.lr() >= 0, "Invalid learning rate", o.lr());
  detail::check_option(o.lr_decay() >= 0, "Invalid lr_decay value", o.lr_decay());
  detail::check_option(o.weight_decay() >= 0, "Invalid weight_decay value", o.weight_decay());
  detail::check_option(o.initial_accumulator_value() >= 0,
                       "Invalid initial_accumulator_value value", o.initial_accumulator_value());
  detail::check_option(o.eps() >= 0, "Invalid epsilon value", o.eps());
}

// PyTorch's state at construction: step 0 and the filled accumulator. As
// PyTorch does, the accumulator starts at the optimizer's default
// initial_accumulator_value, whatever the parameter's group says.
void init_state(const AdagradOptions& o, const Tensor& p, ParamState& st) {
  if (st.step) return;
  st.step = 0;
  st.buffers.emplace_back("sum", full_like(p, o.initial_accumulator_value()));
}

// The hyper-parameters in the parameter's type, passed by value so that
// the loop keeps them in registers (see sgd.cc).
template <typename T>
struct AdagradScalars {
  T neg_clr, wd, eps, sign;
};

template <typename T, bool kWd>
void adagrad_chunk(const AdagradScalars<T> s, T* __restrict p, const T* __restrict g,
                   T* __restrict sum, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T grad = s.sign * g[i];
    if (kWd) grad += s.wd * p[i];
    const T acc = sum[i] + grad * grad;
    sum[i] = acc;
    p[i] += s.neg_clr * (grad / (std::sqrt(acc) + s.eps));
  }
}

// PyTorch's _single_tensor_adagrad (dense), op for op.
void adagrad_ops(const AdagradOptions& o, double clr, Tensor& p, const Tensor& g, Tensor& sum) {
  Tensor grad = o.maximize() ? g.neg() : g;
  if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
  sum.addcmul_(grad, grad, 1);
  Tensor std = sum.sqrt().add_(o.eps());
  p.addcdiv_(grad, std, -clr);
}

void adagrad_update(const AdagradOptions& o, const AdagradOptions& defaults, Tensor& p,
                    ParamState& st) {
  const Tensor& grad = p.grad();
  init_state(defaults, p, st);  // a parameter of a group added after construction
  const int64_t step = ++*st.step;
  const double clr = o.lr() / (1 + static_cast<double>(step - 1) * o.lr_decay());
  Tensor* sum = st.find("sum");
  EMBER_CHECK(sum != nullptr, "Adagrad: the state of a parameter lacks 'sum'");
  if (!detail::fusable(p, grad, {sum})) {
    adagrad_ops(o, clr, p, grad, *sum);
    return;
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(p.dtype(), "adagrad", [&] {
    const AdagradScalars<scalar_t> s{static_cast<scalar_t>(-clr),
                                     static_cast<scalar_t>(o.weight_decay()),
                                     static_cast<scalar_t>(o.eps()),
                                     o.maximize() ? scalar_t(-1) : scalar_t(1)};
    scalar_t* pp = p.data_ptr<scalar_t>();
    const scalar_t* gp = grad.data_ptr<scalar_t>();
    scalar_t* sp = sum->data_ptr<scalar_t>();
    detail::with_flag(o.weight_decay() != 0, [&](auto wd) {
      detail::for_each_chunk(p.numel(), [=](int64_t begin, int64_t end) {
        adagrad_chunk<scalar_t, wd>(s, pp + begin, gp + begin, sp + begin, end - begin);
      });
    });
  });
  detail::mark_written(p);
  detail::mark_written(*sum);
}

}  // namespace

Adagrad::Adagrad(std::vector<OptimizerParamGroup> groups, const AdagradOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  set_option_check(check_adagrad_options);
  for (auto& g : param_groups()) {
    for (const auto& p : g.params()) init_state(defaults, p, state_for(p));
  }
}

void Adagrad::step_group(OptimizerParamGroup& group) {
  const auto& o = static_cast<const AdagradOptions&>(group.options());
  const auto& d = static_cast<const AdagradOptions&>(defaults());
  for (auto& p : group.params()) {
    if (p.grad().defined()) adagrad_update(o, d, p, state_for(p));
  }
}

}  // namespace optim
}  // namespace ember
