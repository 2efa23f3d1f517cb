#include "nn/functional/pooling.h"

#include "tensor/math.h"
#include "tensor/nn_ops.h"

namespace ember {
namespace nn {
namespace functional {
namespace {
IntArrayRef ref(const ExpandingArray<2>& a) { return IntArrayRef(a.data(), 2); }
}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   const MaxPool2dFuncOptions& o) {
  return ember::max_pool2d_with_indices(input, ref(o.kernel_size()), ref(o.stride()),
                                        ref(o.padding()), ref(o.dilation()), o.ceil_mode());
}

Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options) {
  return std::get<0>(max_pool2d_with_indices(input, options));
}

Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& o) {
  return ember::avg_pool2d(input, ref(o.kernel_size()), ref(o.stride()), ref(o.padding()),
                           o.ceil_mode(), o.count_include_pad(), o.divisor_override());
}

Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& o) {
  return ember::adaptive_avg_pool2d(input, ref(o.output_size()));
}

namespace {

// PyTorch's lp_pool: (sign(out) * relu(|out|) * window)^(1 / p) with out
// the average of input^p.
Tensor lp_from_average(const Tensor& out, double window, double norm_type) {
  return (sign(out) * out.abs().relu()).mul(window).pow(1.0 / norm_type);
}

}  // namespace

Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& o) {
  const Tensor out = avg_pool1d(input.pow(o.norm_type()), AvgPool1dFuncOptions(o.kernel_size())
                                                              .stride(o.stride())
                                                              .padding(0)
                                                              .ceil_mode(o.ceil_mode()));
  return lp_from_average(out, static_cast<double>(o.kernel_size()[0]), o.norm_type());
}

Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& o) {
  const Tensor out = avg_pool2d(input.pow(o.norm_type()), AvgPool2dFuncOptions(o.kernel_size())
                                                              .stride(o.stride())
                                                              .padding(0)
                                                              .ceil_mode(o.ceil_mode()));
  const auto& k = o.kernel_size();
  return lp_from_average(out, static_cast<double>(k[0] * k[1]), o.norm_type());
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
