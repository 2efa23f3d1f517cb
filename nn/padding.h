#ifndef EMBER_NN_PADDING_H_
#define EMBER_NN_PADDING_H_

// The padding layers over F::pad (libtorch's modules/padding.h):
// ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d, ZeroPad2d and
// ConstantPad1d/2d/3d. The padding is one int for every side, or
// (left, right[, top, bottom[, front, back]]) in the options:
//   nn::ReflectionPad2d pad(2);
//   nn::ZeroPad2d zero(nn::ZeroPad2dOptions({1, 0, 2, 1}));
//   nn::ConstantPad1d c(nn::ConstantPad1dOptions({1, 2}, 3.5));
// Printed as PyTorch prints them, with ConstantPad's value as an int when
// it is integral (ConstantPad1d(padding=(1, 2), value=0)), as Softplus's.

#include <cstddef>
#include <cstdint>
#include <string>

#include "nn/functional/options.h"
#include "nn/functional/padding.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

// The sizes of a D-dimensional padding layer.
template <size_t D>
struct PadOptions {
  /* implicit */ PadOptions(ExpandingArray<2 * D> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<2 * D>, padding);
};
using ReflectionPad1dOptions = PadOptions<1>;
using ReflectionPad2dOptions = PadOptions<2>;
using ReflectionPad3dOptions = PadOptions<3>;
using ReplicationPad1dOptions = PadOptions<1>;
using ReplicationPad2dOptions = PadOptions<2>;
using ReplicationPad3dOptions = PadOptions<3>;
using ZeroPad2dOptions = PadOptions<2>;

template <size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<2 * D> padding, double value)
      : padding_(padding), value_(value) {}
  EMBER_ARG(ExpandingArray<2 * D>, padding);
  EMBER_ARG(double, value);
};
using ConstantPad1dOptions = ConstantPadOptions<1>;
using ConstantPad2dOptions = ConstantPadOptions<2>;
using ConstantPad3dOptions = ConstantPadOptions<3>;

namespace detail {
// F::pad with the n sizes, `mode` and `value`.
Tensor pad_layer(const Tensor& input, const int64_t* sizes, size_t n, PadMode mode, double value);
// "(1, 1, 2, 0)"; with a value: "padding=(1, 2), value=3.5".
std::string pad_repr(const int64_t* sizes, size_t n);
std::string constant_pad_repr(const int64_t* sizes, size_t n, double value);
}  // namespace detail

// A layer padding with `Mode`, printed as its padding tuple.
template <size_t D, PadMode Mode>
class PadImpl : public Module {
 public:
  explicit PadImpl(int64_t padding) : PadImpl(PadOptions<D>(padding)) {}
  explicit PadImpl(const PadOptions<D>& options) : options(options) {}
  Tensor forward(const Tensor& input) {
    return detail::pad_layer(input, options.padding().data(), 2 * D, Mode, 0.0);
  }
  std::string extra_repr() const override {
    return detail::pad_repr(options.padding().data(), 2 * D);
  }

  PadOptions<D> options;
};

template <size_t D>
class ConstantPadImpl : public Module {
 public:
  ConstantPadImpl(int64_t padding, double value)
      : ConstantPadImpl(ConstantPadOptions<D>(padding, value)) {}
  explicit ConstantPadImpl(const ConstantPadOptions<D>& options) : options(options) {}
  Tensor forward(const Tensor& input) {
    return detail::pad_layer(input, options.padding().data(), 2 * D, kConstant, options.value());
  }
  std::string extra_repr() const override {
    return detail::constant_pad_repr(options.padding().data(), 2 * D, options.value());
  }

  ConstantPadOptions<D> options;
};

// Each layer a class of its own, so that it prints its own name.
#define EMBER_PAD_LAYER(Name, ...)        \
  class Name##Impl : public __VA_ARGS__ { \
    using Base = __VA_ARGS__;             \
                                          \
   public:                                \
    using Base::Base;                     \
  };                                      \
  EMBER_MODULE(Name)

EMBER_PAD_LAYER(ReflectionPad1d, PadImpl<1, kReflect>);
EMBER_PAD_LAYER(ReflectionPad2d, PadImpl<2, kReflect>);
EMBER_PAD_LAYER(ReflectionPad3d, PadImpl<3, kReflect>);
EMBER_PAD_LAYER(ReplicationPad1d, PadImpl<1, kReplicate>);
EMBER_PAD_LAYER(ReplicationPad2d, PadImpl<2, kReplicate>);
EMBER_PAD_LAYER(ReplicationPad3d, PadImpl<3, kReplicate>);
EMBER_PAD_LAYER(ZeroPad2d, PadImpl<2, kConstant>);
EMBER_PAD_LAYER(ConstantPad1d, ConstantPadImpl<1>);
EMBER_PAD_LAYER(ConstantPad2d, ConstantPadImpl<2>);
EMBER_PAD_LAYER(ConstantPad3d, ConstantPadImpl<3>);
#undef EMBER_PAD_LAYER

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_PADDING_H_
