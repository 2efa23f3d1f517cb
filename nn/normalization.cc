#include "nn/normalization.h"

#include "absl/strings/str_cat.h"
#include "autograd/grad_mode.h"
#include "nn/functional/normalization.h"
#include "nn/init.h"
#include "nn/instancenorm.h"
#include "nn/options.h"
#include "tensor/creation.h"
#include "tensor/empty.h"

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
  return absl::StrCat(options.num_features(), ", eps=", py_float(options.eps()), ", momentum=",
                      options.momentum() ? py_float(*options.momentum()) : "None",
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
  return absl::StrCat(detail::py_tuple(options.normalized_shape()), ", eps=",
                      py_float(options.eps()),
                      ", elementwise_affine=", py_bool(options.elementwise_affine()));
}

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options) : options(options) {
  EMBER_CHECK_VALUE(options.num_groups() != 0 &&
                        options.num_channels() % options.num_groups() == 0,
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
  return functional::group_norm(
      input,
      functional::GroupNormFuncOptions(options.num_groups()).weight(weight).bias(bias).eps(
          options.eps()));
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

}  // namespace nn
}  // namespace ember
