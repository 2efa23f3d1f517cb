#include "nn/pooling.h"

#include "absl/strings/str_cat.h"
#include "nn/options.h"

namespace ember {
namespace nn {

using detail::py_bool;
using detail::py_size;
using detail::py_tuple;

Tensor MaxPool2dImpl::forward(const Tensor& input) {
  return functional::max_pool2d(input, options);
}

std::tuple<Tensor, Tensor> MaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return functional::max_pool2d_with_indices(input, options);
}

std::string MaxPool2dImpl::extra_repr() const {
  return absl::StrCat("kernel_size=", py_size(options.kernel_size()),
                      ", stride=", py_size(options.stride()),
                      ", padding=", py_size(options.padding()),
                      ", dilation=", py_size(options.dilation()),
                      ", ceil_mode=", py_bool(options.ceil_mode()));
}

Tensor AvgPool2dImpl::forward(const Tensor& input) {
  return functional::avg_pool2d(input, options);
}

std::string AvgPool2dImpl::extra_repr() const {
  return absl::StrCat("kernel_size=", py_size(options.kernel_size()),
                      ", stride=", py_size(options.stride()),
                      ", padding=", py_size(options.padding()));
}

Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) {
  return functional::adaptive_avg_pool2d(input, options);
}

// PyTorch keeps output_size as given; a pair prints as a tuple even when
// equal, and AdaptiveAvgPool2d is mostly given a pair.
std::string AdaptiveAvgPool2dImpl::extra_repr() const {
  return absl::StrCat("output_size=", py_tuple(options.output_size()));
}

}  // namespace nn
}  // namespace ember
