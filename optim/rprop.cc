#include "optim/rprop.h"

#include <algorithm>
#include <cmath>

#include "optim/fused.h"
#include "tensor/creation.h"
#include "tensor/dispatch.h"
#include "tensor/print.h"

namespace ember {
namespace optim {

RpropOptions::RpropOptions(double lr) : lr_(lr) {}

void RpropOptions::visit(OptionVisitor& v) {
  v.field("lr", lr_);
  v.field("etas", etas_);
  v.field("step_sizes", step_sizes_);
  v.field("maximize", maximize_);
}

namespace {

void check_rprop_options(const RpropOptions& o) {
  detail::check_option(o.lr() >= 0, "Invalid learning rate", o.lr());
  const double etaminus = std::get<0>(o.etas()), etaplus = std::get<1>(o.etas());
  EMBER_CHECK_VALUE(0.0 < etaminus && etaminus < 1.0 && 1.0 < etaplus,
                    "Invalid eta values: ", python_float_repr(etaminus), ", ",
                    python_float_repr(etaplus));
}

// The hyper-parameters in the parameter's type, passed by value so that
// the loop keeps them in registers (see sgd.cc).
template <typename T>
struct RpropScalars {
  T etaminus, etaplus, step_min, step_max, sign;
};

template <typename T>
void rprop_chunk(const RpropScalars<T> s, T* __restrict p, const T* __restrict g,
                 T* __restrict prev, T* __restrict step_size, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const T grad = s.sign * g[i];
    const T prod = grad * prev[i];
    // PyTorch's sign(): NaN counts as 0, so it keeps the step size.
    const bool up = prod > 0, down = prod < 0;
    const T factor = up ? s.etaplus : (down ? s.etaminus : T(1));
    const T scaled = step_size[i] * factor;
    // clamp_, NaN propagating as in PyTorch.
    const T step = std::isnan(scaled) ? scaled : std::min(std::max(scaled, s.step_min), s.step_max);
    step_size[i] = step;
    // No move where the gradient flipped; the next step starts afresh there.
    const T used = down ? T(0) : grad;
    const T direction = T(used > 0) - T(used < 0);
    p[i] -= direction * step;
    prev[i] = used;
  }
}

// PyTorch's _single_tensor_rprop, op for op.
void rprop_ops(const RpropOptions& o, Tensor& p, const Tensor& g, Tensor& prev, Tensor& step_size) {
  const double etaminus = std::get<0>(o.etas()), etaplus = std::get<1>(o.etas());
  Tensor grad = o.maximize() ? g.neg() : g;
  Tensor sign = grad.mul(prev).sign();
  sign.masked_fill_(sign.gt(0), etaplus);
  sign.masked_fill_(sign.lt(0), etaminus);
  sign.masked_fill_(sign.eq(0), 1);
  step_size.mul_(sign).clamp_(std::get<0>(o.step_sizes()), std::get<1>(o.step_sizes()));
  grad = grad.clone();
  grad.masked_fill_(sign.eq(etaminus), 0);
  p.addcmul_(grad.sign(), step_size, -1);
  prev.copy_(grad);
}

void rprop_update(const RpropOptions& o, Tensor& p, ParamState& st) {
  const Tensor& grad = p.grad();
  if (!st.step) {
    st.step = 0;
    st.zeros_if_missing("prev", p);
    st.buffers.emplace_back("step_size", full_like(grad, o.lr()));
  }
  ++*st.step;
  Tensor* prev = st.find("prev");
  Tensor* step_size = st.find("step_size");
  EMBER_CHECK(prev != nullptr && step_size != nullptr, "Rprop state lacks 'prev' or 'step_size'");
  if (!detail::fusable(p, grad, {prev, step_size})) {
    rprop_ops(o, p, grad, *prev, *step_size);
    return;
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(p.dtype(), "rprop", [&] {
    const RpropScalars<scalar_t> s{static_cast<scalar_t>(std::get<0>(o.etas())),
                                   static_cast<scalar_t>(std::get<1>(o.etas())),
                                   static_cast<scalar_t>(std::get<0>(o.step_sizes())),
                                   static_cast<scalar_t>(std::get<1>(o.step_sizes())),
                                   o.maximize() ? scalar_t(-1) : scalar_t(1)};
    scalar_t* pp = p.data_ptr<scalar_t>();
    const scalar_t* gp = grad.data_ptr<scalar_t>();
    scalar_t* prevp = prev->data_ptr<scalar_t>();
    scalar_t* sp = step_size->data_ptr<scalar_t>();
    detail::for_each_chunk(p.numel(), [=](int64_t begin, int64_t end) {
      rprop_chunk<scalar_t>(s, pp + begin, gp + begin, prevp + begin, sp + begin, end - begin);
    });
  });
  detail::mark_written(p);
  detail::mark_written(*prev);
  detail::mark_written(*step_size);
}

}  // namespace

Rprop::Rprop(std::vector<OptimizerParamGroup> groups, const RpropOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  set_option_check(check_rprop_options);
}

void Rprop::step_group(OptimizerParamGroup& group) {
  const auto& o = static_cast<const RpropOptions&>(group.options());
  for (auto& p : group.params()) {
    if (p.grad().defined()) rprop_update(o, p, state_for(p));
  }
}

}  // namespace optim
}  // namespace ember
