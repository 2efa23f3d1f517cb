#ifndef EMBER_TENSOR_SHAPE_OPS_H_
#define EMBER_TENSOR_SHAPE_OPS_H_

// PyTorch 1.13 Tensor ops that ember lacked (issue 22's list of Tensor
// methods against tensor.h): shape and splitting ops, factories of self's
// dtype and device, small linear algebra and the *_scatter ops, with
// libtorch's spellings and overloads. Each is written with ember's other
// ops, so every device runs it; where PyTorch records a node of its own
// (TraceBackward0, AddmvBackward0, AddrBackward0, AddbmmBackward0,
// DiagEmbedBackward0, SelectScatterBackward0, SliceScatterBackward0,
// DiagonalScatterBackward0) the op is recorded under that name with its
// derivative in autograd/derivatives/shape_ops.cc. shape_ops_test.cc holds
// PyTorch's values (tools/golden/shape_ops.py printed them).
//
// Rot90Backward0 and UnsafeSplitBackward0 are recorded too.
//
// Deviation: the new_* factories take TensorOptions only (libtorch's (dtype, layout, device,
// pin_memory) overloads need a Layout type ember does not have).

#include <optional>
#include <vector>

#include "tensor/tensor.h"

namespace ember {

// --- shape ---------------------------------------------------------------------
// self repeated along each dim; dims shorter than self.dim() are padded with
// leading ones (torch.tile), longer ones add leading dims (as repeat).
Tensor tile(const Tensor& self, IntArrayRef dims);
// Each element (of the flattened self when dim is nullopt) repeated
// `repeats` times along dim; a tensor of repeats has one count per element
// along dim (or one count for all). output_size, when given, is the
// result's length along dim (no host sync for it on CUDA).
Tensor repeat_interleave(const Tensor& self, int64_t repeats,
                         std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats,
                         std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
// i repeated repeats[i] times, for a 1-D integer tensor of counts (in its
// dtype): repeat_interleave(tensor({1, 0, 3})) is {0, 2, 2, 2}.
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = std::nullopt);
// contiguous().view(-1): a view when self is contiguous.
Tensor ravel(const Tensor& self);
Tensor fliplr(const Tensor& self);
Tensor flipud(const Tensor& self);
// Rotated k quarter turns from dims[0] towards dims[1]; odd k give a
// transposed (column-major) result, as PyTorch's.
Tensor rot90(const Tensor& self, int64_t k = 1, IntArrayRef dims = {0, 1});
// sections pieces (the first size % sections one longer), or the pieces
// between indices (Python slice bounds: negative counts from the end,
// clamped), or either from a long tensor (0-dim: sections, 1-dim: indices).
// The pieces are views.
std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& tensor_indices_or_sections,
                                 int64_t dim = 0);
// tensor_split along dim 1 (dim 0 for 1-D), 0 and 2; equal sections only.
std::vector<Tensor> hsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices);
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices);
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices);
// gather with self and indices broadcast against each other except along
// dim; without dim, on the flattened self (which must be viewable so).
Tensor take_along_dim(const Tensor& self, const Tensor& indices,
                      std::optional<int64_t> dim = std::nullopt);
Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1);
Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1);
// movedim of several dims: source[i] goes to destination[i], the others
// keep their order.
Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination);
Tensor moveaxis(const Tensor& self, IntArrayRef source, IntArrayRef destination);
Tensor moveaxis(const Tensor& self, int64_t source, int64_t destination);
std::vector<Tensor> unsafe_chunk(const Tensor& self, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> unsafe_split(const Tensor& self, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> unsafe_split_with_sizes(const Tensor& self, IntArrayRef split_sizes,
                                            int64_t dim = 0);
// narrow, copied into a new contiguous tensor.
Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length);
// The indices of the nonzero elements, [count, dim] (nonzero).
Tensor argwhere(const Tensor& self);

// --- linear algebra --------------------------------------------------------------
// The sum of the main diagonal of a matrix (integers sum to long; floating
// dtypes other than float and double, and bool, are refused as PyTorch's).
Tensor trace(const Tensor& self);
// The sum over the last dims of self and other (self * other if either is
// 0-dim): [..a, k] x [..b, k] -> [..a, ..b]; tensordot over {-1}, {-1}.
Tensor inner(const Tensor& self, const Tensor& other);
// The sum over dims_self of self against dims_other of other: the result has
// self's other dims, then other's. A contracted dim of size 1 on one side
// broadcasts against the other side's (summed first, as 1.13 does; an
// integer operand then becomes int64 and the two dtypes must still match).
Tensor tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self,
                 IntArrayRef dims_other);
// beta * self + alpha * (mat @ vec); self (0-D or 1-D) broadcast, ignored
// when beta is 0. Integer products truncate beta and alpha (as baddbmm).
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
             const Scalar& alpha = 1);
// beta * self + alpha * outer(vec1, vec2); bool: (beta && self) ||
// (alpha && outer); integers refuse floating beta and alpha.
Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
            const Scalar& alpha = 1);
// beta * self + alpha * sum_b(batch1[b] @ batch2[b]); self of the batches'
// dtype, broadcast to the product's [n, p].
Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
              const Scalar& beta = 1, const Scalar& alpha = 1);
// self multiplied by itself n times (batches of square matrices; n = 0: the
// identity, n = 1: a copy; n < 0: the inverse's power).
Tensor matrix_power(const Tensor& self, int64_t n);
// A zero tensor whose (offset, dim1, dim2) diagonals are self's last dim.
Tensor diag_embed(const Tensor& self, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
// The flattened self on the offset diagonal of a square matrix.
Tensor diagflat(const Tensor& self, int64_t offset = 0);

// --- scatter into a copy ---------------------------------------------------------
// A copy of self (in self's dtype and layout) with the selected, sliced or
// diagonal part replaced by src (of exactly that part's size).
Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index);
Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim = 0,
                     std::optional<int64_t> start = std::nullopt,
                     std::optional<int64_t> end = std::nullopt, int64_t step = 1);
Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset = 0, int64_t dim1 = 0,
                        int64_t dim2 = 1);
// self's copy (self's layout kept) with its as_strided(size, stride,
// storage_offset) view overwritten by src; offsets count from the copy's
// first element. Differentiable for contiguous self only, as PyTorch's.
Tensor as_strided_scatter(const Tensor& self, const Tensor& src, IntArrayRef size,
                          IntArrayRef stride, std::optional<int64_t> storage_offset = std::nullopt);

}  // namespace ember

#endif  // EMBER_TENSOR_SHAPE_OPS_H_
