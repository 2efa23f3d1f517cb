// Derivatives of the shape_ops.h ops that PyTorch records as nodes of their
// own (tensor/shape_ops.cc). Each formula is written with public ops, so
// double backward records too; broadcasting of self is undone by the node.
#include "autograd/derivatives.h"
#include "tensor/creation.h"
#include "tensor/linalg.h"
#include "tensor/shape.h"
#include "tensor/shape_ops.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// t * s, or t itself when s is 1 (PyTorch's maybe_multiply).
Tensor maybe_multiply(const Tensor& t, const Scalar& s) { return s.toDouble() == 1.0 ? t : t * s; }

V trace_bw(const C& c, const V& g) {
  const IntArrayRef s = c.input_sizes(0);
  return {eye(s[0], s[1], g[0].options()) * g[0]};
}

// inputs (self, mat, vec), args (beta, alpha)
V addmv_bw(const C& c, const V& g) {
  const Scalar beta = c.scalar(0), alpha = c.scalar(1);
  return {c.needs(0) ? maybe_multiply(g[0], beta) : Tensor(),
          c.needs(1) ? maybe_multiply(outer(g[0], c.input(2)), alpha) : Tensor(),
          c.needs(2) ? maybe_multiply(c.input(1).t().mv(g[0]), alpha) : Tensor()};
}

// inputs (self, vec1, vec2), args (beta, alpha)
V addr_bw(const C& c, const V& g) {
  const Scalar beta = c.scalar(0), alpha = c.scalar(1);
  return {c.needs(0) ? maybe_multiply(g[0], beta) : Tensor(),
          c.needs(1) ? maybe_multiply(g[0].mv(c.input(2)), alpha) : Tensor(),
          c.needs(2) ? maybe_multiply(g[0].t().mv(c.input(1)), alpha) : Tensor()};
}

// inputs (self, batch1, batch2), args (beta, alpha): every batch sees the
// same gradient.
V addbmm_bw(const C& c, const V& g) {
  const Scalar beta = c.scalar(0), alpha = c.scalar(1);
  const Tensor& b1 = c.input(1);
  const Tensor& b2 = c.input(2);
  const Tensor gb = g[0].unsqueeze(0).expand({b1.size(0), g[0].size(0), g[0].size(1)});
  return {c.needs(0) ? maybe_multiply(g[0], beta) : Tensor(),
          c.needs(1) ? maybe_multiply(gb.bmm(b2.transpose(1, 2)), alpha) : Tensor(),
          c.needs(2) ? maybe_multiply(b1.transpose(1, 2).bmm(gb), alpha) : Tensor()};
}

// args (k, dims): turned back.
V rot90_bw(const C& c, const V& g) { return {g[0].rot90(-c.int_arg(0), c.dims(1))}; }

// One node for all the pieces (args: dim); the node gives zeros for pieces
// whose gradient nobody computed.
V unsafe_split_bw(const C& c, const V& g) { return {cat(g, c.int_arg(0))}; }

// args (offset, dim1, dim2) in the result's dims.
V diag_embed_bw(const C& c, const V& g) {
  return {g[0].diagonal(c.int_arg(0), c.int_arg(1), c.int_arg(2))};
}

// inputs (self, src); the gradient of self is g with src's part zeroed.
V select_scatter_bw(const C& c, const V& g) {
  const int64_t dim = c.int_arg(0), index = c.int_arg(1);
  return {c.needs(0) ? g[0].select_scatter(zeros(c.input_sizes(1), g[0].options()), dim, index)
                     : Tensor(),
          c.needs(1) ? g[0].select(dim, index) : Tensor()};
}
V slice_scatter_bw(const C& c, const V& g) {
  const int64_t dim = c.int_arg(0), start = c.int_arg(1), end = c.int_arg(2), step = c.int_arg(3);
  return {c.needs(0)
              ? g[0].slice_scatter(zeros(c.input_sizes(1), g[0].options()), dim, start, end, step)
              : Tensor(),
          c.needs(1) ? g[0].slice(dim, start, end, step) : Tensor()};
}
// args (size, stride, storage_offset or -1); self was contiguous.
V as_strided_scatter_bw(const C& c, const V& g) {
  const DimVector& size = c.dims(0);
  const DimVector& stride = c.dims(1);
  const int64_t o = c.int_arg(2);
  const std::optional<int64_t> offset = o < 0 ? std::nullopt : std::optional<int64_t>(o);
  const Tensor grad = g[0].contiguous();
  return {c.needs(0) ? grad.as_strided_scatter(zeros(c.input_sizes(1), grad.options()), size,
                                               stride, offset)
                     : Tensor(),
          c.needs(1) ? grad.as_strided(size, stride, offset) : Tensor()};
}
V diagonal_scatter_bw(const C& c, const V& g) {
  const int64_t offset = c.int_arg(0), d1 = c.int_arg(1), d2 = c.int_arg(2);
  return {c.needs(0)
              ? g[0].diagonal_scatter(zeros(c.input_sizes(1), g[0].options()), offset, d1, d2)
              : Tensor(),
          c.needs(1) ? g[0].diagonal(offset, d1, d2) : Tensor()};
}

EMBER_REGISTER_DERIVATIVES(
    {"trace", "TraceBackward0", 0, false, trace_bw},
    {"addmv", "AddmvBackward0", kSaveOther | kSaveThird, false, addmv_bw},
    {"addr", "AddrBackward0", kSaveOther | kSaveThird, false, addr_bw},
    {"addbmm", "AddbmmBackward0", kSaveOther | kSaveThird, false, addbmm_bw},
    {"rot90", "Rot90Backward0", 0, false, rot90_bw},
    {"unsafe_split", "UnsafeSplitBackward0", 0, false, unsafe_split_bw},
    {"unsafe_split_with_sizes", "UnsafeSplitWithSizesBackward0", 0, false, unsafe_split_bw},
    {"as_strided_scatter", "AsStridedScatterBackward0", 0, false, as_strided_scatter_bw},
    {"diag_embed", "DiagEmbedBackward0", 0, false, diag_embed_bw},
    {"select_scatter", "SelectScatterBackward0", 0, false, select_scatter_bw},
    {"slice_scatter", "SliceScatterBackward0", 0, false, slice_scatter_bw},
    {"diagonal_scatter", "DiagonalScatterBackward0", 0, false, diagonal_scatter_bw});

}  // namespace
}  // namespace autograd
}  // namespace ember
