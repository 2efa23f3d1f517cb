// Loss primitives: nll_loss (a kernel), mse_loss, smooth_l1_loss,
// binary_cross_entropy(_with_logits) (their forward composed of public ops
// inside the op's scope, so each records once under ATen's name).
#include <atomic>
#include <cmath>
#include <limits>

#include "absl/strings/str_join.h"
#include "tensor/autocast.h"
#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/fallback.h"
#include "tensor/iterator.h"
#include "tensor/loss_kernels.h"
#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/nn_util.h"
#include "tensor/record_function.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"

namespace ember {
namespace {

Tensor apply_reduction(const Tensor& loss, int64_t reduction) {
  if (reduction == loss_reduction::kMean) return loss.mean();
  if (reduction == loss_reduction::kSum) return loss.sum();
  return loss;
}

using detail::NllGeometry;

// nll_loss's dtypes on the CPU, as 1.13's: float, double and bfloat16 (its
// kernel names in the error for the others).
#define EMBER_DISPATCH_NLL(TYPE, NAME, ...)                                \
  EMBER_PRIVATE_SWITCH(TYPE, NAME,                                         \
                       EMBER_PRIVATE_CASE(Float, float, __VA_ARGS__)       \
                           EMBER_PRIVATE_CASE(Double, double, __VA_ARGS__) \
                               EMBER_PRIVATE_CASE(BFloat16, ::ember::BFloat16, __VA_ARGS__))

// input [N, C, K...] as (N, C, K); a 1-D input is one sample.
NllGeometry check_nll(const Tensor& input, const Tensor& target, const Tensor& weight) {
  EMBER_CHECK(input.dim() >= 1, "input tensor should be 1D or 2D");
  EMBER_CHECK(target.dtype() == kLong, "expected scalar type Long but found ",
              scalar_type_name(target.dtype()));
  detail::common_device({input, target, weight});
  NllGeometry g;
  if (input.dim() == 1) {
    EMBER_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
    g = {1, input.size(0), 1};
  } else {
    g.n = input.size(0);
    g.c = input.size(1);
    g.k = 1;
    for (int64_t d = 2; d < input.dim(); ++d) g.k *= input.size(d);
    if (input.dim() == 2) {
      EMBER_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
      EMBER_CHECK_VALUE(target.dim() == 1 && target.size(0) == g.n, "Expected input batch_size (",
                        g.n, ") to match target batch_size (",
                        target.dim() == 0 ? 1 : target.size(0), ").");
    } else {
      DimVector want{g.n};
      for (int64_t d = 2; d < input.dim(); ++d) want.push_back(input.size(d));
      EMBER_CHECK(target.sizes() == IntArrayRef(want), "Expected target size ",
                  detail::bracketed(want), ", got ", detail::bracketed(target.sizes()));
    }
  }
  if (weight.defined()) {
    EMBER_CHECK(weight.numel() == g.c, "weight tensor should be defined either for all ", g.c,
                " classes or no classes but got weight tensor of shape: ",
                detail::bracketed(weight.sizes()));
  }
  return g;
}

DimVector nll_none_sizes(const Tensor& input) {
  if (input.dim() == 1) return {};
  DimVector s{input.size(0)};
  for (int64_t d = 2; d < input.dim(); ++d) s.push_back(input.size(d));
  return s;
}

void nll_forward_cpu(const NllGeometry& g, const Tensor& x, const Tensor& t, const Tensor& w,
                     int64_t reduction, int64_t ignore_index, Tensor& out, Tensor& total) {
  EMBER_DISPATCH_NLL(
      x.dtype(), x.dim() <= 2 ? "nll_loss_out_frame" : "nll_loss2d_forward_out_frame", [&] {
        const scalar_t* xp = x.data_ptr<scalar_t>();
        const int64_t* tp = t.data_ptr<int64_t>();
        const scalar_t* wp = w.defined() ? w.data_ptr<scalar_t>() : nullptr;
        scalar_t* op = out.data_ptr<scalar_t>();
        double sum = 0, wsum = 0;
        for (int64_t n = 0; n < g.n; ++n) {
          for (int64_t k = 0; k < g.k; ++k) {
            const int64_t cls = tp[n * g.k + k];
            double l = 0;
            if (cls != ignore_index) {
              EMBER_CHECK_INDEX(cls >= 0 && cls < g.c, "Target ", cls, " is out of bounds.");
              const double wt = wp ? static_cast<double>(wp[cls]) : 1.0;
              l = -wt * static_cast<double>(xp[(n * g.c + cls) * g.k + k]);
              wsum += wt;
            }
            if (reduction == loss_reduction::kNone) op[n * g.k + k] = static_cast<scalar_t>(l);
            sum += l;
          }
        }
        total.data_ptr<scalar_t>()[0] = static_cast<scalar_t>(wsum);
        if (reduction == loss_reduction::kSum) op[0] = static_cast<scalar_t>(sum);
        if (reduction == loss_reduction::kMean) op[0] = static_cast<scalar_t>(sum / wsum);
      });
}

void nll_backward_cpu(const NllGeometry& g, const Tensor& gy, const Tensor& t, const Tensor& w,
                      const Tensor& total_weight, int64_t reduction, int64_t ignore_index,
                      Tensor& gx) {
  EMBER_DISPATCH_NLL(
      gx.dtype(), gx.dim() <= 2 ? "nll_loss_backward_out_frame" : "nll_loss2d_backward_out_frame",
      [&] {
        // Each step rounds to scalar_t, as 1.13's scalar_t arithmetic.
        using op_t = std::conditional_t<std::is_same<scalar_t, double>::value, double, float>;
        const int64_t* tp = t.data_ptr<int64_t>();
        const scalar_t* wp = w.defined() ? w.data_ptr<scalar_t>() : nullptr;
        const scalar_t* gp = gy.data_ptr<scalar_t>();
        scalar_t* op = gx.data_ptr<scalar_t>();
        scalar_t scale = reduction == loss_reduction::kNone ? scalar_t(1) : gp[0];
        if (reduction == loss_reduction::kMean) {
          scale = static_cast<scalar_t>(
              static_cast<op_t>(scale) /
              static_cast<op_t>(total_weight.to(gx.dtype()).item<scalar_t>()));
        }
        for (int64_t n = 0; n < g.n; ++n) {
          for (int64_t k = 0; k < g.k; ++k) {
            const int64_t cls = tp[n * g.k + k];
            if (cls == ignore_index) continue;
            const scalar_t wt = wp ? wp[cls] : scalar_t(1);
            const scalar_t gv = reduction == loss_reduction::kNone ? gp[n * g.k + k] : scale;
            op[(n * g.c + cls) * g.k + k] =
                static_cast<scalar_t>(-static_cast<op_t>(wt) * static_cast<op_t>(gv));
          }
        }
      });
}

}  // namespace

namespace detail {
EMBER_DEFINE_KERNEL_TABLE(nll_forward_stub, NllForwardFn);
EMBER_DEFINE_KERNEL_TABLE(nll_backward_stub, NllBackwardFn);
EMBER_REGISTER_KERNEL(nll_forward_stub, kCPU, &nll_forward_cpu);
EMBER_REGISTER_KERNEL(nll_backward_stub, kCPU, &nll_backward_cpu);
}  // namespace detail

std::tuple<Tensor, Tensor> nll_loss_forward(const Tensor& input, const Tensor& target,
                                            const Tensor& weight, int64_t reduction,
                                            int64_t ignore_index) {
  EMBER_AUTOCAST(nll_loss, ::ember::nll_loss_forward, input, target, weight, reduction,
                 ignore_index);
  const NllGeometry g = check_nll(input, target, weight);
  profiler::RecordFunction prof_range(input.dim() <= 2 ? "nll_loss" : "nll_loss2d",
                                      profiler::RangeKind::kOp, input, weight);
  detail::OpScope scope(input, weight);  // target: int64, never differentiable
  Tensor x = input.contiguous(), t = target.contiguous();
  Tensor w = weight.defined() ? weight.to(input.dtype()).contiguous() : Tensor();
  Tensor out = reduction == loss_reduction::kNone ? empty(nll_none_sizes(input), input.options())
                                                  : empty({}, input.options());
  Tensor total = empty({}, input.options());
  detail::nll_forward_stub(input.device())(g, x, t, w, reduction, ignore_index, out, total);
  if (scope.active()) {
    scope.record(input.dim() <= 2 ? "nll_loss" : "nll_loss2d", {input, target, weight},
                 {out, total}, {Scalar(reduction), Scalar(ignore_index)});
  }
  return {out, total};
}

Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& input, const Tensor& target,
                         const Tensor& weight, int64_t reduction, int64_t ignore_index,
                         const Tensor& total_weight) {
  const NllGeometry g = check_nll(input, target, weight);
  const bool none = reduction == loss_reduction::kNone;
  EMBER_CHECK(none ? grad_output.sizes() == IntArrayRef(nll_none_sizes(input))
                   : grad_output.numel() == 1,
              "nll_loss_backward: grad_output of size ", detail::bracketed(grad_output.sizes()),
              " does not match the loss");
  // Recorded (Note [Differentiable backward kernels] in nn_ops.h); input
  // is an input of the op as in ATen (its gradient is zero), total_weight
  // not: the derivative recomputes it.
  profiler::RecordFunction prof_range(
      input.dim() <= 2 ? "nll_loss_backward" : "nll_loss2d_backward", profiler::RangeKind::kOp,
      grad_output, input);
  detail::OpScope scope(grad_output, input);
  Tensor gx = zeros(input.sizes(), input.options());
  Tensor gy = grad_output.to(input.dtype()).contiguous(), t = target.contiguous();
  Tensor w = weight.defined() ? weight.to(input.dtype()).contiguous() : Tensor();
  detail::nll_backward_stub(input.device())(g, gy, t, w, total_weight, reduction, ignore_index,
                                            gx);
  if (scope.active()) {
    scope.record(input.dim() <= 2 ? "nll_loss_backward" : "nll_loss2d_backward",
                 {grad_output, input, target, weight}, {gx},
                 {Scalar(reduction), Scalar(ignore_index)});
  }
  return gx;
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                int64_t reduction, int64_t ignore_index) {
  return std::get<0>(nll_loss_forward(input, target, weight, reduction, ignore_index));
}

Tensor mse_loss(const Tensor& input, const Tensor& target, int64_t reduction) {
  EMBER_AUTOCAST(mse_loss, ::ember::mse_loss, input, target, reduction);
  profiler::RecordFunction prof_range("mse_loss", profiler::RangeKind::kOp, input, target);
  detail::OpScope scope(input, target);
  Tensor d = input - target;
  Tensor out = apply_reduction(d * d, reduction);
  if (scope.active()) scope.record("mse_loss", {input, target}, {out}, {Scalar(reduction)});
  return out;
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, int64_t reduction, double beta) {
  EMBER_AUTOCAST(smooth_l1_loss, ::ember::smooth_l1_loss, input, target, reduction, beta);
  EMBER_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  profiler::RecordFunction prof_range("smooth_l1_loss", profiler::RangeKind::kOp, input, target);
  detail::OpScope scope(input, target);
  Tensor d = (input - target).abs();
  Tensor loss = beta == 0 ? d : where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta);
  Tensor out = apply_reduction(loss, reduction);
  if (scope.active()) {
    scope.record("smooth_l1_loss", {input, target}, {out}, {Scalar(reduction), Scalar(beta)});
  }
  return out;
}

// Note [Binary cross entropy as 1.13 computes it]: libtorch's C++ ops, not
// the nn::functional entry points (which first require equal sizes, as
// PyTorch's Python functions do), so a libtorch program gets 1.13's results,
// dtypes and errors for every input the ATen op accepts:
// - binary_cross_entropy runs its elementwise kernel on squeeze(input) and
//   squeeze(target) into squeeze(empty_like(input)): inputs [1, 4] and
//   [4, 1] pair elementwise; input, target and the result must share one
//   floating dtype ("Found dtype Float but expected Double"; float32 and
//   float64 only on the CPU); weight multiplies the result in place. A
//   broadcast larger than the input resizes 1.13's squeezed output, whose
//   first elements the result then shows (1.13 warns that such resizing is
//   deprecated); ember returns the same numbers.
// - binary_cross_entropy_with_logits is 1.13's composite of in-place ops,
//   written out here step for step: the result has target's shape and dtype
//   (input must broadcast to it: "output with shape [2, 1] doesn't match the
//   broadcast shape [2, 3]"); integer inputs or targets raise where 1.13's
//   in-place steps raise; float32 input with a bfloat16 target rounds each
//   step to bfloat16.
namespace {

void check_bce_dtypes(const Tensor& input, const Tensor& target) {
  EMBER_CHECK(target.dtype() == input.dtype(), "Found dtype ", scalar_type_name(target.dtype()),
              " but expected ", scalar_type_name(input.dtype()));
  EMBER_CHECK(input.dtype() == kFloat || input.dtype() == kDouble || input.is_cuda(),
              "\"binary_cross_entropy\" not implemented for '", scalar_type_name(input.dtype()),
              "'");
}

// binary_cross_entropy's elementwise step on the CPU in one pass, as
// 1.13's kernel (float, double): (t - 1) * max(log(1 - x), -100) -
// t * max(log(x), -100) in the dtype, into squeeze(empty_like(input)), an
// input outside [0, 1] (NaN included) an error. Undefined where squeeze(x)
// and squeeze(t) differ in shape (1.13's resized output) or off the CPU,
// for the composition.
// One run of bce_cpu's loop; false where an input is outside [0, 1]. Each
// product and difference rounded on its own (no FMA), as 1.13's kernel.
template <typename T>
__attribute__((optimize("fp-contract=off"))) bool bce_run(char** data, const int64_t* strides,
                                                          int64_t n) {
  const int64_t so = strides[0], sx = strides[1], st = strides[2];
  bool bad = false;
  for (int64_t i = 0; i < n; ++i) {
    const T xv = *reinterpret_cast<const T*>(data[1] + i * sx);
    const T tv = *reinterpret_cast<const T*>(data[2] + i * st);
    bad |= !(xv >= 0 && xv <= 1);
    const T l1 = std::log(T(1) - xv), l0 = std::log(xv);
    *reinterpret_cast<T*>(data[0] + i * so) =
        (tv - T(1)) * (l1 < T(-100) ? T(-100) : l1) - tv * (l0 < T(-100) ? T(-100) : l0);
  }
  return !bad;
}

Tensor bce_cpu(const Tensor& input, const Tensor& x, const Tensor& t) {
  if (!input.is_cpu() || !t.is_cpu() || x.sizes() != t.sizes() ||
      (input.dtype() != kFloat && input.dtype() != kDouble)) {
    return Tensor();
  }
  Tensor out = empty_like(input);
  TensorIterator iter = TensorIterator::binary_op(out.squeeze(), x, t);
  std::atomic<bool> out_of_range{false};
  EMBER_DISPATCH_FLOAT_DOUBLE(input.dtype(), "binary_cross_entropy_cpu", [&] {
    using T = scalar_t;
    iter.for_each([&](char** data, const int64_t* strides, int64_t n) {
      if (!bce_run<T>(data, strides, n)) out_of_range = true;
    });
  });
  EMBER_CHECK(!out_of_range, "all elements of input should be between 0 and 1");
  return out;
}

}  // namespace

namespace detail {

Tensor on_squeezed(const Tensor& input, const Tensor& squeezed_result) {
  Tensor out = empty_like(input);
  if (squeezed_result.sizes() == input.squeeze().sizes()) {
    out.squeeze().copy_(squeezed_result);
    return out;
  }
  // 1.13 resizes its squeezed output view to the broadcast shape (contiguous,
  // in the shared storage): `out` shows that storage's first elements.
  Tensor flat = squeezed_result.contiguous().reshape({-1}).narrow(0, 0, input.numel());
  return flat.clone().as_strided(input.sizes(), out.strides());
}

}  // namespace detail

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            int64_t reduction) {
  // Banned under CUDA autocast (PyTorch's message); float32 under the CPU's.
  EMBER_AUTOCAST(binary_cross_entropy, ::ember::binary_cross_entropy, input, target, weight,
                 reduction);
  check_bce_dtypes(input, target);
  profiler::RecordFunction prof_range("binary_cross_entropy", profiler::RangeKind::kOp, input,
                                      target, weight);
  detail::OpScope scope(input, target, weight);
  const Tensor x = input.squeeze(), t = target.squeeze();
  Tensor loss = bce_cpu(input, x, t);
  if (!loss.defined()) {
    EMBER_CHECK(((x >= 0) & (x <= 1)).all().item<bool>(),
                "all elements of input should be between 0 and 1");
    // (t - 1) * max(log(1 - x), -100) - t * max(log(x), -100): each log is
    // clamped at -100 so that 0 * log(0) stays finite.
    loss = detail::on_squeezed(
        input, (t - 1) * (1 - x).log().clamp_min(-100) - t * x.log().clamp_min(-100));
  }
  if (weight.defined()) loss.mul_(weight);
  Tensor out = apply_reduction(loss, reduction);
  if (scope.active()) {
    scope.record("binary_cross_entropy", {input, target, weight}, {out}, {Scalar(reduction)});
  }
  return out;
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight, const Tensor& pos_weight,
                                        int64_t reduction) {
  EMBER_AUTOCAST(binary_cross_entropy_with_logits, ::ember::binary_cross_entropy_with_logits,
                 input, target, weight, pos_weight, reduction);
  profiler::RecordFunction prof_range("binary_cross_entropy_with_logits", profiler::RangeKind::kOp,
                                      input, target, weight, pos_weight);
  detail::OpScope scope(input, target, weight, pos_weight);
  // loss = (1 - t) x + log(1 + exp(-x)), with log(1 + exp(-x)) as
  // m + log(exp(-m) + exp(-x - m)), m = max(-x, 0); libtorch C++'s `1 - t`
  // is empty_like(t).fill_(1).sub_(t).
  Tensor max_val = (-input).clamp_min_(0);
  Tensor loss;
  if (pos_weight.defined()) {
    Tensor log_weight = (pos_weight - 1).mul(target).add_(1);
    loss = empty_like(target).fill_(1).sub_(target);
    loss.mul_(input).add_(
        log_weight.mul_(((-max_val).exp_().add_((-input - max_val).exp_())).log_().add_(max_val)));
  } else {
    loss = empty_like(target).fill_(1).sub_(target);
    loss.mul_(input).add_(max_val).add_((-max_val).exp_().add_((-input - max_val).exp_()).log_());
  }
  if (weight.defined()) loss.mul_(weight);
  Tensor out = apply_reduction(loss, reduction);
  if (scope.active()) {
    scope.record("binary_cross_entropy_with_logits", {input, target, weight, pos_weight}, {out},
                 {Scalar(reduction)});
  }
  return out;
}

}  // namespace ember
