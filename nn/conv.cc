#include "nn/conv.h"

#include <cmath>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nn/init.h"
#include "nn/options.h"
#include "tensor/empty.h"

namespace ember {
namespace nn {

template <size_t D>
ConvNdImpl<D>::ConvNdImpl(const ConvOptions<D>& options) : options(options) {
  const int64_t groups = options.groups();
  EMBER_CHECK_VALUE(groups > 0, "groups must be a positive integer");
  EMBER_CHECK_VALUE(options.in_channels() % groups == 0, "in_channels must be divisible by groups");
  EMBER_CHECK_VALUE(options.out_channels() % groups == 0,
                    "out_channels must be divisible by groups");
  if (options.padding().is_mode() && options.padding().mode() == kSame) {
    for (int64_t s : options.stride()) {
      EMBER_CHECK_VALUE(s == 1, "padding='same' is not supported for strided convolutions");
    }
  }
  std::vector<int64_t> shape = {options.out_channels(), options.in_channels() / groups};
  for (int64_t k : options.kernel_size()) shape.push_back(k);
  weight = register_parameter("weight", ember::empty(shape));
  if (options.bias()) {
    bias = register_parameter("bias", empty({options.out_channels()}));
  } else {
    register_parameter("bias", Tensor(), false);
  }
  reset_parameters();
}

template <size_t D>
void ConvNdImpl<D>::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = std::get<0>(init::_calculate_fan_in_and_fan_out(weight));
    if (fan_in != 0) {
      const double bound = 1 / std::sqrt(static_cast<double>(fan_in));
      init::uniform_(bias, -bound, bound);
    }
  }
}

template <size_t D>
std::string ConvNdImpl<D>::extra_repr() const {
  using detail::py_tuple;
  std::string s = absl::StrCat(options.in_channels(), ", ", options.out_channels(),
                               ", kernel_size=", py_tuple(options.kernel_size()),
                               ", stride=", py_tuple(options.stride()));
  const ConvPadding<D>& padding = options.padding();
  if (padding.is_mode()) {
    absl::StrAppend(&s, ", padding=", padding.mode() == kSame ? "same" : "valid");
  } else if (padding.sizes() != ExpandingArray<D>(0)) {
    absl::StrAppend(&s, ", padding=", py_tuple(padding.sizes()));
  }
  if (options.dilation() != ExpandingArray<D>(1)) {
    absl::StrAppend(&s, ", dilation=", py_tuple(options.dilation()));
  }
  if (options.groups() != 1) absl::StrAppend(&s, ", groups=", options.groups());
  if (!bias.defined()) absl::StrAppend(&s, ", bias=False");
  if (options.padding_mode() != kZeros) {
    absl::StrAppend(&s, ", padding_mode=", pad_mode_name(options.padding_mode()));
  }
  return s;
}

template <size_t D>
functional::ConvFuncOptions<D> ConvNdImpl<D>::func_options() const {
  return functional::ConvFuncOptions<D>()
      .bias(bias)
      .stride(options.stride())
      .padding(options.padding_mode() == kZeros ? options.padding() : ConvPadding<D>(0))
      .dilation(options.dilation())
      .groups(options.groups());
}

// PyTorch's _reversed_padding_repeated_twice: (before, after) per dim, last
// dim first; 'same' puts the odd element after, 'valid' pads nothing.
template <size_t D>
Tensor ConvNdImpl<D>::pad_input(const Tensor& input) const {
  if (options.padding_mode() == kZeros) return input;
  const ConvPadding<D>& padding = options.padding();
  std::vector<int64_t> pad;
  for (size_t k = 0; k < D; ++k) {
    const size_t d = D - 1 - k;
    if (!padding.is_mode()) {
      pad.push_back(padding.sizes()[d]);
      pad.push_back(padding.sizes()[d]);
    } else if (padding.mode() == kSame) {
      const int64_t total = options.dilation()[d] * (options.kernel_size()[d] - 1);
      pad.push_back(total / 2);
      pad.push_back(total - total / 2);
    } else {
      pad.push_back(0);
      pad.push_back(0);
    }
  }
  return functional::pad(input, functional::PadFuncOptions(pad).mode(options.padding_mode()));
}

template class ConvNdImpl<1>;
template class ConvNdImpl<2>;

Tensor Conv1dImpl::forward(const Tensor& input) {
  return functional::conv1d(pad_input(input), weight, func_options());
}

Tensor Conv2dImpl::forward(const Tensor& input) {
  return functional::conv2d(pad_input(input), weight, func_options());
}

}  // namespace nn
}  // namespace ember
