#include "nn/functional/aten.h"

#include <array>

#include "nn/functional/dropout.h"
#include "nn/functional/embedding.h"
#include "nn/functional/loss.h"
#include "nn/functional/options.h"
#include "nn/functional/pooling.h"
#include "tensor/error.h"

namespace ember {
namespace {

namespace F = nn::functional;

const char* const kCount[] = {"", "one", "two", "three"};

// ATen's one-int-or-D-ints argument as nn::functional's ExpandingArray.
template <size_t D>
ExpandingArray<D> expand(IntArrayRef v, const char* op, const char* arg) {
  EMBER_CHECK(v.size() == 1 || v.size() == D, op, ": ", arg,
              " must either be a single int, or a tuple of ", kCount[D], " ints");
  std::array<int64_t, D> a;
  for (size_t i = 0; i < D; ++i) a[i] = v[v.size() == 1 ? 0 : i];
  return ExpandingArray<D>(a);
}

template <size_t D>
F::MaxPoolFuncOptions<D> max_pool_options(IntArrayRef kernel_size, IntArrayRef stride,
                                          IntArrayRef padding, IntArrayRef dilation,
                                          bool ceil_mode, const char* op) {
  F::MaxPoolFuncOptions<D> o(expand<D>(kernel_size, op, "kernel_size"));
  if (!stride.empty()) o.stride(expand<D>(stride, op, "stride"));
  return o.padding(expand<D>(padding, op, "padding"))
      .dilation(expand<D>(dilation, op, "dilation"))
      .ceil_mode(ceil_mode);
}

template <size_t D>
F::AvgPoolFuncOptions<D> avg_pool_options(IntArrayRef kernel_size, IntArrayRef stride,
                                          IntArrayRef padding, bool ceil_mode,
                                          bool count_include_pad, const char* op) {
  F::AvgPoolFuncOptions<D> o(expand<D>(kernel_size, op, "kernel_size"));
  if (!stride.empty()) o.stride(expand<D>(stride, op, "stride"));
  return o.padding(expand<D>(padding, op, "padding"))
      .ceil_mode(ceil_mode)
      .count_include_pad(count_include_pad);
}

Reduction reduction_of(int64_t reduction) {
  EMBER_CHECK(reduction >= Reduction::None && reduction <= Reduction::Sum, reduction,
              " is not a valid value for reduction");
  return Reduction(reduction);
}

}  // namespace

Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return F::max_pool1d(input, max_pool_options<1>(kernel_size, stride, padding, dilation,
                                                   ceil_mode, "max_pool1d"));
}

Tensor max_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return F::max_pool3d(input, max_pool_options<3>(kernel_size, stride, padding, dilation,
                                                   ceil_mode, "max_pool3d"));
}

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  return F::max_pool1d_with_indices(
      input, max_pool_options<1>(kernel_size, stride, padding, dilation, ceil_mode,
                                 "max_pool1d_with_indices"));
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  return F::max_pool3d_with_indices(
      input, max_pool_options<3>(kernel_size, stride, padding, dilation, ceil_mode,
                                 "max_pool3d_with_indices"));
}

Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, bool ceil_mode, bool count_include_pad) {
  return F::avg_pool1d(input, avg_pool_options<1>(kernel_size, stride, padding, ceil_mode,
                                                   count_include_pad, "avg_pool1d"));
}

Tensor avg_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  return F::avg_pool3d(input, avg_pool_options<3>(kernel_size, stride, padding, ceil_mode,
                                                   count_include_pad, "avg_pool3d")
                                  .divisor_override(divisor_override));
}

Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size) {
  return F::adaptive_avg_pool1d(input,
                                expand<1>(output_size, "adaptive_avg_pool1d", "output_size"));
}

Tensor adaptive_avg_pool3d(const Tensor& input, IntArrayRef output_size) {
  return F::adaptive_avg_pool3d(input,
                                expand<3>(output_size, "adaptive_avg_pool3d", "output_size"));
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input, IntArrayRef output_size) {
  return F::adaptive_max_pool1d_with_indices(
      input, expand<1>(output_size, "adaptive_max_pool1d", "output_size"));
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, IntArrayRef output_size) {
  return F::adaptive_max_pool2d_with_indices(
      input, expand<2>(output_size, "adaptive_max_pool2d", "output_size"));
}

Tensor dropout(const Tensor& input, double p, bool train) {
  return F::dropout(input, F::DropoutFuncOptions().p(p).training(train));
}

Tensor one_hot(const Tensor& self, int64_t num_classes) { return F::one_hot(self, num_classes); }

Tensor cross_entropy_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                          int64_t reduction, int64_t ignore_index, double label_smoothing) {
  return F::cross_entropy(input, target,
                          F::CrossEntropyFuncOptions()
                              .weight(weight)
                              .reduction(reduction_of(reduction))
                              .ignore_index(ignore_index)
                              .label_smoothing(label_smoothing));
}

}  // namespace ember
