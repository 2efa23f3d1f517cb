#include "tensor/blas.h"

#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include <algorithm>

#include "tensor/error.h"
#include "tensor/parallel.h"

namespace ember {
namespace detail {

namespace {

void dnnl_gemm_1thread(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                       const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                       float* c, int64_t ldc) {
  thread_local bool single = false;  // omp_set_num_threads is per thread
  if (!single) {
    omp_set_num_threads(1);
    single = true;
  }
  dnnl_status_t st =
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  EMBER_CHECK(st == dnnl_success, "oneDNN sgemm failed with status ", static_cast<int>(st));
}

// Below this many multiply-adds a GEMM is not worth waking the pool for.
constexpr int64_t kSplitMacs = int64_t{1} << 18;

}  // namespace

void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
               int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  const bool nested = in_parallel_region();
  if (m * n <= 1024 && k >= 4096 && !nested) {  // Note [GEMM backends]
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
                k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  const int64_t threads = nested ? 1 : get_num_threads();
  if (threads <= 1 || m * n * k < kSplitMacs) {
    dnnl_gemm_1thread(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  // Note [GEMM threads]: rows of C (and of op(A)) or columns of C (and of
  // op(B)), whichever dim is longer, in equal parts.
  const bool by_rows = m >= n;
  const int64_t len = by_rows ? m : n;
  const int64_t parts = std::min<int64_t>(threads, len);
  parallel_for(0, parts, 1, [&](int64_t pb, int64_t pe) {
    for (int64_t p = pb; p < pe; ++p) {
      const int64_t lo = len * p / parts, hi = len * (p + 1) / parts;
      if (by_rows) {
        dnnl_gemm_1thread(ta, tb, hi - lo, n, k, alpha, ta ? a + lo : a + lo * lda, lda, b, ldb,
                          beta, c + lo * ldc, ldc);
      } else {
        dnnl_gemm_1thread(ta, tb, m, hi - lo, k, alpha, a, lda, tb ? b + lo * ldb : b + lo, ldb,
                          beta, c + lo, ldc);
      }
    }
  });
}

void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
               int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
              k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace detail
}  // namespace ember
