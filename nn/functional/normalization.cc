#include "nn/functional/normalization.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nn/functional/padding.h"
#include "nn/functional/pooling.h"
#include "tensor/autocast.h"
#include "tensor/autograd_hook.h"
#include "tensor/error.h"
#include "tensor/nn_ops.h"
#include "tensor/record_function.h"
#include "tensor/reduce.h"
#include "tensor/shape.h"

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

namespace {

// PyTorch's _verify_batch_size / _verify_spatial_size: `what` per channel.
void verify_more_than_one(int64_t count, const char* what, const std::string& size) {
  EMBER_CHECK_VALUE(count != 1, "Expected more than 1 ", what,
                    " when training, got input size ", size);
}

std::string torch_size(IntArrayRef sizes) {
  return absl::StrCat("torch.Size([", absl::StrJoin(sizes, ", "), "])");
}

Tensor repeat_if_defined(const Tensor& t, int64_t n) { return t.defined() ? t.repeat({n}) : t; }

}  // namespace

// F.group_norm's batch-size check, then ember::native_group_norm (one
// NativeGroupNormBackward0 node, as PyTorch).
namespace {
// group_norm with weight and bias as arguments of their own (not read from
// the options), so that autocast casts them.
Tensor group_norm_impl(const Tensor& input, const Tensor& weight, const Tensor& bias,
                       const GroupNormFuncOptions& o) {
  EMBER_AUTOCAST(group_norm, group_norm_impl, input, weight, bias, o);
  const int64_t groups = o.num_groups();
  const int64_t n = input.size(0), c = input.size(1);
  int64_t per_group = groups != 0 ? n * c / groups : 0;
  std::vector<int64_t> shape{per_group, groups};
  for (int64_t d = 2; d < input.dim(); ++d) {
    per_group *= input.size(d);
    shape.push_back(input.size(d));
  }
  verify_more_than_one(per_group, "value per channel",
                       absl::StrCat("[", absl::StrJoin(shape, ", "), "]"));
  EMBER_CHECK(groups > 0 && c % groups == 0,
              "Expected number of channels in input to be divisible by num_groups, but got input "
              "of shape [",
              absl::StrJoin(input.sizes(), ", "), "] and num_groups=", groups);
  // One node, as PyTorch's native_group_norm (NativeGroupNormBackward0; its
  // derivative is in autograd/derivatives/nn.cc), which also checks weight
  // and bias.
  int64_t hxw = 1;
  for (int64_t d = 2; d < input.dim(); ++d) hxw *= input.size(d);
  return std::get<0>(native_group_norm(input, weight, bias, n, c, hxw, groups, o.eps()));
}
}  // namespace

Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& o) {
  return group_norm_impl(input, o.weight(), o.bias(), o);
}

Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& o) {
  if (o.use_input_stats()) {
    int64_t spatial = 1;
    for (int64_t d = 2; d < input.dim(); ++d) spatial *= input.size(d);
    verify_more_than_one(spatial, "spatial element", torch_size(input.sizes()));
  }
  EMBER_CHECK(o.use_input_stats() || (o.running_mean().defined() && o.running_var().defined()),
              "Expected running_mean and running_var to be defined when use_input_stats is false");
  const int64_t n = input.size(0), c = input.size(1);
  DimVector shape(input.sizes().begin(), input.sizes().end());
  shape[0] = 1;
  shape[1] = n * c;
  Tensor running_mean = repeat_if_defined(o.running_mean(), n);
  Tensor running_var = repeat_if_defined(o.running_var(), n);
  // ATen's input.contiguous().view(...): the result is contiguous whatever
  // the input's layout (ViewBackward0 <- NativeBatchNormBackward0 <-
  // ViewBackward0, as 1.13 records).
  Tensor out = std::get<0>(
      native_batch_norm(input.contiguous().view(shape), repeat_if_defined(o.weight(), n),
                        repeat_if_defined(o.bias(), n), running_mean, running_var,
                        o.use_input_stats(), o.momentum(), o.eps()));
  // Neither side requires grad: the copies are not recorded.
  if (o.running_mean().defined()) {
    Tensor rm = o.running_mean();
    rm.copy_(running_mean.view({n, c}).mean({0}));
  }
  if (o.running_var().defined()) {
    Tensor rv = o.running_var();
    rv.copy_(running_var.view({n, c}).mean({0}));
  }
  return out.view(input.sizes());
}

Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& o) {
  const int64_t dim = input.dim();
  EMBER_CHECK_VALUE(dim >= 3, "Expected 3D or higher dimensionality input (got ", dim,
                    " dimensions)");
  if (input.numel() == 0) return input;
  const int64_t size = o.size();
  Tensor div = input.mul(input).unsqueeze(1);
  if (dim == 3) {
    div = pad(div, PadFuncOptions({0, 0, size / 2, (size - 1) / 2}));
    div = avg_pool2d(div, AvgPool2dFuncOptions({size, 1}).stride(1)).squeeze(1);
  } else {
    const auto sizes = input.sizes();
    div = div.view({sizes[0], 1, sizes[1], sizes[2], -1});
    div = pad(div, PadFuncOptions({0, 0, 0, 0, size / 2, (size - 1) / 2}));
    div = avg_pool3d(div, AvgPool3dFuncOptions({size, 1, 1}).stride(1)).squeeze(1);
    div = div.view(sizes);
  }
  div = div.mul(o.alpha()).add(o.k()).pow(o.beta());
  return input / div;
}

Tensor normalize(const Tensor& input, NormalizeFuncOptions options) {
  // norm's dtype check comes first in 1.13 (before the dim's).
  EMBER_CHECK(is_floating_point(input.dtype()),
              "norm(): input dtype should be either floating point or complex. Got ",
              scalar_type_name(input.dtype()), " instead.");
  const Tensor denom =
      input.norm(options.p(), {options.dim()}, /*keepdim=*/true).clamp_min(options.eps()).expand_as(
          input);
  if (!options.out().has_value()) return input / denom;
  Tensor out = *options.out();  // torch.div(input, denom, out=out)
  out.resize_(input.sizes()).copy_(input / denom);
  return out;
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
