#ifndef EMBER_TENSOR_SORT_OPS_KERNELS_H_
#define EMBER_TENSOR_SORT_OPS_KERNELS_H_

// The per-device kernels of sort_ops.cc's ops that are not CPU loops
// (Note [Kernel tables]): the CPU runs the loops in sort_ops.cc itself, the
// CUDA backend registers these from tensor/cuda/sort_ops_cuda.cc. A device
// without an entry reaches the CPU through Note [CPU fallback]. Internal.

#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

namespace ember {

// rows: contiguous [n_rows, len] (the op's dim last); values and indices
// (int64) of rows' shape, filled with the running max (min) and its index.
using CumExtremeFn = void (*)(bool is_max, const Tensor& rows, Tensor& values, Tensor& indices);
EMBER_DECLARE_KERNEL_TABLE(cum_extreme_kernel, CumExtremeFn);

// rows as above (float, double or bfloat16); out of rows' shape.
using LogcumsumexpFn = void (*)(const Tensor& rows, Tensor& out);
EMBER_DECLARE_KERNEL_TABLE(logcumsumexp_kernel, LogcumsumexpFn);

// boundaries ([n] or input's leading dims then [n]) and input contiguous in
// one dtype; sorter contiguous int64 of boundaries' shape or undefined; out
// (int64 or int32) of input's shape. Raises for an out-of-range sorter
// index as the CPU does.
using SearchsortedFn = void (*)(const Tensor& boundaries, const Tensor& input, const Tensor& sorter,
                                bool right, Tensor& out);
EMBER_DECLARE_KERNEL_TABLE(searchsorted_kernel, SearchsortedFn);

// mode: rows contiguous [n_rows, len] (len > 0); values (rows' dtype) and
// indices (int64) contiguous with n_rows elements each. The index is the
// CPU's (Note [PyTorch's mode ties]).
using ModeFn = void (*)(const Tensor& rows, Tensor& values, Tensor& indices);
EMBER_DECLARE_KERNEL_TABLE(mode_kernel, ModeFn);

// histc: x contiguous (float, double or bfloat16), edges the bins + 1
// edges of x's dtype that the CPU computes (linspace), on x's device;
// hist zeros [bins] of x's dtype, counted as the CPU's loop counts
// (exactly: its bin search, and its per-block counts in x's dtype).
using HistcFn = void (*)(const Tensor& x, const Tensor& edges, Tensor& hist);
EMBER_DECLARE_KERNEL_TABLE(histc_kernel, HistcFn);

}  // namespace ember

#endif  // EMBER_TENSOR_SORT_OPS_KERNELS_H_
