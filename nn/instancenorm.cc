#include "nn/instancenorm.h"

#include "absl/strings/str_cat.h"
#include "autograd/grad_mode.h"
#include "nn/functional/normalization.h"
#include "nn/init.h"
#include "nn/options.h"
#include "tensor/creation.h"
#include "tensor/empty.h"

namespace ember {
namespace nn {

InstanceNormImplBase::InstanceNormImplBase(const InstanceNormOptions& options)
    : options(options) {
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

void InstanceNormImplBase::reset_running_stats() {
  if (!options.track_running_stats()) return;
  NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

void InstanceNormImplBase::reset_parameters() {
  reset_running_stats();
  if (options.affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

// PyTorch's _InstanceNorm.forward.
Tensor InstanceNormImplBase::forward(const Tensor& input) {
  const int64_t d = no_batch_dim();
  EMBER_CHECK_VALUE(input.dim() == d || input.dim() == d + 1, "expected ", d, "D or ", d + 1,
                    "D input (got ", input.dim(), "D input)");
  const bool unbatched = input.dim() == d;
  Tensor out = functional::instance_norm(
      unbatched ? input.unsqueeze(0) : input,
      functional::InstanceNormFuncOptions()
          .running_mean(running_mean)
          .running_var(running_var)
          .weight(weight)
          .bias(bias)
          .use_input_stats(is_training() || !options.track_running_stats())
          .momentum(options.momentum())
          .eps(options.eps()));
  return unbatched ? out.squeeze(0) : out;
}

std::string InstanceNormImplBase::extra_repr() const {
  using detail::py_bool;
  using detail::py_float;
  return absl::StrCat(options.num_features(), ", eps=", py_float(options.eps()),
                      ", momentum=", py_float(options.momentum()),
                      ", affine=", py_bool(options.affine()),
                      ", track_running_stats=", py_bool(options.track_running_stats()));
}

}  // namespace nn
}  // namespace ember
