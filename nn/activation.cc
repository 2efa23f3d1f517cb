#include "nn/activation.h"

#include "absl/strings/str_cat.h"
#include "autograd/grad_mode.h"
#include "nn/options.h"
#include "tensor/empty.h"

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

Tensor RReLUImpl::forward(const Tensor& input) {
  return F::rrelu(input, F::RReLUFuncOptions()
                             .lower(options.lower())
                             .upper(options.upper())
                             .training(is_training())
                             .inplace(options.inplace()));
}
std::string RReLUImpl::extra_repr() const {
  return absl::StrCat("lower=", detail::py_float(options.lower()),
                      ", upper=", detail::py_float(options.upper()),
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

Tensor SoftminImpl::forward(const Tensor& input) { return F::softmin(input, options.dim()); }
std::string SoftminImpl::extra_repr() const { return absl::StrCat("dim=", options.dim()); }

Tensor Softmax2dImpl::forward(const Tensor& input) {
  EMBER_CHECK_VALUE(input.dim() == 3 || input.dim() == 4, "Softmax2d: expected input to be 3D or 4D, got ",
                    input.dim(), "D instead");
  return F::softmax(input, -3);
}

Tensor LogSoftmaxImpl::forward(const Tensor& input) {
  return F::log_softmax(input, options.dim());
}
std::string LogSoftmaxImpl::extra_repr() const { return absl::StrCat("dim=", options.dim()); }

namespace {

const char* inplace_suffix(bool inplace) { return inplace ? ", inplace=True" : ""; }
const char* inplace_only(bool inplace) { return inplace ? "inplace=True" : ""; }

}  // namespace

Tensor ELUImpl::forward(const Tensor& input) { return F::elu(input, options); }
std::string ELUImpl::extra_repr() const {
  return absl::StrCat("alpha=", detail::py_float(options.alpha()),
                      inplace_suffix(options.inplace()));
}

Tensor SELUImpl::forward(const Tensor& input) { return F::selu(input, options); }
std::string SELUImpl::extra_repr() const { return inplace_only(options.inplace()); }

Tensor CELUImpl::forward(const Tensor& input) { return F::celu(input, options); }
std::string CELUImpl::extra_repr() const {
  return absl::StrCat("alpha=", detail::py_float(options.alpha()),
                      inplace_suffix(options.inplace()));
}

Tensor SoftplusImpl::forward(const Tensor& input) { return F::softplus(input, options); }
std::string SoftplusImpl::extra_repr() const {
  return absl::StrCat("beta=", detail::py_number(options.beta()),
                      ", threshold=", detail::py_number(options.threshold()));
}

Tensor ReLU6Impl::forward(const Tensor& input) { return F::relu6(input, options); }
std::string ReLU6Impl::extra_repr() const { return inplace_only(options.inplace()); }

Tensor SoftshrinkImpl::forward(const Tensor& input) { return F::softshrink(input, options); }
std::string SoftshrinkImpl::extra_repr() const { return detail::py_float(options.lambda()); }

Tensor HardshrinkImpl::forward(const Tensor& input) { return F::hardshrink(input, options); }
std::string HardshrinkImpl::extra_repr() const { return detail::py_float(options.lambda()); }

Tensor GLUImpl::forward(const Tensor& input) { return F::glu(input, options); }
std::string GLUImpl::extra_repr() const { return absl::StrCat("dim=", options.dim()); }

HardtanhImpl::HardtanhImpl(const HardtanhOptions& options) : options(options) {
  EMBER_CHECK_VALUE(options.max_val() >= options.min_val(), "Hardtanh: max_val (",
                    detail::py_float(options.max_val()), ") must not be smaller than min_val (",
                    detail::py_float(options.min_val()), ")");
}
Tensor HardtanhImpl::forward(const Tensor& input) { return F::hardtanh(input, options); }
std::string HardtanhImpl::extra_repr() const {
  return absl::StrCat("min_val=", detail::py_float(options.min_val()),
                      ", max_val=", detail::py_float(options.max_val()),
                      inplace_suffix(options.inplace()));
}

Tensor ThresholdImpl::forward(const Tensor& input) { return F::threshold(input, options); }
std::string ThresholdImpl::extra_repr() const {
  return absl::StrCat("threshold=", detail::py_number(options.threshold()),
                      ", value=", detail::py_number(options.value()), inplace_suffix(options.inplace()));
}

Tensor SiLUImpl::forward(const Tensor& input) { return F::silu(input, inplace); }
std::string SiLUImpl::extra_repr() const { return inplace_only(inplace); }
Tensor MishImpl::forward(const Tensor& input) { return F::mish(input, inplace); }
std::string MishImpl::extra_repr() const { return inplace_only(inplace); }
// PyTorch's Hardsigmoid and Hardswish print no inplace.
Tensor HardsigmoidImpl::forward(const Tensor& input) { return F::hardsigmoid(input, inplace); }
std::string HardsigmoidImpl::extra_repr() const { return ""; }
Tensor HardswishImpl::forward(const Tensor& input) { return F::hardswish(input, inplace); }
std::string HardswishImpl::extra_repr() const { return ""; }

Tensor SoftsignImpl::forward(const Tensor& input) { return F::softsign(input); }
Tensor LogSigmoidImpl::forward(const Tensor& input) { return F::logsigmoid(input); }
Tensor TanhshrinkImpl::forward(const Tensor& input) { return F::tanhshrink(input); }

PReLUImpl::PReLUImpl(const PReLUOptions& options) : options(options) {
  weight = register_parameter("weight", ember::empty({options.num_parameters()}));
  reset_parameters();
}
void PReLUImpl::reset_parameters() {
  NoGradGuard no_grad;
  weight.fill_(options.init());
}
Tensor PReLUImpl::forward(const Tensor& input) { return F::prelu(input, weight); }
std::string PReLUImpl::extra_repr() const {
  return absl::StrCat("num_parameters=", options.num_parameters());
}

}  // namespace nn
}  // namespace ember
