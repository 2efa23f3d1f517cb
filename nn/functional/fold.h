#ifndef EMBER_NN_FUNCTIONAL_FOLD_H_
#define EMBER_NN_FUNCTIONAL_FOLD_H_

// F::unfold (im2col) and its adjoint F::fold (col2im), as PyTorch 1.13:
//   F::unfold(x, F::UnfoldFuncOptions({2, 3}).stride(2))   [N, C, H, W] -> [N, C*kh*kw, L]
//   F::fold(cols, F::FoldFuncOptions({4, 5}, {2, 3}))      [N, C*kh*kw, L] -> [N, C, 4, 5]
// Rows are ordered (c, ki, kj), blocks row-major; fold sums overlapping
// blocks. Unbatched inputs ([C, H, W] / [C*kh*kw, L]) work too. They are
// tensor/im2col.h's im2col and col2im (one node each, each the other's
// gradient).

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace functional {

struct UnfoldFuncOptions {
  /* implicit */ UnfoldFuncOptions(ExpandingArray<2> kernel_size)  // NOLINT
      : kernel_size_(kernel_size) {}
  /* implicit */ UnfoldFuncOptions(int64_t kernel_size)  // NOLINT
      : kernel_size_(kernel_size) {}
  /* implicit */ UnfoldFuncOptions(std::initializer_list<int64_t> kernel_size)  // NOLINT
      : kernel_size_(kernel_size) {}
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};

struct FoldFuncOptions {
  FoldFuncOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  EMBER_ARG(ExpandingArray<2>, output_size);
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options);
Tensor fold(const Tensor& input, const FoldFuncOptions& options);

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_FOLD_H_
