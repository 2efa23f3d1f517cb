#ifndef EMBER_NN_FUNCTIONAL_POOLING_H_
#define EMBER_NN_FUNCTIONAL_POOLING_H_

// Pooling over input [N, C, *] or unbatched [C, *] with 1, 2 or 3 spatial dims:
//   F::max_pool2d(x, F::MaxPool2dFuncOptions(2))          stride = kernel
//   F::avg_pool2d(x, F::AvgPool2dFuncOptions({3, 2}).stride(1).ceil_mode(true))
//   F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(1))
//   F::max_pool3d_with_indices(x, F::MaxPool3dFuncOptions(2).padding(1))
// The 2-d ops are //tensor's kernels. The 1-d ones are views of them (H =
// 1), the 3-d and adaptive max ones compositions of 2-d kernels and
// differentiable indexing (Note [Separable pooling] in pooling_nd.cc), so
// every device that runs the 2-d ops runs them.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <tuple>

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace functional {

// libtorch's option templates: MaxPoolFuncOptions<D> for D = 1, 2, 3, with
// the names F::MaxPool1dFuncOptions... One size or D sizes:
// F::max_pool2d(x, 2) and (x, {3, 2}) read as in Python.
template <size_t D>
struct MaxPoolFuncOptions {
  // stride defaults to the kernel size, as in PyTorch.
  /* implicit */ MaxPoolFuncOptions(ExpandingArray<D> kernel_size)  // NOLINT
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  /* implicit */ MaxPoolFuncOptions(int64_t kernel_size)  // NOLINT
      : MaxPoolFuncOptions(ExpandingArray<D>(kernel_size)) {}
  /* implicit */ MaxPoolFuncOptions(std::initializer_list<int64_t> kernel_size)  // NOLINT
      : MaxPoolFuncOptions(ExpandingArray<D>(kernel_size)) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(bool, ceil_mode) = false;
};
using MaxPool1dFuncOptions = MaxPoolFuncOptions<1>;
using MaxPool2dFuncOptions = MaxPoolFuncOptions<2>;
using MaxPool3dFuncOptions = MaxPoolFuncOptions<3>;

// The *_with_indices forms give (output, indices): int64 indices into each
// flattened plane (L, H*W or D*H*W), as return_indices=True.
Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                   const MaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   const MaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input,
                                                   const MaxPool3dFuncOptions& options);

template <size_t D>
struct AvgPoolFuncOptions {
  /* implicit */ AvgPoolFuncOptions(ExpandingArray<D> kernel_size)  // NOLINT
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  /* implicit */ AvgPoolFuncOptions(int64_t kernel_size)  // NOLINT
      : AvgPoolFuncOptions(ExpandingArray<D>(kernel_size)) {}
  /* implicit */ AvgPoolFuncOptions(std::initializer_list<int64_t> kernel_size)  // NOLINT
      : AvgPoolFuncOptions(ExpandingArray<D>(kernel_size)) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(bool, ceil_mode) = false;
  EMBER_ARG(bool, count_include_pad) = true;
  // PyTorch's avg_pool1d has no divisor_override; ember's honours it.
  EMBER_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dFuncOptions = AvgPoolFuncOptions<1>;
using AvgPool2dFuncOptions = AvgPoolFuncOptions<2>;
using AvgPool3dFuncOptions = AvgPoolFuncOptions<3>;
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);

// The inverse of max pooling: each input value goes to its index (from
// max_pool*_with_indices) in an output of zeros. The output's spatial size
// is output_size when given (its last D entries; within a stride of the
// default), else (in - 1) * stride + kernel - 2 * padding.
template <size_t D>
struct MaxUnpoolFuncOptions {
  /* implicit */ MaxUnpoolFuncOptions(ExpandingArray<D> kernel_size)  // NOLINT
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  /* implicit */ MaxUnpoolFuncOptions(int64_t kernel_size)  // NOLINT
      : MaxUnpoolFuncOptions(ExpandingArray<D>(kernel_size)) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(std::optional<std::vector<int64_t>>, output_size) = std::nullopt;
};
using MaxUnpool1dFuncOptions = MaxUnpoolFuncOptions<1>;
using MaxUnpool2dFuncOptions = MaxUnpoolFuncOptions<2>;
using MaxUnpool3dFuncOptions = MaxUnpoolFuncOptions<3>;
Tensor max_unpool1d(const Tensor& input, const Tensor& indices,
                    const MaxUnpool1dFuncOptions& options);
Tensor max_unpool2d(const Tensor& input, const Tensor& indices,
                    const MaxUnpool2dFuncOptions& options);
Tensor max_unpool3d(const Tensor& input, const Tensor& indices,
                    const MaxUnpool3dFuncOptions& options);

// Power-average pooling: (sum over the window of x^p)^(1/p), as PyTorch's
// composite over avg_pool (a window whose sum is negative gives 0).
template <size_t D>
struct LPPoolFuncOptions {
  LPPoolFuncOptions(double norm_type, ExpandingArray<D> kernel_size)
      : norm_type_(norm_type), kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(double, norm_type);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(bool, ceil_mode) = false;
};
using LPPool1dFuncOptions = LPPoolFuncOptions<1>;
using LPPool2dFuncOptions = LPPoolFuncOptions<2>;
Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& options);
Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& options);
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options);

// Adaptive pooling: output window i of a dim of length L over an output of
// O spans [floor(i * L / O), ceil((i + 1) * L / O)).
template <size_t D>
struct AdaptivePoolFuncOptions {
  /* implicit */ AdaptivePoolFuncOptions(ExpandingArray<D> output_size)  // NOLINT
      : output_size_(output_size) {}
  /* implicit */ AdaptivePoolFuncOptions(int64_t output_size)  // NOLINT
      : AdaptivePoolFuncOptions(ExpandingArray<D>(output_size)) {}
  /* implicit */ AdaptivePoolFuncOptions(std::initializer_list<int64_t> output_size)  // NOLINT
      : AdaptivePoolFuncOptions(ExpandingArray<D>(output_size)) {}
  EMBER_ARG(ExpandingArray<D>, output_size);
};
using AdaptiveAvgPool1dFuncOptions = AdaptivePoolFuncOptions<1>;
using AdaptiveAvgPool2dFuncOptions = AdaptivePoolFuncOptions<2>;
using AdaptiveAvgPool3dFuncOptions = AdaptivePoolFuncOptions<3>;
using AdaptiveMaxPool1dFuncOptions = AdaptivePoolFuncOptions<1>;
using AdaptiveMaxPool2dFuncOptions = AdaptivePoolFuncOptions<2>;
using AdaptiveMaxPool3dFuncOptions = AdaptivePoolFuncOptions<3>;
Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options);
Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(
    const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(
    const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(
    const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options);

// Fractional max pooling (Graham, 2014): kernel_size windows at
// pseudo-random, increasing starts, one sequence per (sample, channel) and
// dim, drawn from `_random_samples` [N, C, D] in [0, 1) (PyTorch's
// generate_intervals, in the input's dtype, so results are PyTorch's bit for
// bit). Without `_random_samples` they are drawn as Python's
// F.fractional_max_pool2d draws them: rand({N, C, D}) of the input's dtype
// from the default generator. Exactly one of output_size and output_ratio
// (sizes as int(input size * ratio)).
//   F::fractional_max_pool2d(x, F::FractionalMaxPool2dFuncOptions(3).output_size({13, 12}));
template <size_t D>
struct FractionalMaxPoolFuncOptions {
  /* implicit */ FractionalMaxPoolFuncOptions(ExpandingArray<D> kernel_size)  // NOLINT
      : kernel_size_(kernel_size) {}
  /* implicit */ FractionalMaxPoolFuncOptions(int64_t kernel_size)  // NOLINT
      : kernel_size_(kernel_size) {}
  /* implicit */ FractionalMaxPoolFuncOptions(std::initializer_list<int64_t> kernel_size)  // NOLINT
      : kernel_size_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(std::optional<ExpandingArray<D>>, output_size) = std::nullopt;
  EMBER_ARG(std::optional<ExpandingArrayDouble<D>>, output_ratio) = std::nullopt;
  EMBER_ARG(Tensor, _random_samples);

 public:
  // `.output_size({4, 5})`, `.output_ratio({0.5, 0.75})`: a braced list
  // does not convert to std::optional on its own.
  FractionalMaxPoolFuncOptions& output_size(std::initializer_list<int64_t> v) {
    return output_size(ExpandingArray<D>(v));
  }
  FractionalMaxPoolFuncOptions& output_ratio(std::initializer_list<double> v) {
    return output_ratio(ExpandingArrayDouble<D>(v));
  }
};
using FractionalMaxPool2dFuncOptions = FractionalMaxPoolFuncOptions<2>;
using FractionalMaxPool3dFuncOptions = FractionalMaxPoolFuncOptions<3>;
Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& options);
Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& options);
// (output, indices into each H*W / D*H*W plane), as return_indices=True.
std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(
    const Tensor& input, const FractionalMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(
    const Tensor& input, const FractionalMaxPool3dFuncOptions& options);

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_POOLING_H_
