// linalg_factor.h's ops: each CPU kernel loops over the batch calling one
// LAPACK routine per matrix on a column-major copy (Note [Column-major
// batches] in linalg_more.cc); the op layer checks the inputs with
// PyTorch's messages and records the op for autograd
// (autograd/derivatives/linalg_factor.cc).

#include "tensor/linalg_factor.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/linalg_lapack.h"
#include "tensor/shape.h"

extern "C" {
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work,
             const int* lwork, int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau,
             float* work, const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau,
             double* work, const int* lwork, int* info);
void sormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k,
             const float* a, const int* lda, const float* tau, float* c, const int* ldc,
             float* work, const int* lwork, int* info, size_t, size_t);
void dormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k,
             const double* a, const int* lda, const double* tau, double* c, const int* ldc,
             double* work, const int* lwork, int* info, size_t, size_t);
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda,
             const int* ipiv, float* b, const int* ldb, int* info, size_t);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info, size_t);
}

namespace ember {
namespace {

using linalg_internal::batch_count;
using linalg_internal::broadcast_batch;
using linalg_internal::column_major;
using linalg_internal::error_prefix;
using linalg_internal::from_column_major;

// One spelling per routine for float and double; lda = max(1, rows).
template <typename T>
struct Lapack;
template <>
struct Lapack<float> {
  static void geqrf(int m, int n, float* a, float* tau, float* work, int lwork, int* info) {
    const int lda = std::max(1, m);
    sgeqrf_(&m, &n, a, &lda, tau, work, &lwork, info);
  }
  static void orgqr(int m, int n, int k, float* a, const float* tau, float* work, int lwork,
                    int* info) {
    const int lda = std::max(1, m);
    sorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
  }
  static void ormqr(char side, char trans, int m, int n, int k, const float* a, int lda,
                    const float* tau, float* c, float* work, int lwork, int* info) {
    const int ldc = std::max(1, m);
    sormqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work, &lwork, info, 1, 1);
  }
  static void getrf(int m, int n, float* a, int* ipiv, int* info) {
    const int lda = std::max(1, m);
    sgetrf_(&m, &n, a, &lda, ipiv, info);
  }
  static void getrs(char trans, int n, int nrhs, const float* a, const int* ipiv, float* b,
                    int* info) {
    const int ld = std::max(1, n);
    sgetrs_(&trans, &n, &nrhs, a, &ld, ipiv, b, &ld, info, 1);
  }
};
template <>
struct Lapack<double> {
  static void geqrf(int m, int n, double* a, double* tau, double* work, int lwork, int* info) {
    const int lda = std::max(1, m);
    dgeqrf_(&m, &n, a, &lda, tau, work, &lwork, info);
  }
  static void orgqr(int m, int n, int k, double* a, const double* tau, double* work, int lwork,
                    int* info) {
    const int lda = std::max(1, m);
    dorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
  }
  static void ormqr(char side, char trans, int m, int n, int k, const double* a, int lda,
                    const double* tau, double* c, double* work, int lwork, int* info) {
    const int ldc = std::max(1, m);
    dormqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work, &lwork, info, 1, 1);
  }
  static void getrf(int m, int n, double* a, int* ipiv, int* info) {
    const int lda = std::max(1, m);
    dgetrf_(&m, &n, a, &lda, ipiv, info);
  }
  static void getrs(char trans, int n, int nrhs, const double* a, const int* ipiv, double* b,
                    int* info) {
    const int ld = std::max(1, n);
    dgetrs_(&trans, &n, &nrhs, a, &ld, ipiv, b, &ld, info, 1);
  }
};

// The workspace size a LAPACK query (lwork = -1) reported.
template <typename T>
int work_size(T query) {
  return std::max(1, static_cast<int>(query));
}

DimVector batch_shape(const Tensor& t, int64_t drop = 2) {
  return DimVector(t.sizes().begin(), t.sizes().end() - drop);
}

std::string shape_string(IntArrayRef s) { return absl::StrCat("[", absl::StrJoin(s, ", "), "]"); }

void check_float_double(const char* kernel, const Tensor& t) {
  EMBER_CHECK(t.scalar_type() == kFloat || t.scalar_type() == kDouble, "\"", kernel,
              "\" not implemented for '", scalar_type_name(t.scalar_type()), "'");
}

// --- kernels (CPU, column-major in place) -------------------------------------------

// geqrf on each matrix: (a column-major (..., n, m), tau (..., k)).
std::pair<Tensor, Tensor> geqrf_kernel(const Tensor& A) {
  const bool dev = linalg_internal::on_device(lapack_geqrf, "geqrf", {A});
  Tensor a = column_major(A, dev);
  const int m = static_cast<int>(A.size(-2)), n = static_cast<int>(A.size(-1));
  const int k = std::min(m, n);
  DimVector tau_shape = batch_shape(A);
  tau_shape.push_back(k);
  Tensor tau = empty(tau_shape, a.options());
  if (dev) {
    lapack_geqrf(a.device())(a, tau);
    return {a, tau};
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(a.scalar_type(), "geqrf_cpu", [&] {
    if (m == 0 || n == 0) return;
    scalar_t query = 0;
    int info = 0;
    Lapack<scalar_t>::geqrf(m, n, nullptr, nullptr, &query, -1, &info);
    const int lwork = work_size(query);
    std::vector<scalar_t> work(lwork);
    scalar_t* pa = a.data_ptr<scalar_t>();
    scalar_t* pt = tau.data_ptr<scalar_t>();
    for (int64_t i = 0; i < batch_count(a); ++i) {
      Lapack<scalar_t>::geqrf(m, n, pa + i * m * n, pt + i * k, work.data(), lwork, &info);
    }
  });
  return {a, tau};
}

// orgqr on column-major reflectors q (..., cols, m) with tau (..., k) of
// the same batch (on q's device: the CPU, or one with an lapack_orgqr
// entry), in place: the first `cols` columns of Q.
void orgqr_in_place(Tensor& q, const Tensor& tau) {
  const int cols = static_cast<int>(q.size(-2)), m = static_cast<int>(q.size(-1));
  const int k = static_cast<int>(tau.size(-1));
  const Tensor t = tau.contiguous();
  if (!q.is_cpu()) {
    lapack_orgqr(q.device())(q, t);
    return;
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(q.scalar_type(), "orgqr_cpu", [&] {
    if (m == 0 || cols == 0) return;
    scalar_t query = 0;
    int info = 0;
    Lapack<scalar_t>::orgqr(m, cols, k, nullptr, nullptr, &query, -1, &info);
    const int lwork = work_size(query);
    std::vector<scalar_t> work(lwork);
    scalar_t* pq = q.data_ptr<scalar_t>();
    const scalar_t* pt = t.data_ptr<scalar_t>();
    for (int64_t i = 0; i < batch_count(q); ++i) {
      Lapack<scalar_t>::orgqr(m, cols, k, pq + i * m * cols, pt + i * k, work.data(), lwork, &info);
    }
  });
}

// getrf on each matrix: (LU column-major, pivots (..., k) int32, infos
// (...) int32).
std::tuple<Tensor, Tensor, Tensor> getrf_kernel(const Tensor& A) {
  const bool dev = linalg_internal::on_device(lapack_getrf, "linalg_lu_factor_ex", {A});
  Tensor a = column_major(A, dev);
  if (dev) {
    auto [pivots, infos] = linalg_internal::getrf_on_device(a);
    return {a, pivots, infos};
  }
  const int m = static_cast<int>(A.size(-2)), n = static_cast<int>(A.size(-1));
  const int k = std::min(m, n);
  const DimVector batch = batch_shape(A);
  DimVector piv_shape = batch;
  piv_shape.push_back(k);
  Tensor pivots = empty(piv_shape, TensorOptions(kInt));
  Tensor infos = zeros(batch, TensorOptions(kInt));
  EMBER_DISPATCH_FLOAT_DOUBLE(a.scalar_type(), "lu_cpu", [&] {
    if (m == 0 || n == 0) return;
    scalar_t* pa = a.data_ptr<scalar_t>();
    int* pp = pivots.data_ptr<int>();
    int* pi = infos.data_ptr<int>();
    for (int64_t i = 0; i < batch_count(a); ++i) {
      Lapack<scalar_t>::getrf(m, n, pa + i * m * n, pp + i * k, pi + i);
    }
  });
  return {a, pivots, infos};
}

// --- checks ---------------------------------------------------------------------------

void check_lu_input(const Tensor& A, bool pivot) {
  EMBER_CHECK(A.dim() >= 2,
              "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: ",
              shape_string(A.sizes()), " instead");
  check_float_double("lu_cpu", A);
  EMBER_CHECK(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
}

// PyTorch's error for info > 0 of matrix i.
void check_lu_info(const char* fn, const Tensor& A, const Tensor& infos) {
  const Tensor flat = infos.reshape({-1});
  const int* p = flat.data_ptr<int>();
  for (int64_t i = 0; i < flat.numel(); ++i) {
    EMBER_CHECK(p[i] <= 0, error_prefix(fn, A.dim() > 2, i), "U[", p[i], ",", p[i],
                "] is zero and using it on lu_solve would result in a division by zero. If you "
                "still want to perform the factorization, consider calling linalg.lu(A, pivot) "
                "or linalg.lu_factor_ex(A, pivot)");
  }
}

}  // namespace

// --- QR -------------------------------------------------------------------------------

std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, const std::string& mode) {
  EMBER_CHECK(A.dim() >= 2, "linalg.qr: The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(is_floating_point(A.scalar_type()),
              "linalg.qr: Expected a floating point or complex tensor as input. Got ",
              scalar_type_name(A.scalar_type()));
  EMBER_CHECK(mode == "reduced" || mode == "complete" || mode == "r",
              "qr received unrecognized mode '", mode,
              "' but expected one of 'reduced' (default), 'r', or 'complete'");
  check_float_double("geqrf_cpu", A);
  detail::OpScope scope(A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  auto [a, tau] = geqrf_kernel(A);
  // a is (..., n, m): its rows are A's columns.
  const bool complete = mode == "complete";
  // R column-major (strides (1, rows)), as PyTorch returns it: the lower
  // triangle of the column-major buffer, transposed.
  Tensor R = a.narrow(-1, 0, complete ? m : k).tril().contiguous().mT().to(A.device());
  Tensor Q;
  if (mode == "r") {
    Q = empty({0}, A.options());
  } else {
    const int64_t cols = complete ? m : k;
    Tensor q;
    if (cols <= n) {
      q = a.narrow(-2, 0, cols).contiguous();
    } else {  // complete with m > n: Q's last columns come from the identity
      DimVector pad = batch_shape(a);
      pad.push_back(cols - n);
      pad.push_back(m);
      q = cat({a, zeros(pad, a.options())}, -2);
    }
    orgqr_in_place(q, tau);
    Q = from_column_major(q, A.device());
  }
  if (scope.active()) scope.record("linalg_qr", {A}, {Q, R}, {mode});
  return {Q, R};
}

std::tuple<Tensor, Tensor> qr(const Tensor& self, bool some) {
  return linalg_qr(self, some ? "reduced" : "complete");
}

std::tuple<Tensor, Tensor> geqrf(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "torch.geqrf: input must have at least 2 dimensions.");
  check_float_double("geqrf_cpu", self);
  detail::OpScope scope(self);
  auto [a, tau] = geqrf_kernel(self);
  Tensor A = from_column_major(a, self.device());
  tau = tau.to(self.device());
  if (scope.active()) scope.record("geqrf", {self}, {A, tau});
  return {A, tau};
}

Tensor linalg_householder_product(const Tensor& input, const Tensor& tau) {
  const char* fn = "torch.linalg.householder_product";
  EMBER_CHECK(input.dim() >= 2, fn, ": input must have at least 2 dimensions.");
  EMBER_CHECK(input.size(-2) >= input.size(-1), fn,
              ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  EMBER_CHECK(input.size(-1) >= tau.size(-1), fn,
              ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  EMBER_CHECK(input.dim() - tau.dim() == 1, fn,
              ": Expected tau to have one dimension less than input, but got tau.ndim equal to ",
              tau.dim(), " and input.ndim is equal to ", input.dim());
  if (input.dim() > 2) {
    const IntArrayRef got = tau.sizes().slice(0, tau.dim() - 1);
    EMBER_CHECK(got == input.sizes().slice(0, input.dim() - 2), fn,
                ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ",
                shape_string(got));
  }
  EMBER_CHECK(tau.scalar_type() == input.scalar_type(), fn, ": tau dtype ",
              scalar_type_name(tau.scalar_type()), " does not match input dtype ",
              scalar_type_name(input.scalar_type()));
  check_float_double("orgqr_cpu", input);
  detail::OpScope scope(input, tau);
  const bool dev =
      linalg_internal::on_device(lapack_orgqr, "linalg_householder_product", {input, tau});
  Tensor q = column_major(input, dev);
  orgqr_in_place(q, dev ? tau : tau.to(kCPU));
  Tensor Q = from_column_major(q, input.device());
  if (scope.active()) scope.record("linalg_householder_product", {input, tau}, {Q});
  return Q;
}

Tensor orgqr(const Tensor& self, const Tensor& input2) {
  return linalg_householder_product(self, input2);
}

Tensor ormqr(const Tensor& self, const Tensor& input2, const Tensor& input3, bool left,
             bool transpose) {
  const Tensor &input = self, &tau = input2, &other = input3;
  EMBER_CHECK(input.dim() >= 2, "torch.ormqr: input must have at least 2 dimensions.");
  EMBER_CHECK(other.dim() >= 2, "torch.ormqr: other must have at least 2 dimensions.");
  const int64_t left_size_condition = left ? -2 : -1;
  EMBER_CHECK(other.size(left_size_condition) >= tau.size(-1), "torch.ormqr: other.shape[",
              left_size_condition, "] must be greater than or equal to tau.shape[-1]");
  EMBER_CHECK(other.size(left_size_condition) == input.size(-2), "torch.ormqr: other.shape[",
              left_size_condition, "] must be equal to input.shape[-2]");
  EMBER_CHECK(tau.size(-1) <= input.size(-1),
              "torch.ormqr: tau.shape[-1] must be less than or equal to input.shape[-1]");
  EMBER_CHECK(input.dim() - tau.dim() == 1,
              "torch.ormqr: Expected tau to have one dimension less than input, but got tau.ndim "
              "equal to ",
              tau.dim(), " and input.ndim is equal to ", input.dim());
  EMBER_CHECK(input.dim() == other.dim(),
              "torch.ormqr: Expected other to have the same number of dimensions as input, but "
              "got other.ndim equal to ",
              other.dim(), " and input.ndim is equal to ", input.dim());
  if (input.dim() > 2) {
    const IntArrayRef expected = input.sizes().slice(0, input.dim() - 2);
    const IntArrayRef tau_batch = tau.sizes().slice(0, tau.dim() - 1);
    EMBER_CHECK(tau_batch == expected,
                "torch.ormqr: Expected batch dimensions of tau to be equal to input.shape[:-2], "
                "but got ",
                shape_string(tau_batch));
    const IntArrayRef other_batch = other.sizes().slice(0, other.dim() - 2);
    EMBER_CHECK(other_batch == expected,
                "torch.ormqr: Expected batch dimensions of other to be equal to input.shape[:-2], "
                "but got ",
                shape_string(other_batch));
  }
  EMBER_CHECK(input.scalar_type() == other.scalar_type(),
              "torch.ormqr: Expected input and other to have the same dtype, but input has dtype",
              scalar_type_name(input.scalar_type()), " and other has dtype ",
              scalar_type_name(other.scalar_type()));
  EMBER_CHECK(input.scalar_type() == tau.scalar_type(),
              "torch.ormqr: Expected input and tau to have the same dtype, but input has dtype",
              scalar_type_name(input.scalar_type()), " and tau has dtype ",
              scalar_type_name(tau.scalar_type()));
  check_float_double("ormqr_cpu", input);
  detail::OpScope scope(input, tau, other);
  const bool dev = linalg_internal::on_device(lapack_ormqr, "ormqr", {input, tau, other});
  const Tensor a = column_major(input, dev);
  const Tensor t = (dev ? tau : tau.to(kCPU)).contiguous();
  Tensor c = column_major(other, dev);
  const int mi = static_cast<int>(input.size(-2)), ni = static_cast<int>(input.size(-1));
  const int m = static_cast<int>(other.size(-2)), n = static_cast<int>(other.size(-1));
  const int k = static_cast<int>(tau.size(-1));
  const char side = left ? 'L' : 'R', trans = transpose ? 'T' : 'N';
  if (dev) {
    if (m > 0 && n > 0) lapack_ormqr(a.device())(a, t, c, left, transpose);
  } else {
    EMBER_DISPATCH_FLOAT_DOUBLE(a.scalar_type(), "ormqr_cpu", [&] {
      if (m == 0 || n == 0) return;
      const int lda = std::max(1, mi);
      scalar_t query = 0;
      int info = 0;
      Lapack<scalar_t>::ormqr(side, trans, m, n, k, nullptr, lda, nullptr, nullptr, &query, -1,
                              &info);
      const int lwork = work_size(query);
      std::vector<scalar_t> work(lwork);
      const scalar_t* pa = a.data_ptr<scalar_t>();
      const scalar_t* pt = t.data_ptr<scalar_t>();
      scalar_t* pc = c.data_ptr<scalar_t>();
      for (int64_t i = 0; i < batch_count(c); ++i) {
        Lapack<scalar_t>::ormqr(side, trans, m, n, k, pa + i * mi * ni, lda, pt + i * k,
                                pc + i * m * n, work.data(), lwork, &info);
      }
    });
  }
  Tensor r = from_column_major(c, other.device());
  if (scope.active()) {
    scope.record("ormqr", {input, tau, other}, {r}, {Scalar(left), Scalar(transpose)});
  }
  return r;
}

// --- LU -------------------------------------------------------------------------------

// PyTorch returns an empty input's factors before its kernel's dtype check:
// they are empty, of A's dtype, whatever it is (computed here in float).
static bool empty_of_other_dtype(const Tensor& A) {
  return A.dim() >= 2 && A.numel() == 0 && A.scalar_type() != kFloat && A.scalar_type() != kDouble;
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot,
                                                       bool check_errors) {
  if (empty_of_other_dtype(A)) {
    auto [LU, pivots, infos] = linalg_lu_factor_ex(A.to(kFloat), pivot, check_errors);
    return {LU.to(A.scalar_type()), pivots, infos};
  }
  check_lu_input(A, pivot);
  detail::OpScope scope(A);
  auto [a, pivots, infos] = getrf_kernel(A);
  if (check_errors) check_lu_info("torch.linalg.lu_factor_ex", A, infos);
  Tensor LU = from_column_major(a, A.device());
  pivots = pivots.to(A.device());
  infos = infos.to(A.device());
  if (scope.active())
    scope.record("linalg_lu_factor_ex", {A}, {LU, pivots, infos}, {Scalar(pivot)});
  return {LU, pivots, infos};
}

std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot) {
  auto [LU, pivots, infos] = linalg_lu_factor_ex(A, pivot, false);
  check_lu_info("torch.linalg.lu_factor", A, infos.to(kCPU));
  return {LU, pivots};
}

std::tuple<Tensor, Tensor, Tensor> _lu_with_info(const Tensor& self, bool pivot,
                                                 bool check_errors) {
  (void)check_errors;  // PyTorch 1.13 ignores it too
  return linalg_lu_factor_ex(self, pivot, false);
}

std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU_data, const Tensor& LU_pivots,
                                             bool unpack_data, bool unpack_pivots) {
  EMBER_CHECK(LU_data.dim() >= 2,
              "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: ",
              shape_string(LU_data.sizes()), " instead");
  if (unpack_pivots) {
    EMBER_CHECK(LU_pivots.is_contiguous() && LU_pivots.scalar_type() == kInt,
                "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
                "dtype.\nNote: this function is intended to be used with the output produced by "
                "torch.linalg.lu_factor");
  }
  detail::OpScope scope(LU_data);
  const int64_t m = LU_data.size(-2), n = LU_data.size(-1), k = std::min(m, n);
  Tensor L, U, P;
  if (unpack_data) {
    L = (LU_data.narrow(-1, 0, k).tril(-1) + eye(m, k, LU_data.options())).contiguous();
    U = LU_data.narrow(-2, 0, k).triu().contiguous();
  } else {
    L = empty({0}, LU_data.options());
    U = empty({0}, LU_data.options());
  }
  if (unpack_pivots) {
    // Row i of P^T A is row perm[i] of A: A = P L U with P[perm[i], i] = 1.
    // Pivots of another batch shape broadcast to LU's (PyTorch reads past
    // their end there).
    const int64_t npiv = LU_pivots.dim() > 0 ? LU_pivots.size(-1) : 0;
    DimVector piv_shape(LU_data.sizes().begin(), LU_data.sizes().end() - 2);
    piv_shape.push_back(npiv);
    const bool dev =
        linalg_internal::on_device(lu_permutation_kernel, "lu_unpack", {LU_data, LU_pivots});
    if (dev) {
      // The pivots that count checked on the device (one flag read back),
      // composed there, and P scattered from the permutation.
      const Tensor piv = LU_pivots.expand(piv_shape).narrow(-1, 0, std::min(k, npiv)).contiguous();
      EMBER_CHECK(!piv.lt(1).logical_or(piv.gt(m)).any().item<bool>(),
                  "pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                  "inclusive.Did you properly pass the result of lu_factor?");
      DimVector perm_shape(piv_shape.begin(), piv_shape.end() - 1);
      perm_shape.push_back(m);
      Tensor perm = empty(perm_shape, TensorOptions(kLong).device(LU_data.device()));
      lu_permutation_kernel(LU_data.device())(piv, perm);
      P = zeros(broadcast_batch(LU_data, LU_data, m, m), LU_data.options());
      P.scatter_(-2, perm.unsqueeze(-2), 1);
    } else {
      const Tensor piv = LU_pivots.to(kCPU).expand(piv_shape).contiguous();
      const int64_t batches = batch_count(LU_data);
      // Built in double and cast: PyTorch unpacks integer LU_data too.
      Tensor p = zeros(broadcast_batch(LU_data, LU_data, m, m), TensorOptions(kDouble));
      {
        double* pp = p.data_ptr<double>();
        const int* pv = piv.data_ptr<int>();
        std::vector<int64_t> perm(m);
        for (int64_t b = 0; b < batches; ++b) {
          for (int64_t i = 0; i < m; ++i) perm[i] = i;
          for (int64_t i = 0; i < std::min(k, npiv); ++i) {
            const int v = pv[b * npiv + i];
            EMBER_CHECK(v >= 1 && v <= m,
                        "pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                        "inclusive.Did you properly pass the result of lu_factor?");
            std::swap(perm[i], perm[v - 1]);
          }
          for (int64_t i = 0; i < m; ++i) pp[b * m * m + perm[i] * m + i] = 1;
        }
      }
      P = p.to(LU_data.options());
    }
  } else {
    P = empty({0}, LU_data.options());
  }
  if (scope.active()) {
    scope.record("lu_unpack", {LU_data, LU_pivots}, {P, L, U},
                 {Scalar(unpack_data), Scalar(unpack_pivots)});
  }
  return {P, L, U};
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot) {
  if (empty_of_other_dtype(A)) {
    auto [P, L, U] = linalg_lu(A.to(kFloat), pivot);
    return {P.to(A.scalar_type()), L.to(A.scalar_type()), U.to(A.scalar_type())};
  }
  check_lu_input(A, pivot);
  detail::OpScope scope(A);
  Tensor P, L, U;
  {
    auto [a, pivots, infos] = getrf_kernel(A);
    (void)infos;
    std::tie(P, L, U) = lu_unpack(from_column_major(a, A.device()), pivots);
  }
  if (scope.active()) scope.record("linalg_lu", {A}, {P, L, U}, {Scalar(pivot)});
  return {P, L, U};
}

Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left,
                       bool adjoint) {
  EMBER_CHECK(LU.dim() >= 2,
              "torch.linalg.lu_solve: The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(LU.size(-1) == LU.size(-2),
              "torch.linalg.lu_solve: A must be batches of square matrices, but they are ",
              LU.size(-2), " by ", LU.size(-1), " matrices");
  EMBER_CHECK(B.dim() >= 2, "linalg.lu_solve: The input tensor B must have at least 2 dimensions.");
  const int64_t n = LU.size(-1);
  EMBER_CHECK(left ? B.size(-2) == n : B.size(-1) == n,
              "linalg.lu_solve: Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", B.size(-2), "x", B.size(-1),
              ")");
  EMBER_CHECK(is_floating_point(LU.scalar_type()),
              "torch.linalg.lu_solve: Expected a floating point or complex tensor as input. Got ",
              scalar_type_name(LU.scalar_type()));
  EMBER_CHECK(LU.scalar_type() == B.scalar_type(),
              "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type ",
              scalar_type_name(LU.scalar_type()), " and B of type ",
              scalar_type_name(B.scalar_type()), " instead");
  EMBER_CHECK(pivots.scalar_type() == kInt,
              "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32");
  EMBER_CHECK(pivots.dim() >= 1 && pivots.size(-1) == LU.size(-1),
              "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the "
              "matrix");
  EMBER_CHECK(LU.sizes().slice(0, LU.dim() - 1) == pivots.sizes(),
              "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got "
              "pivots with shape ",
              shape_string(pivots.sizes()), " instead");
  check_float_double("linalg_lu_solve", LU);
  detail::OpScope scope(LU, B);
  // X A = B is A^T X^T = B^T: one getrs with the other transposition.
  const Tensor Bt = left ? B : B.mT();
  const char trans = (left != adjoint) ? 'N' : 'T';
  const DimVector a_shape = broadcast_batch(Bt, LU, n, n);  // PyTorch names B "a"
  const DimVector b_shape = broadcast_batch(Bt, LU, n, Bt.size(-1));
  DimVector p_shape(a_shape.begin(), a_shape.end() - 1);
  const bool dev = linalg_internal::on_device(lapack_getrs, "linalg_lu_solve", {LU, pivots, B});
  const Tensor a = column_major(LU.expand(a_shape), dev);
  const Tensor piv = (dev ? pivots : pivots.to(kCPU)).expand(p_shape).contiguous();
  Tensor b = column_major(Bt.expand(b_shape), dev);
  const int k = static_cast<int>(Bt.size(-1));
  // getrs would swap rows out of range: PyTorch's checks (on a device, the
  // pivots are read back for them, as the infos of the other ops are).
  const Tensor piv_host = piv.to(kCPU);
  const int* pv = piv_host.data_ptr<int>();
  const int* pv_end = pv + piv_host.numel();
  EMBER_CHECK(std::all_of(pv, pv_end, [](int v) { return v >= 1; }),
              "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass "
              "the result of lu_factor?");
  EMBER_CHECK(std::all_of(pv, pv_end, [n](int v) { return v <= n; }),
              "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you "
              "properly pass the result of lu_factor?");
  if (dev && n > 0 && k > 0) lapack_getrs(a.device())(a, piv, b, trans == 'T');
  if (!dev) {
    EMBER_DISPATCH_FLOAT_DOUBLE(a.scalar_type(), "linalg_lu_solve", [&] {
      if (n == 0 || k == 0) return;
      const scalar_t* pa = a.data_ptr<scalar_t>();
      const int* pp = piv.data_ptr<int>();
      scalar_t* pb = b.data_ptr<scalar_t>();
      for (int64_t i = 0; i < batch_count(a); ++i) {
        int info = 0;
        Lapack<scalar_t>::getrs(trans, static_cast<int>(n), k, pa + i * n * n, pp + i * n,
                                pb + i * n * k, &info);
      }
    });
  }
  Tensor X = from_column_major(b, B.device());
  if (!left) X = X.mT();
  if (scope.active()) {
    scope.record("linalg_lu_solve", {LU, pivots, B}, {X}, {Scalar(left), Scalar(adjoint)});
  }
  return X;
}

Tensor lu_solve(const Tensor& self, const Tensor& LU_data, const Tensor& LU_pivots) {
  return linalg_lu_solve(LU_data, LU_pivots, self);
}

// --- methods --------------------------------------------------------------------------

std::tuple<Tensor, Tensor> Tensor::qr(bool some) const { return ::ember::qr(*this, some); }
std::tuple<Tensor, Tensor> Tensor::geqrf() const { return ::ember::geqrf(*this); }
Tensor Tensor::orgqr(const Tensor& input2) const { return ::ember::orgqr(*this, input2); }
Tensor Tensor::ormqr(const Tensor& input2, const Tensor& input3, bool left, bool transpose) const {
  return ::ember::ormqr(*this, input2, input3, left, transpose);
}
std::tuple<Tensor, Tensor, Tensor> Tensor::lu(bool pivot, bool get_infos) const {
  return ::ember::_lu_with_info(*this, pivot, !get_infos);
}
Tensor Tensor::lu_solve(const Tensor& LU_data, const Tensor& LU_pivots) const {
  return ::ember::lu_solve(*this, LU_data, LU_pivots);
}

}  // namespace ember
