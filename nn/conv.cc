#include "nn/conv.h"

#include <cmath>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nn/init.h"
#include "nn/options.h"
#include "tensor/empty.h"

namespace ember {
namespace nn {

namespace {

// PyTorch's _ConvNd.reset_parameters, for plain and transposed weights.
void reset_conv_parameters(Tensor& weight, Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = std::get<0>(init::_calculate_fan_in_and_fan_out(weight));
    if (fan_in != 0) {
      const double bound = 1 / std::sqrt(static_cast<double>(fan_in));
      init::uniform_(bias, -bound, bound);
    }
  }
}

// _ConvNd.__init__'s checks of the channel counts (ConvOptions or
// ConvTransposeOptions).
template <typename Options>
void check_conv_channels(const Options& options) {
  const int64_t groups = options.groups();
  EMBER_CHECK_VALUE(groups > 0, "groups must be a positive integer");
  EMBER_CHECK_VALUE(options.in_channels() % groups == 0, "in_channels must be divisible by groups");
  EMBER_CHECK_VALUE(options.out_channels() % groups == 0,
                    "out_channels must be divisible by groups");
}

// _ConvNd.__init__'s parameters, uninitialized until reset_conv_parameters:
// weight [out, in / groups, *kernel] ([in, out / groups, *kernel] when
// transposed) and bias [out], registered as None with bias(false).
template <typename Options>
void register_conv_parameters(Module& module, const Options& options, bool transposed,
                              Tensor& weight, Tensor& bias) {
  const int64_t in = options.in_channels(), out = options.out_channels();
  std::vector<int64_t> shape = transposed ? std::vector<int64_t>{in, out / options.groups()}
                                          : std::vector<int64_t>{out, in / options.groups()};
  for (int64_t k : options.kernel_size()) shape.push_back(k);
  weight = module.register_parameter("weight", ember::empty(shape));
  if (options.bias()) {
    bias = module.register_parameter("bias", empty({out}));
  } else {
    module.register_parameter("bias", Tensor(), false);
  }
}

}  // namespace

template <size_t D>
ConvNdImpl<D>::ConvNdImpl(const ConvOptions<D>& options) : options(options) {
  check_conv_channels(options);
  if (options.padding().is_mode() && options.padding().mode() == kSame) {
    for (int64_t s : options.stride()) {
      EMBER_CHECK_VALUE(s == 1, "padding='same' is not supported for strided convolutions");
    }
  }
  register_conv_parameters(*this, options, /*transposed=*/false, weight, bias);
  reset_parameters();
}

template <size_t D>
void ConvNdImpl<D>::reset_parameters() {
  reset_conv_parameters(weight, bias);
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
template class ConvNdImpl<3>;

Tensor Conv1dImpl::forward(const Tensor& input) {
  return functional::conv1d(pad_input(input), weight, func_options());
}

Tensor Conv2dImpl::forward(const Tensor& input) {
  return functional::conv2d(pad_input(input), weight, func_options());
}

Tensor Conv3dImpl::forward(const Tensor& input) {
  return functional::conv3d(pad_input(input), weight, func_options());
}

// --- transposed ---------------------------------------------------------------

template <size_t D>
ConvTransposeNdImpl<D>::ConvTransposeNdImpl(const ConvTransposeOptions<D>& options)
    : options(options) {
  check_conv_channels(options);
  EMBER_CHECK_VALUE(options.padding_mode() == kZeros,
                    "Only \"zeros\" padding mode is supported for ConvTranspose", D, "d");
  register_conv_parameters(*this, options, /*transposed=*/true, weight, bias);
  reset_parameters();
}

template <size_t D>
void ConvTransposeNdImpl<D>::reset_parameters() {
  reset_conv_parameters(weight, bias);
}

template <size_t D>
std::string ConvTransposeNdImpl<D>::extra_repr() const {
  using detail::py_tuple;
  std::string s = absl::StrCat(options.in_channels(), ", ", options.out_channels(),
                               ", kernel_size=", py_tuple(options.kernel_size()),
                               ", stride=", py_tuple(options.stride()));
  if (options.padding() != ExpandingArray<D>(0)) {
    absl::StrAppend(&s, ", padding=", py_tuple(options.padding()));
  }
  if (options.dilation() != ExpandingArray<D>(1)) {
    absl::StrAppend(&s, ", dilation=", py_tuple(options.dilation()));
  }
  if (options.output_padding() != ExpandingArray<D>(0)) {
    absl::StrAppend(&s, ", output_padding=", py_tuple(options.output_padding()));
  }
  if (options.groups() != 1) absl::StrAppend(&s, ", groups=", options.groups());
  if (!bias.defined()) absl::StrAppend(&s, ", bias=False");
  return s;
}

template <size_t D>
ExpandingArray<D> ConvTransposeNdImpl<D>::output_padding_for(
    const Tensor& input, const std::optional<std::vector<int64_t>>& output_size) const {
  if (!output_size) return options.output_padding();
  const int64_t spatial = static_cast<int64_t>(D);
  const int64_t non_spatial = input.dim() == spatial + 2 ? 2 : 1;
  std::vector<int64_t> size = *output_size;
  if (static_cast<int64_t>(size.size()) == non_spatial + spatial) {
    size.erase(size.begin(), size.begin() + non_spatial);
  }
  EMBER_CHECK_VALUE(static_cast<int64_t>(size.size()) == spatial, "ConvTranspose", D, "D: for ",
                    input.dim(), "D input, output_size must have ", spatial, " or ",
                    non_spatial + spatial, " elements (got ", size.size(), ")");
  std::vector<int64_t> min_sizes, max_sizes;
  for (int64_t d = 0; d < spatial; ++d) {
    min_sizes.push_back((input.size(d + non_spatial) - 1) * options.stride()[d] -
                        2 * options.padding()[d] +
                        options.dilation()[d] * (options.kernel_size()[d] - 1) + 1);
    max_sizes.push_back(min_sizes[d] + options.stride()[d] - 1);
  }
  ExpandingArray<D> result(0);
  for (int64_t d = 0; d < spatial; ++d) {
    if (size[d] < min_sizes[d] || size[d] > max_sizes[d]) {
      // Python prints output_size as it was given (a list), the bounds as
      // lists and the input's spatial sizes as torch.Size.
      std::vector<int64_t> in(input.sizes().begin() + 2, input.sizes().end());
      EMBER_CHECK_VALUE(false, "requested an output size of [", absl::StrJoin(size, ", "),
                        "], but valid sizes range from [", absl::StrJoin(min_sizes, ", "),
                        "] to [", absl::StrJoin(max_sizes, ", "), "] (for an input of torch.Size([",
                        absl::StrJoin(in, ", "), "]))");
    }
    result[d] = size[d] - min_sizes[d];
  }
  return result;
}

template <size_t D>
Tensor ConvTransposeNdImpl<D>::forward(const Tensor& input,
                                       const std::optional<std::vector<int64_t>>& output_size) {
  functional::ConvTransposeFuncOptions<D> o;
  o.bias(bias)
      .stride(options.stride())
      .padding(options.padding())
      .output_padding(output_padding_for(input, output_size))
      .groups(options.groups())
      .dilation(options.dilation());
  if constexpr (D == 1) {
    return functional::conv_transpose1d(input, weight, o);
  } else if constexpr (D == 2) {
    return functional::conv_transpose2d(input, weight, o);
  } else {
    return functional::conv_transpose3d(input, weight, o);
  }
}

template class ConvTransposeNdImpl<1>;
template class ConvTransposeNdImpl<2>;
template class ConvTransposeNdImpl<3>;

}  // namespace nn
}  // namespace ember
