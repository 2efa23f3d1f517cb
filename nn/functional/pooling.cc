#include "nn/functional/pooling.h"

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

}  // namespace functional
}  // namespace nn
}  // namespace ember
