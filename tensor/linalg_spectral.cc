// linalg_spectral.h's ops. The LAPACK kernels loop over the batch calling
// one routine per matrix on column-major copies (Note [Column-major
// batches] in linalg_more.cc); pinv, matrix_rank and matrix_exp are
// composites of them and of public ops, run below autograd and recorded as
// one op each, as PyTorch records them (autograd/derivatives/
// linalg_spectral.cc).

#include "tensor/linalg_spectral.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/iterator.h"
#include "tensor/linalg_lapack.h"
#include "tensor/math.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"
#include "tensor/shape.h"

// LAPACK (OpenBLAS), with gfortran's hidden lengths of character arguments.
extern "C" {
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s,
             float* u, const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork,
             int* iwork, int* info, size_t);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s,
             double* u, const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork,
             int* iwork, int* info, size_t);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w,
             float* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t,
             size_t);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
             double* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t,
             size_t);
void sgels_(const char* trans, const int* m, const int* n, const int* nrhs, float* a,
            const int* lda, float* b, const int* ldb, float* work, const int* lwork, int* info,
            size_t);
void dgels_(const char* trans, const int* m, const int* n, const int* nrhs, double* a,
            const int* lda, double* b, const int* ldb, double* work, const int* lwork, int* info,
            size_t);
void sgelsy_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
             const int* ldb, int* jpvt, const float* rcond, int* rank, float* work,
             const int* lwork, int* info);
void dgelsy_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b,
             const int* ldb, int* jpvt, const double* rcond, int* rank, double* work,
             const int* lwork, int* info);
void sgelsd_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
             const int* ldb, float* s, const float* rcond, int* rank, float* work, const int* lwork,
             int* iwork, int* info);
void dgelsd_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b,
             const int* ldb, double* s, const double* rcond, int* rank, double* work,
             const int* lwork, int* iwork, int* info);
void sgelss_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
             const int* ldb, float* s, const float* rcond, int* rank, float* work, const int* lwork,
             int* info);
void dgelss_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b,
             const int* ldb, double* s, const double* rcond, int* rank, double* work,
             const int* lwork, int* info);
}

namespace ember {
namespace {

using linalg_internal::batch_count;
using linalg_internal::check_floating;
using linalg_internal::check_square;
using linalg_internal::column_major;
using linalg_internal::error_prefix;

// One spelling per routine for float and double (overloads).
void gesdd(char jobz, int m, int n, float* a, int lda, float* s, float* u, int ldu, float* vt,
           int ldvt, float* work, int lwork, int* iwork, int* info) {
  sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}
void gesdd(char jobz, int m, int n, double* a, int lda, double* s, double* u, int ldu, double* vt,
           int ldvt, double* work, int lwork, int* iwork, int* info) {
  dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}
void syevd(char jobz, char uplo, int n, float* a, float* w, float* work, int lwork, int* iwork,
           int liwork, int* info) {
  ssyevd_(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
void syevd(char jobz, char uplo, int n, double* a, double* w, double* work, int lwork, int* iwork,
           int liwork, int* info) {
  dsyevd_(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
void gels(int m, int n, int k, float* a, int lda, float* b, int ldb, float* work, int lwork,
          int* info) {
  const char t = 'N';
  sgels_(&t, &m, &n, &k, a, &lda, b, &ldb, work, &lwork, info, 1);
}
void gels(int m, int n, int k, double* a, int lda, double* b, int ldb, double* work, int lwork,
          int* info) {
  const char t = 'N';
  dgels_(&t, &m, &n, &k, a, &lda, b, &ldb, work, &lwork, info, 1);
}
void gelsy(int m, int n, int k, float* a, int lda, float* b, int ldb, int* jpvt, float rcond,
           int* rank, float* work, int lwork, int* info) {
  sgelsy_(&m, &n, &k, a, &lda, b, &ldb, jpvt, &rcond, rank, work, &lwork, info);
}
void gelsy(int m, int n, int k, double* a, int lda, double* b, int ldb, int* jpvt, double rcond,
           int* rank, double* work, int lwork, int* info) {
  dgelsy_(&m, &n, &k, a, &lda, b, &ldb, jpvt, &rcond, rank, work, &lwork, info);
}
void gelsd(int m, int n, int k, float* a, int lda, float* b, int ldb, float* s, float rcond,
           int* rank, float* work, int lwork, int* iwork, int* info) {
  sgelsd_(&m, &n, &k, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, iwork, info);
}
void gelsd(int m, int n, int k, double* a, int lda, double* b, int ldb, double* s, double rcond,
           int* rank, double* work, int lwork, int* iwork, int* info) {
  dgelsd_(&m, &n, &k, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, iwork, info);
}
void gelss(int m, int n, int k, float* a, int lda, float* b, int ldb, float* s, float rcond,
           int* rank, float* work, int lwork, int* info) {
  sgelss_(&m, &n, &k, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, info);
}
void gelss(int m, int n, int k, double* a, int lda, double* b, int ldb, double* s, double rcond,
           int* rank, double* work, int lwork, int* info) {
  dgelss_(&m, &n, &k, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, info);
}

DimVector batch_shape(const Tensor& t) { return DimVector(t.sizes().begin(), t.sizes().end() - 2); }
DimVector with_dims(DimVector batch, std::initializer_list<int64_t> dims) {
  for (int64_t d : dims) batch.push_back(d);
  return batch;
}

double eps_of(ScalarType t) {
  return t == kFloat ? std::numeric_limits<float>::epsilon()
                     : std::numeric_limits<double>::epsilon();
}

// --- kernels ---------------------------------------------------------------------

// Note [Non-finite input to the SVD]: OpenBLAS's gesdd (and gelsd/gelss,
// which run it) can loop forever on a matrix holding NaN or infinity, so
// those never reach LAPACK. A NaN raises PyTorch's message; a matrix of
// infinities gets what PyTorch 1.13 returns for it, NaN singular values.
template <typename T>
bool has_nan(const T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(static_cast<double>(p[i]))) return true;
  }
  return false;
}
template <typename T>
bool all_finite(const T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(static_cast<double>(p[i]))) return false;
  }
  return true;
}

// svd_kernel on a device with an lapack_gesvd entry (cuSOLVER's gesvd, as
// PyTorch's CUDA SVD without MAGMA): a wide A is A^T's SVD transposed.
// Note [Non-finite input to the SVD] holds there too: the flags of every
// matrix are read back once, a NaN raises, a matrix with infinities is
// replaced by zeros for gesvd and gets NaN singular values and
// identity-shaped U and Vh.
std::tuple<Tensor, Tensor, Tensor> svd_on_device(const Tensor& A, char jobz) {
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const bool wide = m < n;
  const int64_t rows = wide ? n : m;  // of the matrix gesvd sees, rows >= cols = k
  const DimVector batch = batch_shape(A);
  EMBER_CHECK(A.scalar_type() == kFloat || A.scalar_type() == kDouble,
              "\"linalg_svd_cuda\" not implemented for '", scalar_type_name(A.scalar_type()), "'");
  Tensor a = column_major(wide ? A.mT() : A, true);
  // Per matrix: (any non-finite, any NaN), read back once.
  const Tensor flags =
      stack({a.isfinite().logical_not().sum({-2, -1}), a.ne(a).sum({-2, -1})}, -1).to(kCPU);
  const Tensor flat = flags.reshape({-1, 2}).contiguous();
  const int64_t* pf = flat.data_ptr<int64_t>();
  bool any_inf = false;
  for (int64_t i = 0; i < flat.size(0); ++i) {
    EMBER_CHECK(pf[2 * i + 1] == 0, error_prefix("linalg.svd", A.dim() > 2, i),
                "The algorithm failed to converge because the input matrix contained "
                "non-finite values.");
    any_inf = any_inf || pf[2 * i] != 0;
  }
  Tensor bad;
  if (any_inf) {
    bad = a.isfinite().logical_not().sum({-2, -1}).gt(0);
    a = where(bad.unsqueeze(-1).unsqueeze(-1), Scalar(0.0), a).contiguous();
  }
  const int64_t ucols = jobz == 'A' ? rows : k;
  Tensor S = empty(with_dims(batch, {k}), a.options());
  Tensor u, vt;
  if (jobz != 'N') {
    u = empty(with_dims(batch, {ucols, rows}), a.options());
    vt = empty(with_dims(batch, {k, k}), a.options());
  }
  Tensor infos = empty(batch, TensorOptions(kInt).device(a.device()));
  lapack_gesvd(a.device())(a, S, u, vt, infos, jobz);
  const auto [info, which] = linalg_internal::first_positive_info(infos);
  EMBER_CHECK(info == 0, error_prefix("linalg.svd", A.dim() > 2, which),
              "The algorithm failed to converge because the input matrix is ill-conditioned "
              "or has too many repeated singular values (error code: ",
              info, ").");
  Tensor U, Vh;
  if (jobz != 'N') {
    // The SVD of the matrix gesvd saw: u (rows x ucols) and vt (k x k),
    // column-major. For a wide A that matrix is A^T = u S vt: U = vt^T,
    // Vh = u^T, whose row-major forms are the buffers themselves.
    U = wide ? vt : u.mT();
    Vh = wide ? u : vt.mT();
    // Column-major strides, as the CPU's results.
    if (wide) {
      U = U.mT().contiguous().mT();
      Vh = Vh.mT().contiguous().mT();
    }
  }
  if (any_inf) {
    const Tensor b2 = bad.unsqueeze(-1);
    S = where(b2, Scalar(std::numeric_limits<double>::quiet_NaN()), S);
    if (jobz != 'N') {
      const Tensor b3 = b2.unsqueeze(-1);
      U = where(b3, eye(U.size(-2), U.size(-1), U.options()), U);
      Vh = where(b3, eye(Vh.size(-2), Vh.size(-1), Vh.options()), Vh);
      U = U.mT().contiguous().mT();
      Vh = Vh.mT().contiguous().mT();
    }
  }
  return {U, S, Vh};
}

// (U, S, Vh) by gesdd: jobz 'A' (full), 'S' (reduced) or 'N' (S only: U
// and Vh undefined).
std::tuple<Tensor, Tensor, Tensor> svd_kernel(const Tensor& A, char jobz) {
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const DimVector batch = batch_shape(A);
  const TensorOptions cpu = A.options().device(kCPU);
  const int64_t ucols = jobz == 'A' ? m : k, vrows = jobz == 'A' ? n : k;
  Tensor S = empty(with_dims(batch, {k}), cpu);
  Tensor U, Vh;
  if (jobz != 'N') {
    // Column-major buffers: U^T and Vh^T row-major.
    U = empty(with_dims(batch, {ucols, m}), cpu);
    Vh = empty(with_dims(batch, {n, vrows}), cpu);
  }
  if (k == 0) {  // built on A's device
    const TensorOptions o = A.options();
    if (jobz != 'N') {
      U = (jobz == 'A' ? eye(m, o) : zeros({m, 0}, o)).expand(with_dims(batch, {m, ucols}));
      Vh = (jobz == 'A' ? eye(n, o) : zeros({0, n}, o)).expand(with_dims(batch, {vrows, n}));
      U = U.contiguous();
      Vh = Vh.contiguous();
    }
    return {U, empty(with_dims(batch, {0}), o), Vh};
  }
  if (linalg_internal::on_device(lapack_gesvd, "linalg_svd", {A})) return svd_on_device(A, jobz);
  Tensor a = column_major(A);
  EMBER_DISPATCH_FLOAT_DOUBLE(a.scalar_type(), "linalg_svd_cpu", [&] {
    const int mi = static_cast<int>(m), ni = static_cast<int>(n);
    const int ldu = mi, ldvt = std::max<int>(1, static_cast<int>(vrows));
    std::vector<int> iwork(8 * static_cast<size_t>(k));
    scalar_t query = 0;
    int info = 0;
    scalar_t dummy = 0;
    scalar_t* pa = a.data_ptr<scalar_t>();
    scalar_t* pu = jobz != 'N' ? U.data_ptr<scalar_t>() : &dummy;
    scalar_t* pv = jobz != 'N' ? Vh.data_ptr<scalar_t>() : &dummy;
    gesdd(jobz, mi, ni, pa, mi, S.data_ptr<scalar_t>(), pu, ldu, pv, ldvt, &query, -1, iwork.data(),
          &info);
    const int lwork = std::max(1, static_cast<int>(query));
    std::vector<scalar_t> work(lwork);
    for (int64_t i = 0; i < batch_count(a); ++i) {
      // Note [Non-finite input to the SVD].
      if (!all_finite(pa + i * m * n, m * n)) {
        EMBER_CHECK(!has_nan(pa + i * m * n, m * n), error_prefix("linalg.svd", A.dim() > 2, i),
                    "The algorithm failed to converge because the input matrix contained "
                    "non-finite values.");
        std::fill_n(S.data_ptr<scalar_t>() + i * k, k, std::numeric_limits<scalar_t>::quiet_NaN());
        if (jobz != 'N') {
          // Identity-shaped U and Vh, so that pinv gives zeros there, as PyTorch's.
          std::fill_n(pu + i * m * ucols, m * ucols, scalar_t(0));
          std::fill_n(pv + i * vrows * n, vrows * n, scalar_t(0));
          for (int64_t d = 0; d < std::min(m, ucols); ++d) pu[i * m * ucols + d * m + d] = 1;
          for (int64_t d = 0; d < std::min(vrows, n); ++d) pv[i * vrows * n + d * vrows + d] = 1;
        }
        continue;
      }
      gesdd(jobz, mi, ni, pa + i * m * n, mi, S.data_ptr<scalar_t>() + i * k,
            jobz != 'N' ? pu + i * m * ucols : pu, ldu, jobz != 'N' ? pv + i * vrows * n : pv, ldvt,
            work.data(), lwork, iwork.data(), &info);
      EMBER_CHECK(info == 0, error_prefix("linalg.svd", A.dim() > 2, i),
                  "The algorithm failed to converge because the input matrix is ill-conditioned "
                  "or has too many repeated singular values (error code: ",
                  info, ").");
    }
  });
  if (jobz != 'N') {
    U = U.mT().to(A.device());
    Vh = Vh.mT().to(A.device());
  }
  return {U, S.to(A.device()), Vh};
}

void check_eigh_info(const char* fn, const Tensor& A, int info, int64_t i) {
  EMBER_CHECK(info == 0, error_prefix(fn, A.dim() > 2, i),
              "The algorithm failed to converge because the input matrix is "
              "ill-conditioned or has too many repeated eigenvalues (error code: ",
              info, ").");
}

// (eigenvalues, eigenvectors or undefined) by syevd.
std::tuple<Tensor, Tensor> eigh_kernel(const char* fn, const Tensor& A, bool upper, bool vectors) {
  const int64_t n = A.size(-1);
  const bool dev = linalg_internal::on_device(lapack_syevd, "linalg_eigh", {A});
  Tensor a = column_major(A, dev);
  if (dev) {
    EMBER_CHECK(a.scalar_type() == kFloat || a.scalar_type() == kDouble,
                "\"linalg_eigh_cuda\" not implemented for '", scalar_type_name(a.scalar_type()),
                "'");
    Tensor L = empty(with_dims(batch_shape(A), {n}), a.options());
    Tensor infos = empty(batch_shape(A), TensorOptions(kInt).device(a.device()));
    lapack_syevd(a.device())(a, L, infos, upper, vectors);
    const auto [info, bad] = linalg_internal::first_positive_info(infos);
    check_eigh_info(fn, A, info, bad);
    return {L, vectors ? linalg_internal::from_column_major(a, A.device()) : Tensor()};
  }
  Tensor L = empty(with_dims(batch_shape(A), {n}), A.options().device(kCPU));
  if (n > 0) {
    EMBER_DISPATCH_FLOAT_DOUBLE(a.scalar_type(), "linalg_eigh_cpu", [&] {
      const char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
      const int ni = static_cast<int>(n);
      scalar_t query = 0;
      int iquery = 0, info = 0;
      scalar_t* pa = a.data_ptr<scalar_t>();
      syevd(jobz, uplo, ni, pa, L.data_ptr<scalar_t>(), &query, -1, &iquery, -1, &info);
      const int lwork = std::max(1, static_cast<int>(query)), liwork = std::max(1, iquery);
      std::vector<scalar_t> work(lwork);
      std::vector<int> iwork(liwork);
      for (int64_t i = 0; i < batch_count(a); ++i) {
        syevd(jobz, uplo, ni, pa + i * n * n, L.data_ptr<scalar_t>() + i * n, work.data(), lwork,
              iwork.data(), liwork, &info);
        check_eigh_info(fn, A, info, i);
      }
    });
  }
  Tensor V = vectors ? linalg_internal::from_column_major(a, A.device()) : Tensor();
  return {L.to(A.device()), V};
}

enum class Driver { kGels, kGelsy, kGelsd, kGelss };

// lstsq by "gels" on a device with QR entries (PyTorch's CUDA lstsq): for
// m >= n, A = Q R and R X = (Q^T B)[:n]; for m < n, A^T = Q R and X = Q Z
// with R^T Z[:m] = B, Z's rest zero (the minimum-norm solution). No rank
// check: like PyTorch's on CUDA, a rank-deficient A gives infinities or
// NaN, not the CPU gels's error. b: B column-major padded to max(m, n)
// rows, overwritten with the solution (and, for m > n, the residual's
// components past row n).
void gels_on_device(const Tensor& A, Tensor& b) {
  const int64_t m = A.size(-2), n = A.size(-1);
  const Device d = A.device();
  DimVector tau_shape = batch_shape(A);
  tau_shape.push_back(std::min(m, n));
  Tensor tau = empty(tau_shape, A.options());
  if (m >= n) {
    Tensor a = column_major(A, true);
    lapack_geqrf(d)(a, tau);
    lapack_ormqr(d)(a, tau, b, /*left=*/true, /*transpose=*/true);
    const Tensor R = a.narrow(-1, 0, n).contiguous();
    Tensor top = b.narrow(-1, 0, n).contiguous();
    lapack_trsm(d)(R, top, /*upper=*/true, /*transpose=*/false, /*unitriangular=*/false);
    b.narrow(-1, 0, n).copy_(top);
  } else {
    Tensor ah = column_major(A.mT(), true);
    lapack_geqrf(d)(ah, tau);
    const Tensor R = ah.narrow(-1, 0, m).contiguous();
    Tensor z = b.narrow(-1, 0, m).contiguous();
    lapack_trsm(d)(R, z, /*upper=*/true, /*transpose=*/true, /*unitriangular=*/false);
    b.zero_();
    b.narrow(-1, 0, m).copy_(z);
    lapack_ormqr(d)(ah, tau, b, /*left=*/true, /*transpose=*/false);
  }
}

// lstsq on A (..., m, n), B (..., m, k) of one batch shape.
std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq_kernel(const Tensor& A, const Tensor& B,
                                                        double rcond, Driver driver) {
  const int64_t m = A.size(-2), n = A.size(-1), k = B.size(-1), mn = std::max(m, n);
  const DimVector batch = batch_shape(A);
  if (linalg_internal::on_device(lapack_geqrf, "linalg_lstsq", {A, B})) {
    // The op allows only gels on a device.
    EMBER_CHECK(A.scalar_type() == kFloat || A.scalar_type() == kDouble,
                "\"linalg_lstsq_cuda\" not implemented for '", scalar_type_name(A.scalar_type()),
                "'");
    Tensor b = zeros(with_dims(batch, {k, mn}), A.options());
    b.narrow(-1, 0, m).copy_(B.mT());
    if (m > 0 && n > 0 && k > 0) gels_on_device(A, b);
    Tensor X = b.narrow(-1, 0, n).mT();
    Tensor residuals = m > n ? b.narrow(-1, n, m - n).square().sum(-1) : empty({0}, A.options());
    return {X, residuals, empty({0}, A.options().dtype(kLong)), empty({0}, A.options())};
  }
  const TensorOptions cpu = A.options().device(kCPU);
  Tensor a = column_major(A);
  // Column-major B padded to max(m, n) rows: the solution comes back there.
  Tensor b = zeros(with_dims(batch, {k, mn}), cpu);
  b.narrow(-1, 0, m).copy_(B.to(kCPU).mT());
  const bool has_rank = driver != Driver::kGels;
  const bool has_sv = driver == Driver::kGelsd || driver == Driver::kGelss;
  Tensor rank = has_rank ? zeros(batch, cpu.dtype(kLong)) : empty({0}, cpu.dtype(kLong));
  Tensor sv = has_sv ? zeros(with_dims(batch, {std::min(m, n)}), cpu) : empty({0}, cpu);
  if (m > 0 && n > 0 && k > 0) {
    EMBER_DISPATCH_FLOAT_DOUBLE(a.scalar_type(), "linalg_lstsq_cpu", [&] {
      const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
      const int lda = mi, ldb = static_cast<int>(mn);
      const scalar_t rc = static_cast<scalar_t>(rcond);
      std::vector<int> jpvt(n);
      scalar_t query = 0;
      int iquery = 0, info = 0, r = 0;
      scalar_t* pa = a.data_ptr<scalar_t>();
      scalar_t* pb = b.data_ptr<scalar_t>();
      scalar_t* ps = has_sv ? sv.data_ptr<scalar_t>() : nullptr;
      const int64_t kk = std::min(m, n);
      switch (driver) {
        case Driver::kGels:
          gels(mi, ni, ki, pa, lda, pb, ldb, &query, -1, &info);
          break;
        case Driver::kGelsy:
          gelsy(mi, ni, ki, pa, lda, pb, ldb, jpvt.data(), rc, &r, &query, -1, &info);
          break;
        case Driver::kGelsd:
          gelsd(mi, ni, ki, pa, lda, pb, ldb, ps, rc, &r, &query, -1, &iquery, &info);
          break;
        case Driver::kGelss:
          gelss(mi, ni, ki, pa, lda, pb, ldb, ps, rc, &r, &query, -1, &info);
      }
      const int lwork = std::max(1, static_cast<int>(query));
      std::vector<scalar_t> work(lwork);
      std::vector<int> iwork(std::max(1, iquery));
      int64_t* prank = has_rank ? rank.data_ptr<int64_t>() : nullptr;
      for (int64_t i = 0; i < batch_count(a); ++i) {
        scalar_t* ai = pa + i * m * n;
        scalar_t* bi = pb + i * mn * k;
        info = 0;
        // Note [Non-finite input to the SVD]: PyTorch 1.13 fails an internal
        // assert (gelsd) or returns NaN (gelss) here.
        EMBER_CHECK(!has_sv || all_finite(ai, m * n),
                    error_prefix("torch.linalg.lstsq", A.dim() > 2, i),
                    "the input matrix contains non-finite values, which the SVD-based drivers "
                    "(gelsd, gelss) cannot take");
        switch (driver) {
          case Driver::kGels:
            gels(mi, ni, ki, ai, lda, bi, ldb, work.data(), lwork, &info);
            EMBER_CHECK(info <= 0, error_prefix("torch.linalg.lstsq", A.dim() > 2, i),
                        "The least squares solution could not be computed because the input "
                        "matrix does not have full rank (error code: ",
                        info, ").");
            break;
          case Driver::kGelsy:
            std::fill(jpvt.begin(), jpvt.end(), 0);
            gelsy(mi, ni, ki, ai, lda, bi, ldb, jpvt.data(), rc, &r, work.data(), lwork, &info);
            break;
          case Driver::kGelsd:
            gelsd(mi, ni, ki, ai, lda, bi, ldb, ps + i * kk, rc, &r, work.data(), lwork,
                  iwork.data(), &info);
            break;
          case Driver::kGelss:
            gelss(mi, ni, ki, ai, lda, bi, ldb, ps + i * kk, rc, &r, work.data(), lwork, &info);
        }
        EMBER_CHECK(info == 0, error_prefix("torch.linalg.lstsq", A.dim() > 2, i),
                    "The algorithm failed to converge because the input matrix is "
                    "ill-conditioned or has too many repeated singular values (error code: ",
                    info, ").");
        if (has_rank) prank[i] = r;
      }
    });
  }
  // A view of the column-major buffer, as PyTorch's: strides (1, max(m, n)).
  Tensor X = b.narrow(-1, 0, n).mT();
  // Residuals: the squared norms of the rows past n, when they mean
  // something (PyTorch: m > n, a driver that is not gelsy, full rank).
  Tensor residuals = empty({0}, cpu);
  const bool full_rank = !has_rank || rank.numel() == 0 || (rank == n).all().item<bool>();
  if (m > n && driver != Driver::kGelsy && full_rank) {
    residuals = b.narrow(-1, n, m - n).square().sum(-1);
  }
  const Device dev = A.device();
  return {X.to(dev), residuals.to(dev), rank.to(dev), sv.to(dev)};
}

// --- tolerances (pinv, matrix_rank) ------------------------------------------------

// PyTorch's get_atol_rtol: atol defaults to 0; rtol to eps * max(m, n)
// when atol is absent or not positive, else to 0.
std::pair<Tensor, Tensor> atol_rtol(const Tensor& A, const std::optional<Tensor>& atol,
                                    const std::optional<Tensor>& rtol) {
  const TensorOptions real = A.options();
  const double default_rtol = eps_of(A.scalar_type()) * std::max(A.size(-1), A.size(-2));
  const Tensor a = atol.has_value() ? atol->to(A.device()) : zeros({}, real);
  Tensor r;
  if (rtol.has_value()) {
    r = rtol->to(A.device());
  } else if (atol.has_value()) {
    r = where(a > 0, zeros({}, real), full({}, default_rtol, real));
  } else {
    r = full({}, default_rtol, real);
  }
  return {a, r};
}

std::optional<Tensor> as_tensor(const Tensor& A, std::optional<double> v) {
  if (!v.has_value()) return std::nullopt;
  return full({}, *v, A.options().dtype(kDouble));
}

// The cut-off max(atol, rtol * largest) for each matrix's sorted values
// (..., k), shaped (..., 1) to compare with them.
Tensor cutoff(const Tensor& values_abs, const Tensor& atol, const Tensor& rtol) {
  const Tensor largest = values_abs.size(-1) == 0 ? zeros_like(values_abs.narrow(-1, 0, 0))
                                                  : values_abs.amax({-1}, true);
  return maximum(atol.unsqueeze(-1), rtol.unsqueeze(-1) * largest);
}

// Matrix_exp: Taylor polynomial of degree 18 (Horner) of each matrix.
// The degree-18 Taylor polynomial of exp, sum of A^j / j!, by Paterson and
// Stockmeyer: A^2, A^3 and B = A^4 (three products), then Horner in B over
// the blocks Q_k = sum_{i<4} A^i / (4k + i)! (four products). Horner in A
// took 18 products: matrix_exp's backward (the exponential of a 2n x 2n
// block matrix) ran 2-2.6x libtorch's time at n = 256.
Tensor taylor18(const Tensor& A) {
  const int64_t n = A.size(-1);
  const Tensor I = eye(n, A.options()).expand(A.sizes());
  const Tensor A2 = A.matmul(A);
  const Tensor A3 = A2.matmul(A);
  const Tensor B = A2.matmul(A2);
  double c[19];
  c[0] = 1;
  for (int j = 1; j <= 18; ++j) c[j] = c[j - 1] / j;
  const auto block = [&](int k) {
    Tensor q = I * c[4 * k] + A * c[4 * k + 1] + A2 * c[4 * k + 2];
    if (4 * k + 3 <= 18) q = q + A3 * c[4 * k + 3];
    return q;
  };
  Tensor P = block(4);
  for (int k = 3; k >= 0; --k) P = block(k) + B.matmul(P);
  return P;
}

void check_uplo(std::string_view UPLO) {
  EMBER_CHECK(UPLO.size() == 1 && (std::toupper(UPLO[0]) == 'U' || std::toupper(UPLO[0]) == 'L'),
              "Expected UPLO argument to be 'L' or 'U', but got ", std::string(UPLO));
}

void check_float_double(const char* kernel, const Tensor& A) {
  EMBER_CHECK(A.scalar_type() == kFloat || A.scalar_type() == kDouble, "\"", kernel,
              "\" not implemented for '", scalar_type_name(A.scalar_type()), "'");
}

void check_svd_input(const Tensor& A) {
  EMBER_CHECK(A.dim() >= 2, "linalg.svd: The input tensor A must have at least 2 dimensions.");
  check_floating("linalg.svd", A);
  check_float_double("linalg_svd_cpu", A);
}

}  // namespace

// --- SVD -----------------------------------------------------------------------------

namespace {
// PyTorch's driver= rules: CUDA inputs only, one of cuSOLVER's gesvd,
// gesvdj, gesvda. ember computes every CUDA SVD with gesvd (results equal
// up to the usual tolerance and the signs of singular vectors).
void check_svd_driver(const Tensor& A, std::optional<std::string_view> driver) {
  if (!driver.has_value()) return;
  EMBER_CHECK(A.is_cuda(),
              "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs "
              "with cuSOLVER backend.");
  EMBER_CHECK(*driver == "gesvd" || *driver == "gesvdj" || *driver == "gesvda",
              "torch.linalg.svd: unknown svd driver ", std::string(*driver),
              " in svd_cusolver computation. Check doc at "
              "https://pytorch.org/docs/stable/generated/torch.linalg.svd.html");
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices,
                                              std::optional<std::string_view> driver) {
  check_svd_input(A);
  check_svd_driver(A, driver);
  detail::OpScope scope(A);
  auto [U, S, Vh] = svd_kernel(A, full_matrices ? 'A' : 'S');
  if (scope.active()) scope.record("linalg_svd", {A}, {U, S, Vh}, {Scalar(full_matrices)});
  return {U, S, Vh};
}

Tensor linalg_svdvals(const Tensor& A, std::optional<std::string_view> driver) {
  // An empty float16/bfloat16 input: PyTorch returns before its kernel's
  // dtype check.
  if (A.dim() >= 2 && A.numel() == 0 && is_floating_point(A.scalar_type()) &&
      A.scalar_type() != kFloat && A.scalar_type() != kDouble) {
    return linalg_svdvals(A.to(kFloat), driver).to(A.scalar_type());
  }
  check_svd_input(A);
  check_svd_driver(A, driver);
  detail::OpScope scope(A);
  if (!scope.active()) return std::get<1>(svd_kernel(A, 'N'));
  // The gradient needs the vectors (PyTorch computes them too).
  auto [U, S, Vh] = svd_kernel(A, 'S');
  scope.record("linalg_svd", {A}, {U, S, Vh}, {Scalar(false)});
  return S;
}

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& self, bool some, bool compute_uv) {
  EMBER_CHECK(self.dim() >= 2, "linalg.svd: input should have at least 2 dimensions, but has ",
              self.dim(), " dimensions instead");
  if (compute_uv) {
    auto [U, S, Vh] = linalg_svd(self, !some);
    return {U, S, Vh.mT()};
  }
  Tensor S = linalg_svdvals(self);
  const int64_t m = self.size(-2), n = self.size(-1);
  const DimVector batch = batch_shape(self);
  return {zeros(with_dims(batch, {m, m}), self.options()), S,
          zeros(with_dims(batch, {n, n}), self.options())};
}

// --- eigh ----------------------------------------------------------------------------

std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& A, std::string_view UPLO) {
  check_square("linalg.eigh", A);
  check_uplo(UPLO);
  check_float_double("linalg_eigh_cpu", A);
  detail::OpScope scope(A);
  auto [L, V] = eigh_kernel("linalg.eigh", A, std::toupper(UPLO[0]) == 'U', true);
  if (scope.active()) scope.record("linalg_eigh", {A}, {L, V});
  return {L, V};
}

Tensor linalg_eigvalsh(const Tensor& A, std::string_view UPLO) {
  check_square("linalg.eigh", A);
  check_uplo(UPLO);
  check_float_double("linalg_eigh_cpu", A);
  detail::OpScope scope(A);
  const bool upper = std::toupper(UPLO[0]) == 'U';
  if (!scope.active()) return std::get<0>(eigh_kernel("linalg.eigh", A, upper, false));
  auto [L, V] = eigh_kernel("linalg.eigh", A, upper, true);
  scope.record("linalg_eigh", {A}, {L, V});
  return L;
}

std::tuple<Tensor, Tensor> symeig(const Tensor& self, bool eigenvectors, bool upper) {
  check_square("linalg.symeig", self);
  check_float_double("symeig_cpu", self);
  detail::OpScope scope(self);
  auto [L, V] = eigh_kernel("symeig", self, upper, eigenvectors);
  if (!eigenvectors) V = empty({0}, self.options());
  if (scope.active()) scope.record("symeig", {self}, {L, V}, {Scalar(eigenvectors)});
  return {L, V};
}

// --- pinv ----------------------------------------------------------------------------

Tensor linalg_pinv(const Tensor& A, const std::optional<Tensor>& atol,
                   const std::optional<Tensor>& rtol, bool hermitian) {
  EMBER_CHECK(A.dim() >= 2 && (A.scalar_type() == kFloat || A.scalar_type() == kDouble),
              "linalg.pinv(", scalar_type_name(A.scalar_type()), "{[",
              absl::StrJoin(A.sizes(), ", "),
              "]}): expected a tensor with 2 or more dimensions of float, double, cfloat or "
              "cdouble types");
  const int64_t m = A.size(-2), n = A.size(-1);
  detail::OpScope scope(A);
  if (A.numel() == 0) {
    // Still a LinalgPinvBackward0 node, as 1.13's (its gradient is empty).
    DimVector shape = batch_shape(A);
    shape.push_back(n);
    shape.push_back(m);
    Tensor P = zeros(shape, A.options());
    if (scope.active()) scope.record("linalg_pinv", {A}, {P});
    return P;
  }
  const auto [a_tol, r_tol] = atol_rtol(A, atol, rtol);
  Tensor P;
  if (hermitian) {
    check_square("linalg.eigh", A);
    auto [L, V] = eigh_kernel("linalg.eigh", A, false, true);
    const Tensor L_abs = L.abs();
    const Tensor keep = L_abs > cutoff(L_abs, a_tol, r_tol);
    const Tensor inv = where(keep, L.reciprocal(), zeros({}, L.options()));
    P = (V * inv.unsqueeze(-2)).matmul(V.mT());
  } else {
    auto [U, S, Vh] = svd_kernel(A, 'S');
    const Tensor keep = S > cutoff(S, a_tol, r_tol);
    const Tensor inv = where(keep, S.reciprocal(), zeros({}, S.options()));
    P = (Vh.mT() * inv.unsqueeze(-2)).matmul(U.mT());
  }
  P = P.to(A.scalar_type());
  if (scope.active()) scope.record("linalg_pinv", {A}, {P});
  return P;
}

Tensor linalg_pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol,
                   bool hermitian) {
  return linalg_pinv(A, as_tensor(A, atol), as_tensor(A, rtol), hermitian);
}
Tensor linalg_pinv(const Tensor& A, double rcond, bool hermitian) {
  return linalg_pinv(A, std::optional<double>(0.0), std::optional<double>(rcond), hermitian);
}
Tensor linalg_pinv(const Tensor& A, const Tensor& rcond, bool hermitian) {
  return linalg_pinv(A, std::optional<Tensor>(zeros({}, rcond.options())),
                     std::optional<Tensor>(rcond), hermitian);
}
Tensor pinverse(const Tensor& self, double rcond) { return linalg_pinv(self, rcond); }

// --- lstsq ---------------------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq(const Tensor& self, const Tensor& b,
                                                        std::optional<double> rcond,
                                                        std::optional<std::string_view> driver) {
  EMBER_CHECK(self.dim() >= 2, "torch.linalg.lstsq: input must have at least 2 dimensions.");
  EMBER_CHECK(b.dim() >= 1, "torch.linalg.lstsq: other must have at least 1 dimension.");
  EMBER_CHECK(self.scalar_type() == b.scalar_type(),
              "torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
              "input's dtype ",
              scalar_type_name(self.scalar_type()), " and other's dtype ",
              scalar_type_name(b.scalar_type()));
  const bool vector = b.dim() == self.dim() - 1;
  const int64_t m = self.size(-2), n = self.size(-1);
  if (vector) {
    EMBER_CHECK(m == b.size(-1), "torch.linalg.lstsq: input.size(-2) should match other.size(-1)");
  } else {
    EMBER_CHECK(m == b.size(-2), "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
  }
  // PyTorch's default and only driver on CUDA is gels.
  Driver d = self.is_cpu() ? Driver::kGelsy : Driver::kGels;
  if (driver.has_value() && !self.is_cpu()) {
    EMBER_CHECK(*driver == "gels",
                "torch.linalg.lstsq: `driver` other than `gels` is not supported on CUDA");
  } else if (driver.has_value()) {
    if (*driver == "gels") {
      d = Driver::kGels;
    } else if (*driver == "gelsd") {
      d = Driver::kGelsd;
    } else if (*driver == "gelss") {
      d = Driver::kGelss;
    } else {
      EMBER_CHECK(*driver == "gelsy",
                  "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, "
                  "gelss)");
    }
  }
  EMBER_CHECK(self.scalar_type() == kFloat || self.scalar_type() == kDouble,
              "This function doesn't handle types other than float and double");
  detail::OpScope scope(self, b);
  const Tensor Bm = vector ? b.unsqueeze(-1) : b;
  DimVector batch =
      infer_size(self.sizes().slice(0, self.dim() - 2), Bm.sizes().slice(0, Bm.dim() - 2));
  const double rc = rcond.has_value() ? *rcond : eps_of(self.scalar_type()) * std::max(m, n);
  auto [X, residuals, rank, sv] = lstsq_kernel(
      self.expand(with_dims(batch, {m, n})), Bm.expand(with_dims(batch, {m, Bm.size(-1)})), rc, d);
  if (vector) X = X.squeeze(-1);
  if (scope.active()) scope.record("linalg_lstsq", {self, b}, {X});
  return {X, residuals, rank, sv};
}

// --- matrix_rank ---------------------------------------------------------------------

Tensor linalg_matrix_rank(const Tensor& input, const std::optional<Tensor>& atol,
                          const std::optional<Tensor>& rtol, bool hermitian) {
  EMBER_CHECK(input.dim() >= 2,
              "torch.linalg.matrix_rank: The input tensor input must have at least 2 "
              "dimensions.");
  EMBER_CHECK(input.scalar_type() == kFloat || input.scalar_type() == kDouble,
              "This function doesn't handle types other than float and double");
  if (hermitian) check_square("linalg.eigh", input);
  // An integer result: nothing to record.
  const auto [a_tol, r_tol] = atol_rtol(input, atol, rtol);
  const Tensor values = hermitian
                            ? std::get<0>(eigh_kernel("linalg.eigh", input, false, false)).abs()
                            : std::get<1>(svd_kernel(input, 'N'));
  return (values > cutoff(values, a_tol, r_tol)).sum({-1});
}
Tensor linalg_matrix_rank(const Tensor& input, std::optional<double> atol,
                          std::optional<double> rtol, bool hermitian) {
  return linalg_matrix_rank(input, as_tensor(input, atol), as_tensor(input, rtol), hermitian);
}
Tensor linalg_matrix_rank(const Tensor& input, double tol, bool hermitian) {
  return linalg_matrix_rank(input, std::optional<double>(tol), std::optional<double>(0.0),
                            hermitian);
}
Tensor linalg_matrix_rank(const Tensor& input, const Tensor& tol, bool hermitian) {
  return linalg_matrix_rank(input, std::optional<Tensor>(tol),
                            std::optional<Tensor>(zeros({}, tol.options())), hermitian);
}

// --- matrix_exp ----------------------------------------------------------------------

Tensor linalg_matrix_exp(const Tensor& A) {
  check_square("linalg.matrix_exp", A);
  check_floating("matrix_exp", A);
  check_float_double("matrix_exp", A);
  detail::OpScope scope(A);
  Tensor E;
  if (A.numel() == 0) {
    E = empty_like(A);
  } else if (A.size(-1) == 1) {
    E = A.exp();
  } else {
    // Scaling and squaring: A / 2^s has 1-norm at most theta, where the
    // degree-18 Taylor polynomial is exact to rounding (PyTorch's theta).
    const double theta = A.scalar_type() == kFloat ? 3.010066362817634 : 1.090863719290036;
    const Tensor norm = A.abs().sum({-2}).amax({-1});
    const Tensor s = clamp_min((norm / theta).log2().ceil(), 0);
    E = taylor18(A * exp2(-s).unsqueeze(-1).unsqueeze(-1));
    const int64_t squarings = static_cast<int64_t>(s.max().item<double>());
    for (int64_t i = 0; i < squarings; ++i) {
      E = where((s > static_cast<double>(i)).unsqueeze(-1).unsqueeze(-1), E.matmul(E), E);
    }
    // As PyTorch's, the result is laid out as A (a transposed A gives a
    // column-major exponential).
    Tensor out = empty_like(A);
    if (out.strides() != E.strides()) E = out.copy_(E);
  }
  if (scope.active()) scope.record("linalg_matrix_exp", {A}, {E});
  return E;
}
Tensor matrix_exp(const Tensor& self) { return linalg_matrix_exp(self); }

// --- methods -------------------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor> Tensor::svd(bool some, bool compute_uv) const {
  return ::ember::svd(*this, some, compute_uv);
}
std::tuple<Tensor, Tensor> Tensor::symeig(bool eigenvectors, bool upper) const {
  return ::ember::symeig(*this, eigenvectors, upper);
}
Tensor Tensor::pinverse(double rcond) const { return ::ember::pinverse(*this, rcond); }
Tensor Tensor::matrix_exp() const { return ::ember::matrix_exp(*this); }

}  // namespace ember
