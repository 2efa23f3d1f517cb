// Derivatives of views, shape ops, joins and indexing (shape.cc, join.cc,
// indexing.cc, gather.cc, selection.cc, sort.cc, rearrange.cc).
//
// The backward of a view that picks part of its input (select, slice,
// diagonal, advanced indexing, index_select, masked_select) writes the
// gradient into zeros. Those writes are in place, so each is wrapped as a
// recorded op of its own here ("select_backward", ...), whose derivative is
// the forward view again: double backward works through them, as in PyTorch.
#include <algorithm>

#include "autograd/derivatives.h"
#include "tensor/creation.h"
#include "tensor/indexing.h"
#include "tensor/iterator.h"
#include "tensor/math.h"
#include "tensor/pixel_shuffle.h"
#include "tensor/record_function.h"
#include "tensor/selection.h"
#include "tensor/shape.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

Tensor select_backward(const Tensor& g, IntArrayRef sizes, int64_t dim, int64_t index) {
  profiler::RecordFunction prof_range("select_backward", profiler::RangeKind::kOp, g);
  detail::OpScope scope(g);
  Tensor r = zeros(sizes, g.options());
  r.select(dim, index).copy_(g);
  if (scope.active()) scope.record("select_backward", {g}, {r}, {Scalar(dim), Scalar(index)});
  return r;
}
Tensor slice_backward(const Tensor& g, IntArrayRef sizes, int64_t dim, int64_t start,
                      int64_t end, int64_t step) {
  profiler::RecordFunction prof_range("slice_backward", profiler::RangeKind::kOp, g);
  detail::OpScope scope(g);
  Tensor r = zeros(sizes, g.options());
  r.slice(dim, start, end, step).copy_(g);
  if (scope.active()) {
    scope.record("slice_backward", {g}, {r},
                 {Scalar(dim), Scalar(start), Scalar(end), Scalar(step)});
  }
  return r;
}
Tensor diagonal_backward(const Tensor& g, IntArrayRef sizes, int64_t offset, int64_t d1,
                         int64_t d2) {
  profiler::RecordFunction prof_range("diagonal_backward", profiler::RangeKind::kOp, g);
  detail::OpScope scope(g);
  Tensor r = zeros(sizes, g.options());
  r.diagonal(offset, d1, d2).copy_(g);
  if (scope.active()) {
    scope.record("diagonal_backward", {g}, {r}, {Scalar(offset), Scalar(d1), Scalar(d2)});
  }
  return r;
}
// inputs: g, then the index tensors (undefined: a whole dim).
Tensor index_backward(const Tensor& g, IntArrayRef sizes, const std::vector<Tensor>& indices) {
  profiler::RecordFunction prof_range("index_backward", profiler::RangeKind::kOp, g);
  detail::OpScope scope(g);
  Tensor r = zeros(sizes, g.options());
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
  profiler::RecordFunction prof_range("index_select_backward", profiler::RangeKind::kOp, g);
  detail::OpScope scope(g);
  Tensor r = zeros(sizes, g.options());
  r.index_add_(dim, index, g);
  if (scope.active()) scope.record("index_select_backward", {g, index}, {r}, {Scalar(dim)});
  return r;
}
Tensor masked_select_backward(const Tensor& g, IntArrayRef sizes, const Tensor& mask) {
  profiler::RecordFunction prof_range("masked_select_backward", profiler::RangeKind::kOp, g);
  detail::OpScope scope(g);
  Tensor r = zeros(sizes, g.options());
  r.masked_scatter_(mask.expand(sizes), g);
  if (scope.active()) scope.record("masked_select_backward", {g, mask}, {r});
  return r;
}

// The gradient of an op that reads input positions `positions` (a long
// tensor shaped like g) out of a flat buffer of n elements: each element of
// g added at its position (repeats accumulate). Recorded through
// index_put_, so it is differentiable again.
Tensor accumulate_at(const Tensor& g, const Tensor& positions, int64_t n) {
  Tensor r = zeros({n}, g.options());
  index_put_(r, {positions.reshape({-1})}, g.reshape({-1}), /*accumulate=*/true);
  return r;
}

// --- views ---------------------------------------------------------------------
V reshape_bw(const C& c, const V& g) { return {g[0].reshape(c.input_sizes(0))}; }
V expand_bw(const C&, const V& g) { return {g[0]}; }  // the node's sum_to reduces it
V transpose_bw(const C& c, const V& g) { return {g[0].transpose(c.int_arg(0), c.int_arg(1))}; }
V permute_bw(const C& c, const V& g) {
  const DimVector& dims = c.dims(0);
  const int64_t n = static_cast<int64_t>(dims.size());
  DimVector inv(dims.size());
  // dims as given: permute({-1, 0}) is recorded with its -1.
  for (int64_t i = 0; i < n; ++i) inv[dims[i] < 0 ? dims[i] + n : dims[i]] = i;
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

// split / unbind: one node for all the pieces (args: dim); the node gives
// zeros for pieces whose gradient nobody computed.
V split_bw(const C& c, const V& g) { return {cat(g, c.int_arg(0))}; }
V unbind_bw(const C& c, const V& g) { return {stack(g, c.int_arg(0))}; }
V stack_bw(const C& c, const V& g) {
  const int64_t dim = c.int_arg(0);
  V r(c.num_inputs());
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    if (c.needs(i)) r[i] = g[0].select(dim, static_cast<int64_t>(i));
  }
  return r;
}
// as_strided (args: size, stride, offset, then the input's strides and
// offset): through storage positions, as PyTorch's as_strided_backward.
V as_strided_bw(const C& c, const V& g) {
  const DimVector& size = c.dims(0);
  const DimVector& stride = c.dims(1);
  const int64_t offset = c.int_arg(2);
  const DimVector& in_strides = c.dims(3);
  const int64_t in_offset = c.int_arg(4);
  IntArrayRef in_sizes = c.input_sizes(0);
  auto last = [](IntArrayRef sz, IntArrayRef st, int64_t off) {
    int64_t e = off;
    for (size_t i = 0; i < sz.size(); ++i) {
      if (sz[i] == 0) return int64_t{0};
      e += (sz[i] - 1) * st[i];
    }
    return e + 1;
  };
  const int64_t extent =
      std::max(last(size, stride, offset), last(in_sizes, in_strides, in_offset));
  const TensorOptions longs = TensorOptions(kLong).device(g[0].device());
  Tensor pos = arange(extent, longs);
  Tensor buf = accumulate_at(g[0], pos.as_strided(size, stride, offset), extent);
  Tensor in_pos = pos.as_strided(in_sizes, in_strides, in_offset);
  // An input whose elements share storage (an expanded tensor) splits each
  // position's gradient among them, as PyTorch does.
  Tensor count = zeros({extent}, longs);
  index_put_(count, {in_pos.reshape({-1})}, ones({in_pos.numel()}, longs), /*accumulate=*/true);
  if (extent > 0 && count.max().item<int64_t>() > 1) buf = buf / count.clamp_min(1);
  return {index(buf, {in_pos})};
}
// unfold (args: dim, size, step): windows overlap, so positions accumulate.
V unfold_bw(const C& c, const V& g) {
  IntArrayRef in_sizes = c.input_sizes(0);
  int64_t n = 1;
  for (int64_t s : in_sizes) n *= s;
  Tensor pos = arange(n, TensorOptions(kLong).device(g[0].device())).view(in_sizes).unfold(c.int_arg(0), c.int_arg(1), c.int_arg(2));
  return {accumulate_at(g[0], pos, n).view(in_sizes)};
}
V flip_bw(const C& c, const V& g) { return {g[0].flip(c.dims(0))}; }
V roll_bw(const C& c, const V& g) {
  DimVector back = c.dims(0);
  for (int64_t& s : back) s = -s;
  return {g[0].roll(back, c.dims(1))};
}
// repeat: the copies of each element summed, from g viewed as
// [r0, s0, r1, s1, ...] (the node's sum_to drops the new leading dims).
V repeat_bw(const C& c, const V& g) {
  const DimVector& repeats = c.dims(0);
  IntArrayRef in_sizes = c.input_sizes(0);
  const size_t num_new = repeats.size() - in_sizes.size();
  DimVector split, sum_dims;
  for (size_t i = 0; i < repeats.size(); ++i) {
    const int64_t s = i < num_new ? 1 : in_sizes[i - num_new];
    sum_dims.push_back(static_cast<int64_t>(split.size()));
    split.push_back(repeats[i]);
    split.push_back(s);
  }
  if (sum_dims.empty()) return {g[0]};
  return {g[0].reshape(split).sum(sum_dims)};
}
V tril_bw(const C& c, const V& g) { return {g[0].tril(c.int_arg(0))}; }
V triu_bw(const C& c, const V& g) { return {g[0].triu(c.int_arg(0))}; }
V diag_bw(const C& c, const V& g) {
  const int64_t k = c.int_arg(0);
  if (c.input_sizes(0).size() == 1) return {g[0].diagonal(k)};
  return {diagonal_backward(g[0], c.input_sizes(0), k, 0, 1)};
}
V take_bw(const C& c, const V& g) {
  IntArrayRef in_sizes = c.input_sizes(0);
  int64_t n = 1;
  for (int64_t s : in_sizes) n *= s;
  if (n == 0) return {zeros(in_sizes, g[0].options()), Tensor()};
  // Negative indices count from the end, as take reads them (take checked
  // them against [-n, n); remainder's int64 division took 0.5 ms for 65536).
  const Tensor& raw = c.input(1);
  Tensor idx = where(raw < 0, raw + n, raw);
  return {accumulate_at(g[0], idx, n).reshape(in_sizes), Tensor()};
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
// A mask larger than self broadcasts self: the gradient is scattered over
// the broadcast shape and summed back to self's by the node (1.13's
// masked_select_backward on self.expand(infer_size(self, mask))).
V masked_select_bw(const C& c, const V& g) {
  const Tensor& mask = c.input(1);
  const DimVector shape = infer_size(c.input_sizes(0), mask.sizes());
  return {masked_select_backward(g[0], shape, mask), Tensor()};  // the node sums it to self
}
V gather_bw(const C& c, const V& g) {
  return {zeros(c.input_sizes(0), g[0].options()).scatter_add(c.int_arg(0), c.input(1), g[0]),
          Tensor()};
}
// The gradient of scatter's src: src elements beyond the index's extent
// (the index may be smaller than src in any dim) were not read.
Tensor src_grad(const C& c, const Tensor& g) {
  const int64_t dim = c.int_arg(0);
  Tensor r = g.gather(dim, c.input(1));
  IntArrayRef src_sizes = c.input_sizes(2);
  if (r.dim() == 0 || r.sizes() == src_sizes) return r;
  DimVector sizes(r.sizes().begin(), r.sizes().end());
  for (int64_t d = 0; d < r.dim(); ++d) {
    if (sizes[d] == src_sizes[d]) continue;
    const int64_t n = sizes[d];
    sizes[d] = src_sizes[d];
    r = slice_backward(r, sizes, d, 0, n, 1);
  }
  return r;
}
V scatter_bw(const C& c, const V& g) {
  const int64_t dim = c.int_arg(0);
  const Tensor& index = c.input(1);
  return {c.needs(0) ? g[0].scatter(dim, index, Scalar(0.0)) : Tensor(), Tensor(),
          c.needs(2) ? src_grad(c, g[0]) : Tensor()};
}
V scatter_value_bw(const C& c, const V& g) {
  return {g[0].scatter(c.int_arg(0), c.input(1), Scalar(0.0)), Tensor()};
}
V scatter_add_bw(const C& c, const V& g) {
  return {g[0], Tensor(), c.needs(2) ? src_grad(c, g[0]) : Tensor()};
}
// index_put_ (inputs: self, values, indices...; args: accumulate).
V index_put_bw(const C& c, const V& g) {
  std::vector<Tensor> idx = saved_indices(c, 2);
  V r(c.num_inputs());
  if (c.needs(0)) {
    if (c.bool_arg(0)) {
      r[0] = g[0];
    } else {
      r[0] = g[0].clone();
      index_put_(r[0], idx, zeros({}, g[0].options()));
    }
  }
  if (c.needs(1)) r[1] = index(g[0], idx);
  return r;
}
// index_add_ (inputs: self, index, source; args: dim, alpha).
V index_add_bw(const C& c, const V& g) {
  return {g[0], Tensor(),
          c.needs(2) ? g[0].index_select(c.int_arg(0), c.input(1)) * c.scalar(1) : Tensor()};
}
V index_fill_bw(const C& c, const V& g) {
  Tensor r = g[0].clone();
  r.index_fill_(c.int_arg(0), c.input(1), 0);
  return {r, Tensor()};
}
V index_copy_bw(const C& c, const V& g) {
  const int64_t dim = c.int_arg(0);
  V r(3);
  if (c.needs(0)) {
    r[0] = g[0].clone();
    r[0].index_fill_(dim, c.input(1), 0);
  }
  if (c.needs(2)) r[2] = g[0].index_select(dim, c.input(1));
  return r;
}
// masked_scatter_ (inputs: self, mask, source): source's first elements
// went to the masked places, the rest were unused.
V masked_scatter_bw(const C& c, const V& g) {
  const Tensor& mask = c.input(1);
  V r(3);
  if (c.needs(0)) r[0] = g[0].masked_fill(mask, 0);
  if (c.needs(2)) {
    IntArrayRef src_sizes = c.input_sizes(2);
    int64_t n = 1;
    for (int64_t s : src_sizes) n *= s;
    Tensor used = g[0].masked_select(mask);
    const int64_t pad = n - used.numel();
    if (pad > 0) used = cat({used, zeros({pad}, used.options())}, 0);
    r[2] = used.reshape(src_sizes);
  }
  return r;
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
  return {zeros(c.input_sizes(0), g[0].options()).scatter(dim, idx, gi)};
}

EMBER_REGISTER_DERIVATIVES(
    {"view", "ViewBackward0", 0, false, reshape_bw},
    {"reshape_alias", "ReshapeAliasBackward0", 0, false, reshape_bw},
    {"unsafe_view", "UnsafeViewBackward0", 0, false, reshape_bw},
    {"alias", "AliasBackward0", 0, false, reshape_bw},
    {"t", "TBackward0", 0, false, transpose_bw},
    {"split", "SplitBackward0", 0, false, split_bw},
    {"split_with_sizes", "SplitWithSizesBackward0", 0, false, split_bw},
    {"unbind", "UnbindBackward0", 0, false, unbind_bw},
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
    // PyTorch's index_backward writes through _index_put_impl_ (accumulate,
    // unsafe), whose node is IndexPutImplBackward0, not index_put's.
    {"index_backward", "IndexPutImplBackward0", kSaveAll & ~kSaveSelf, false, index_backward_bw},
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
    {"kthvalue", "KthvalueBackward0", 0, true, values_bw},
    {"stack", "StackBackward0", 0, false, stack_bw},
    {"as_strided", "AsStridedBackward0", 0, false, as_strided_bw},
    {"unfold", "UnfoldBackward0", 0, false, unfold_bw},
    {"flip", "FlipBackward0", 0, false, flip_bw},
    {"roll", "RollBackward0", 0, false, roll_bw},
    {"repeat", "RepeatBackward0", 0, false, repeat_bw},
    {"tril", "TrilBackward0", 0, false, tril_bw},
    {"triu", "TriuBackward0", 0, false, triu_bw},
    {"diag", "DiagBackward0", 0, false, diag_bw},
    {"take", "TakeBackward0", kSaveOther, false, take_bw},
    // In-place views (PyTorch's names for the in-place overloads).
    {"squeeze_", "SqueezeBackward2", 0, false, reshape_bw},
    {"squeeze_dim_", "SqueezeBackward3", 0, false, reshape_bw},
    {"unsqueeze_", "UnsqueezeBackward1", 0, false, reshape_bw},
    {"transpose_", "TransposeBackward1", 0, false, transpose_bw},
    {"t_", "TBackward1", 0, false, transpose_bw},
    {"as_strided_", "AsStridedBackward1", 0, false, as_strided_bw},
    // In-place index writes.
    {"index_put", "IndexPutBackward0", kSaveAll & ~(kSaveSelf | kSaveOther), false, index_put_bw},
    {"index_add", "IndexAddBackward0", kSaveOther, false, index_add_bw},
    {"index_fill", "IndexFillBackward0", kSaveOther, false, index_fill_bw},
    {"index_copy", "IndexCopyBackward0", kSaveOther, false, index_copy_bw},
    {"masked_scatter", "MaskedScatterBackward0", kSaveOther, false, masked_scatter_bw});

// The *_copy views (tensor/view_copy.h, Note [View copies]): the view's
// formula under 1.13's "<node>_copy" name. detach_copy has none, as in 1.13.
EMBER_REGISTER_DERIVATIVES({"view_copy", "ViewBackward0_copy", 0, false, reshape_bw},
                           {"alias_copy", "AliasBackward0_copy", 0, false, reshape_bw},
                           {"t_copy", "TBackward0_copy", 0, false, transpose_bw},
                           {"split_copy", "SplitBackward0_copy", 0, false, split_bw},
                           {"split_with_sizes_copy", "SplitWithSizesBackward0_copy", 0, false,
                            split_bw},
                           {"unbind_copy", "UnbindBackward0_copy", 0, false, unbind_bw},
                           {"squeeze_copy", "SqueezeBackward0_copy", 0, false, reshape_bw},
                           {"squeeze_copy_dim", "SqueezeBackward1_copy", 0, false, reshape_bw},
                           {"unsqueeze_copy", "UnsqueezeBackward0_copy", 0, false, reshape_bw},
                           {"expand_copy", "ExpandBackward0_copy", 0, false, expand_bw},
                           {"transpose_copy", "TransposeBackward0_copy", 0, false, transpose_bw},
                           {"permute_copy", "PermuteBackward0_copy", 0, false, permute_bw},
                           {"select_copy", "SelectBackward0_copy", 0, false, select_bw},
                           {"slice_copy", "SliceBackward0_copy", 0, false, slice_bw},
                           {"diagonal_copy", "DiagonalBackward0_copy", 0, false, diagonal_bw},
                           {"as_strided_copy", "AsStridedBackward0_copy", 0, false, as_strided_bw},
                           {"unfold_copy", "UnfoldBackward0_copy", 0, false, unfold_bw});

// pixel_shuffle and pixel_unshuffle undo each other (args: the factor).
V pixel_shuffle_bw(const C& c, const V& g) { return {pixel_unshuffle(g[0], c.int_arg(0))}; }
V pixel_unshuffle_bw(const C& c, const V& g) { return {pixel_shuffle(g[0], c.int_arg(0))}; }

// 1.13's channel_shuffle records a NotImplemented node with this message.
V channel_shuffle_bw(const C&, const V&) {
  throw Error("derivative for channel_shuffle is not implemented");
}

EMBER_REGISTER_DERIVATIVES({"pixel_shuffle", "PixelShuffleBackward0", 0, false, pixel_shuffle_bw},
                           {"pixel_unshuffle", "PixelUnshuffleBackward0", 0, false,
                            pixel_unshuffle_bw},
                           {"channel_shuffle", "NotImplemented", 0, false, channel_shuffle_bw});

}  // namespace
}  // namespace autograd
}  // namespace ember
