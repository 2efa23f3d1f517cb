#ifndef EMBER_TENSOR_GEMM_H_
#define EMBER_TENSOR_GEMM_H_

// The batched strided GEMM every matrix product in linalg.cc reduces to,
// and its per-device kernel table (Note [Kernel tables]): the CPU kernel is
// in linalg.cc, the CUDA one (cuBLAS) in tensor/cuda/blas.cc. Internal.

#include "tensor/kernel_table.h"
#include "tensor/scalar.h"
#include "tensor/tensor.h"

namespace ember {
namespace detail {

// out [batch..., M, N] (contiguous) = beta * out + alpha * a @ b, where
// matrix i of a starts at a's data plus the batch offset of i (strides in
// elements; 0 for a broadcast batch dim) and steps rows by a_rs and
// columns by a_cs; likewise b. beta == 0: out is not read.
struct BatchGeometry {
  DimVector batch;
  DimVector a_bstrides, b_bstrides;
  int64_t M, N, K;
  int64_t a_rs, a_cs, b_rs, b_cs;
};

using GemmKernelFn = void (*)(const BatchGeometry& g, const Tensor& a, const Tensor& b,
                              Tensor& out, const Scalar& alpha, const Scalar& beta);
EMBER_DECLARE_KERNEL_TABLE(gemm_kernel, GemmKernelFn);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_GEMM_H_
