#include "nn/functional/fold.h"

#include "tensor/im2col.h"

namespace ember {
namespace nn {
namespace functional {
namespace {

IntArrayRef ref(const ExpandingArray<2>& a) { return IntArrayRef(a.data(), a.size()); }

}  // namespace

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& o) {
  return im2col(input, ref(o.kernel_size()), ref(o.dilation()), ref(o.padding()), ref(o.stride()));
}

Tensor fold(const Tensor& input, const FoldFuncOptions& o) {
  return col2im(input, ref(o.output_size()), ref(o.kernel_size()), ref(o.dilation()),
                ref(o.padding()), ref(o.stride()));
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
