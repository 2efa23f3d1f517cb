#ifndef EMBER_NN_DROPOUT_H_
#define EMBER_NN_DROPOUT_H_

// Dropout, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout: zero
// elements (or whole channels) with probability p while training (the mask
// drawn from the default generator, so manual_seed gives PyTorch's), and
// are the identity in eval mode.

#include <string>

#include "nn/functional/options.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

struct DropoutOptions {
  /* implicit */ DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT
  EMBER_ARG(double, p);
  EMBER_ARG(bool, inplace) = false;
};

namespace detail {
// What the dropout modules share: options checked at construction
// (ValueError unless 0 <= p <= 1) and their "p=0.5, inplace=False".
class DropoutBase : public Module {
 public:
  explicit DropoutBase(const DropoutOptions& options);
  std::string extra_repr() const override;
  DropoutOptions options;
};
}  // namespace detail

class DropoutImpl : public detail::DropoutBase {
 public:
  explicit DropoutImpl(const DropoutOptions& options = {}) : DropoutBase(options) {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Dropout);

// Whole channels at once (functional::dropout1d / dropout2d / dropout3d):
// (N, C, L) or (C, L); (N, C, H, W)
// or (C, H, W); (N, C, D, H, W) or (C, D, H, W).
using Dropout1dOptions = DropoutOptions;
class Dropout1dImpl : public detail::DropoutBase {
 public:
  explicit Dropout1dImpl(const Dropout1dOptions& options = {}) : DropoutBase(options) {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Dropout1d);

using Dropout2dOptions = DropoutOptions;
class Dropout2dImpl : public detail::DropoutBase {
 public:
  explicit Dropout2dImpl(const Dropout2dOptions& options = {}) : DropoutBase(options) {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Dropout2d);

using Dropout3dOptions = DropoutOptions;
class Dropout3dImpl : public detail::DropoutBase {
 public:
  explicit Dropout3dImpl(const Dropout3dOptions& options = {}) : DropoutBase(options) {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Dropout3d);

// For SELU networks (functional::alpha_dropout / feature_alpha_dropout).
using AlphaDropoutOptions = DropoutOptions;
class AlphaDropoutImpl : public detail::DropoutBase {
 public:
  explicit AlphaDropoutImpl(const AlphaDropoutOptions& options = {}) : DropoutBase(options) {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AlphaDropout);

using FeatureAlphaDropoutOptions = DropoutOptions;
class FeatureAlphaDropoutImpl : public detail::DropoutBase {
 public:
  explicit FeatureAlphaDropoutImpl(const FeatureAlphaDropoutOptions& options = {})
      : DropoutBase(options) {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(FeatureAlphaDropout);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_DROPOUT_H_
