#include "nn/dropout.h"

#include "absl/strings/str_cat.h"
#include "nn/functional/dropout.h"
#include "nn/options.h"

namespace ember {
namespace nn {

DropoutImpl::DropoutImpl(const DropoutOptions& options) : options(options) {
  EMBER_CHECK_VALUE(options.p() >= 0 && options.p() <= 1,
                    "dropout probability has to be between 0 and 1, but got ",
                    detail::py_float(options.p()));
}

Tensor DropoutImpl::forward(const Tensor& input) {
  return functional::dropout(input, functional::DropoutFuncOptions()
                                        .p(options.p())
                                        .training(is_training())
                                        .inplace(options.inplace()));
}

std::string DropoutImpl::extra_repr() const {
  return absl::StrCat("p=", detail::py_float(options.p()),
                      ", inplace=", detail::py_bool(options.inplace()));
}

}  // namespace nn
}  // namespace ember
