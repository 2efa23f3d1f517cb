#ifndef EMBER_NN_POOLING_H_
#define EMBER_NN_POOLING_H_

// MaxPool2d, AvgPool2d and AdaptiveAvgPool2d:
//   nn::MaxPool2d pool(2);   // stride defaults to the kernel size
//   nn::AvgPool2d avg(nn::AvgPool2dOptions(3).stride(2).padding(1));

#include <cstdint>
#include <string>
#include <tuple>

#include "nn/functional/pooling.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

using MaxPool2dOptions = functional::MaxPool2dFuncOptions;
using AvgPool2dOptions = functional::AvgPool2dFuncOptions;
using AdaptiveAvgPool2dOptions = functional::AdaptiveAvgPool2dFuncOptions;

class MaxPool2dImpl : public Module {
 public:
  explicit MaxPool2dImpl(int64_t kernel_size)
      : MaxPool2dImpl(MaxPool2dOptions(ExpandingArray<2>(kernel_size))) {}
  explicit MaxPool2dImpl(const MaxPool2dOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  // (output, indices), as return_indices=True.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  std::string extra_repr() const override;
  MaxPool2dOptions options;
};
EMBER_MODULE(MaxPool2d);

class AvgPool2dImpl : public Module {
 public:
  explicit AvgPool2dImpl(int64_t kernel_size)
      : AvgPool2dImpl(AvgPool2dOptions(ExpandingArray<2>(kernel_size))) {}
  explicit AvgPool2dImpl(const AvgPool2dOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  AvgPool2dOptions options;
};
EMBER_MODULE(AvgPool2d);

class AdaptiveAvgPool2dImpl : public Module {
 public:
  explicit AdaptiveAvgPool2dImpl(int64_t output_size)
      : AdaptiveAvgPool2dImpl(AdaptiveAvgPool2dOptions(ExpandingArray<2>(output_size))) {}
  explicit AdaptiveAvgPool2dImpl(const AdaptiveAvgPool2dOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  AdaptiveAvgPool2dOptions options;
};
EMBER_MODULE(AdaptiveAvgPool2d);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_POOLING_H_
