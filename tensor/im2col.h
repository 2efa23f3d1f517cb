#ifndef EMBER_TENSOR_IM2COL_H_
#define EMBER_TENSOR_IM2COL_H_

// ATen 1.13's im2col and col2im (nn::functional::unfold and fold call
// them), each recorded as one node (Im2ColBackward0, Col2ImBackward0), each
// the other's gradient:
//   im2col(x, {2, 3}, /*dilation=*/{1, 1}, /*padding=*/{0, 0}, /*stride=*/{2, 2})
//       [N, C, H, W] -> [N, C*kh*kw, L]
//   col2im(cols, /*output_size=*/{4, 5}, {2, 3}, {1, 1}, {0, 0}, {1, 1})
//       [N, C*kh*kw, L] -> [N, C, 4, 5], overlapping blocks summed
// Rows are ordered (c, ki, kj), blocks row-major. Unbatched inputs ([C, H, W]
// / [C*kh*kw, L]) work too. Each is one index_select / index_add over the
// padded planes, so any device runs it.

#include "tensor/array_ref.h"
#include "tensor/tensor.h"

namespace ember {

// kernel_size, dilation, padding, stride: two values each (height, width).
Tensor im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride);
Tensor col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size,
              IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride);

}  // namespace ember

#endif  // EMBER_TENSOR_IM2COL_H_
