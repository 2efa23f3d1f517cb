#ifndef EMBER_TENSOR_CUDA_INDEX_LAUNCH_H_
#define EMBER_TENSOR_CUDA_INDEX_LAUNCH_H_

// Host-side pieces of the index kernels shared by index_ops.cc and
// reduce_ops_cuda.cc (scatter_reduce_ / index_reduce_): an op's IndexLoop
// as the kernels take it, and the device's error record (Note [Device-side
// index checks] in index_ops.cc). Internal to //tensor/cuda.

#include "tensor/cuda/kernels.h"
#include "tensor/index_kernels.h"

namespace ember {
namespace cuda {
namespace detail {

// loop's dims with size 1 dropped and neighbours that step alike in all
// three operands merged, innermost first (the kernels' order); the data
// pointers are left for the caller.
kernels::IndexLoop make_index_loop(const ember::detail::IndexLoop& loop);

// The error record of `device` (current), marked as possibly set from now
// on: pass it to a kernel that checks index values.
kernels::IndexErrorRecord* record_for_launch(int device);

}  // namespace detail
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_INDEX_LAUNCH_H_
