#ifndef EMBER_NN_FUNCTIONAL_POOLING_H_
#define EMBER_NN_FUNCTIONAL_POOLING_H_

// 2-D pooling over input [N, C, H, W] or [C, H, W]:
//   F::max_pool2d(x, F::MaxPool2dFuncOptions(2))          stride = kernel
//   F::avg_pool2d(x, F::AvgPool2dFuncOptions({3, 2}).stride(1).ceil_mode(true))
//   F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(1))

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <tuple>

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace functional {

struct MaxPool2dFuncOptions {
  // stride defaults to the kernel size, as in PyTorch.
  /* implicit */ MaxPool2dFuncOptions(ExpandingArray<2> kernel_size)  // NOLINT
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  // One size or (H, W): F::max_pool2d(x, 2) and (x, {3, 2}) read as in Python.
  /* implicit */ MaxPool2dFuncOptions(int64_t kernel_size)  // NOLINT
      : MaxPool2dFuncOptions(ExpandingArray<2>(kernel_size)) {}
  /* implicit */ MaxPool2dFuncOptions(std::initializer_list<int64_t> kernel_size)  // NOLINT
      : MaxPool2dFuncOptions(ExpandingArray<2>(kernel_size)) {}
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, stride);
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(bool, ceil_mode) = false;
};
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
// (output, indices): indices into each flattened H*W plane, int64.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   const MaxPool2dFuncOptions& options);

struct AvgPool2dFuncOptions {
  /* implicit */ AvgPool2dFuncOptions(ExpandingArray<2> kernel_size)  // NOLINT
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  // One size or (H, W): F::avg_pool2d(x, 2) and (x, {3, 2}) read as in Python.
  /* implicit */ AvgPool2dFuncOptions(int64_t kernel_size)  // NOLINT
      : AvgPool2dFuncOptions(ExpandingArray<2>(kernel_size)) {}
  /* implicit */ AvgPool2dFuncOptions(std::initializer_list<int64_t> kernel_size)  // NOLINT
      : AvgPool2dFuncOptions(ExpandingArray<2>(kernel_size)) {}
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, stride);
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(bool, ceil_mode) = false;
  EMBER_ARG(bool, count_include_pad) = true;
  EMBER_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);

struct AdaptiveAvgPool2dFuncOptions {
  /* implicit */ AdaptiveAvgPool2dFuncOptions(ExpandingArray<2> output_size)  // NOLINT
      : output_size_(output_size) {}
  // One size or (H, W): F::adaptive_avg_pool2d(x, 2) and (x, {3, 2}) read as in Python.
  /* implicit */ AdaptiveAvgPool2dFuncOptions(int64_t output_size)  // NOLINT
      : AdaptiveAvgPool2dFuncOptions(ExpandingArray<2>(output_size)) {}
  /* implicit */ AdaptiveAvgPool2dFuncOptions(std::initializer_list<int64_t> output_size)  // NOLINT
      : AdaptiveAvgPool2dFuncOptions(ExpandingArray<2>(output_size)) {}
  EMBER_ARG(ExpandingArray<2>, output_size);
};
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_POOLING_H_
