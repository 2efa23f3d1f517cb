#ifndef EMBER_TENSOR_NN_GEMM_H_
#define EMBER_TENSOR_NN_GEMM_H_

// Row-major GEMM for the nn kernels (im2col convolution): float through
// oneDNN, double through OpenBLAS, as linalg.cc does (Note [GEMM backends]).
// Internal to //tensor:nn_ops.

#include <cstdint>

namespace ember {
namespace detail {

// C[m, n] = alpha * op(A) op(B) + beta * C (beta == 0: C is not read).
void nn_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
             int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
void nn_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
             int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_NN_GEMM_H_
