#include "nn/functional/conv.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nn/functional/conv3d.h"
#include "tensor/autocast.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/nn_ops.h"
#include "tensor/shape.h"

namespace ember {
namespace nn {
namespace functional {
namespace {

// PyTorch 1.13's conv{1,2,3}d front end: unbatched inputs, 'valid'/'same'.
template <size_t D>
Tensor conv_nd(const Tensor& input, const Tensor& weight, const Tensor& bias,
               const ConvFuncOptions<D>& o, const char* name) {
  // conv1d, conv2d and conv3d share their lists' entries; the bias is an
  // argument of its own here so that autocast casts it.
  static_assert(autocast::ops::conv1d.cpu == autocast::ops::conv2d.cpu &&
                autocast::ops::conv1d.cuda == autocast::ops::conv2d.cuda);
  EMBER_AUTOCAST(conv2d, conv_nd<D>, input, weight, bias, o, name);
  const int64_t batched = D + 2;
  EMBER_CHECK(input.dim() == batched - 1 || input.dim() == batched, "Expected ", batched - 1,
              "D (unbatched) or ", batched, "D (batched) input to ", name,
              ", but got input of size: [", absl::StrJoin(input.sizes(), ", "), "]");
  const bool unbatched = input.dim() == batched - 1;
  Tensor x = unbatched ? input.unsqueeze(0) : input;
  DimVector stride(o.stride().begin(), o.stride().end());
  DimVector dilation(o.dilation().begin(), o.dilation().end());
  DimVector padding(D, 0);
  if (!o.padding().is_mode()) {
    padding.assign(o.padding().sizes().begin(), o.padding().sizes().end());
  } else if (o.padding().mode() == kSame) {
    for (int64_t s : stride) {
      EMBER_CHECK(s == 1, "padding='same' is not supported for strided convolutions");
    }
    EMBER_CHECK(weight.dim() == batched, "expected weight of ", batched, " dims for ", name);
    for (size_t i = 0; i < D; ++i) {
      const int64_t total = dilation[i] * (weight.size(2 + i) - 1);
      padding[i] = total / 2;
      if (total % 2 != 0) {
        // Odd total padding: the extra zero goes on the right, as PyTorch's
        // constant_pad_nd before the convolution.
        DimVector zs(x.sizes().begin(), x.sizes().end());
        zs[2 + i] = 1;
        x = cat({x, zeros(zs, x.options())}, 2 + i);
      }
    }
  }
  Tensor out = D == 3 ? detail::convolution3d(x, weight, bias, stride, padding, dilation, o.groups())
                     : convolution(x, weight, bias, stride, padding, dilation, o.groups());
  return unbatched ? out.squeeze(0) : out;
}

template <size_t D>
Tensor conv_transpose_nd(const Tensor& input, const Tensor& weight, const Tensor& bias,
                         const ConvTransposeFuncOptions<D>& o, const char* name) {
  static_assert(autocast::ops::conv_transpose1d.cpu == autocast::ops::conv_transpose2d.cpu &&
                autocast::ops::conv_transpose1d.cuda == autocast::ops::conv_transpose2d.cuda);
  EMBER_AUTOCAST(conv_transpose2d, conv_transpose_nd<D>, input, weight, bias, o, name);
  const int64_t batched = D + 2;
  EMBER_CHECK(input.dim() == batched - 1 || input.dim() == batched, "Expected ", batched - 1,
              "D (unbatched) or ", batched, "D (batched) input to ", name,
              ", but got input of size: [", absl::StrJoin(input.sizes(), ", "), "]");
  const bool unbatched = input.dim() == batched - 1;
  auto dims = [](const ExpandingArray<D>& a) { return DimVector(a.begin(), a.end()); };
  Tensor x = unbatched ? input.unsqueeze(0) : input;
  Tensor out = D == 3 ? detail::conv_transpose3d(x, weight, bias, dims(o.stride()),
                                                 dims(o.padding()), dims(o.output_padding()),
                                                 dims(o.dilation()), o.groups())
                      : conv_transpose(x, weight, bias, dims(o.stride()), dims(o.padding()),
                                       dims(o.output_padding()), dims(o.dilation()), o.groups());
  return unbatched ? out.squeeze(0) : out;
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options) {
  return conv_nd<1>(input, weight, options.bias(), options, "conv1d");
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options) {
  return conv_nd<2>(input, weight, options.bias(), options, "conv2d");
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options) {
  return conv_nd<3>(input, weight, options.bias(), options, "conv3d");
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose1dFuncOptions& options) {
  return conv_transpose_nd<1>(input, weight, options.bias(), options, "conv_transpose1d");
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& options) {
  return conv_transpose_nd<2>(input, weight, options.bias(), options, "conv_transpose2d");
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose3dFuncOptions& options) {
  return conv_transpose_nd<3>(input, weight, options.bias(), options, "conv_transpose3d");
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
