#ifndef EMBER_TENSOR_TRILINEAR_H_
#define EMBER_TENSOR_TRILINEAR_H_

// ATen 1.13's _trilinear, what bilinear is made of: the three inputs, each
// unsqueezed at its `expand` positions to the same rank, multiplied
// (broadcasting) and summed over `sumdim`, which leave the result:
//   _trilinear(x1 [B, I1], w [O, I1, I2], x2 [B, I2], {1, 3}, {0}, {1, 2}, {2, 3})
//       -> [B, O]: sum_ij x1[b, i] w[o, i, j] x2[b, j]
// One node (TrilinearBackward0), whose gradients are _trilinear again with
// the gradient in the place of the input. unroll_dim is 1.13's loop choice;
// ember contracts with einsum whatever its value. The result is
// contiguous.

#include <cstdint>

#include "tensor/array_ref.h"
#include "tensor/tensor.h"

namespace ember {

Tensor _trilinear(const Tensor& i1, const Tensor& i2, const Tensor& i3, IntArrayRef expand1,
                  IntArrayRef expand2, IntArrayRef expand3, IntArrayRef sumdim,
                  int64_t unroll_dim = 1);

}  // namespace ember

#endif  // EMBER_TENSOR_TRILINEAR_H_
