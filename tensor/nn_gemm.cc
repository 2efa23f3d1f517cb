#include "tensor/nn_gemm.h"

#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include "tensor/error.h"
#include "tensor/parallel.h"

namespace ember {
namespace detail {

// TODO: linalg.cc's blas_gemm is file-local; exporting it would remove this
// twin.
void nn_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
             int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  // Measured single-threaded on the LeNet convolutions: oneDNN takes 1.2 ms
  // for conv1's weight gradient (m=20, n=25, k=36864) where OpenBLAS takes
  // 0.65, and is about 2x faster than OpenBLAS on every other conv shape:
  // tiny outputs with a long reduction go to OpenBLAS.
  // (Not inside ember's pool: OpenBLAS's own pool must not be entered
  // concurrently.)
  if (m * n <= 1024 && k >= 4096 && !in_parallel_region()) {
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
                k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  // oneDNN threads through OpenMP; keep its team within ember's budget.
  thread_local int applied = -1;
  const int threads = in_parallel_region() ? 1 : get_num_threads();
  if (applied != threads) {
    omp_set_num_threads(threads);
    applied = threads;
  }
  dnnl_status_t st =
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  EMBER_CHECK(st == dnnl_success, "oneDNN sgemm failed with status ", static_cast<int>(st));
}

void nn_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
             int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
              k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace detail
}  // namespace ember
