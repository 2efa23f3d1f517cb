#ifndef EMBER_TENSOR_REDUCE_OPS_KERNELS_H_
#define EMBER_TENSOR_REDUCE_OPS_KERNELS_H_

// The per-device kernel of scatter_reduce_ / index_reduce_ (reduce_ops.cc,
// Note [Kernel tables]): the CPU runs its own loop, the CUDA backend
// registers this from tensor/cuda/reduce_ops_cuda.cc. A device without an
// entry reaches the CPU through Note [CPU fallback]. Internal.

#include "tensor/index_kernels.h"
#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

namespace ember {
namespace detail {

enum class ScatterReduceOp { kSum, kProd, kMean, kAmax, kAmin };

// self (contiguous; kMean never bool) reduced into along loop: for every
// position p, self[p + v * dim_stride] = op(that, src[p]), v = index[p]
// checked on the device (loop.bound, loop.check: Note [Device-side index
// checks]). Without include_self the positions scattered to start from the
// op's identity; kMean divides by the number of values reduced into each
// (self's counting once), flooring integers, as the CPU's loop.
using ScatterReduceFn = void (*)(const IndexLoop& loop, Tensor& self, const Tensor& index,
                                 const Tensor& src, ScatterReduceOp op, bool include_self);
EMBER_DECLARE_KERNEL_TABLE(scatter_reduce_kernel, ScatterReduceFn);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_REDUCE_OPS_KERNELS_H_
