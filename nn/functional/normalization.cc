#include "nn/functional/normalization.h"

#include "absl/strings/str_join.h"
#include "tensor/error.h"
#include "tensor/nn_ops.h"

namespace ember {
namespace nn {
namespace functional {

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& o) {
  if (o.training()) {
    // PyTorch's _verify_batch_size.
    int64_t per_channel = input.dim() > 0 ? input.size(0) : 1;
    for (int64_t d = 2; d < input.dim(); ++d) per_channel *= input.size(d);
    EMBER_CHECK_VALUE(per_channel != 1,
                      "Expected more than 1 value per channel when training, got input size "
                      "torch.Size([",
                      absl::StrJoin(input.sizes(), ", "), "])");
  }
  return std::get<0>(native_batch_norm(input, o.weight(), o.bias(), running_mean, running_var,
                                       o.training(), o.momentum(), o.eps()));
}

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& o) {
  return std::get<0>(native_layer_norm(input, o.normalized_shape(), o.weight(), o.bias(), o.eps()));
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
