#ifndef EMBER_TENSOR_UNSAFE_VIEW_H_
#define EMBER_TENSOR_UNSAFE_VIEW_H_

#include "tensor/tensor.h"

namespace ember {
namespace detail {

// PyTorch's _unsafe_view: `t`, a fresh contiguous result no one else holds,
// seen with `sizes`; a node of its own (UnsafeViewBackward0), not a view of
// t. For composites that end as 1.13's do (matmul's folded batch, kron).
Tensor unsafe_view(const Tensor& t, IntArrayRef sizes);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_UNSAFE_VIEW_H_
