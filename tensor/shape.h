#ifndef EMBER_TENSOR_SHAPE_H_
#define EMBER_TENSOR_SHAPE_H_

// Shape and view ops as free functions (torch.cat, torch.stack, ...). The
// Tensor methods of the "shape and views" family are declared in tensor.h
// and defined beside these: views in shape.cc, joining and splitting in
// join.cc, ops that rearrange data into a new tensor in rearrange.cc.
//
// Note [Views]: a view is a new TensorImpl on the same Storage with its own
// sizes, strides and offset (quantization parameters copied), so writing
// through a view changes the base and both share one version counter.

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace ember {

// --- joining -----------------------------------------------------------------
// Inputs are promoted to their common dtype; 1-D tensors with no elements
// are skipped (PyTorch's legacy rule).
Tensor cat(TensorList tensors, int64_t dim = 0);
inline Tensor concat(TensorList tensors, int64_t dim = 0) { return cat(tensors, dim); }
Tensor stack(TensorList tensors, int64_t dim = 0);
Tensor hstack(TensorList tensors);
Tensor vstack(TensorList tensors);
// self as a view with at least 1, 2 or 3 dims: a 0-dim tensor becomes [1],
// [1, 1], [1, 1, 1]; a 1-D [n] becomes [1, n] or [1, n, 1]; a 2-D [m, n]
// becomes [m, n, 1] (the TensorList forms are in shape_more.h).
Tensor atleast_1d(const Tensor& self);
Tensor atleast_2d(const Tensor& self);
Tensor atleast_3d(const Tensor& self);

// --- splitting (the pieces are views) -----------------------------------------
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& self, int64_t dim = 0);

// --- views -------------------------------------------------------------------
Tensor squeeze(const Tensor& self);
Tensor squeeze(const Tensor& self, int64_t dim);
Tensor unsqueeze(const Tensor& self, int64_t dim);
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1);
Tensor t(const Tensor& self);
Tensor permute(const Tensor& self, IntArrayRef dims);
Tensor movedim(const Tensor& self, int64_t source, int64_t destination);
Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor reshape(const Tensor& self, IntArrayRef shape);
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& self, int64_t dim, int64_t index);
Tensor diagonal(const Tensor& self, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Tensor broadcast_to(const Tensor& self, IntArrayRef size);
// Expanded views of all inputs to their common broadcast shape.
std::vector<Tensor> broadcast_tensors(TensorList tensors);

// --- copies ------------------------------------------------------------------
Tensor flip(const Tensor& self, IntArrayRef dims);
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims = {});
Tensor tril(const Tensor& self, int64_t diagonal = 0);
Tensor triu(const Tensor& self, int64_t diagonal = 0);
Tensor diag(const Tensor& self, int64_t diagonal = 0);

namespace detail {
// Resolves a single -1 in `shape` for a tensor of `numel` elements, with
// PyTorch's errors.
DimVector infer_view_size(IntArrayRef shape, int64_t numel);
// PyTorch's computeStride: strides that let a tensor of (sizes, strides) be
// viewed as new_sizes without copying, or false when there are none.
bool compute_view_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef new_sizes,
                          DimVector* new_strides);
// A view of self's storage with the given geometry (Note [Views]).
Tensor make_view(const Tensor& self, IntArrayRef sizes, IntArrayRef strides,
                 int64_t storage_offset);
}  // namespace detail

}  // namespace ember

#endif  // EMBER_TENSOR_SHAPE_H_
