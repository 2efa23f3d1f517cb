#ifndef EMBER_NN_POOLING_H_
#define EMBER_NN_POOLING_H_

// The pooling layers over 1, 2 or 3 spatial dims (F::max_pool2d... in
// nn/functional/pooling.h):
//   nn::MaxPool2d pool(2);   // stride defaults to the kernel size
//   nn::AvgPool3d avg(nn::AvgPool3dOptions(3).stride(2).padding(1));
//   nn::AdaptiveMaxPool2d amax(nn::AdaptiveMaxPool2dOptions({7, 7}));
//   nn::FractionalMaxPool2d frac(nn::FractionalMaxPool2dOptions(3).output_ratio(0.5));
// The max poolings' forward_with_indices is PyTorch's return_indices=True.

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>

#include "nn/functional/pooling.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

template <size_t D>
using MaxPoolOptions = functional::MaxPoolFuncOptions<D>;
template <size_t D>
using AvgPoolOptions = functional::AvgPoolFuncOptions<D>;
template <size_t D>
using AdaptivePoolOptions = functional::AdaptivePoolFuncOptions<D>;
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;
using MaxPool3dOptions = MaxPoolOptions<3>;
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;
using AvgPool3dOptions = AvgPoolOptions<3>;
using AdaptiveAvgPool1dOptions = AdaptivePoolOptions<1>;
using AdaptiveAvgPool2dOptions = AdaptivePoolOptions<2>;
using AdaptiveAvgPool3dOptions = AdaptivePoolOptions<3>;
using AdaptiveMaxPool1dOptions = AdaptivePoolOptions<1>;
using AdaptiveMaxPool2dOptions = AdaptivePoolOptions<2>;
using AdaptiveMaxPool3dOptions = AdaptivePoolOptions<3>;

template <size_t D>
class MaxPoolImpl : public Module {
 public:
  explicit MaxPoolImpl(int64_t kernel_size)
      : MaxPoolImpl(MaxPoolOptions<D>(ExpandingArray<D>(kernel_size))) {}
  explicit MaxPoolImpl(const MaxPoolOptions<D>& options) : options(options) {}
  Tensor forward(const Tensor& input);
  // (output, indices), as return_indices=True.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  std::string extra_repr() const override;
  MaxPoolOptions<D> options;
};

template <size_t D>
class AvgPoolImpl : public Module {
 public:
  explicit AvgPoolImpl(int64_t kernel_size)
      : AvgPoolImpl(AvgPoolOptions<D>(ExpandingArray<D>(kernel_size))) {}
  explicit AvgPoolImpl(const AvgPoolOptions<D>& options) : options(options) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  AvgPoolOptions<D> options;
};

template <size_t D>
class AdaptiveAvgPoolImpl : public Module {
 public:
  explicit AdaptiveAvgPoolImpl(int64_t output_size)
      : AdaptiveAvgPoolImpl(AdaptivePoolOptions<D>(ExpandingArray<D>(output_size))) {}
  explicit AdaptiveAvgPoolImpl(const AdaptivePoolOptions<D>& options) : options(options) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  AdaptivePoolOptions<D> options;
};

template <size_t D>
class AdaptiveMaxPoolImpl : public Module {
 public:
  explicit AdaptiveMaxPoolImpl(int64_t output_size)
      : AdaptiveMaxPoolImpl(AdaptivePoolOptions<D>(ExpandingArray<D>(output_size))) {}
  explicit AdaptiveMaxPoolImpl(const AdaptivePoolOptions<D>& options) : options(options) {}
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  std::string extra_repr() const override;
  AdaptivePoolOptions<D> options;
};

template <size_t D>
using FractionalMaxPoolOptions = functional::FractionalMaxPoolFuncOptions<D>;
using FractionalMaxPool2dOptions = FractionalMaxPoolOptions<2>;
using FractionalMaxPool3dOptions = FractionalMaxPoolOptions<3>;

// Python's FractionalMaxPool2d/3d: the options' checks at construction
// (ValueError), a `_random_samples` buffer when the options hold samples
// (then every forward uses them), else samples drawn at each forward.
template <size_t D>
class FractionalMaxPoolImpl : public Module {
 public:
  explicit FractionalMaxPoolImpl(const FractionalMaxPoolOptions<D>& options);
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  FractionalMaxPoolOptions<D> options;
  Tensor _random_samples;
};

template <size_t D>
struct MaxUnpoolOptions {
  /* implicit */ MaxUnpoolOptions(ExpandingArray<D> kernel_size)  // NOLINT
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  /* implicit */ MaxUnpoolOptions(int64_t kernel_size)  // NOLINT
      : MaxUnpoolOptions(ExpandingArray<D>(kernel_size)) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
};
using MaxUnpool1dOptions = MaxUnpoolOptions<1>;
using MaxUnpool2dOptions = MaxUnpoolOptions<2>;
using MaxUnpool3dOptions = MaxUnpoolOptions<3>;

template <size_t D>
class MaxUnpoolImpl : public Module {
 public:
  explicit MaxUnpoolImpl(const MaxUnpoolOptions<D>& options) : options(options) {}
  Tensor forward(const Tensor& input, const Tensor& indices,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
  std::string extra_repr() const override;
  MaxUnpoolOptions<D> options;
};

template <size_t D>
using LPPoolOptions = functional::LPPoolFuncOptions<D>;
using LPPool1dOptions = LPPoolOptions<1>;
using LPPool2dOptions = LPPoolOptions<2>;

template <size_t D>
class LPPoolImpl : public Module {
 public:
  LPPoolImpl(double norm_type, int64_t kernel_size)
      : LPPoolImpl(LPPoolOptions<D>(norm_type, ExpandingArray<D>(kernel_size))) {}
  explicit LPPoolImpl(const LPPoolOptions<D>& options) : options(options) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  LPPoolOptions<D> options;
};

// The named layers (their class names are what the printed tree shows).
#define EMBER_POOL_LAYER(Name, Base, D) \
  class Name##Impl : public Base<D> {   \
   public:                              \
    using Base<D>::Base;                \
  };                                    \
  EMBER_MODULE(Name)
EMBER_POOL_LAYER(MaxPool1d, MaxPoolImpl, 1);
EMBER_POOL_LAYER(MaxPool2d, MaxPoolImpl, 2);
EMBER_POOL_LAYER(MaxPool3d, MaxPoolImpl, 3);
EMBER_POOL_LAYER(AvgPool1d, AvgPoolImpl, 1);
EMBER_POOL_LAYER(AvgPool2d, AvgPoolImpl, 2);
EMBER_POOL_LAYER(AvgPool3d, AvgPoolImpl, 3);
EMBER_POOL_LAYER(MaxUnpool1d, MaxUnpoolImpl, 1);
EMBER_POOL_LAYER(MaxUnpool2d, MaxUnpoolImpl, 2);
EMBER_POOL_LAYER(MaxUnpool3d, MaxUnpoolImpl, 3);
EMBER_POOL_LAYER(LPPool1d, LPPoolImpl, 1);
EMBER_POOL_LAYER(LPPool2d, LPPoolImpl, 2);
EMBER_POOL_LAYER(AdaptiveAvgPool1d, AdaptiveAvgPoolImpl, 1);
EMBER_POOL_LAYER(AdaptiveAvgPool2d, AdaptiveAvgPoolImpl, 2);
EMBER_POOL_LAYER(AdaptiveAvgPool3d, AdaptiveAvgPoolImpl, 3);
EMBER_POOL_LAYER(AdaptiveMaxPool1d, AdaptiveMaxPoolImpl, 1);
EMBER_POOL_LAYER(AdaptiveMaxPool2d, AdaptiveMaxPoolImpl, 2);
EMBER_POOL_LAYER(AdaptiveMaxPool3d, AdaptiveMaxPoolImpl, 3);
EMBER_POOL_LAYER(FractionalMaxPool2d, FractionalMaxPoolImpl, 2);
EMBER_POOL_LAYER(FractionalMaxPool3d, FractionalMaxPoolImpl, 3);
#undef EMBER_POOL_LAYER

extern template class MaxPoolImpl<1>;
extern template class MaxPoolImpl<2>;
extern template class MaxPoolImpl<3>;
extern template class AvgPoolImpl<1>;
extern template class AvgPoolImpl<2>;
extern template class AvgPoolImpl<3>;
extern template class AdaptiveAvgPoolImpl<1>;
extern template class AdaptiveAvgPoolImpl<2>;
extern template class AdaptiveAvgPoolImpl<3>;
extern template class AdaptiveMaxPoolImpl<1>;
extern template class AdaptiveMaxPoolImpl<2>;
extern template class AdaptiveMaxPoolImpl<3>;
extern template class FractionalMaxPoolImpl<2>;
extern template class FractionalMaxPoolImpl<3>;

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_POOLING_H_
