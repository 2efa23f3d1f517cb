#ifndef EMBER_TENSOR_LOSS_KERNELS_H_
#define EMBER_TENSOR_LOSS_KERNELS_H_

// The per-device kernel tables of nll_loss (loss.cc). Internal; the CUDA
// backend registers its kernels from tensor/cuda/.

#include <cstdint>

#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

namespace ember {
namespace detail {

// input [N, C, K] (a 1-D input is one sample: N = K = 1).
struct NllGeometry {
  int64_t n, c, k;
};

// x, t, w (w undefined: all ones) contiguous, x and w of one floating
// dtype, t int64. Writes out (loss per element for reduction none, else
// the 0-dim sum or mean) and total (0-dim: the summed weight of the
// elements not ignored). Throws "Target 12 is out of bounds." for a class
// outside [0, C) that is not ignore_index.
using NllForwardFn = void (*)(const NllGeometry& g, const Tensor& x, const Tensor& t,
                              const Tensor& w, int64_t reduction, int64_t ignore_index,
                              Tensor& out, Tensor& total);
// gx (zeros, contiguous, x's shape) gets -w[t] * grad at each target; gy is
// the loss's gradient (per element for none; 0-dim otherwise, divided by
// total for mean).
using NllBackwardFn = void (*)(const NllGeometry& g, const Tensor& gy, const Tensor& t,
                               const Tensor& w, const Tensor& total, int64_t reduction,
                               int64_t ignore_index, Tensor& gx);
EMBER_DECLARE_KERNEL_TABLE(nll_forward_stub, NllForwardFn);
EMBER_DECLARE_KERNEL_TABLE(nll_backward_stub, NllBackwardFn);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_LOSS_KERNELS_H_
