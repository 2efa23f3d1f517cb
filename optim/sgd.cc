#include "optim/sgd.h"

#include "optim/fused.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"

namespace ember {
namespace optim {

SGDOptions::SGDOptions(double lr) : lr_(lr) {}

void SGDOptions::visit(OptionVisitor& v) {
  v.field("lr", lr_);
  v.field("momentum", momentum_);
  v.field("dampening", dampening_);
  v.field("weight_decay", weight_decay_);
  v.field("nesterov", nesterov_);
  v.field("maximize", maximize_);
}

namespace {

void check_sgd_options(const SGDOptions& o) {
  detail::check_option(o.lr() >= 0, "Invalid learning rate", o.lr());
  detail::check_option(o.momentum() >= 0, "Invalid momentum value", o.momentum());
  detail::check_option(o.weight_decay() >= 0, "Invalid weight_decay value", o.weight_decay());
  EMBER_CHECK_VALUE(!o.nesterov() || (o.momentum() > 0 && o.dampening() == 0),
                    "Nesterov momentum requires a momentum and zero dampening");
}

// One pass over a contiguous parameter (Note [Fused updates]). `fresh`: the
// momentum buffer was just created and takes d_p itself, as PyTorch's
// clone() of the first step.
template <typename T>
void sgd_fused(const SGDOptions& o, T* p, const T* g, T* buf, bool fresh, int64_t n) {
  const T lr = static_cast<T>(o.lr()), wd = static_cast<T>(o.weight_decay());
  const T momentum = static_cast<T>(o.momentum()), damp = static_cast<T>(1 - o.dampening());
  const T sign = o.maximize() ? T(-1) : T(1);
  const bool nesterov = o.nesterov();
  detail::for_each_chunk(n, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      T d = sign * g[i];
      if (wd != 0) d += wd * p[i];
      if (buf != nullptr) {
        const T b = fresh ? d : buf[i] * momentum + damp * d;
        buf[i] = b;
        d = nesterov ? d + momentum * b : b;
      }
      p[i] -= lr * d;
    }
  });
}

// PyTorch's _single_tensor_sgd, op for op.
void sgd_ops(const SGDOptions& o, Tensor& p, const Tensor& grad, ParamState& st) {
  Tensor d_p = o.maximize() ? grad.neg() : grad;
  if (o.weight_decay() != 0) d_p = d_p.add(p, o.weight_decay());
  if (o.momentum() != 0) {
    Tensor* buf = st.find("momentum_buffer");
    if (buf == nullptr) {
      st.buffers.emplace_back("momentum_buffer", d_p.clone().detach());
      buf = &st.buffers.back().second;
    } else {
      buf->mul_(o.momentum()).add_(d_p, 1 - o.dampening());
    }
    d_p = o.nesterov() ? d_p.add(*buf, o.momentum()) : *buf;
  }
  p.add_(d_p, -o.lr());
}

}  // namespace

SGD::SGD(std::vector<OptimizerParamGroup> groups, const SGDOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  check_sgd_options(defaults);
  for (auto& g : param_groups()) check_sgd_options(static_cast<const SGDOptions&>(g.options()));
}

void SGD::step_group(OptimizerParamGroup& group) {
  const auto& o = static_cast<const SGDOptions&>(group.options());
  for (auto& p : group.params()) {
    const Tensor& grad = p.grad();
    if (!grad.defined()) continue;
    ParamState& st = state_for(p);
    Tensor* buf = o.momentum() != 0 ? st.find("momentum_buffer") : nullptr;
    const bool fresh = o.momentum() != 0 && buf == nullptr;
    if (!detail::fusable(p, grad, {}) || (buf != nullptr && !detail::fusable(p, *buf, {}))) {
      sgd_ops(o, p, grad, st);
      continue;
    }
    if (fresh) {
      st.buffers.emplace_back("momentum_buffer", empty_like(p));
      buf = &st.buffers.back().second;
    }
    EMBER_DISPATCH_FLOAT_DOUBLE(p.dtype(), "sgd", [&] {
      sgd_fused<scalar_t>(o, p.data_ptr<scalar_t>(), grad.data_ptr<scalar_t>(),
                          buf ? buf->data_ptr<scalar_t>() : nullptr, fresh, p.numel());
    });
    detail::mark_written(p);
    if (buf != nullptr) detail::mark_written(*buf);
  }
}

}  // namespace optim
}  // namespace ember
