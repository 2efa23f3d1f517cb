#include "optim/rmsprop.h"

#include <cmath>

#include "optim/fused.h"
#include "tensor/dispatch.h"

namespace ember {
namespace optim {

RMSpropOptions::RMSpropOptions(double lr) : lr_(lr) {}

void RMSpropOptions::visit(OptionVisitor& v) {
  v.field("lr", lr_);
  v.field("momentum", momentum_);
  v.field("alpha", alpha_);
  v.field("eps", eps_);
  v.field("centered", centered_);
  v.field("weight_decay", weight_decay_);
  v.field("maximize", maximize_);
}

namespace {

void check_rmsprop_options(const RMSpropOptions& o) {
  detail::check_option(o.lr() >= 0, "Invalid learning rate", o.lr());
  detail::check_option(o.eps() >= 0, "Invalid epsilon value", o.eps());
  detail::check_option(o.momentum() >= 0, "Invalid momentum value", o.momentum());
  detail::check_option(o.weight_decay() >= 0, "Invalid weight_decay value", o.weight_decay());
  detail::check_option(o.alpha() >= 0, "Invalid alpha value", o.alpha());
}

// The hyper-parameters in the parameter's type, passed by value so that
// the loop keeps them in registers (see sgd.cc).
template <typename T>
struct RmspropScalars {
  T lr, alpha, one_m_alpha, eps, wd, momentum, sign;
};

// Elements [0, n) of one chunk; kCentered: gavg is used, kMomentum: buf.
template <typename T, bool kWd, bool kCentered, bool kMomentum>
void rmsprop_chunk(const RmspropScalars<T> s, T* __restrict p, const T* __restrict g,
                   T* __restrict sq, T* __restrict gavg, T* __restrict buf, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T grad = s.sign * g[i];
    if (kWd) grad += s.wd * p[i];
    const T sqi = sq[i] * s.alpha + s.one_m_alpha * grad * grad;
    sq[i] = sqi;
    T avg;
    if (kCentered) {
      const T ga = gavg[i] * s.alpha + s.one_m_alpha * grad;
      gavg[i] = ga;
      avg = std::sqrt(sqi - ga * ga) + s.eps;
    } else {
      avg = std::sqrt(sqi) + s.eps;
    }
    if (kMomentum) {
      const T b = buf[i] * s.momentum + grad / avg;
      buf[i] = b;
      p[i] -= s.lr * b;
    } else {
      p[i] -= s.lr * (grad / avg);
    }
  }
}

// One pass over a contiguous parameter (Note [Fused updates]).
template <typename T>
void rmsprop_fused(const RMSpropOptions& o, T* p, const T* g, T* sq, T* gavg, T* buf, int64_t n) {
  const RmspropScalars<T> s{static_cast<T>(o.lr()),       static_cast<T>(o.alpha()),
                            static_cast<T>(1 - o.alpha()), static_cast<T>(o.eps()),
                            static_cast<T>(o.weight_decay()), static_cast<T>(o.momentum()),
                            o.maximize() ? T(-1) : T(1)};
  detail::with_flag(o.weight_decay() != 0, [&](auto wd) {
    detail::with_flag(gavg != nullptr, [&](auto centered) {
      detail::with_flag(buf != nullptr, [&](auto momentum) {
        detail::for_each_chunk(n, [=](int64_t begin, int64_t end) {
          rmsprop_chunk<T, wd, centered, momentum>(s, p + begin, g + begin, sq + begin,
                                                   centered ? gavg + begin : nullptr,
                                                   momentum ? buf + begin : nullptr, end - begin);
        });
      });
    });
  });
}

// PyTorch's _single_tensor_rmsprop, op for op.
void rmsprop_ops(const RMSpropOptions& o, Tensor& p, const Tensor& g, Tensor& sq, Tensor* gavg,
                 Tensor* buf) {
  Tensor grad = o.maximize() ? g.neg() : g;
  if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
  sq.mul_(o.alpha()).addcmul_(grad, grad, 1 - o.alpha());
  Tensor avg;
  if (gavg != nullptr) {
    gavg->mul_(o.alpha()).add_(grad, 1 - o.alpha());
    avg = sq.addcmul(*gavg, *gavg, -1).sqrt_();
  } else {
    avg = sq.sqrt();
  }
  avg.add_(o.eps());
  if (buf != nullptr) {
    buf->mul_(o.momentum()).addcdiv_(grad, avg);
    p.add_(*buf, -o.lr());
  } else {
    p.addcdiv_(grad, avg, -o.lr());
  }
}

void rmsprop_update(const RMSpropOptions& o, Tensor& p, ParamState& st) {
  const Tensor& grad = p.grad();
  // PyTorch creates the buffers with the state, from the options of the
  // first step.
  if (!st.step) {
    st.step = 0;
    st.zeros_if_missing("square_avg", p);
    if (o.momentum() > 0) st.zeros_if_missing("momentum_buffer", p);
    if (o.centered()) st.zeros_if_missing("grad_avg", p);
  }
  ++*st.step;
  Tensor* sq = st.find("square_avg");
  Tensor* buf = o.momentum() > 0 ? st.find("momentum_buffer") : nullptr;
  Tensor* gavg = o.centered() ? st.find("grad_avg") : nullptr;
  EMBER_CHECK(sq != nullptr && (buf != nullptr || o.momentum() <= 0) &&
                  (gavg != nullptr || !o.centered()),
              "RMSprop: the state of a parameter lacks a buffer its options need");
  if (!detail::fusable(p, grad, {sq}) || (buf != nullptr && !detail::fusable(p, *buf, {})) ||
      (gavg != nullptr && !detail::fusable(p, *gavg, {}))) {
    rmsprop_ops(o, p, grad, *sq, gavg, buf);
    return;
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(p.dtype(), "rmsprop", [&] {
    rmsprop_fused<scalar_t>(o, p.data_ptr<scalar_t>(), grad.data_ptr<scalar_t>(),
                            sq->data_ptr<scalar_t>(), gavg ? gavg->data_ptr<scalar_t>() : nullptr,
                            buf ? buf->data_ptr<scalar_t>() : nullptr, p.numel());
  });
  detail::mark_written(p);
  detail::mark_written(*sq);
  if (buf != nullptr) detail::mark_written(*buf);
  if (gavg != nullptr) detail::mark_written(*gavg);
}

}  // namespace

RMSprop::RMSprop(std::vector<OptimizerParamGroup> groups, const RMSpropOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  set_option_check(check_rmsprop_options);
}

void RMSprop::step_group(OptimizerParamGroup& group) {
  const auto& o = static_cast<const RMSpropOptions&>(group.options());
  for (auto& p : group.params()) {
    if (p.grad().defined()) rmsprop_update(o, p, state_for(p));
  }
}

}  // namespace optim
}  // namespace ember
