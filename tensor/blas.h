#ifndef EMBER_TENSOR_BLAS_H_
#define EMBER_TENSOR_BLAS_H_

// Row-major GEMM on raw pointers, the one entry point of //tensor's matrix
// products (linalg.cc) and im2col convolutions (conv.cc). Internal.
//
// Note [GEMM backends]: float GEMM goes to oneDNN, whose JIT kernels use
// AVX-512 where the CPU has it: on this project's machines (AMD EPYC, Zen 4)
// dnnl_sgemm ran 1024^3 at ~200 GFLOP/s per core against OpenBLAS 0.3.21's
// ~100 (its AVX2 kernel), which is also what libtorch's mm reaches. The
// exception is a tiny output over a long reduction (conv1's weight gradient
// in LeNet, 20x25 over 36864: oneDNN 1.2 ms, OpenBLAS 0.65), which goes to
// OpenBLAS, if OpenBLAS's kernel for this CPU is an AVX2 or AVX-512 one
// (openblas_get_corename(), read at run time: Debian's 0.3.21 gives CPUs
// newer than itself its SSE3 kernel, 2.4x slower than oneDNN there).
// EMBER_CPU_GEMM=onednn|openblas pins one library for every float GEMM.
// oneDNN has no double GEMM, so float64 stays on OpenBLAS.
//
// Note [GEMM threads]: oneDNN's float GEMMs never get an OpenMP team.
// Teamed, its threads spin-waited after each GEMM while ember's pool ran the
// next kernel, and on 2 busy cores a LeNet training step took 20-100 ms
// instead of ~16. Instead the output is split across ember's pool (the
// larger of its two dims) and each part is a single-threaded oneDNN call;
// inside a parallel region the call stays whole on the calling thread.
// OpenBLAS's own pool is sized by set_num_threads (Note [Thread budget]) and
// only entered from outside ember's pool.

#include <cstdint>
#include <string>

#include "tensor/half.h"

namespace ember {
namespace detail {

// The lines of show_config() (tensor/config.h) that say which library runs
// which GEMM on this host and what they chose for this CPU.
std::string gemm_config();

// C[m, n] = alpha * op(A) op(B) + beta * C; op(X) is X or its transpose
// (ta / tb); leading dims as BLAS takes them. beta == 0: C is not read.
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
               int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
               int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc);

// Note [bfloat16 CPU GEMM]: whether bfloat16 products run oneDNN's bfloat16
// matmul (below) rather than a float32 copy. By default only where the CPU
// has native bfloat16 instructions (AVX-512 BF16 or AMX): elsewhere oneDNN
// emulates them and the float32 copy measured faster (BENCHMARKS.md).
// EMBER_CPU_GEMM=onednn takes the matmul anyway, =openblas never.
bool use_bf16_gemm();
// The float32 C of bfloat16 A and B (float accumulation; the caller rounds
// C once), split across ember's pool as the float32 GEMM.
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const BFloat16* a,
               int64_t lda, const BFloat16* b, int64_t ldb, float beta, float* c, int64_t ldc);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_BLAS_H_
