#ifndef EMBER_NN_FUNCTIONAL_CONV_H_
#define EMBER_NN_FUNCTIONAL_CONV_H_

// conv1d / conv2d / conv3d (and their transposes, below): input [N, C_in, *]
// (or unbatched [C_in, *]), weight [C_out, C_in / groups, *kernel],
// PyTorch's defaults and checks. The 3-d ones (conv3d.cc) are written on the
// 2-d kernels, on every device (Note [3-d convolution from 2-d]).
//   F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).stride(2).padding(1))
//   F::conv2d(x, w, F::Conv2dFuncOptions().padding(ember::kSame))

#include <cstdint>

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace functional {

template <size_t D>
struct ConvFuncOptions {
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ConvPadding<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options = {});
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {});
Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options = {});

// conv_transpose1d / conv_transpose2d: input [N, C_in, *] (or unbatched
// [C_in, *]), weight [C_in, C_out / groups, *kernel]; the output has
// (L - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1
// elements per dim (output_padding below stride or dilation). libtorch's
// argument order (PyTorch's: groups before dilation).
//   F::conv_transpose2d(x, w, F::ConvTranspose2dFuncOptions().stride(2).output_padding(1))
template <size_t D>
struct ConvTransposeFuncOptions {
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
};
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions<3>;

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose1dFuncOptions& options = {});
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& options = {});
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose3dFuncOptions& options = {});

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_CONV_H_
