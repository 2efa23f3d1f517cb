#include "nn/dropout.h"

#include "absl/strings/str_cat.h"
#include "nn/functional/dropout.h"
#include "nn/options.h"

namespace ember {
namespace nn {

namespace detail {

DropoutBase::DropoutBase(const DropoutOptions& options) : options(options) {
  EMBER_CHECK_VALUE(options.p() >= 0 && options.p() <= 1,
                    "dropout probability has to be between 0 and 1, but got ",
                    nn::detail::py_float(options.p()));
}

std::string DropoutBase::extra_repr() const {
  return absl::StrCat("p=", nn::detail::py_float(options.p()),
                      ", inplace=", nn::detail::py_bool(options.inplace()));
}

}  // namespace detail

namespace {
template <typename Options>
Options func_options(const detail::DropoutBase& m) {
  return Options().p(m.options.p()).training(m.is_training()).inplace(m.options.inplace());
}
}  // namespace

Tensor DropoutImpl::forward(const Tensor& input) {
  return functional::dropout(input, func_options<functional::DropoutFuncOptions>(*this));
}

Tensor Dropout1dImpl::forward(const Tensor& input) {
  return functional::dropout1d(input, func_options<functional::Dropout1dFuncOptions>(*this));
}

Tensor Dropout2dImpl::forward(const Tensor& input) {
  return functional::dropout2d(input, func_options<functional::Dropout2dFuncOptions>(*this));
}

Tensor Dropout3dImpl::forward(const Tensor& input) {
  return functional::dropout3d(input, func_options<functional::Dropout3dFuncOptions>(*this));
}

Tensor AlphaDropoutImpl::forward(const Tensor& input) {
  return functional::alpha_dropout(input,
                                   func_options<functional::AlphaDropoutFuncOptions>(*this));
}

Tensor FeatureAlphaDropoutImpl::forward(const Tensor& input) {
  return functional::feature_alpha_dropout(
      input, func_options<functional::FeatureAlphaDropoutFuncOptions>(*this));
}

}  // namespace nn
}  // namespace ember
