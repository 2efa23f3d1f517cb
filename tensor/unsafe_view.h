#ifndef EMBER_TENSOR_UNSAFE_VIEW_H_
#define EMBER_TENSOR_UNSAFE_VIEW_H_

#include "tensor/tensor.h"

namespace ember {
namespace detail {

// PyTorch's _unsafe_view: `t` seen with `sizes` (the strides a view of t
// gets), a node of its own (UnsafeViewBackward0), not a view of t: for a
// fresh result no one else holds, or an operand only the composite reads
// (matmul's folded batch, kron). Where 1.13 raises because no view exists,
// ember copies.
Tensor unsafe_view(const Tensor& t, IntArrayRef sizes);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_UNSAFE_VIEW_H_
