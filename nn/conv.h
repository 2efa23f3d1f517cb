#ifndef EMBER_NN_CONV_H_
#define EMBER_NN_CONV_H_

// Conv1d, Conv2d and Conv3d (ConvTranspose1d/2d/3d below):
//   nn::Conv2d conv(nn::Conv2dOptions(1, 6, 5).stride(1).padding(2));
//   nn::Conv2d same(nn::Conv2dOptions(2, 3, 3).padding(ember::kSame));
// weight [out, in / groups, *kernel] and bias [out], initialized as PyTorch
// does (kaiming_uniform_ with a = sqrt(5), bias U(+-1/sqrt(fan_in))).
// padding_mode: ember::kZeros (default), kReflect, kReplicate or kCircular;
// the last three pad the input with F::pad first, as PyTorch does:
//   nn::Conv2d c(nn::Conv2dOptions(3, 8, 3).padding(1).padding_mode(ember::kReflect));

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nn/functional/conv.h"
#include "nn/functional/padding.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

template <size_t D>
struct ConvOptions {
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ConvPadding<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(PadMode, padding_mode) = kZeros;
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

template <size_t D>
class ConvNdImpl : public Module {
 public:
  explicit ConvNdImpl(const ConvOptions<D>& options);

  void reset_parameters();
  std::string extra_repr() const override;

  ConvOptions<D> options;
  Tensor weight;
  Tensor bias;  // undefined with bias(false)

 protected:
  functional::ConvFuncOptions<D> func_options() const;
  // The input padded by F::pad when padding_mode is not kZeros (then
  // func_options() pads nothing), else the input itself.
  Tensor pad_input(const Tensor& input) const;
};

class Conv1dImpl : public ConvNdImpl<1> {
 public:
  Conv1dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<1> kernel_size)
      : Conv1dImpl(Conv1dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv1dImpl(const Conv1dOptions& options) : ConvNdImpl<1>(options) {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Conv1d);

class Conv2dImpl : public ConvNdImpl<2> {
 public:
  Conv2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : Conv2dImpl(Conv2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv2dImpl(const Conv2dOptions& options) : ConvNdImpl<2>(options) {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Conv2d);

class Conv3dImpl : public ConvNdImpl<3> {
 public:
  Conv3dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<3> kernel_size)
      : Conv3dImpl(Conv3dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv3dImpl(const Conv3dOptions& options) : ConvNdImpl<3>(options) {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Conv3d);

// ConvTranspose1d and ConvTranspose2d, the adjoints of Conv1d / Conv2d
// with respect to their input:
//   nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(16, 8, 3).stride(2).padding(1));
//   up(x, std::vector<int64_t>{28, 28});  // output_padding from the wanted size
// weight [in, out / groups, *kernel] and bias [out], initialized as Conv's
// (the fan-in is the weight's: out / groups * prod(kernel)). padding_mode
// must be kZeros, as in PyTorch.
template <size_t D>
struct ConvTransposeOptions {
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(PadMode, padding_mode) = kZeros;
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

template <size_t D>
class ConvTransposeNdImpl : public Module {
 public:
  explicit ConvTransposeNdImpl(const ConvTransposeOptions<D>& options);

  // output_size: D sizes, or the whole output shape (batched or not);
  // without it, options.output_padding() applies.
  Tensor forward(const Tensor& input,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
  void reset_parameters();
  std::string extra_repr() const override;

  ConvTransposeOptions<D> options;
  Tensor weight;
  Tensor bias;  // undefined with bias(false)

 protected:
  // PyTorch's _ConvTransposeNd._output_padding.
  ExpandingArray<D> output_padding_for(const Tensor& input,
                                       const std::optional<std::vector<int64_t>>& output_size) const;
};

class ConvTranspose1dImpl : public ConvTransposeNdImpl<1> {
 public:
  ConvTranspose1dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<1> kernel_size)
      : ConvTranspose1dImpl(ConvTranspose1dOptions(in_channels, out_channels, kernel_size)) {}
  explicit ConvTranspose1dImpl(const ConvTranspose1dOptions& options)
      : ConvTransposeNdImpl<1>(options) {}
};
EMBER_MODULE(ConvTranspose1d);

class ConvTranspose2dImpl : public ConvTransposeNdImpl<2> {
 public:
  ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : ConvTranspose2dImpl(ConvTranspose2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit ConvTranspose2dImpl(const ConvTranspose2dOptions& options)
      : ConvTransposeNdImpl<2>(options) {}
};
EMBER_MODULE(ConvTranspose2d);

class ConvTranspose3dImpl : public ConvTransposeNdImpl<3> {
 public:
  ConvTranspose3dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<3> kernel_size)
      : ConvTranspose3dImpl(ConvTranspose3dOptions(in_channels, out_channels, kernel_size)) {}
  explicit ConvTranspose3dImpl(const ConvTranspose3dOptions& options)
      : ConvTransposeNdImpl<3>(options) {}
};
EMBER_MODULE(ConvTranspose3d);

extern template class ConvNdImpl<1>;
extern template class ConvNdImpl<2>;
extern template class ConvNdImpl<3>;
extern template class ConvTransposeNdImpl<1>;
extern template class ConvTransposeNdImpl<2>;
extern template class ConvTransposeNdImpl<3>;

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_CONV_H_
