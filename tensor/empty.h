#ifndef EMBER_TENSOR_EMPTY_H_
#define EMBER_TENSOR_EMPTY_H_

// Allocation of uninitialized tensors: the one place outputs are made.

#include "tensor/tensor.h"

namespace ember {

Tensor empty(IntArrayRef size, const TensorOptions& options = {});
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options = {});
// Same size, dtype and device as `t`, unless options say otherwise; laid
// out as `t` (memory_format Preserve, the default: Note [Result layout] in
// tensor/layout.h) or in the memory format given here or in options.
Tensor empty_like(const Tensor& t, const TensorOptions& options = {},
                  std::optional<MemoryFormat> memory_format = std::nullopt);
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
// An uninitialized tensor of t's size with exactly `options` (dtype and
// device), in `memory_format`, Preserve keeping t's layout.
Tensor empty_in_layout_of(const Tensor& t, const TensorOptions& options,
                          MemoryFormat memory_format = MemoryFormat::Preserve);
}  // namespace detail

}  // namespace ember

#endif  // EMBER_TENSOR_EMPTY_H_
