// native_batch_norm, native_layer_norm and native_group_norm: forward composed of public ops
// inside the op's scope (one NativeBatchNormBackward0 /
// NativeLayerNormBackward0 node); the backward formulas are in
// autograd/derivatives/nn.cc.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensor/autocast.h"
#include "tensor/autograd_hook.h"
#include "tensor/batch_norm_kernels.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/lane_sum.h"
#include "tensor/layer_norm_kernels.h"
#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/parallel.h"
#include "tensor/record_function.h"
#include "tensor/reduce.h"
#include "tensor/shape.h"

namespace ember {
namespace {

// [1, C, 1, ...] for broadcasting a per-channel vector over input.
Tensor per_channel(const Tensor& v, int64_t dim) {
  DimVector s(dim, 1);
  s[1] = v.numel();
  return v.reshape(s);
}

// The running statistics' update: r = r * (1 - momentum) + s * momentum,
// with the variance unbiased over n elements per channel.
void update_running_stats(const Tensor& running_mean, const Tensor& running_var,
                          const Tensor& mean, const Tensor& var, int64_t n, double momentum) {
  Tensor rm = running_mean, rv = running_var;
  if (rm.defined()) rm.copy_(rm * (1 - momentum) + mean.to(rm.dtype()) * momentum);
  if (rv.defined()) {
    Tensor unbiased =
        var * (static_cast<double>(n) / static_cast<double>(std::max<int64_t>(n - 1, 1)));
    rv.copy_(rv * (1 - momentum) + unbiased.to(rv.dtype()) * momentum);
  }
}

// alpha = invstd * weight and beta = bias - mean * alpha, the per-channel
// scale and shift of out = input * alpha + beta.
std::pair<Tensor, Tensor> scale_and_shift(const Tensor& mean, const Tensor& invstd,
                                          const Tensor& weight, const Tensor& bias) {
  Tensor alpha = weight.defined() ? invstd * weight : invstd;
  Tensor beta = mean * alpha;
  beta = bias.defined() ? bias - beta : beta.neg();
  return {alpha, beta};
}

// Note [Group norm on the CPU]: native_group_norm's composition (a layer
// norm of each sample's groups, then `* weight` and `+ bias`, reshapes and
// casts: about ten ops) in one pass for contiguous float and double inputs
// whose parameters are contiguous or absent, with the same numbers: each
// row's statistics as the layer norm kernel's (tensor/layer_norm_cpu.cc,
// lane sums in double), xhat = (x - mean) * rstd in the dtype, then the
// product with weight and the sum with bias each rounded on its own (two
// loops, so that the compiler cannot fuse them into one FMA, as the
// composition's separate ops cannot).
bool group_norm_cpu_applies(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  const ScalarType dt = input.dtype();
  if (!input.is_cpu() || (dt != kFloat && dt != kDouble) || input.numel() == 0 ||
      !input.is_contiguous() || input.suggest_memory_format() != MemoryFormat::Contiguous) {
    return false;
  }
  for (const Tensor* t : {&weight, &bias}) {
    if (t->defined() && (!t->is_cpu() || !t->is_contiguous())) return false;
  }
  return true;
}

// x [N, G, cpg, hxw] contiguous; mean and rstd [N, G].
void group_norm_cpu(const Tensor& x, const Tensor& weight, const Tensor& bias, int64_t cpg,
                    int64_t hxw, double eps, Tensor& out, Tensor& mean, Tensor& rstd) {
  const int64_t rows = mean.numel(), d = cpg * hxw, groups = mean.size(1);
  EMBER_DISPATCH_FLOAT_DOUBLE(x.dtype(), "group_norm_cpu", [&] {
    using T = scalar_t;
    const T* xp = x.data_ptr<T>();
    const T* wp = weight.defined() ? weight.data_ptr<T>() : nullptr;
    const T* bp = bias.defined() ? bias.data_ptr<T>() : nullptr;
    T* op = out.data_ptr<T>();
    T* mp = mean.data_ptr<T>();
    T* rp = rstd.data_ptr<T>();
    const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 14) / d);
    parallel_for(0, rows, grain, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const T* __restrict xr = xp + r * d;
        T* __restrict yr = op + r * d;
        const double mu =
            detail::lane_sum<double>(d, [xr](int64_t i) { return static_cast<double>(xr[i]); }) / d;
        const double var = detail::lane_sum<double>(d,
                                                    [xr, mu](int64_t i) {
                                                      const double c =
                                                          static_cast<double>(xr[i]) - mu;
                                                      return c * c;
                                                    }) /
                           d;
        const T m = static_cast<T>(mu);
        const T s = static_cast<T>(1.0 / std::sqrt(var + eps));
        mp[r] = m;
        rp[r] = s;
        for (int64_t i = 0; i < d; ++i) yr[i] = (xr[i] - m) * s;
        const int64_t c0 = (r % groups) * cpg;
        for (int64_t c = 0; c < cpg; ++c) {
          T* __restrict y = yr + c * hxw;
          if (wp != nullptr) {
            const T w = wp[c0 + c];
            for (int64_t i = 0; i < hxw; ++i) y[i] = y[i] * w;
          }
          if (bp != nullptr) {
            const T b = bp[c0 + c];
            for (int64_t i = 0; i < hxw; ++i) y[i] = y[i] + b;
          }
        }
      }
    });
  });
}

}  // namespace

namespace detail {
EMBER_DEFINE_KERNEL_TABLE(batch_norm_stats_kernel, BatchNormStatsFn);
EMBER_DEFINE_KERNEL_TABLE(batch_norm_affine_kernel, BatchNormAffineFn);
EMBER_DEFINE_KERNEL_TABLE(batch_norm_backward_reduce_kernel, BatchNormBackwardReduceFn);

bool batch_norm_kernels_apply(const Tensor& input) {
  const DeviceType d = input.device().type();
  // The CPU's (batch_norm_cpu.cc) take float and double; a half/bfloat16
  // CPU input takes the composed path.
  if (d == kCPU && input.dtype() != kFloat && input.dtype() != kDouble) return false;
  return batch_norm_stats_kernel.has(d) && batch_norm_affine_kernel.has(d) &&
         batch_norm_backward_reduce_kernel.has(d) && is_floating_point(input.dtype()) &&
         input.numel() > 0 &&
         (input.is_contiguous() || batch_norm_layout(input) == MemoryFormat::ChannelsLast);
}

MemoryFormat batch_norm_layout(const Tensor& input) {
  // Note [Channels-last batch norm]: the CPU kernels' second layout.
  return input.is_cpu() && input.dim() == 4 && !input.is_contiguous() &&
                 input.is_contiguous(MemoryFormat::ChannelsLast)
             ? MemoryFormat::ChannelsLast
             : MemoryFormat::Contiguous;
}

namespace {
std::atomic<bool> fused_layer_norm_enabled{false};
}  // namespace

EMBER_DEFINE_KERNEL_TABLE(layer_norm_forward_kernel, LayerNormForwardFn);
EMBER_DEFINE_KERNEL_TABLE(layer_norm_backward_kernel, LayerNormBackwardFn);

void set_fused_layer_norm(bool enabled) { fused_layer_norm_enabled = enabled; }
bool fused_layer_norm() { return fused_layer_norm_enabled; }

bool layer_norm_kernels_apply(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  const DeviceType d = input.device().type();
  // The CPU's kernels (layer_norm_cpu.cc) serve float and double always;
  // another device's only where set_fused_layer_norm(true) asked.
  if (d == kCPU ? input.dtype() != kFloat && input.dtype() != kDouble : !fused_layer_norm()) {
    return false;
  }
  if (!layer_norm_forward_kernel.has(d) || !layer_norm_backward_kernel.has(d) ||
      !is_floating_point(input.dtype()) || input.numel() == 0 || !input.is_contiguous()) {
    return false;
  }
  for (const Tensor* p : {&weight, &bias}) {
    if (p->defined() && (p->dtype() != input.dtype() || p->device() != input.device() ||
                         !p->is_contiguous())) {
      return false;
    }
  }
  return true;
}
}  // namespace detail

std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const Tensor& weight,
                                                     const Tensor& bias, const Tensor& running_mean,
                                                     const Tensor& running_var, bool training,
                                                     double momentum, double eps) {
  EMBER_AUTOCAST_OPAQUE();  // not listed; its rsqrt and reductions must not cast
  EMBER_CHECK(input.dim() >= 2, "batch_norm: expected input with at least 2 dims, got ",
              input.dim());
  const int64_t c = input.size(1);
  const Tensor* stats[] = {&running_mean, &running_var, &weight, &bias};
  const char* names[] = {"running_mean", "running_var", "weight", "bias"};
  for (int i = 0; i < 4; ++i) {
    if (stats[i]->defined()) {
      EMBER_CHECK(stats[i]->numel() == c, names[i], " should contain ", c, " elements not ",
                  stats[i]->numel());
    }
  }
  EMBER_CHECK(training || (running_mean.defined() && running_var.defined()),
              "running_mean and running_var must be defined in evaluation mode");
  profiler::RecordFunction prof_range("native_batch_norm", profiler::RangeKind::kOp, input, weight,
                                      bias);
  detail::OpScope scope(input, weight, bias);
  const int64_t n = input.numel() / std::max<int64_t>(c, 1);
  Tensor out, mean, invstd;
  if (detail::batch_norm_kernels_apply(input)) {
    // Note [Batch norm kernels]: statistics in float (double for double),
    // the output in the input's dtype, as PyTorch's CUDA kernels.
    const ScalarType acc = input.dtype() == kDouble ? kDouble : kFloat;
    const TensorOptions acc_options = input.options().dtype(acc);
    if (training) {
      mean = empty({c}, acc_options);
      Tensor var = empty({c}, acc_options);
      detail::batch_norm_stats_kernel(input.device().type())(input, mean, var);
      invstd = (var + eps).rsqrt();
      update_running_stats(running_mean, running_var, mean, var, n, momentum);
    } else {
      mean = running_mean.to(acc_options, false, /*copy=*/true);
      invstd = (running_var.to(acc) + eps).rsqrt();
    }
    auto [alpha, beta] = scale_and_shift(mean, invstd, weight.defined() ? weight.to(acc) : weight,
                                         bias.defined() ? bias.to(acc) : bias);
    out = empty(input.sizes(), input.options().memory_format(detail::batch_norm_layout(input)));
    detail::batch_norm_affine_kernel(input.device().type())(input, Tensor(), alpha, Tensor(),
                                                            Tensor(), beta, out);
  } else {
    DimVector dims{0};
    for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
    if (training) {
      // One pass for both statistics (var_mean's Welford reduction).
      Tensor var;
      std::tie(var, mean) = var_mean(input, dims, /*unbiased=*/false);
      invstd = (var + eps).rsqrt();
      update_running_stats(running_mean, running_var, mean, var, n, momentum);
    } else {
      // Eval returns the statistics it used, so that one formula serves
      // both. A copy: the node saves it, and the buffer may be updated in
      // place later.
      mean = running_mean.to(input.dtype()).clone();
      invstd = (running_var.to(input.dtype()) + eps).rsqrt();
    }
    // One pass over the input, as PyTorch's CPU kernel: out = input * alpha
    // + beta (per-channel vectors), instead of four passes and three
    // temporaries.
    auto [alpha, beta] = scale_and_shift(mean, invstd, weight, bias);
    out = addcmul(per_channel(beta, input.dim()), input, per_channel(alpha, input.dim()));
    // A half/bfloat16 input with float parameters (autocast) keeps its
    // dtype, as PyTorch's.
    if (out.dtype() != input.dtype() && is_floating_point(input.dtype())) {
      out = out.to(input.dtype());
    }
    // 1.13's result is in the input's suggested format (a transposed input
    // gives a contiguous result, a channels-last one a channels-last one).
    out = out.contiguous(input.suggest_memory_format());
  }
  if (scope.active()) {
    scope.record("native_batch_norm", {input, weight, bias}, {out, mean, invstd},
                 {Scalar(training), Scalar(eps)});
  }
  return {out, mean, invstd};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input,
                                                     IntArrayRef normalized_shape,
                                                     const Tensor& weight, const Tensor& bias,
                                                     double eps) {
  EMBER_AUTOCAST(layer_norm, ::ember::native_layer_norm, input, normalized_shape, weight, bias,
                 eps);
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  bool ok = k >= 1 && input.dim() >= k;
  for (int64_t i = 0; ok && i < k; ++i) ok = input.size(input.dim() - k + i) == normalized_shape[i];
  EMBER_CHECK(ok, "Given normalized_shape=[", absl::StrJoin(normalized_shape, ", "),
              "], expected input with shape [*, ", absl::StrJoin(normalized_shape, ", "),
              "], but got input of size[", absl::StrJoin(input.sizes(), ", "), "]");
  for (const Tensor* t : {&weight, &bias}) {
    if (t->defined()) {
      EMBER_CHECK(t->sizes() == normalized_shape, "Expected weight and bias of shape [",
                  absl::StrJoin(normalized_shape, ", "), "]");
    }
  }
  profiler::RecordFunction prof_range("native_layer_norm", profiler::RangeKind::kOp, input, weight,
                                      bias);
  detail::OpScope scope(input, weight, bias);
  if (detail::layer_norm_kernels_apply(input, weight, bias)) {
    // Note [Layer norm kernels]: statistics in float (double for double),
    // shaped as the composed path's (keepdim over the normalized dims).
    DimVector stat_sizes(input.sizes().begin(), input.sizes().end());
    for (int64_t d = input.dim() - k; d < input.dim(); ++d) stat_sizes[d] = 1;
    const TensorOptions acc = input.options().dtype(input.dtype() == kDouble ? kDouble : kFloat);
    Tensor out = empty(input.sizes(), input.options());
    Tensor mean = empty(stat_sizes, acc), rstd = empty(stat_sizes, acc);
    detail::layer_norm_forward_kernel(input.device().type())(input, weight, bias, eps, out, mean,
                                                             rstd);
    if (scope.active()) {
      scope.record("native_layer_norm", {input, weight, bias}, {out, mean, rstd},
                   {DimVector(normalized_shape.begin(), normalized_shape.end()), Scalar(eps)});
    }
    return {out, mean, rstd};
  }
  DimVector dims;
  for (int64_t d = input.dim() - k; d < input.dim(); ++d) dims.push_back(d);
  Tensor mean = input.mean(dims, /*keepdim=*/true);
  Tensor rstd = (input.var(dims, /*unbiased=*/false, /*keepdim=*/true) + eps).rsqrt();
  Tensor out = (input - mean) * rstd;
  if (weight.defined()) out = out * weight;
  if (bias.defined()) out = out + bias;
  out = out.contiguous();  // 1.13's result is contiguous whatever the input's layout
  if (scope.active()) {
    scope.record("native_layer_norm", {input, weight, bias}, {out, mean, rstd},
                 {DimVector(normalized_shape.begin(), normalized_shape.end()), Scalar(eps)});
  }
  return {out, mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input, const Tensor& weight,
                                                     const Tensor& bias, int64_t N, int64_t C,
                                                     int64_t HxW, int64_t group, double eps) {
  EMBER_CHECK(group > 0, "Expected num groups to be greater than 0, got ", group);
  EMBER_CHECK(C % group == 0,
              "Expected number of channels in input to be divisible by num_groups, but got input "
              "of shape [",
              absl::StrJoin(input.sizes(), ", "), "] and num_groups=", group);
  // 1.13's bias message prints weight's shape ([0] when there is no weight).
  const std::string weight_shape =
      weight.defined() ? absl::StrCat("[", absl::StrJoin(weight.sizes(), ", "), "]") : "[0]";
  auto check_affine = [&](const Tensor& t, const char* name) {
    EMBER_CHECK(!t.defined() || (t.dim() == 1 && t.numel() == C), "Expected ", name,
                " to be a vector of size equal to the number of channels in input, but got ", name,
                " of shape ", weight_shape, " and input of shape [",
                absl::StrJoin(input.sizes(), ", "), "]");
  };
  check_affine(weight, "weight");
  check_affine(bias, "bias");
  const ScalarType dt = input.dtype();
  // 1.13's CUDA kernel also takes half.
  if (dt != kFloat && dt != kDouble && dt != kBFloat16 && (dt != kHalf || input.is_cpu())) {
    detail::throw_not_implemented("GroupNormKernelImpl", dt);
  }
  EMBER_CHECK(input.numel() == N * C * HxW,
              "Expected X.numel() == N * C * HxW to be true, but got false.  (Could this error "
              "message be improved?  If so, please report an enhancement request to PyTorch.)");
  for (const Tensor* t : {&weight, &bias}) {
    EMBER_CHECK(!t->defined() || t->dtype() == dt, "expected scalar type ", scalar_type_name(dt),
                " but found ", scalar_type_name(t->dtype()));
  }
  profiler::RecordFunction prof_range("native_group_norm", profiler::RangeKind::kOp, input, weight,
                                      bias);
  detail::OpScope scope(input, weight, bias);
  // The layer norm of each sample's group of channels, then the
  // per-channel affine map, on input read as [N, C, HxW] (as 1.13's kernel
  // reads it, whatever input's shape).
  const int64_t per_group = C / group * HxW;
  if (group_norm_cpu_applies(input, weight, bias)) {
    Tensor out = empty(input.sizes(), input.options());
    Tensor mean = empty({N, group}, input.options()), rstd = empty({N, group}, input.options());
    group_norm_cpu(input, weight, bias, C / group, HxW, eps, out, mean, rstd);
    if (scope.active()) {
      scope.record("native_group_norm", {input, weight, bias}, {out, mean, rstd},
                   {Scalar(group), Scalar(eps), Scalar(N), Scalar(C), Scalar(HxW)});
    }
    return {out, mean, rstd};
  }
  auto [xhat, mean, rstd] =
      native_layer_norm(input.reshape({N, group, per_group}), {per_group}, Tensor(), Tensor(), eps);
  Tensor out = xhat.reshape({N, C, HxW});
  if (weight.defined()) out = out * weight.reshape({C, 1});
  if (bias.defined()) out = out + bias.reshape({C, 1});
  // 1.13 writes into empty_like(input, suggest_memory_format): a
  // channels-last (3d) input gives a channels-last result.
  out = out.reshape(input.sizes()).contiguous(input.suggest_memory_format());
  mean = mean.reshape({N, group}).to(dt);
  rstd = rstd.reshape({N, group}).to(dt);
  if (scope.active()) {
    scope.record("native_group_norm", {input, weight, bias}, {out, mean, rstd},
                 {Scalar(group), Scalar(eps), Scalar(N), Scalar(C), Scalar(HxW)});
  }
  return {out, mean, rstd};
}

}  // namespace ember
