#include "optim/adam.h"

#include <cmath>

#include "optim/fused.h"
#include "optim/moments.h"
#include "tensor/creation.h"
#include "tensor/dispatch.h"
#include "tensor/math.h"
#include "tensor/multi_tensor.h"

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
  v.field("capturable", o.capturable());
}
void AdamOptions::visit(OptionVisitor& v) { visit_adam(*this, v); }
void AdamWOptions::visit(OptionVisitor& v) { visit_adam(*this, v); }

namespace detail {
void check_adam_options(double lr, double eps, const Betas& betas, double weight_decay) {
  const double beta1 = std::get<0>(betas), beta2 = std::get<1>(betas);
  check_option(lr >= 0, "Invalid learning rate", lr);
  check_option(eps >= 0, "Invalid epsilon value", eps);
  check_option(beta1 >= 0 && beta1 < 1, "Invalid beta parameter at index 0", beta1);
  check_option(beta2 >= 0 && beta2 < 1, "Invalid beta parameter at index 1", beta2);
  check_option(weight_decay >= 0, "Invalid weight_decay value", weight_decay);
}
}  // namespace detail

namespace {

// The hyper-parameters of one group, for either optimizer.
struct AdamHyper {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad, maximize, decoupled;  // decoupled: AdamW
  bool capturable;                    // Note [Capturable Adam]

  template <typename O>
  static AdamHyper of(const O& o, bool decoupled) {
    return {o.lr(),
            std::get<0>(o.betas()),
            std::get<1>(o.betas()),
            o.eps(),
            o.weight_decay(),
            o.amsgrad(),
            o.maximize(),
            decoupled,
            o.capturable()};
  }

  void check() const {
    detail::check_adam_options(lr, eps, std::make_tuple(beta1, beta2), weight_decay);
  }
};

// Per-step scalars, computed in double as PyTorch's Python floats are.
struct AdamStep {
  double step_size, bias_correction2_sqrt;
  AdamStep(const AdamHyper& h, int64_t step)
      : step_size(h.lr / (1 - std::pow(h.beta1, static_cast<double>(step)))),
        bias_correction2_sqrt(std::sqrt(1 - std::pow(h.beta2, static_cast<double>(step)))) {}
};

// The per-step scalars in the parameter's type, passed by value so that
// the loop keeps them in registers (see sgd.cc).
template <typename T>
struct AdamScalars {
  detail::MomentScalars<T> moments;
  T eps, decay, bc2_sqrt, neg_step_size, sign;
};

// Elements [0, n) of one chunk. kDecoupled: AdamW's decay of the parameter;
// kWd: Adam's weight decay of the gradient; kAmsgrad: vmax is used.
template <typename T, bool kDecoupled, bool kWd, bool kAmsgrad>
void adam_chunk(const AdamScalars<T> s, T* __restrict p, const T* __restrict g, T* __restrict m,
                T* __restrict v, T* __restrict vmax, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T param = p[i];
    if (kDecoupled) param *= s.decay;
    detail::update_moments<kWd>(s.moments, param, s.sign * g[i], m[i], v[i]);
    T second = v[i];
    if (kAmsgrad) {
      second = std::max(vmax[i], second);
      vmax[i] = second;
    }
    const T denom = std::sqrt(second) / s.bc2_sqrt + s.eps;
    p[i] = param + s.neg_step_size * m[i] / denom;
  }
}

// One pass over a contiguous parameter (Note [Fused updates]).
template <typename T>
void adam_fused(const AdamHyper& h, const AdamStep& st, T* p, const T* g, T* m, T* v, T* vmax,
                int64_t n) {
  const AdamScalars<T> s{
      detail::MomentScalars<T>::of(std::make_tuple(h.beta1, h.beta2), h.weight_decay),
      static_cast<T>(h.eps),
      static_cast<T>(1 - h.lr * h.weight_decay),
      static_cast<T>(st.bias_correction2_sqrt),
      static_cast<T>(-st.step_size),
      h.maximize ? T(-1) : T(1)};
  detail::with_flag(h.decoupled, [&](auto decoupled) {
    detail::with_flag(!h.decoupled && h.weight_decay != 0, [&](auto wd) {
      detail::with_flag(vmax != nullptr, [&](auto amsgrad) {
        detail::for_each_chunk(n, [=](int64_t begin, int64_t end) {
          adam_chunk<T, decoupled, wd, amsgrad>(s, p + begin, g + begin, m + begin, v + begin,
                                                amsgrad ? vmax + begin : nullptr, end - begin);
        });
      });
    });
  });
}

// PyTorch's _single_tensor_adam / _single_tensor_adamw (not capturable), op
// for op.
void adam_ops(const AdamHyper& h, const AdamStep& s, Tensor& p, const Tensor& g, Tensor& m,
              Tensor& v, Tensor* vmax) {
  Tensor grad = h.maximize ? g.neg() : g;
  if (h.decoupled) p.mul_(1 - h.lr * h.weight_decay);
  detail::update_moments(std::make_tuple(h.beta1, h.beta2), h.decoupled ? 0 : h.weight_decay, p,
                         grad, m, v);
  Tensor denom;
  if (vmax != nullptr) {
    vmax->copy_(maximum(*vmax, v));
    denom = (vmax->sqrt() / s.bias_correction2_sqrt).add_(h.eps);
  } else {
    denom = (v.sqrt() / s.bias_correction2_sqrt).add_(h.eps);
  }
  p.addcdiv_(m, denom, -s.step_size);
}

// PyTorch's _single_tensor_adam / _single_tensor_adamw with capturable=True,
// op for op, but with 0-dim float64 corrections (Note [Capturable Adam]):
// nothing is read on the host.
void adam_ops_capturable(const AdamHyper& h, Tensor& step, Tensor& p, const Tensor& g, Tensor& m,
                         Tensor& v, Tensor* vmax) {
  Tensor grad = h.maximize ? g.neg() : g;
  step.add_(1);
  if (h.decoupled) p.mul_(1 - h.lr * h.weight_decay);
  detail::update_moments(std::make_tuple(h.beta1, h.beta2), h.decoupled ? 0 : h.weight_decay, p,
                         grad, m, v);
  const Tensor t = step.reshape({}).to(kDouble);
  const Tensor bias_correction1 = 1 - ember::pow(Scalar(h.beta1), t);
  const Tensor bias_correction2 = 1 - ember::pow(Scalar(h.beta2), t);
  const Tensor step_size_neg = (h.lr / bias_correction1).neg();
  const Tensor bias_correction2_sqrt = bias_correction2.sqrt();
  Tensor second = v;
  if (vmax != nullptr) {
    vmax->copy_(maximum(*vmax, v));
    second = *vmax;
  }
  // PyTorch folds -step_size into the denominator: addcdiv_ takes no tensor
  // value.
  Tensor denom =
      (second.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(h.eps / step_size_neg);
  p.addcdiv_(m, denom);
}

// A parameter's step where a capturable group keeps it (Note [Capturable
// Adam]): ParamState::device_step, created on the parameter's device from
// the host count (0, or what load_state_dict read) when missing.
Tensor& device_step_of(ParamState& st, const Tensor& p) {
  if (!st.device_step.defined()) {
    st.device_step = full({1}, static_cast<double>(st.step.value_or(0)),
                          TensorOptions(kFloat).device(p.device()));
    st.step.reset();
  } else if (st.device_step.device() != p.device()) {
    st.device_step = st.device_step.to(p.device());
  }
  return st.device_step;
}

// The host count of a non-capturable group, read back from a device step
// left by capturable steps.
int64_t& host_step_of(ParamState& st) {
  if (st.device_step.defined()) {
    st.step = static_cast<int64_t>(st.device_step.item<double>());
    st.device_step = Tensor();
  }
  if (!st.step) st.step = 0;
  return *st.step;
}

void adam_update(const AdamHyper& h, Tensor& p, ParamState& st) {
  const Tensor& grad = p.grad();
  Tensor* step_t = h.capturable ? &device_step_of(st, p) : nullptr;
  int64_t* step = h.capturable ? nullptr : &host_step_of(st);
  st.zeros_if_missing("exp_avg", p);
  st.zeros_if_missing("exp_avg_sq", p);
  if (h.amsgrad) st.zeros_if_missing("max_exp_avg_sq", p);
  // Looked up after all are created: creating one may move the others.
  Tensor* mp = st.find("exp_avg");
  Tensor* vp = st.find("exp_avg_sq");
  Tensor* vmax = h.amsgrad ? st.find("max_exp_avg_sq") : nullptr;
  const bool fused =
      detail::fusable(p, grad, {mp, vp}) && (vmax == nullptr || detail::fusable(p, *vmax, {}));
  if (step_t != nullptr && !fused) {
    adam_ops_capturable(h, *step_t, p, grad, *mp, *vp, vmax);
    return;
  }
  int64_t n = 0;
  if (step_t != nullptr) {
    // Fused: p, and so its step, are on the CPU, where reading is no sync.
    step_t->add_(1);
    n = static_cast<int64_t>(*step_t->data_ptr<float>());
  } else {
    n = ++*step;
  }
  const AdamStep s(h, n);
  if (!fused) {
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

// The group's parameters with gradients in one multi-tensor kernel (Note
// [Multi-tensor updates]); false, having changed no step count, when they
// do not qualify.
template <typename StateFor>
bool adam_multi(const AdamHyper& h, OptimizerParamGroup& group, std::optional<bool> foreach,
                bool fused, const StateFor& state_for) {
  std::vector<Tensor> ps;
  for (const Tensor& p : group.params()) {
    if (p.grad().defined()) ps.push_back(p);
  }
  if (!detail::use_multi_tensor(ps, foreach, fused,
                                ember::detail::multi_tensor_adam_kernel.has(kCUDA))) {
    return false;
  }
  std::vector<Tensor> gs, ms, vs, vmaxs;
  std::vector<ParamState*> states;
  for (const Tensor& p : ps) {
    ParamState& st = state_for(p);
    st.zeros_if_missing("exp_avg", p);
    st.zeros_if_missing("exp_avg_sq", p);
    if (h.amsgrad) st.zeros_if_missing("max_exp_avg_sq", p);
    gs.push_back(p.grad());
    ms.push_back(*st.find("exp_avg"));
    vs.push_back(*st.find("exp_avg_sq"));
    if (h.amsgrad) vmaxs.push_back(*st.find("max_exp_avg_sq"));
    states.push_back(&st);
  }
  if (!detail::buffers_fit(ps, ms) || !detail::buffers_fit(ps, vs) ||
      !detail::buffers_fit(ps, vmaxs)) {
    return false;
  }
  ember::detail::MultiAdamArgs args{h.lr,      h.beta1,    h.beta2,     h.eps, h.weight_decay,
                                    h.amsgrad, h.maximize, h.decoupled, {},    {}};
  for (size_t i = 0; i < states.size(); ++i) {
    if (h.capturable) {  // the kernels advance and read it on the device
      args.state_steps.push_back(device_step_of(*states[i], ps[i]));
      continue;
    }
    const AdamStep s(h, ++host_step_of(*states[i]));
    args.step_size.push_back(s.step_size);
    args.bias_correction2_sqrt.push_back(s.bias_correction2_sqrt);
  }
  ember::detail::multi_tensor_adam_kernel(kCUDA)(args, ps, gs, ms, vs, vmaxs);
  for (auto* list : {&ps, &ms, &vs, &vmaxs, &args.state_steps}) {
    for (const Tensor& t : *list) detail::mark_written(t);
  }
  return true;
}

}  // namespace

Adam::Adam(std::vector<OptimizerParamGroup> groups, const AdamOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  set_option_check(+[](const AdamOptions& o) { AdamHyper::of(o, false).check(); });
}

void Adam::step_group(OptimizerParamGroup& group) {
  const auto& o = static_cast<const AdamOptions&>(group.options());
  const auto h = AdamHyper::of(o, false);
  if (adam_multi(h, group, o.foreach(), o.fused(), [&](const Tensor& p) -> ParamState& {
        return state_for(p);
      })) {
    return;
  }
  for (auto& p : group.params()) {
    if (p.grad().defined()) adam_update(h, p, state_for(p));
  }
}

AdamW::AdamW(std::vector<OptimizerParamGroup> groups, const AdamWOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  set_option_check(+[](const AdamWOptions& o) { AdamHyper::of(o, true).check(); });
}

void AdamW::step_group(OptimizerParamGroup& group) {
  const auto& o = static_cast<const AdamWOptions&>(group.options());
  const auto h = AdamHyper::of(o, true);
  if (adam_multi(h, group, o.foreach(), o.fused(), [&](const Tensor& p) -> ParamState& {
        return state_for(p);
      })) {
    return;
  }
  for (auto& p : group.params()) {
    if (p.grad().defined()) adam_update(h, p, state_for(p));
  }
}

}  // namespace optim
}  // namespace ember
