#include "nn/linear.h"

#include <cmath>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "nn/functional/linear.h"
#include "nn/options.h"
#include "nn/init.h"
#include "tensor/empty.h"

namespace ember {
namespace nn {

LinearImpl::LinearImpl(const LinearOptions& options) : options(options) {
  weight = register_parameter(
      "weight", empty({options.out_features(), options.in_features()}));
  if (options.bias()) {
    bias = register_parameter("bias", empty({options.out_features()}));
  } else {
    register_parameter("bias", Tensor(), false);
  }
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = std::get<0>(init::_calculate_fan_in_and_fan_out(weight));
    const double bound = fan_in > 0 ? 1 / std::sqrt(static_cast<double>(fan_in)) : 0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor LinearImpl::forward(const Tensor& input) {
  return functional::linear(input, weight, bias);
}

std::string LinearImpl::extra_repr() const {
  return absl::StrCat("in_features=", options.in_features(),
                      ", out_features=", options.out_features(),
                      ", bias=", detail::py_bool(bias.defined()));
}

BilinearImpl::BilinearImpl(const BilinearOptions& options) : options(options) {
  weight = register_parameter("weight", empty({options.out_features(), options.in1_features(),
                                               options.in2_features()}));
  if (options.bias()) {
    bias = register_parameter("bias", empty({options.out_features()}));
  } else {
    register_parameter("bias", Tensor(), false);
  }
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  const double bound = 1 / std::sqrt(static_cast<double>(weight.size(1)));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  return functional::bilinear(input1, input2, weight, bias);
}

std::string BilinearImpl::extra_repr() const {
  return absl::StrCat("in1_features=", options.in1_features(),
                      ", in2_features=", options.in2_features(),
                      ", out_features=", options.out_features(),
                      ", bias=", detail::py_bool(bias.defined()));
}

std::string FlattenImpl::extra_repr() const {
  return absl::StrCat("start_dim=", options.start_dim(), ", end_dim=", options.end_dim());
}

std::string UnflattenImpl::extra_repr() const {
  return absl::StrCat("dim=", options.dim(),
                      ", unflattened_size=", detail::py_tuple(options.sizes()));
}

}  // namespace nn
}  // namespace ember
