#ifndef EMBER_NN_FUNCTIONAL_DROPOUT_H_
#define EMBER_NN_FUNCTIONAL_DROPOUT_H_

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace functional {

struct DropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = true;
  EMBER_ARG(bool, inplace) = false;
};
// In training, zeroes each element with probability p (drawn from the
// default generator as PyTorch's bernoulli_(1 - p), so manual_seed gives
// PyTorch's mask) and scales the rest by 1 / (1 - p); otherwise the input.
// On CUDA with 0 < p < 1 and not in place, as at::dropout: native_dropout's
// fused pass (tensor/native_dropout.h; node NativeDropoutBackward0).
Tensor dropout(const Tensor& input, const DropoutFuncOptions& options = {});

// Channel-wise dropout (PyTorch's feature_dropout): one draw per (N, C)
// plane, zeroing or scaling whole channels. libtorch's spellings: a 4-D
// (dropout2d) or 5-D (dropout3d) input is a batch; one dim less is a single
// sample (unsqueezed, dropped, squeezed back), as libtorch 1.13's C++ API.
// dropout1d (PyTorch 1.13's F.dropout1d): (N, C, L) or (C, L), nothing
// else.
using Dropout1dFuncOptions = DropoutFuncOptions;
Tensor dropout1d(const Tensor& input, const Dropout1dFuncOptions& options = {});
using Dropout2dFuncOptions = DropoutFuncOptions;
using Dropout3dFuncOptions = DropoutFuncOptions;
Tensor dropout2d(const Tensor& input, const Dropout2dFuncOptions& options = {});
Tensor dropout3d(const Tensor& input, const Dropout3dFuncOptions& options = {});

// Alpha dropout (for SELU networks): dropped elements become SELU's
// negative saturation value and the result is affinely corrected to keep
// zero mean and unit variance; feature_alpha_dropout drops whole channels.
// Their options' `training` defaults to false, as libtorch's.
struct AlphaDropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(bool, inplace) = false;
};
using FeatureAlphaDropoutFuncOptions = AlphaDropoutFuncOptions;
Tensor alpha_dropout(const Tensor& input, const AlphaDropoutFuncOptions& options = {});
Tensor feature_alpha_dropout(const Tensor& input,
                             const FeatureAlphaDropoutFuncOptions& options = {});

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_DROPOUT_H_
