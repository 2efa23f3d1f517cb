// linalg_more.h's ops: each CPU kernel is a loop over the batch calling one
// LAPACK (or BLAS trsm) routine per matrix; the op layer around it checks
// the inputs with PyTorch's messages, broadcasts batch dims and records the
// op for autograd (autograd/derivatives/linalg_more.cc).
//
// Note [Column-major batches]: LAPACK reads matrices column-major. A.mT()
// made contiguous holds, for each matrix of A, its columns one after the
// other: exactly the column-major A (leading dimension n). A result written
// there in place is read back through .mT(), which leaves it
// column-major-strided, as PyTorch's results of these ops are.

#include "tensor/linalg_more.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/iterator.h"
#include "tensor/linalg_factor.h"
#include "tensor/linalg_lapack.h"
#include "tensor/selection.h"
#include "tensor/shape.h"

// LAPACK and BLAS (OpenBLAS), with the hidden lengths of character
// arguments that gfortran's calling convention passes.
extern "C" {
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetri_(const int* n, float* a, const int* lda, const int* ipiv, float* work, const int* lwork,
             int* info);
void dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work,
             const int* lwork, int* info);
void sgesv_(const int* n, const int* nrhs, float* a, const int* lda, int* ipiv, float* b,
            const int* ldb, int* info);
void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b,
            const int* ldb, int* info);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t);
void spotrs_(const char* uplo, const int* n, const int* nrhs, const float* a, const int* lda,
             float* b, const int* ldb, int* info, size_t);
void dpotrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda,
             double* b, const int* ldb, int* info, size_t);
void strsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
            const int* n, const float* alpha, const float* a, const int* lda, float* b,
            const int* ldb, size_t, size_t, size_t, size_t);
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
            const int* n, const double* alpha, const double* a, const int* lda, double* b,
            const int* ldb, size_t, size_t, size_t, size_t);
}

namespace ember {
namespace {

using linalg_internal::batch_count;
using linalg_internal::broadcast_batch;
using linalg_internal::column_major;
using linalg_internal::error_prefix;
using linalg_internal::first_positive_info;
using linalg_internal::from_column_major;
using linalg_internal::getrf_on_device;
using linalg_internal::on_device;

// One spelling per routine for float and double.
template <typename T>
struct Lapack;
template <>
struct Lapack<float> {
  static void getrf(int n, float* a, int* ipiv, int* info) { sgetrf_(&n, &n, a, &n, ipiv, info); }
  static void getri(int n, float* a, const int* ipiv, float* work, int lwork, int* info) {
    sgetri_(&n, a, &n, ipiv, work, &lwork, info);
  }
  static void gesv(int n, int nrhs, float* a, int* ipiv, float* b, int* info) {
    sgesv_(&n, &nrhs, a, &n, ipiv, b, &n, info);
  }
  static void potrf(char uplo, int n, float* a, int* info) { spotrf_(&uplo, &n, a, &n, info, 1); }
  static void potrs(char uplo, int n, int nrhs, const float* a, float* b, int* info) {
    spotrs_(&uplo, &n, &nrhs, a, &n, b, &n, info, 1);
  }
  static void trsm(char uplo, char trans, char diag, int n, int nrhs, const float* a, float* b) {
    const float one = 1;
    const char side = 'L';
    strsm_(&side, &uplo, &trans, &diag, &n, &nrhs, &one, a, &n, b, &n, 1, 1, 1, 1);
  }
};
template <>
struct Lapack<double> {
  static void getrf(int n, double* a, int* ipiv, int* info) { dgetrf_(&n, &n, a, &n, ipiv, info); }
  static void getri(int n, double* a, const int* ipiv, double* work, int lwork, int* info) {
    dgetri_(&n, a, &n, ipiv, work, &lwork, info);
  }
  static void gesv(int n, int nrhs, double* a, int* ipiv, double* b, int* info) {
    dgesv_(&n, &nrhs, a, &n, ipiv, b, &n, info);
  }
  static void potrf(char uplo, int n, double* a, int* info) { dpotrf_(&uplo, &n, a, &n, info, 1); }
  static void potrs(char uplo, int n, int nrhs, const double* a, double* b, int* info) {
    dpotrs_(&uplo, &n, &nrhs, a, &n, b, &n, info, 1);
  }
  static void trsm(char uplo, char trans, char diag, int n, int nrhs, const double* a, double* b) {
    const double one = 1;
    const char side = 'L';
    dtrsm_(&side, &uplo, &trans, &diag, &n, &nrhs, &one, a, &n, b, &n, 1, 1, 1, 1);
  }
};

// The checks shared with linalg_spectral.cc and linalg_factor.cc.
using linalg_internal::check_floating;
using linalg_internal::check_square;

// --- kernels (CPU, column-major in place) -------------------------------------------

// LU factors of each matrix in place; fills `pivots` (n per matrix) and
// returns the first singular matrix's LAPACK info > 0 with its index, or
// (0, -1). Every matrix is factored, singular or not.
template <typename T>
std::pair<int, int64_t> lu_in_place(Tensor& a, std::vector<int>& pivots) {
  const int n = static_cast<int>(a.size(-1));
  const int64_t batches = batch_count(a);
  pivots.assign(static_cast<size_t>(std::max<int64_t>(1, batches * n)), 0);
  std::pair<int, int64_t> first_singular{0, -1};
  if (n == 0) return first_singular;
  T* p = a.data_ptr<T>();
  for (int64_t i = 0; i < batches; ++i) {
    int info = 0;
    Lapack<T>::getrf(n, p + i * n * n, pivots.data() + i * n, &info);
    if (info > 0 && first_singular.first == 0) first_singular = {info, i};
  }
  return first_singular;
}

void check_inv_info(const Tensor& A, int info, int64_t bad) {
  EMBER_CHECK(info == 0, error_prefix("linalg.inv", A.dim() > 2, bad), "The diagonal element ",
              info,
              " is zero, the inversion could not be completed because the input matrix "
              "is singular.");
}

// (sign, logabsdet, det) of each matrix, from its LU factors: det is the
// product of U's diagonal times the pivots' sign (PyTorch's forms: a
// singular matrix's sign and det may be -0).
std::tuple<Tensor, Tensor, Tensor> lu_det_kernel(const Tensor& A) {
  const bool dev = on_device(lapack_getrf, "linalg_det", {A});
  // Note [LU of the transpose]: 1.13 factors A^T when A is C-contiguous
  // (LAPACK then reads it in place; det(A^T) = det(A)) and A otherwise;
  // so does ember, for the same results where the factorizations differ
  // (ties among pivots, infinities, NaN).
  Tensor a = column_major(A.is_contiguous() ? A.mT() : A, dev);
  const int64_t n = a.size(-1);
  if (dev) {
    EMBER_CHECK(a.scalar_type() == kFloat || a.scalar_type() == kDouble,
                "\"lu_cuda\" not implemented for '", scalar_type_name(a.scalar_type()), "'");
    const Tensor pivots = getrf_on_device(a).first;  // singular is not an error here
    const Tensor u = a.diagonal(0, -2, -1);
    // Each pivot off its own row is one row swap.
    const Tensor swaps = pivots.ne(arange(1, n + 1, pivots.options())).sum({-1});
    const Tensor perm = (swaps.remainder(2) * -2 + 1).to(a.scalar_type());
    return {u.sign().prod(-1) * perm, u.abs().log().sum({-1}), u.prod(-1) * perm};
  }
  const DimVector batch_shape(A.sizes().begin(), A.sizes().end() - 2);
  Tensor sign = empty(batch_shape, a.options());
  Tensor logabs = empty(batch_shape, a.options());
  Tensor det = empty(batch_shape, a.options());
  EMBER_DISPATCH_FLOAT_DOUBLE(a.scalar_type(), "lu_cpu", [&] {
    std::vector<int> pivots;
    lu_in_place<scalar_t>(a, pivots);  // a zero pivot is a singular matrix, not an error
    const scalar_t* p = a.data_ptr<scalar_t>();
    scalar_t* s = sign.data_ptr<scalar_t>();
    scalar_t* l = logabs.data_ptr<scalar_t>();
    scalar_t* d = det.data_ptr<scalar_t>();
    for (int64_t i = 0; i < sign.numel(); ++i) {
      scalar_t prod = 1, sgn = 1, log_sum = 0, perm = 1;
      for (int64_t j = 0; j < n; ++j) {
        const scalar_t u = p[i * n * n + j * n + j];
        prod *= u;
        sgn *= static_cast<scalar_t>((u > 0) - (u < 0));
        log_sum += std::log(std::abs(u));
        if (pivots[i * n + j] != j + 1) perm = -perm;
      }
      s[i] = sgn * perm;
      l[i] = log_sum;
      d[i] = prod * perm;
    }
  });
  return {sign.to(A.device()), logabs.to(A.device()), det.to(A.device())};
}

// X with op(A) X = B by BLAS trsm: no singularity check (a zero pivot
// gives infinities, as PyTorch's).
Tensor trsm_kernel(const Tensor& A, const Tensor& B, bool upper, bool transpose,
                   bool unitriangular) {
  const bool dev = on_device(lapack_trsm, "triangular_solve", {A, B});
  Tensor a = column_major(A, dev);
  Tensor b = column_major(B, dev);
  const int n = static_cast<int>(a.size(-1)), k = static_cast<int>(B.size(-1));
  if (dev) {
    EMBER_CHECK(a.scalar_type() == kFloat || a.scalar_type() == kDouble,
                "\"triangular_solve_cuda\" not implemented for '",
                scalar_type_name(a.scalar_type()), "'");
    lapack_trsm(a.device())(a, b, upper, transpose, unitriangular);
    return from_column_major(b, A.device());
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(a.scalar_type(), "triangular_solve_cpu", [&] {
    if (n == 0 || k == 0) return;
    const scalar_t* pa = a.data_ptr<scalar_t>();
    scalar_t* pb = b.data_ptr<scalar_t>();
    for (int64_t i = 0; i < batch_count(a); ++i) {
      Lapack<scalar_t>::trsm(upper ? 'U' : 'L', transpose ? 'T' : 'N', unitriangular ? 'U' : 'N', n,
                             k, pa + i * n * n, pb + i * n * k);
    }
  });
  return from_column_major(b, A.device());
}

void check_potrf_info(const char* fn, const Tensor& A, int info, int64_t i) {
  EMBER_CHECK(info == 0, error_prefix(fn, A.dim() > 2, i),
              "The factorization could not be completed because the input is not "
              "positive-definite (the leading minor of order ",
              info, " is not positive-definite).");
}

// The lower Cholesky factor of each matrix (from its lower triangle).
Tensor potrf_kernel(const char* fn, const char* kernel, const Tensor& A) {
  const bool dev = on_device(lapack_potrf, fn, {A});
  Tensor a = column_major(A, dev);
  const int n = static_cast<int>(a.size(-1));
  if (dev) {
    EMBER_CHECK(a.scalar_type() == kFloat || a.scalar_type() == kDouble, "\"", kernel,
                "\" not implemented for '", scalar_type_name(a.scalar_type()), "'");
    DimVector batch(a.sizes().begin(), a.sizes().end() - 2);
    Tensor infos = empty(batch, TensorOptions(kInt).device(a.device()));
    lapack_potrf(a.device())(a, infos);
    const auto [info, bad] = first_positive_info(infos);
    check_potrf_info(fn, A, info, bad);
    return from_column_major(a, A.device()).tril();
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(a.scalar_type(), kernel, [&] {
    if (n == 0) return;
    scalar_t* p = a.data_ptr<scalar_t>();
    for (int64_t i = 0; i < batch_count(a); ++i) {
      int info = 0;
      Lapack<scalar_t>::potrf('L', n, p + i * n * n, &info);
      check_potrf_info(fn, A, info, i);
    }
  });
  // potrf leaves the strict upper triangle as it was.
  return from_column_major(a, A.device()).tril();
}

// X with A X = B from A's Cholesky factor L (lower, or upper when upper),
// L and B of one batch shape.
Tensor potrs_kernel(const Tensor& L, const Tensor& B, bool upper) {
  const bool dev = on_device(lapack_potrs, "cholesky_solve", {L, B});
  Tensor l = column_major(L, dev);
  Tensor b = column_major(B, dev);
  const int n = static_cast<int>(l.size(-1)), k = static_cast<int>(B.size(-1));
  if (dev) {
    EMBER_CHECK(l.scalar_type() == kFloat || l.scalar_type() == kDouble,
                "\"cholesky_solve_cuda\" not implemented for '", scalar_type_name(l.scalar_type()),
                "'");
    lapack_potrs(l.device())(l, b, upper);
    return from_column_major(b, L.device());
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(l.scalar_type(), "cholesky_solve_cpu", [&] {
    if (n == 0 || k == 0) return;
    const scalar_t* pl = l.data_ptr<scalar_t>();
    scalar_t* pb = b.data_ptr<scalar_t>();
    for (int64_t i = 0; i < batch_count(l); ++i) {
      int info = 0;
      Lapack<scalar_t>::potrs(upper ? 'U' : 'L', n, k, pl + i * n * n, pb + i * n * k, &info);
    }
  });
  return from_column_major(b, L.device());
}

// PyTorch's "Expected b and A to have the same dtype..." and size checks
// of triangular_solve and cholesky_solve (b: the right-hand side).
void check_rhs(const char* op, const Tensor& b, const Tensor& A) {
  EMBER_CHECK(b.scalar_type() == A.scalar_type(),
              "Expected b and A to have the same dtype, but found b of type ",
              scalar_type_name(b.scalar_type()), " and A of type ",
              scalar_type_name(A.scalar_type()), " instead.");
  EMBER_CHECK(A.size(-1) == b.size(-2), "Incompatible matrix sizes for ", op, ": each A matrix is ",
              A.size(-1), " by ", A.size(-1), " but each b matrix is ", b.size(-2), " by ",
              b.size(-1));
}

bool solve_is_vector_rhs(const Tensor& A, const Tensor& B) {
  // PyTorch's linalg_solve_is_vector_rhs.
  if (B.dim() == 1) return true;
  if (B.dim() != A.dim() - 1) return false;
  return B.sizes() == A.sizes().slice(0, A.dim() - 1);
}

}  // namespace

// --- ops ------------------------------------------------------------------------------

namespace {
// X with A X = B (left) or X A = B, B a matrix batch: 1.13's linalg_solve_ex,
// with A^T factored when A is C-contiguous (Note [LU of the transpose]) and
// the system then solved with the adjoint. Errors: check(info, batch index).
template <typename Check>
Tensor solve_by_lu(const Tensor& A, const Tensor& B, bool left, Check check) {
  const bool use_a_t = A.is_contiguous();
  auto [LU, pivots, infos] = linalg_lu_factor_ex(use_a_t ? A.mT() : A);
  const auto [info, bad] = first_positive_info(infos);
  check(info, bad);
  return linalg_lu_solve(LU, pivots, B, left, /*adjoint=*/use_a_t);
}
}  // namespace

// 1.13's linalg_inv_ex: the solution of A X = I.
Tensor linalg_inv(const Tensor& A) {
  check_square("linalg.inv", A);
  check_floating("linalg.inv", A);
  EMBER_CHECK(A.scalar_type() == kFloat || A.scalar_type() == kDouble,
              "linalg.inv: Low precision dtypes not supported. Got ",
              scalar_type_name(A.scalar_type()));
  detail::OpScope scope(A);
  const Tensor identity = eye(A.size(-1), A.options()).expand(A.sizes());
  Tensor r =
      solve_by_lu(A, identity, true, [&](int info, int64_t bad) { check_inv_info(A, info, bad); });
  if (scope.active()) scope.record("linalg_inv", {A}, {r});
  return r;
}
Tensor inverse(const Tensor& self) { return linalg_inv(self); }

Tensor linalg_det(const Tensor& A) {
  check_square("linalg.det", A);
  check_floating("linalg.det", A);
  detail::OpScope scope(A);
  Tensor r = std::get<2>(lu_det_kernel(A));
  if (scope.active()) scope.record("linalg_det", {A}, {r});
  return r;
}
Tensor det(const Tensor& self) { return linalg_det(self); }

std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A) {
  check_square("linalg.slogdet", A);
  check_floating("linalg.slogdet", A);
  detail::OpScope scope(A);
  auto [sign, logabsdet, det] = lu_det_kernel(A);
  (void)det;
  if (scope.active()) scope.record("linalg_slogdet", {A}, {sign, logabsdet});
  return {sign, logabsdet};
}
std::tuple<Tensor, Tensor> slogdet(const Tensor& self) { return linalg_slogdet(self); }

Tensor logdet(const Tensor& self) {
  check_square("logdet", self);
  check_floating("logdet", self);
  auto [sign, logabsdet] = linalg_slogdet(self);
  return where(sign == -1.0, Scalar(std::nan("")), logabsdet);
}

Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left) {
  check_floating("linalg.solve", A);
  check_square("linalg.solve", A);
  EMBER_CHECK(A.scalar_type() == B.scalar_type(),
              "linalg.solve: Expected A and B to have the same dtype, but found A of type ",
              scalar_type_name(A.scalar_type()), " and B of type ",
              scalar_type_name(B.scalar_type()), " instead");
  const bool vector = solve_is_vector_rhs(A, B);
  const Tensor Bm = vector ? B.unsqueeze(left ? -1 : -2) : B;
  const int64_t n = A.size(-1);
  const int64_t b_rows = Bm.size(-2), b_cols = Bm.size(-1);
  EMBER_CHECK(left ? b_rows == n : b_cols == n,
              "linalg.solve: Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", b_rows, "x", b_cols, ")");
  detail::OpScope scope(A, B);
  Tensor X = solve_by_lu(A, Bm, left, [&](int info, int64_t bad) {
    EMBER_CHECK(info == 0, error_prefix("torch.linalg.solve", A.dim() > 2, bad),
                "The solver failed because the input matrix is singular.");
  });
  if (vector) X = X.squeeze(left ? -1 : -2);
  if (scope.active()) scope.record("linalg_solve", {A, B}, {X}, {Scalar(left)});
  return X;
}

std::tuple<Tensor, Tensor> triangular_solve(const Tensor& self, const Tensor& A, bool upper,
                                            bool transpose, bool unitriangular) {
  EMBER_CHECK(self.dim() >= 2,
              "torch.triangular_solve: Expected b to have at least 2 dimensions, but it has ",
              self.dim(), " dimensions instead");
  check_square("", A);
  check_rhs("triangular_solve", self, A);
  detail::OpScope scope(self, A);
  const int64_t n = A.size(-1);
  const Tensor A_b = A.expand(broadcast_batch(self, A, n, n));
  const Tensor b_b = self.expand(broadcast_batch(self, A, n, self.size(-1)));
  Tensor X = trsm_kernel(A_b, b_b, upper, transpose, unitriangular);
  Tensor M = A_b.clone();
  if (scope.active()) {
    scope.record("triangular_solve", {self, A}, {X, M},
                 {Scalar(upper), Scalar(transpose), Scalar(unitriangular)});
  }
  return {X, M};
}

namespace {
Tensor cholesky_impl(const char* name, const char* fn, const char* kernel, const Tensor& A,
                     bool upper) {
  detail::OpScope scope(A);
  Tensor L = potrf_kernel(fn, kernel, A);
  if (upper) L = L.mT().contiguous();
  if (scope.active()) scope.record(name, {A}, {L}, {Scalar(upper)});
  return L;
}
}  // namespace

Tensor linalg_cholesky(const Tensor& A, bool upper) {
  check_square("linalg.cholesky", A);
  check_floating("linalg.cholesky", A);
  return cholesky_impl("linalg_cholesky", "linalg.cholesky", "linalg_cholesky", A, upper);
}
Tensor cholesky(const Tensor& self, bool upper) {
  check_square("cholesky", self);
  return cholesky_impl("cholesky", "cholesky", "cholesky_cpu", self, upper);
}

Tensor cholesky_solve(const Tensor& self, const Tensor& input2, bool upper) {
  EMBER_CHECK(self.dim() >= 2, "b should have at least 2 dimensions, but has ", self.dim(),
              " dimensions instead");
  EMBER_CHECK(input2.dim() >= 2, "u should have at least 2 dimensions, but has ", input2.dim(),
              " dimensions instead");
  check_square("", input2);
  check_rhs("cholesky_solve", self, input2);
  detail::OpScope scope(self, input2);
  const int64_t n = input2.size(-1);
  Tensor X = potrs_kernel(input2.expand(broadcast_batch(self, input2, n, n)),
                          self.expand(broadcast_batch(self, input2, n, self.size(-1))), upper);
  if (scope.active()) scope.record("cholesky_solve", {self, input2}, {X}, {Scalar(upper)});
  return X;
}

Tensor cholesky_inverse(const Tensor& self, bool upper) {
  check_square("cholesky_inverse", self);
  EMBER_CHECK(self.scalar_type() == kFloat || self.scalar_type() == kDouble,
              "\"cholesky_inverse_out_cpu\" not implemented for '",
              scalar_type_name(self.scalar_type()), "'");
  detail::OpScope scope(self);
  // A^-1 = (L L^T)^-1 I: potrs on the identity.
  const int64_t n = self.size(-1);
  const Tensor eye_b = eye(n, self.options()).expand(self.sizes());
  Tensor r = potrs_kernel(self, eye_b, upper);
  if (scope.active()) scope.record("cholesky_inverse", {self}, {r}, {Scalar(upper)});
  return r;
}

// --- methods --------------------------------------------------------------------------

Tensor Tensor::inverse() const { return ::ember::inverse(*this); }
Tensor Tensor::det() const { return ::ember::det(*this); }
std::tuple<Tensor, Tensor> Tensor::slogdet() const { return ::ember::slogdet(*this); }
Tensor Tensor::logdet() const { return ::ember::logdet(*this); }
std::tuple<Tensor, Tensor> Tensor::triangular_solve(const Tensor& A, bool upper, bool transpose,
                                                    bool unitriangular) const {
  return ::ember::triangular_solve(*this, A, upper, transpose, unitriangular);
}
Tensor Tensor::cholesky(bool upper) const { return ::ember::cholesky(*this, upper); }
Tensor Tensor::cholesky_solve(const Tensor& input2, bool upper) const {
  return ::ember::cholesky_solve(*this, input2, upper);
}
Tensor Tensor::cholesky_inverse(bool upper) const {
  return ::ember::cholesky_inverse(*this, upper);
}

}  // namespace ember
