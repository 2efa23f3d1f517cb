#ifndef EMBER_TENSOR_LAYOUT_H_
#define EMBER_TENSOR_LAYOUT_H_

// Note [Result layout]: which strides a result gets, as PyTorch decides.
// A result keeps its input's memory layout (the order of its dims in
// memory), so `x.t().exp()` is transposed like x.t() and
// `(x.t() + 1).t().view(-1)` works while `(x.t() + 1).view(-1)` does not:
// - elementwise ops (TensorIterator): inputs of one shape and one dense
//   layout give that layout; otherwise the dims are sorted by the inputs'
//   strides, the first input that orders two dims deciding (broadcast dims
//   decide nothing; equal strides go by size), and the result is dense in
//   that order (sort_dims_by_layout below, PyTorch's reorder_dimensions);
// - *_like factories, clone and to (MemoryFormat::Preserve, the default):
//   a dense input's strides are kept as they are, any other input's order
//   is kept, made dense (infer_dense_strides);
// - the channels-last nn ops (convolution, pooling, batch norm, upsampling)
//   give a channels-last result for an input whose strides are
//   channels-last (suggest_memory_format);
// - reductions, matrix products and the remaining ops are contiguous.
// Strides of size-1 dims carry no layout; PyTorch itself is not consistent
// about them (relu and relu6 of one [2, 1, 5, 2] tensor differ there).

#include <cstdint>

#include "tensor/memory_format.h"
#include "tensor/tensor_impl.h"

namespace ember {

// Strides of a fresh tensor of `sizes` in `format`: row-major for
// Contiguous, NHWC order for ChannelsLast (4-D only), NDHWC order for
// ChannelsLast3d (5-D only). Preserve has no strides of its own.
DimVector strides_for_memory_format(IntArrayRef sizes, MemoryFormat format);

// Whether a tensor of this geometry is laid out in `format` with no gaps
// (PyTorch's is_contiguous(memory_format)); size-1 dims may have any stride.
bool is_contiguous_in(IntArrayRef sizes, IntArrayRef strides, MemoryFormat format);

// Its elements fill a block of memory exactly once, in some dim order.
bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides);

// ChannelsLast (ChannelsLast3d) when the strides of a 4-D (5-D) tensor are
// in channels-last order, Contiguous otherwise (PyTorch's rule for
// ambiguous cases included: an N111 tensor is Contiguous). With
// exact_match, the strides must also be exactly the channels-last ones.
MemoryFormat suggest_memory_format(IntArrayRef sizes, IntArrayRef strides,
                                   bool exact_match = false);

// Dense strides in the dim order of `strides` (PyTorch's
// infer_dense_strides): what a Preserve copy of a non-dense tensor gets.
DimVector infer_dense_strides(IntArrayRef sizes, IntArrayRef strides);

// PyTorch's insertion sort of dims by layout: perm starts as
// {n-1, ..., 1, 0} (innermost first for a row-major tensor);
// should_swap(a, b) returns 1 when dim a belongs after dim b, -1 when before,
// 0 when it cannot tell (then the dims keep their relative order unless a
// later comparison moves them). Afterwards perm[0] is the innermost dim.
template <typename ShouldSwap>
void sort_dims_by_layout(int64_t* perm, int64_t n, const ShouldSwap& should_swap) {
  for (int64_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
  for (int64_t i = 1; i < n; ++i) {
    int64_t dim1 = i;
    for (int64_t dim0 = i - 1; dim0 >= 0; --dim0) {
      const int c = should_swap(perm[dim0], perm[dim1]);
      if (c > 0) {
        const int64_t t = perm[dim0];
        perm[dim0] = perm[dim1];
        perm[dim1] = t;
        dim1 = dim0;
      } else if (c < 0) {
        break;
      }
    }
  }
}

// PyTorch's should_swap of TensorIterator::reorder_dimensions, for
// sort_dims_by_layout: operands in order (outputs first), each with its
// strides over `shape` (empty: an operand that orders nothing); the first
// operand whose strides differ at d0 and d1 decides, a 0 stride (broadcast)
// decides nothing, and equal strides put the smaller dim first.
template <typename StridesT>
int compare_dims_by_strides(const StridesT* strides, int n, IntArrayRef shape, int64_t d0,
                            int64_t d1) {
  for (int i = 0; i < n; ++i) {
    if (strides[i].empty()) continue;
    const int64_t s0 = strides[i][d0], s1 = strides[i][d1];
    if (s0 == 0 || s1 == 0) continue;
    if (s0 != s1) return s0 < s1 ? -1 : 1;
    if (shape[d0] > shape[d1]) return 1;
  }
  return 0;
}

// Dense strides of a result of `shape` whose dims are ordered as
// TensorIterator orders them for operands with these strides (as above).
template <typename StridesT>
DimVector iterator_layout_strides(IntArrayRef shape, const StridesT* strides, int n) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  DimVector perm(nd), out(nd);
  sort_dims_by_layout(perm.data(), nd, [&](int64_t d0, int64_t d1) {
    return compare_dims_by_strides(strides, n, shape, d0, d1);
  });
  int64_t next = 1;
  for (int64_t k = 0; k < nd; ++k) {
    out[perm[k]] = next;
    next *= shape[perm[k]];
  }
  return out;
}

}  // namespace ember

#endif  // EMBER_TENSOR_LAYOUT_H_
