#include "nn/functional/dropout.h"

#include <cmath>

#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/math.h"
#include "tensor/native_dropout.h"

namespace ember {
namespace nn {
namespace functional {

namespace {

// PyTorch 1.13's _dropout_impl<feature, alpha>: noise drawn with
// bernoulli_(1 - p) from the default generator (so manual_seed gives
// PyTorch's draws), one per element or, for feature dropout, one per
// (N, C) plane; then input * noise (+ b for alpha dropout), recorded as
// the mul (and add) they are.
Tensor dropout_impl(const Tensor& input, double p, bool train, bool inplace, bool feature,
                    bool alpha) {
  EMBER_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ",
                    p);
  if (!train || p == 0 || input.numel() == 0) return input;
  if (feature) {
    EMBER_CHECK_VALUE(input.dim() >= 2,
                      "Feature dropout requires at least 2 dimensions in the input");
  }
  Tensor t = input;
  if (p == 1) {
    if (!inplace) return input * 0;
    return t.mul_(0);
  }
  Tensor noise;
  if (feature) {
    DimVector sizes(input.dim(), 1);
    sizes[0] = input.size(0);
    sizes[1] = input.size(1);
    noise = empty(sizes, input.options());
  } else {
    noise = empty_like(input, {}, MemoryFormat::Contiguous);
  }
  noise.bernoulli_(1 - p);
  if (!alpha) {
    noise.div_(1 - p);
    return inplace ? t.mul_(noise) : input * noise;
  }
  constexpr double kAlpha = 1.7580993408473766;  // SELU's -scale * alpha
  const double a = 1. / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  Tensor b = noise.add(-1).mul_(kAlpha * a).add_(kAlpha * a * p);
  noise.mul_(a);
  return (inplace ? t.mul_(noise) : input * noise).add_(b);
}

// libtorch's _dropoutNd_helper: a sample without its batch dim is
// unsqueezed for the feature dropout and squeezed back.
Tensor dropout_nd(const Tensor& input, const DropoutFuncOptions& o, int64_t batched_dim) {
  EMBER_CHECK_VALUE(o.p() >= 0 && o.p() <= 1,
                    "dropout probability has to be between 0 and 1, but got ", o.p());
  const bool batched = input.dim() == batched_dim;
  Tensor x = input;
  if (!batched) x = o.inplace() ? x.unsqueeze_(0) : x.unsqueeze(0);
  Tensor r = dropout_impl(x, o.p(), o.training(), o.inplace(), /*feature=*/true, /*alpha=*/false);
  if (!batched) r = o.inplace() ? r.squeeze_(0) : r.squeeze(0);
  return r;
}

}  // namespace

Tensor dropout(const Tensor& input, const DropoutFuncOptions& options) {
  // at::dropout's is_fused_kernel_acceptable: CUDA, 0 < p < 1, not empty
  // (Note [Fused dropout] in tensor/native_dropout.cc).
  const double p = options.p();
  if (options.training() && !options.inplace() && input.is_cuda() && p > 0 && p < 1 &&
      input.numel() > 0) {
    return std::get<0>(native_dropout(input, p, true));
  }
  return dropout_impl(input, options.p(), options.training(), options.inplace(),
                      /*feature=*/false, /*alpha=*/false);
}

Tensor dropout1d(const Tensor& input, const Dropout1dFuncOptions& options) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "dropout1d: Expected 2D or 3D input, but ",
              "received a ", input.dim(),
              "D input. Note that dropout1d exists to provide channel-wise dropout on inputs "
              "with 1 spatial dimension, a channel dimension, and an optional batch dimension "
              "(i.e. 2D or 3D inputs).");
  return dropout_nd(input, options, 3);
}

Tensor dropout2d(const Tensor& input, const Dropout2dFuncOptions& options) {
  return dropout_nd(input, options, 4);
}

Tensor dropout3d(const Tensor& input, const Dropout3dFuncOptions& options) {
  return dropout_nd(input, options, 5);
}

Tensor alpha_dropout(const Tensor& input, const AlphaDropoutFuncOptions& options) {
  return dropout_impl(input, options.p(), options.training(), options.inplace(),
                      /*feature=*/false, /*alpha=*/true);
}

Tensor feature_alpha_dropout(const Tensor& input,
                             const FeatureAlphaDropoutFuncOptions& options) {
  return dropout_impl(input, options.p(), options.training(), options.inplace(),
                      /*feature=*/true, /*alpha=*/true);
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
