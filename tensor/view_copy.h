#ifndef EMBER_TENSOR_VIEW_COPY_H_
#define EMBER_TENSOR_VIEW_COPY_H_

// libtorch 1.13's *_copy view ops (issue 22): the view, cloned. Each result
// is a fresh tensor laid out as clone() lays out the view (a dense view
// keeps its strides, as 1.13's: permute_copy of a matrix is column-major),
// never sharing self's storage, with the view's errors.
//
// Note [View copies]: 1.13 records each under a node of its own named after
// the view's, with a "_copy" suffix (PermuteBackward0_copy,
// SqueezeBackward1_copy...), whose gradient is the view's; so do these
// (autograd/derivatives/shape.cc shares the view's formulas). detach_copy is
// recorded without a derivative (1.13's torch::autograd::NotImplemented),
// and view_copy to another dtype is not differentiable, as 1.13's.
//
// Left out: the sparse (indices_copy, values_copy, crow_indices_copy...),
// complex (view_as_real_copy, view_as_complex_copy, _conj_copy,
// _neg_view_copy), forward-AD (_fw_primal_copy, _make_dual_copy) and private
// (_reshape_alias_copy, lift_fresh_copy) ones. narrow_copy is in
// shape_ops.h.

#include <cstdint>
#include <optional>
#include <vector>

#include "tensor/tensor.h"

namespace ember {

Tensor as_strided_copy(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                       std::optional<int64_t> storage_offset = std::nullopt);
Tensor diagonal_copy(const Tensor& self, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
// implicit is accepted for libtorch's signature and, as in 1.13, ignored.
Tensor expand_copy(const Tensor& self, IntArrayRef size, bool implicit = false);
Tensor permute_copy(const Tensor& self, IntArrayRef dims);
Tensor select_copy(const Tensor& self, int64_t dim, int64_t index);
Tensor slice_copy(const Tensor& self, int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
                  std::optional<int64_t> end = std::nullopt, int64_t step = 1);
std::vector<Tensor> split_copy(const Tensor& self, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split_with_sizes_copy(const Tensor& self, IntArrayRef split_sizes,
                                          int64_t dim = 0);
Tensor squeeze_copy(const Tensor& self);
Tensor squeeze_copy(const Tensor& self, int64_t dim);
Tensor t_copy(const Tensor& self);
Tensor transpose_copy(const Tensor& self, int64_t dim0, int64_t dim1);
std::vector<Tensor> unbind_copy(const Tensor& self, int64_t dim = 0);
Tensor unfold_copy(const Tensor& self, int64_t dimension, int64_t size, int64_t step);
Tensor unsqueeze_copy(const Tensor& self, int64_t dim);
// A size self cannot be viewed as is reshaped (copied) instead, as 1.13's
// view_copy does; a contiguous result then.
Tensor view_copy(const Tensor& self, IntArrayRef size);
Tensor view_copy(const Tensor& self, ScalarType dtype);
Tensor alias_copy(const Tensor& self);
Tensor detach_copy(const Tensor& self);

}  // namespace ember

#endif  // EMBER_TENSOR_VIEW_COPY_H_
