#ifndef EMBER_TENSOR_INDEX_KERNELS_H_
#define EMBER_TENSOR_INDEX_KERNELS_H_

// The per-device kernel tables of the index-tensor ops (gather.cc:
// gather, scatter_, scatter_add_, index_select, index_add_, index_copy_,
// index_fill_; selection.cc: take) and of tril/triu (rearrange.cc).
// Internal; the CUDA backend registers its kernels from tensor/cuda/.
//
// Note [Index kernels on devices]: the op checks everything it can check
// without reading the index values (dtypes, dims, shapes) on the host, as
// on the CPU, and reduces itself to one IndexLoop: a walk over `sizes`
// that reads one index value v per position and moves one element between
// dst and src, one of which (the indexed operand) is offset by v along the
// op's dim. The CPU keeps its own loops (they check each value as they read
// it and throw at once); only devices register here, so a device without a
// kernel gets the table's "Could not run ..." error rather than a host loop
// over device memory. A device kernel checks each value on the device and
// reports the first one out of range at the next synchronization with the
// CPU's message (Note [Device-side index checks], tensor/cuda/index_ops.cc).

#include <cstdint>
#include <vector>

#include "tensor/kernel_table.h"
#include "tensor/scalar.h"
#include "tensor/tensor.h"

namespace ember {
namespace detail {

enum class IndexMode {
  kGather,   // dst[p] = src[p + v * dim_stride]
  kScatter,  // dst[p + v * dim_stride] = src[p]
  kFill,     // dst[p + v * dim_stride] = value (src undefined)
  kAdd,      // dst[p + v * dim_stride] += alpha * src[p] (bool: |= alpha && src)
};

// Which of the CPU's messages an index out of range gets.
enum class IndexCheck {
  kOutOfBounds,       // "index v is out of bounds for dimension d with size s" (Error)
  kOutOfBoundsIndex,  // the same, as IndexError (index_fill_)
  kOutOfRangeInSelf,  // "index out of range in self" (IndexError)
  kIndexCopy,         // "index_copy_(): index v is out of bounds ..." (IndexError)
  kTake,              // "out of range: tried to access index v on a tensor of n elements."
  kNllTarget,         // "Target v is out of bounds." (IndexError; nll_loss on CUDA)
};

struct IndexLoop {
  IndexMode mode = IndexMode::kGather;
  // The loop, and each operand's strides over it in elements. The indexed
  // operand's stride is 0 along the op's dim: v * dim_stride moves it.
  DimVector sizes, dst_strides, index_strides, src_strides;
  int64_t dim_stride = 0;
  // Valid values are [0, bound), or [-bound, bound) with `wrap` (a
  // negative value counts from the end).
  int64_t bound = 0;
  bool wrap = false;
  IndexCheck check = IndexCheck::kOutOfBounds;
  int64_t dim = 0;  // for the message
  Scalar value;     // kFill: the value; kAdd: alpha
};

// dst and src (undefined for kFill) have one dtype; index is int64. All on
// one device; data pointers include the storage offsets.
using IndexKernelFn = void (*)(const IndexLoop& loop, const Tensor& dst, const Tensor& index,
                               const Tensor& src);
EMBER_DECLARE_KERNEL_TABLE(index_kernel, IndexKernelFn);

// Zeroes, in each matrix (dims -2, -1) of the contiguous `r`, the entries
// above diagonal `diagonal` (lower: tril) or below it (triu).
using TriangleKernelFn = void (*)(Tensor& r, int64_t diagonal, bool lower);
EMBER_DECLARE_KERNEL_TABLE(triangle_kernel, TriangleKernelFn);

// Sizes and strides with a 0-dim tensor read as [1] (PyTorch's
// ensure_nonempty_size), so that gather/scatter treat scalars as vectors.
struct IndexGeometry {
  DimVector sizes, strides;
  explicit IndexGeometry(const Tensor& t);
};

// scatter's checks that need no index values (gather.cc; also
// scatter_reduce's): index int64, self's and src's dtypes equal, matching
// dims, index no larger than self (but along `dim`, already wrapped) and
// src. src may be null (scatter of a value).
void scatter_checks(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src);

// Note [Advanced indexing on devices] (tensor/indexing.cc): x[indices] and
// index_put_ on a device take one AdvancedIndexLoop, PyTorch's
// TensorIterator view of them: a walk over the indexing result's shape
// (before-dims x B x after-dims) in which self steps with the non-indexed
// dims (stride 0 along B's dims) and moves by v * stride along each indexed
// dim for the value v its index tensor holds at that position; the other
// operand (the result of index; the values of index_put_, broadcast) steps
// with every dim. The host computes shapes and checks what needs no index
// value; the device checks each value (Note [Device-side index checks]).
// A device without an entry falls back to the CPU (Note [CPU fallback]).
enum class AdvancedIndexMode {
  kIndex,       // other[p] = self[p + offsets]
  kPut,         // self[p + offsets] = other[p]; repeated indices: one write wins
  kAccumulate,  // self[p + offsets] += other[p], in the CPU's order
};

struct AdvancedIndexLoop {
  AdvancedIndexMode mode = AdvancedIndexMode::kIndex;
  DimVector sizes;          // the result's shape, row-major
  DimVector self_strides;   // 0 on B's dims [b_begin, b_end)
  DimVector other_strides;  // the result's or values' strides over sizes
  int64_t b_begin = 0, b_end = 0;
  // One entry per indexed dim of self: its index tensor (int64, on self's
  // device), the tensor's strides over `sizes` (0 outside B), and self's
  // size and stride at that dim and the dim itself (for the message).
  std::vector<Tensor> indices;
  std::vector<DimVector> index_strides;
  DimVector indexed_sizes, indexed_strides, indexed_dims;
};

using AdvancedIndexFn = void (*)(const AdvancedIndexLoop& loop, const Tensor& self,
                                 const Tensor& other);
EMBER_DECLARE_KERNEL_TABLE(advanced_index_kernel, AdvancedIndexFn);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_INDEX_KERNELS_H_
