#include "nn/activation.h"

#include "absl/strings/str_cat.h"
#include "nn/options.h"

namespace ember {
namespace nn {

namespace F = functional;

Tensor ReLUImpl::forward(const Tensor& input) { return F::relu(input, options); }
std::string ReLUImpl::extra_repr() const { return options.inplace() ? "inplace=True" : ""; }

Tensor LeakyReLUImpl::forward(const Tensor& input) { return F::leaky_relu(input, options); }
std::string LeakyReLUImpl::extra_repr() const {
  return absl::StrCat("negative_slope=", detail::py_float(options.negative_slope()),
                      options.inplace() ? ", inplace=True" : "");
}

Tensor GELUImpl::forward(const Tensor& input) { return F::gelu(input, options); }
std::string GELUImpl::extra_repr() const {
  return absl::StrCat("approximate='", options.approximate(), "'");
}

Tensor SigmoidImpl::forward(const Tensor& input) { return F::sigmoid(input); }
Tensor TanhImpl::forward(const Tensor& input) { return F::tanh(input); }

Tensor SoftmaxImpl::forward(const Tensor& input) { return F::softmax(input, options.dim()); }
std::string SoftmaxImpl::extra_repr() const { return absl::StrCat("dim=", options.dim()); }

Tensor LogSoftmaxImpl::forward(const Tensor& input) {
  return F::log_softmax(input, options.dim());
}
std::string LogSoftmaxImpl::extra_repr() const { return absl::StrCat("dim=", options.dim()); }

}  // namespace nn
}  // namespace ember
