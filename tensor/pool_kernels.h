#ifndef EMBER_TENSOR_POOL_KERNELS_H_
#define EMBER_TENSOR_POOL_KERNELS_H_

// The per-device kernel tables of max pooling (pool.cc). Internal; the CUDA
// backend registers its kernels from tensor/cuda/.

#include <cstdint>

#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

namespace ember {
namespace detail {

// `planes` planes of h x w pooled to oh x ow.
struct PoolGeometry {
  int64_t planes, h, w, oh, ow;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
};

// x contiguous; out and idx (int64, the flat index in the plane) contiguous,
// on x's device. The first maximum of a window wins, and any NaN.
using MaxPoolForwardFn = void (*)(const PoolGeometry& p, const Tensor& x, Tensor& out,
                                  Tensor& idx);
// gx (zeros, contiguous, planes x hw) += gy at idx (planes x ohw).
using MaxPoolBackwardFn = void (*)(int64_t planes, int64_t hw, int64_t ohw, const Tensor& gy,
                                   const Tensor& idx, Tensor& gx);
EMBER_DECLARE_KERNEL_TABLE(max_pool_forward_stub, MaxPoolForwardFn);
EMBER_DECLARE_KERNEL_TABLE(max_pool_backward_stub, MaxPoolBackwardFn);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_POOL_KERNELS_H_
