#include "nn/instancenorm.h"

#include "absl/strings/str_cat.h"
#include "nn/functional/normalization.h"
#include "nn/options.h"

namespace ember {
namespace nn {

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
