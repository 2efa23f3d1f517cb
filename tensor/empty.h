#ifndef EMBER_TENSOR_EMPTY_H_
#define EMBER_TENSOR_EMPTY_H_

// Allocation of uninitialized tensors: the one place outputs are made.

#include "tensor/tensor.h"

namespace ember {

Tensor empty(IntArrayRef size, const TensorOptions& options = {});
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options = {});
// Same size, dtype and device as `t` (contiguous), unless options say otherwise.
Tensor empty_like(const Tensor& t, const TensorOptions& options = {});
// A 0-dim tensor holding a number; `wrapped` marks it as a number operand
// for type promotion (`x * 2`).
Tensor scalar_tensor(const Scalar& s, const TensorOptions& options = {});
Tensor wrapped_scalar_tensor(const Scalar& s);

namespace detail {
// Checks sizes are non-negative (PyTorch's message) and returns numel.
int64_t check_sizes(IntArrayRef size);
// Applies options.requires_grad() to a freshly made tensor.
void apply_requires_grad(Tensor& t, const TensorOptions& options);
// The options of a *_like factory: t's dtype and device unless `options`
// name others.
TensorOptions like_options(const Tensor& t, const TensorOptions& options);
}  // namespace detail

}  // namespace ember

#endif  // EMBER_TENSOR_EMPTY_H_
