// Derivatives of views, shape ops, joins and indexing (shape.cc, join.cc,
// indexing.cc, gather.cc, selection.cc, sort.cc).
//
// The backward of a view that picks part of its input (select, slice,
// diagonal, advanced indexing, index_select, masked_select) writes the
// gradient into zeros. Those writes are in place, so each is wrapped as a
// recorded op of its own here ("select_backward", ...), whose derivative is
// the forward view again: double backward works through them, as in PyTorch.
#include "autograd/derivatives.h"
#include "tensor/creation.h"
#include "tensor/indexing.h"
#include "tensor/math.h"
#include "tensor/selection.h"
#include "tensor/shape.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

Tensor select_backward(const Tensor& g, IntArrayRef sizes, int64_t dim, int64_t index) {
  detail::OpScope scope(g);
  Tensor r = zeros(sizes, g.dtype());
  r.select(dim, index).copy_(g);
  if (scope.active()) scope.record("select_backward", {g}, {r}, {Scalar(dim), Scalar(index)});
  return r;
}
Tensor slice_backward(const Tensor& g, IntArrayRef sizes, int64_t dim, int64_t start,
                      int64_t end, int64_t step) {
  detail::OpScope scope(g);
  Tensor r = zeros(sizes, g.dtype());
  r.slice(dim, start, end, step).copy_(g);
  if (scope.active()) {
    scope.record("slice_backward", {g}, {r},
                 {Scalar(dim), Scalar(start), Scalar(end), Scalar(step)});
  }
  return r;
}
Tensor diagonal_backward(const Tensor& g, IntArrayRef sizes, int64_t offset, int64_t d1,
                         int64_t d2) {
  detail::OpScope scope(g);
  Tensor r = zeros(sizes, g.dtype());
  r.diagonal(offset, d1, d2).copy_(g);
  if (scope.active()) {
    scope.record("diagonal_backward", {g}, {r}, {Scalar(offset), Scalar(d1), Scalar(d2)});
  }
  return r;
}
// inputs: g, then the index tensors (undefined: a whole dim).
Tensor index_backward(const Tensor& g, IntArrayRef sizes, const std::vector<Tensor>& indices) {
  detail::OpScope scope(g);
  Tensor r = zeros(sizes, g.dtype());
  index_put_(r, indices, g, /*accumulate=*/true);
  if (scope.active()) {
    std::vector<Tensor> ins{g};
    ins.insert(ins.end(), indices.begin(), indices.end());
    scope.record_list("index_backward", ins, {r});
  }
  return r;
}
Tensor index_select_backward(const Tensor& g, IntArrayRef sizes, int64_t dim,
                             const Tensor& index) {
  detail::OpScope scope(g);
  Tensor r = zeros(sizes, g.dtype());
  r.index_add_(dim, index, g);
  if (scope.active()) scope.record("index_select_backward", {g, index}, {r}, {Scalar(dim)});
  return r;
}
Tensor masked_select_backward(const Tensor& g, IntArrayRef sizes, const Tensor& mask) {
  detail::OpScope scope(g);
  Tensor r = zeros(sizes, g.dtype());
  r.masked_scatter_(mask.expand(sizes), g);
  if (scope.active()) scope.record("masked_select_backward", {g, mask}, {r});
  return r;
}

// --- views ---------------------------------------------------------------------
V reshape_bw(const C& c, const V& g) { return {g[0].reshape(c.input_sizes(0))}; }
V expand_bw(const C&, const V& g) { return {g[0]}; }  // the node's sum_to reduces it
V transpose_bw(const C& c, const V& g) { return {g[0].transpose(c.int_arg(0), c.int_arg(1))}; }
V permute_bw(const C& c, const V& g) {
  const DimVector& dims = c.dims(0);
  DimVector inv(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) inv[dims[i]] = static_cast<int64_t>(i);
  return {g[0].permute(inv)};
}
V select_bw(const C& c, const V& g) {
  return {select_backward(g[0], c.input_sizes(0), c.int_arg(0), c.int_arg(1))};
}
V slice_bw(const C& c, const V& g) {
  return {slice_backward(g[0], c.input_sizes(0), c.int_arg(0), c.int_arg(1), c.int_arg(2),
                         c.int_arg(3))};
}
V diagonal_bw(const C& c, const V& g) {
  return {diagonal_backward(g[0], c.input_sizes(0), c.int_arg(0), c.int_arg(1), c.int_arg(2))};
}
V cat_bw(const C& c, const V& g) {
  const int64_t dim = c.int_arg(0);
  V r(c.num_inputs());
  int64_t offset = 0;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    IntArrayRef s = c.input_sizes(i);
    if (s.size() == 1 && s[0] == 0 && g[0].dim() != 1) continue;  // legacy empty input
    const int64_t len = s[dim];
    if (c.needs(i)) r[i] = g[0].narrow(dim, offset, len);
    offset += len;
  }
  return r;
}

// --- backward helpers' own derivatives ----------------------------------------
V select_backward_bw(const C& c, const V& g) { return {g[0].select(c.int_arg(0), c.int_arg(1))}; }
V slice_backward_bw(const C& c, const V& g) {
  return {g[0].slice(c.int_arg(0), c.int_arg(1), c.int_arg(2), c.int_arg(3))};
}
V diagonal_backward_bw(const C& c, const V& g) {
  return {g[0].diagonal(c.int_arg(0), c.int_arg(1), c.int_arg(2))};
}
std::vector<Tensor> saved_indices(const C& c, size_t first) {
  std::vector<Tensor> idx;
  for (size_t i = first; i < c.num_inputs(); ++i) idx.push_back(c.input(i));
  return idx;
}
V index_backward_bw(const C& c, const V& g) { return {index(g[0], saved_indices(c, 1))}; }
V index_select_backward_bw(const C& c, const V& g) {
  return {g[0].index_select(c.int_arg(0), c.input(1)), Tensor()};
}
V masked_select_backward_bw(const C& c, const V& g) {
  return {g[0].masked_select(c.input(1)), Tensor()};
}

// --- indexing ---------------------------------------------------------------------
V index_bw(const C& c, const V& g) {
  V r(c.num_inputs());
  r[0] = index_backward(g[0], c.input_sizes(0), saved_indices(c, 1));
  return r;
}
V index_select_bw(const C& c, const V& g) {
  return {index_select_backward(g[0], c.input_sizes(0), c.int_arg(0), c.input(1)), Tensor()};
}
V masked_select_bw(const C& c, const V& g) {
  return {masked_select_backward(g[0], c.input_sizes(0), c.input(1)), Tensor()};
}
V gather_bw(const C& c, const V& g) {
  return {zeros(c.input_sizes(0), g[0].dtype()).scatter_add(c.int_arg(0), c.input(1), g[0]),
          Tensor()};
}
V scatter_bw(const C& c, const V& g) {
  const int64_t dim = c.int_arg(0);
  const Tensor& index = c.input(1);
  return {c.needs(0) ? g[0].scatter(dim, index, Scalar(0.0)) : Tensor(), Tensor(),
          c.needs(2) ? g[0].gather(dim, index) : Tensor()};
}
V scatter_value_bw(const C& c, const V& g) {
  return {g[0].scatter(c.int_arg(0), c.input(1), Scalar(0.0)), Tensor()};
}
V scatter_add_bw(const C& c, const V& g) {
  return {g[0], Tensor(), c.needs(2) ? g[0].gather(c.int_arg(0), c.input(1)) : Tensor()};
}
// sort / topk / kthvalue values: (values, indices) along dim (args: dim,
// keepdim).
V values_bw(const C& c, const V& g) {
  const int64_t dim = c.int_arg(0);
  const bool keepdim = c.bool_arg(1);
  DimVector dims{dim};
  Tensor gi = unsqueeze_to(g[0], dims, c.input_sizes(0), keepdim);
  Tensor idx = unsqueeze_to(c.output(1), dims, c.input_sizes(0), keepdim);
  if (c.input_sizes(0).empty()) return {gi.reshape({})};
  return {zeros(c.input_sizes(0), g[0].dtype()).scatter(dim, idx, gi)};
}

EMBER_REGISTER_DERIVATIVES(
    {"view", "ViewBackward0", 0, false, reshape_bw},
    {"reshape_alias", "UnsafeViewBackward0", 0, false, reshape_bw},
    {"squeeze", "SqueezeBackward0", 0, false, reshape_bw},
    {"squeeze_dim", "SqueezeBackward1", 0, false, reshape_bw},
    {"unsqueeze", "UnsqueezeBackward0", 0, false, reshape_bw},
    {"expand", "ExpandBackward0", 0, false, expand_bw},
    {"transpose", "TransposeBackward0", 0, false, transpose_bw},
    {"permute", "PermuteBackward0", 0, false, permute_bw},
    {"select", "SelectBackward0", 0, false, select_bw},
    {"slice", "SliceBackward0", 0, false, slice_bw},
    {"diagonal", "DiagonalBackward0", 0, false, diagonal_bw},
    {"cat", "CatBackward0", 0, false, cat_bw},
    {"select_backward", "SelectBackwardBackward0", 0, false, select_backward_bw},
    {"slice_backward", "SliceBackwardBackward0", 0, false, slice_backward_bw},
    {"diagonal_backward", "DiagonalBackwardBackward0", 0, false, diagonal_backward_bw},
    {"index_backward", "IndexPutBackward0", kSaveAll & ~kSaveSelf, false, index_backward_bw},
    {"index_select_backward", "IndexAddBackward0", kSaveOther, false, index_select_backward_bw},
    {"masked_select_backward", "MaskedScatterBackward0", kSaveOther, false,
     masked_select_backward_bw},
    {"index", "IndexBackward0", kSaveAll & ~kSaveSelf, false, index_bw},
    {"index_select", "IndexSelectBackward0", kSaveOther, false, index_select_bw},
    {"masked_select", "MaskedSelectBackward0", kSaveOther, false, masked_select_bw},
    {"gather", "GatherBackward0", kSaveOther, false, gather_bw},
    {"scatter", "ScatterBackward0", kSaveOther, false, scatter_bw},
    {"scatter_value", "ScatterBackward1", kSaveOther, false, scatter_value_bw},
    {"scatter_add", "ScatterAddBackward0", kSaveOther, false, scatter_add_bw},
    {"sort", "SortBackward0", 0, true, values_bw},
    {"topk", "TopkBackward0", 0, true, values_bw},
    {"kthvalue", "KthvalueBackward0", 0, true, values_bw});

}  // namespace
}  // namespace autograd
}  // namespace ember
