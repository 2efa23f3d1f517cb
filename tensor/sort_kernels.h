#ifndef EMBER_TENSOR_SORT_KERNELS_H_
#define EMBER_TENSOR_SORT_KERNELS_H_

// The per-device kernels of sort.cc's and selection.cc's ops that are not CPU
// loops (Note [Kernel tables]): sort (and argsort, msort, topk, kthvalue,
// which sort rows), nonzero (and where(cond)), masked_select and
// masked_scatter_. The CPU runs its loops in sort.cc and selection.cc; the
// CUDA backend registers these from tensor/cuda/sort_cuda.cc. A device
// without an entry reaches the CPU through Note [CPU fallback]. Internal.

#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

namespace ember {

// rows: contiguous [n_rows, len] (the sort dim last), numel > 0; values
// (rows' dtype) and indices (int64), contiguous [n_rows, take] (1 <= take
// <= len), receive the first `take` columns of each row in the CPU's total
// order (tensor/sort.cc): NaN of any sign and payload above every number,
// -0.0 equal to 0.0, equal keys by position (stable), ascending or
// descending (NaN first, equal keys still by position). A small `take`
// (topk, kthvalue) may select without sorting the whole row.
using SortRowsFn = void (*)(const Tensor& rows, bool descending, int64_t take, Tensor& values,
                            Tensor& indices);
EMBER_DECLARE_KERNEL_TABLE(sort_rows_kernel, SortRowsFn);

// self contiguous, read with `sizes` (its shape, or {1} for a 0-dim
// where(cond)): the coordinates of its nonzero elements in row-major order,
// as a contiguous int64 [sizes.size(), n] on self's device (nonzero returns
// its transpose). Reads the count n back to the host: the one sync.
using NonzeroFn = Tensor (*)(const Tensor& self, IntArrayRef sizes);
EMBER_DECLARE_KERNEL_TABLE(nonzero_kernel, NonzeroFn);

// self and mask (bool) contiguous of one shape: self's elements where mask is
// true, in order, as a 1-d tensor.
using MaskedSelectFn = Tensor (*)(const Tensor& self, const Tensor& mask);
EMBER_DECLARE_KERNEL_TABLE(masked_select_kernel, MaskedSelectFn);

// self, mask (bool, self's shape) and source (self's dtype) contiguous: the
// k-th true position of mask receives source's k-th element. Raises the
// CPU's "Number of elements of source < number of ones in mask" before
// writing anything when source is too short.
using MaskedScatterFn = void (*)(const Tensor& self, const Tensor& mask, const Tensor& source);
EMBER_DECLARE_KERNEL_TABLE(masked_scatter_kernel, MaskedScatterFn);

}  // namespace ember

#endif  // EMBER_TENSOR_SORT_KERNELS_H_
