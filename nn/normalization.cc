#include "nn/normalization.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "autograd/custom_function.h"
#include "autograd/grad_mode.h"
#include "nn/functional/normalization.h"
#include "nn/init.h"
#include "nn/instancenorm.h"
#include "nn/options.h"
#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/shape.h"

namespace ember {
namespace nn {

using detail::py_bool;
using detail::py_float;

template <typename Options>
NormImplBase<Options>::NormImplBase(const Options& options) : options(options) {
  const int64_t n = options.num_features();
  if (options.affine()) {
    weight = register_parameter("weight", empty({n}));
    bias = register_parameter("bias", empty({n}));
  } else {
    register_parameter("weight", Tensor(), false);
    register_parameter("bias", Tensor(), false);
  }
  if (options.track_running_stats()) {
    running_mean = register_buffer("running_mean", zeros({n}));
    running_var = register_buffer("running_var", ones({n}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, kLong));
  } else {
    register_buffer("running_mean", Tensor());
    register_buffer("running_var", Tensor());
    register_buffer("num_batches_tracked", Tensor());
  }
  reset_parameters();
}

template <typename Options>
void NormImplBase<Options>::reset_running_stats() {
  if (!options.track_running_stats()) return;
  NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

template <typename Options>
void NormImplBase<Options>::reset_parameters() {
  reset_running_stats();
  if (options.affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

template class NormImplBase<BatchNormOptions>;
template class NormImplBase<InstanceNormOptions>;

Tensor BatchNormImplBase::forward(const Tensor& input) {
  check_input_dim(input);
  // PyTorch's _BatchNorm.forward: the running average's factor, and which
  // statistics normalize.
  double factor = options.momentum().value_or(0.0);
  if (is_training() && options.track_running_stats()) {
    {
      NoGradGuard no_grad;
      num_batches_tracked.add_(1);
    }
    if (!options.momentum()) factor = 1.0 / num_batches_tracked.item<double>();
  }
  const bool use_batch_stats = is_training() || !options.track_running_stats();
  const bool pass_running = !is_training() || options.track_running_stats();
  return functional::batch_norm(input, pass_running ? running_mean : Tensor(),
                                pass_running ? running_var : Tensor(),
                                functional::BatchNormFuncOptions()
                                    .weight(weight)
                                    .bias(bias)
                                    .training(use_batch_stats)
                                    .momentum(factor)
                                    .eps(options.eps()));
}

std::string BatchNormImplBase::extra_repr() const {
  return absl::StrCat(options.num_features(), ", eps=", py_float(options.eps()),
                      ", momentum=", options.momentum() ? py_float(*options.momentum()) : "None",
                      ", affine=", py_bool(options.affine()),
                      ", track_running_stats=", py_bool(options.track_running_stats()));
}

void BatchNorm1dImpl::check_input_dim(const Tensor& input) const {
  EMBER_CHECK_VALUE(input.dim() == 2 || input.dim() == 3, "expected 2D or 3D input (got ",
                    input.dim(), "D input)");
}

void BatchNorm2dImpl::check_input_dim(const Tensor& input) const {
  EMBER_CHECK_VALUE(input.dim() == 4, "expected 4D input (got ", input.dim(), "D input)");
}

void BatchNorm3dImpl::check_input_dim(const Tensor& input) const {
  EMBER_CHECK_VALUE(input.dim() == 5, "expected 5D input (got ", input.dim(), "D input)");
}

LayerNormImpl::LayerNormImpl(const LayerNormOptions& options) : options(options) {
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", ember::empty(options.normalized_shape()));
    bias = register_parameter("bias", ember::empty(options.normalized_shape()));
  } else {
    register_parameter("weight", Tensor(), false);
    register_parameter("bias", Tensor(), false);
  }
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (options.elementwise_affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return functional::layer_norm(input, functional::LayerNormFuncOptions(options.normalized_shape())
                                           .weight(weight)
                                           .bias(bias)
                                           .eps(options.eps()));
}

std::string LayerNormImpl::extra_repr() const {
  return absl::StrCat(detail::py_tuple(options.normalized_shape()),
                      ", eps=", py_float(options.eps()),
                      ", elementwise_affine=", py_bool(options.elementwise_affine()));
}

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options) : options(options) {
  EMBER_CHECK_VALUE(options.num_groups() != 0 && options.num_channels() % options.num_groups() == 0,
                    "num_channels must be divisible by num_groups");
  if (options.affine()) {
    weight = register_parameter("weight", empty({options.num_channels()}));
    bias = register_parameter("bias", empty({options.num_channels()}));
  } else {
    register_parameter("weight", Tensor(), false);
    register_parameter("bias", Tensor(), false);
  }
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (options.affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  return functional::group_norm(input, functional::GroupNormFuncOptions(options.num_groups())
                                           .weight(weight)
                                           .bias(bias)
                                           .eps(options.eps()));
}

std::string GroupNormImpl::extra_repr() const {
  return absl::StrCat(options.num_groups(), ", ", options.num_channels(),
                      ", eps=", py_float(options.eps()), ", affine=", py_bool(options.affine()));
}

std::string LocalResponseNormImpl::extra_repr() const {
  return absl::StrCat(options.size(), ", alpha=", detail::py_float(options.alpha()),
                      ", beta=", detail::py_float(options.beta()),
                      ", k=", detail::py_float(options.k()));
}

namespace functions {

// PyTorch 1.13's torch/nn/modules/_functions.py CrossMapLRN2d, op for op
// (libtorch's torch::nn::functions::CrossMapLRN2d), vectorized over the
// batch: the same sums in the same order, so float64 results are PyTorch's
// and float32 ones within rounding of pow.
struct CrossMapLRN2d : autograd::Function<CrossMapLRN2d> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& input,
                        const CrossMapLRN2dOptions& o) {
    EMBER_CHECK(input.dim() == 4, "CrossMapLRN2d: Expected input to be 4D, got ", input.dim(),
                "D instead.");
    const int64_t size = o.size(), channels = input.size(1);
    const Tensor square = input * input;
    const int64_t pre_pad = (size - 1) / 2 + 1;
    // The first channel's sum, then a running window: add the square
    // entering it, drop the one leaving it (from channel pre_pad + 1 on).
    std::vector<Tensor> scale(channels);
    scale[0] = zeros_like(square.select(1, 0));
    for (int64_t c = 0; c < std::min(pre_pad, channels); ++c) {
      scale[0] = scale[0] + square.select(1, c);
    }
    for (int64_t c = 1; c < channels; ++c) {
      scale[c] = scale[c - 1];
      if (c < channels - pre_pad + 1) scale[c] = scale[c] + square.select(1, c + pre_pad - 1);
      if (c > pre_pad) scale[c] = scale[c] - square.select(1, c - pre_pad);
    }
    Tensor s = stack(scale, 1) * (o.alpha() / static_cast<double>(size)) + o.k();
    Tensor output = s.pow(-o.beta()) * input;
    ctx->save_for_backward({input, output, s});
    ctx->saved_data["size"] = size;
    ctx->saved_data["alpha"] = o.alpha();
    ctx->saved_data["beta"] = o.beta();
    return output;
  }

  static autograd::variable_list backward(autograd::AutogradContext* ctx,
                                          autograd::variable_list grad_outputs) {
    const autograd::variable_list saved = ctx->get_saved_variables();
    const Tensor &input = saved[0], &output = saved[1], &scale = saved[2];
    const Tensor& grad_output = grad_outputs[0];
    const int64_t size = ctx->saved_data["size"].toInt(), channels = input.size(1);
    const double alpha = ctx->saved_data["alpha"].toDouble();
    const double beta = ctx->saved_data["beta"].toDouble();
    const double cache_ratio = 2 * alpha * beta / static_cast<double>(size);
    const auto inverse_pre_pad = static_cast<int64_t>(size - (size - 1) / 2.0);
    // padded_ratio: channels + size - 1 zero rows around the centre
    // grad_output * output / scale.
    const Tensor centre = grad_output * output / scale;
    const Tensor zero = zeros_like(centre.select(1, 0));
    std::vector<Tensor> padded(std::max(channels + size - 1, inverse_pre_pad + channels), zero);
    for (int64_t c = 0; c < channels; ++c) padded[inverse_pre_pad + c] = centre.select(1, c);
    Tensor accum = zero;
    for (int64_t i = 0; i < size - 1; ++i) accum = accum + padded[i];
    const Tensor first = scale.pow(-beta) * grad_output;
    std::vector<Tensor> grad_input(channels);
    for (int64_t c = 0; c < channels; ++c) {
      accum = accum + padded[c + size - 1];
      grad_input[c] = first.select(1, c) + input.select(1, c) * -cache_ratio * accum;
      accum = accum - padded[c];
    }
    return {stack(grad_input, 1), Tensor()};
  }
};

}  // namespace functions

Tensor CrossMapLRN2dImpl::forward(const Tensor& input) {
  return functions::CrossMapLRN2d::apply(input, options);
}

std::string CrossMapLRN2dImpl::extra_repr() const {
  return absl::StrCat(options.size(), ", alpha=", py_float(options.alpha()),
                      ", beta=", py_float(options.beta()), ", k=", detail::py_number(options.k()));
}

}  // namespace nn
}  // namespace ember
