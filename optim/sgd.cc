#include "optim/sgd.h"

#include "optim/fused.h"
#include "tensor/dispatch.h"
#include "tensor/creation.h"
#include "tensor/multi_tensor.h"

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

// The hyper-parameters in the parameter's type, passed by value: a loop
// that read them through a reference could not keep them in registers (its
// stores might alias them) and would not vectorize.
template <typename T>
struct SgdScalars {
  T lr, wd, momentum, sign;
  // buf = buf * buf_decay + buf_damp * d: momentum and 1 - dampening, or
  // 0 and 1 on the first step, when PyTorch's buffer starts as d itself (the
  // buffer then holds zeros, and 0 * 0 + 1 * d is d exactly).
  T buf_decay, buf_damp;
};

// Elements [0, n) of one chunk; kMomentum: buf is used.
template <typename T, bool kWd, bool kMomentum, bool kNesterov>
void sgd_chunk(const SgdScalars<T> s, T* __restrict p, const T* __restrict g, T* __restrict buf,
               int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T d = s.sign * g[i];
    if (kWd) d += s.wd * p[i];
    if (kMomentum) {
      const T b = buf[i] * s.buf_decay + s.buf_damp * d;
      buf[i] = b;
      d = kNesterov ? d + s.momentum * b : b;
    }
    p[i] -= s.lr * d;
  }
}

// One pass over a contiguous parameter (Note [Fused updates]). `buf` null:
// no momentum; `fresh`: buf was just created (zeros).
template <typename T>
void sgd_fused(const SGDOptions& o, T* p, const T* g, T* buf, bool fresh, int64_t n) {
  const SgdScalars<T> s{static_cast<T>(o.lr()),
                        static_cast<T>(o.weight_decay()),
                        static_cast<T>(o.momentum()),
                        o.maximize() ? T(-1) : T(1),
                        fresh ? T(0) : static_cast<T>(o.momentum()),
                        fresh ? T(1) : static_cast<T>(1 - o.dampening())};
  detail::with_flag(o.weight_decay() != 0, [&](auto wd) {
    detail::with_flag(buf != nullptr, [&](auto momentum) {
      detail::with_flag(o.nesterov(), [&](auto nesterov) {
        detail::for_each_chunk(n, [=](int64_t begin, int64_t end) {
          sgd_chunk<T, wd, momentum, nesterov>(s, p + begin, g + begin,
                                               momentum ? buf + begin : nullptr, end - begin);
        });
      });
    });
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
  set_option_check(check_sgd_options);
}

namespace {

// The group's parameters with gradients in one multi-tensor kernel (Note
// [Multi-tensor updates]); false, having changed nothing, when they do not
// qualify.
template <typename StateFor>
bool sgd_multi(const SGDOptions& o, OptimizerParamGroup& group, const StateFor& state_for) {
  std::vector<Tensor> ps;
  for (const Tensor& p : group.params()) {
    if (p.grad().defined()) ps.push_back(p);
  }
  if (!detail::use_multi_tensor(ps, o.foreach(), false,
                                ember::detail::multi_tensor_sgd_kernel.has(kCUDA))) {
    return false;
  }
  std::vector<Tensor> gs, bufs;
  ember::detail::MultiSgdArgs args{o.lr(),       o.weight_decay(), o.momentum(),
                                   o.dampening(), o.nesterov(),     o.maximize(), {}};
  for (const Tensor& p : ps) {
    gs.push_back(p.grad());
    if (o.momentum() == 0) continue;
    Tensor* buf = state_for(p).find("momentum_buffer");
    args.fresh.push_back(buf == nullptr);
    bufs.push_back(buf != nullptr ? *buf : Tensor());
  }
  for (size_t i = 0; i < bufs.size(); ++i) {
    if (bufs[i].defined() && !detail::buffers_fit({ps[i]}, {bufs[i]})) return false;
  }
  for (size_t i = 0; i < bufs.size(); ++i) {
    if (bufs[i].defined()) continue;
    ParamState& st = state_for(ps[i]);
    st.buffers.emplace_back("momentum_buffer", empty_like(ps[i]));  // the kernel writes it whole
    bufs[i] = st.buffers.back().second;
  }
  ember::detail::multi_tensor_sgd_kernel(kCUDA)(args, ps, gs, bufs);
  for (auto* list : {&ps, &bufs}) {
    for (const Tensor& t : *list) detail::mark_written(t);
  }
  return true;
}

}  // namespace

void SGD::step_group(OptimizerParamGroup& group) {
  const auto& o = static_cast<const SGDOptions&>(group.options());
  if (sgd_multi(o, group, [&](const Tensor& p) -> ParamState& { return state_for(p); })) return;
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
      st.buffers.emplace_back("momentum_buffer", zeros_like(p));
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
