// The CUDA entries of tensor/lapack_kernels.h's tables: cuSOLVER's dense
// LAPACK (getrf, getrs, potrf, potrs, syevd, geqrf, orgqr, ormqr, gesvd) and cuBLAS's trsm, as
// PyTorch's CUDA linalg calls them, on column-major batches the ops prepared on the device. A batch
// is a loop over its matrices on the handle's stream (one workspace for all, allocated through
// ember's allocator), or for LU of small square matrices one batched cuBLAS call (Note [Batched
// LU]); the infos stay on the device, where each call writes its matrix's.

#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/cublas_handle.h"
#include "tensor/cuda/kernels.h"
#include "tensor/cuda/launch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/lapack_kernels.h"

namespace ember {
namespace cuda {
namespace kernels {
// lu_pivots.cu.
cudaError_t launch_lu_permutation(const int* pivots, int64_t* perm, int64_t batches, int64_t npiv,
                                  int64_t m, cudaStream_t stream);
// out[i] = base + i * stride_bytes for i < n.
cudaError_t launch_pointer_array(void** out, char* base, int64_t stride_bytes, int64_t n,
                                 cudaStream_t stream);
}  // namespace kernels
namespace {

// The stream every call below runs on: the current device's current
// stream (Note [CUDA streams] in stream.cc).
cudaStream_t lapack_stream() { return kernels::current_stream(); }

void check_cusolver(cusolverStatus_t s, const char* what) {
  if (s != CUSOLVER_STATUS_SUCCESS) {
    throw Error(
        absl::StrCat("cusolver error: status ", static_cast<int>(s), " when calling `", what, "`"));
  }
}

// One handle per thread and device, as cublas_handle's; they live until the
// thread exits. Each use sets lapack_stream().
cusolverDnHandle_t solver_handle(int device) {
  struct Handles {
    std::unordered_map<int, cusolverDnHandle_t> by_device;
    ~Handles() {
      for (auto& kv : by_device) cusolverDnDestroy(kv.second);
    }
  };
  thread_local Handles handles;
  auto it = handles.by_device.find(device);
  cusolverDnHandle_t h;
  if (it != handles.by_device.end()) {
    h = it->second;
  } else {
    check_cusolver(cusolverDnCreate(&h), "cusolverDnCreate(handle)");
    handles.by_device[device] = h;
  }
  check_cusolver(cusolverDnSetStream(h, lapack_stream()), "cusolverDnSetStream");
  return h;
}

// One spelling per routine for float and double.
template <typename T>
struct Solver;
template <>
struct Solver<float> {
  static cusolverStatus_t getrf_size(cusolverDnHandle_t h, int m, int n, float* a, int lda,
                                     int* lwork) {
    return cusolverDnSgetrf_bufferSize(h, m, n, a, lda, lwork);
  }
  static cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, float* a, int lda, float* w,
                                int* ipiv, int* info) {
    return cusolverDnSgetrf(h, m, n, a, lda, w, ipiv, info);
  }
  static cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, int k,
                                const float* a, const int* ipiv, float* b, int* info) {
    return cusolverDnSgetrs(h, t, n, k, a, n, ipiv, b, n, info);
  }
  static cusolverStatus_t potrf_size(cusolverDnHandle_t h, int n, float* a, int* lwork) {
    return cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, lwork);
  }
  static cusolverStatus_t potrf(cusolverDnHandle_t h, int n, float* a, float* w, int lwork,
                                int* info) {
    return cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, w, lwork, info);
  }
  static cusolverStatus_t potrs(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, int k,
                                const float* a, float* b, int* info) {
    return cusolverDnSpotrs(h, uplo, n, k, a, n, b, n, info);
  }
  static cusolverStatus_t syevd_size(cusolverDnHandle_t h, cusolverEigMode_t jobz,
                                     cublasFillMode_t uplo, int n, const float* a, const float* w,
                                     int* lwork) {
    return cusolverDnSsyevd_bufferSize(h, jobz, uplo, n, a, n, w, lwork);
  }
  static cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo,
                                int n, float* a, float* w, float* work, int lwork, int* info) {
    return cusolverDnSsyevd(h, jobz, uplo, n, a, n, w, work, lwork, info);
  }
  static cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, float* a, int* lwork) {
    return cusolverDnSgeqrf_bufferSize(h, m, n, a, m, lwork);
  }
  static cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, float* a, float* tau, float* w,
                                int lwork, int* info) {
    return cusolverDnSgeqrf(h, m, n, a, m, tau, w, lwork, info);
  }
  static cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int n, int k, const float* a,
                                     const float* tau, int* lwork) {
    return cusolverDnSorgqr_bufferSize(h, m, n, k, a, m, tau, lwork);
  }
  static cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, float* a,
                                const float* tau, float* w, int lwork, int* info) {
    return cusolverDnSorgqr(h, m, n, k, a, m, tau, w, lwork, info);
  }
  static cusolverStatus_t ormqr_size(cusolverDnHandle_t h, cublasSideMode_t side,
                                     cublasOperation_t t, int m, int n, int k, const float* a,
                                     int lda, const float* tau, const float* c, int* lwork) {
    return cusolverDnSormqr_bufferSize(h, side, t, m, n, k, a, lda, tau, c, m, lwork);
  }
  static cusolverStatus_t ormqr(cusolverDnHandle_t h, cublasSideMode_t side, cublasOperation_t t,
                                int m, int n, int k, const float* a, int lda, const float* tau,
                                float* c, float* w, int lwork, int* info) {
    return cusolverDnSormqr(h, side, t, m, n, k, a, lda, tau, c, m, w, lwork, info);
  }
  static cusolverStatus_t gesvd_size(cusolverDnHandle_t h, int m, int n, int* lwork) {
    return cusolverDnSgesvd_bufferSize(h, m, n, lwork);
  }
  static cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char job, int m, int n, float* a,
                                float* s, float* u, float* vt, float* w, int lwork, float* rwork,
                                int* info) {
    return cusolverDnSgesvd(h, job, job, m, n, a, m, s, u, m, vt, n, w, lwork, rwork, info);
  }
  static cublasStatus_t trsm(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t t,
                             cublasDiagType_t diag, int n, int k, const float* a, float* b) {
    const float one = 1;
    return cublasStrsm(h, CUBLAS_SIDE_LEFT, uplo, t, diag, n, k, &one, a, n, b, n);
  }
  static cublasStatus_t getrf_batched(cublasHandle_t h, int n, float** a, int* ipiv, int* info,
                                      int batches) {
    return cublasSgetrfBatched(h, n, a, n, ipiv, info, batches);
  }
  static cublasStatus_t getrs_batched(cublasHandle_t h, cublasOperation_t t, int n, int k,
                                      const float* const* a, const int* ipiv, float* const* b,
                                      int* info, int batches) {
    return cublasSgetrsBatched(h, t, n, k, a, n, ipiv, b, n, info, batches);
  }
};
template <>
struct Solver<double> {
  static cusolverStatus_t getrf_size(cusolverDnHandle_t h, int m, int n, double* a, int lda,
                                     int* lwork) {
    return cusolverDnDgetrf_bufferSize(h, m, n, a, lda, lwork);
  }
  static cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, double* a, int lda, double* w,
                                int* ipiv, int* info) {
    return cusolverDnDgetrf(h, m, n, a, lda, w, ipiv, info);
  }
  static cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, int k,
                                const double* a, const int* ipiv, double* b, int* info) {
    return cusolverDnDgetrs(h, t, n, k, a, n, ipiv, b, n, info);
  }
  static cusolverStatus_t potrf_size(cusolverDnHandle_t h, int n, double* a, int* lwork) {
    return cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, lwork);
  }
  static cusolverStatus_t potrf(cusolverDnHandle_t h, int n, double* a, double* w, int lwork,
                                int* info) {
    return cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, w, lwork, info);
  }
  static cusolverStatus_t potrs(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, int k,
                                const double* a, double* b, int* info) {
    return cusolverDnDpotrs(h, uplo, n, k, a, n, b, n, info);
  }
  static cusolverStatus_t syevd_size(cusolverDnHandle_t h, cusolverEigMode_t jobz,
                                     cublasFillMode_t uplo, int n, const double* a, const double* w,
                                     int* lwork) {
    return cusolverDnDsyevd_bufferSize(h, jobz, uplo, n, a, n, w, lwork);
  }
  static cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo,
                                int n, double* a, double* w, double* work, int lwork, int* info) {
    return cusolverDnDsyevd(h, jobz, uplo, n, a, n, w, work, lwork, info);
  }
  static cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, double* a, int* lwork) {
    return cusolverDnDgeqrf_bufferSize(h, m, n, a, m, lwork);
  }
  static cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, double* a, double* tau,
                                double* w, int lwork, int* info) {
    return cusolverDnDgeqrf(h, m, n, a, m, tau, w, lwork, info);
  }
  static cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int n, int k, const double* a,
                                     const double* tau, int* lwork) {
    return cusolverDnDorgqr_bufferSize(h, m, n, k, a, m, tau, lwork);
  }
  static cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, double* a,
                                const double* tau, double* w, int lwork, int* info) {
    return cusolverDnDorgqr(h, m, n, k, a, m, tau, w, lwork, info);
  }
  static cusolverStatus_t ormqr_size(cusolverDnHandle_t h, cublasSideMode_t side,
                                     cublasOperation_t t, int m, int n, int k, const double* a,
                                     int lda, const double* tau, const double* c, int* lwork) {
    return cusolverDnDormqr_bufferSize(h, side, t, m, n, k, a, lda, tau, c, m, lwork);
  }
  static cusolverStatus_t ormqr(cusolverDnHandle_t h, cublasSideMode_t side, cublasOperation_t t,
                                int m, int n, int k, const double* a, int lda, const double* tau,
                                double* c, double* w, int lwork, int* info) {
    return cusolverDnDormqr(h, side, t, m, n, k, a, lda, tau, c, m, w, lwork, info);
  }
  static cusolverStatus_t gesvd_size(cusolverDnHandle_t h, int m, int n, int* lwork) {
    return cusolverDnDgesvd_bufferSize(h, m, n, lwork);
  }
  static cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char job, int m, int n, double* a,
                                double* s, double* u, double* vt, double* w, int lwork,
                                double* rwork, int* info) {
    return cusolverDnDgesvd(h, job, job, m, n, a, m, s, u, m, vt, n, w, lwork, rwork, info);
  }
  static cublasStatus_t trsm(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t t,
                             cublasDiagType_t diag, int n, int k, const double* a, double* b) {
    const double one = 1;
    return cublasDtrsm(h, CUBLAS_SIDE_LEFT, uplo, t, diag, n, k, &one, a, n, b, n);
  }
  static cublasStatus_t getrf_batched(cublasHandle_t h, int n, double** a, int* ipiv, int* info,
                                      int batches) {
    return cublasDgetrfBatched(h, n, a, n, ipiv, info, batches);
  }
  static cublasStatus_t getrs_batched(cublasHandle_t h, cublasOperation_t t, int n, int k,
                                      const double* const* a, const int* ipiv, double* const* b,
                                      int* info, int batches) {
    return cublasDgetrsBatched(h, t, n, k, a, n, ipiv, b, n, info, batches);
  }
};

// The number of matrices in a column-major batch (..., cols, rows).
int64_t matrices(const Tensor& t) {
  int64_t count = 1;
  for (int64_t d = 0; d + 2 < t.dim(); ++d) count *= t.size(d);
  return count;
}

int checked_int(int64_t v, const char* what) {
  EMBER_CHECK(v <= INT_MAX, what, ": matrices of more than 2^31 - 1 elements are not supported");
  return static_cast<int>(v);
}

// A float/double dispatch over the two Solver spellings.
template <typename F>
void dispatch(const Tensor& t, const char* name, F&& f) {
  if (t.scalar_type() == kFloat) {
    f(float{});
  } else if (t.scalar_type() == kDouble) {
    f(double{});
  } else {
    throw Error(absl::StrCat("\"", name, "\" not implemented for '",
                             scalar_type_name(t.scalar_type()), "'"));
  }
}

// Note [Batched LU]: PyTorch's CUDA LU factorization and LU solve of a
// batch of square matrices call cuBLAS's batched routines (one launch for
// the whole batch) below n = 512, and cuSOLVER per matrix above, or for a
// single matrix. The batched routines take device arrays of the matrices'
// addresses, which a kernel writes (an upload would synchronize, and could
// not be captured in a CUDA graph). Their pivots and infos are LAPACK's,
// as cuSOLVER's.
constexpr int kBatchedLuMaxN = 512;

bool use_batched_lu(int n, int64_t batches) {
  return batches > 1 && n < kBatchedLuMaxN && batches <= INT_MAX;
}

// The device array of the addresses of t's `batches` matrices of
// `matrix_elems` elements each (held by the returned tensor).
Tensor matrix_pointers(const Tensor& t, int64_t batches, int64_t matrix_elems) {
  Tensor ptrs = empty({batches}, TensorOptions(kLong).device(t.device()));
  detail::check_launch(
      kernels::launch_pointer_array(
          static_cast<void**>(ptrs.data_ptr()), static_cast<char*>(t.data_ptr()),
          matrix_elems * static_cast<int64_t>(t.element_size()), batches, lapack_stream()),
      "lu_batched_cuda", t.dtype());
  return ptrs;
}

// A workspace of `elements` values of t's dtype on its device.
Tensor workspace(const Tensor& t, int elements) {
  return empty({std::max(1, elements)}, t.options());
}

void getrf_cuda(Tensor& a, Tensor& pivots, Tensor& infos) {
  const int rows = checked_int(a.size(-1), "getrf"), cols = checked_int(a.size(-2), "getrf");
  const int lda = std::max(1, rows);
  const int k = std::min(rows, cols);
  const int64_t batches = matrices(a);
  detail::DeviceGuard guard(a.device().index());
  if (rows == 0 || cols == 0) {
    if (infos.numel() > 0) infos.zero_();
    return;
  }
  checked_int(static_cast<int64_t>(rows) * cols, "getrf");
  cusolverDnHandle_t h = solver_handle(a.device().index());
  dispatch(a, "lu_cuda", [&](auto zero) {
    using T = decltype(zero);
    T* pa = a.data_ptr<T>();
    int lwork = 0;
    check_cusolver(Solver<T>::getrf_size(h, rows, cols, pa, lda, &lwork),
                   "cusolverDnXgetrf_bufferSize");
    Tensor work = workspace(a, lwork);
    int* pp = pivots.data_ptr<int>();
    int* pi = infos.data_ptr<int>();
    if (rows == cols && use_batched_lu(rows, batches)) {  // Note [Batched LU]
      Tensor ptrs = matrix_pointers(a, batches, static_cast<int64_t>(rows) * cols);
      detail::check_cublas(Solver<T>::getrf_batched(detail::cublas_handle(a.device().index()), rows,
                                                    static_cast<T**>(ptrs.data_ptr()), pp, pi,
                                                    static_cast<int>(batches)),
                           "cublasXgetrfBatched");
      return;
    }
    for (int64_t i = 0; i < batches; ++i) {
      check_cusolver(Solver<T>::getrf(h, rows, cols, pa + i * rows * cols, lda, work.data_ptr<T>(),
                                      pp + i * k, pi + i),
                     "cusolverDnXgetrf");
    }
  });
}

void getrs_cuda(const Tensor& lu, const Tensor& pivots, Tensor& b, bool transpose) {
  const int n = checked_int(lu.size(-1), "getrs"), k = checked_int(b.size(-2), "getrs");
  if (n == 0 || k == 0) return;
  checked_int(static_cast<int64_t>(n) * std::max(n, k), "getrs");
  detail::DeviceGuard guard(b.device().index());
  cusolverDnHandle_t h = solver_handle(b.device().index());
  const int64_t batches = matrices(b);
  Tensor info = empty({1}, TensorOptions(kInt).device(b.device()));
  dispatch(b, "lu_solve_cuda", [&](auto zero) {
    using T = decltype(zero);
    const T* pa = lu.data_ptr<T>();
    const int* pp = pivots.data_ptr<int>();
    T* pb = b.data_ptr<T>();
    if (use_batched_lu(n, batches) && matrices(lu) == batches) {  // Note [Batched LU]
      Tensor a_ptrs = matrix_pointers(lu, batches, static_cast<int64_t>(n) * n);
      Tensor b_ptrs = matrix_pointers(b, batches, static_cast<int64_t>(n) * k);
      int arg_info = 0;  // cuBLAS checks its arguments on the host
      detail::check_cublas(Solver<T>::getrs_batched(detail::cublas_handle(b.device().index()),
                                                    transpose ? CUBLAS_OP_T : CUBLAS_OP_N, n, k,
                                                    static_cast<const T* const*>(a_ptrs.data_ptr()),
                                                    pp, static_cast<T* const*>(b_ptrs.data_ptr()),
                                                    &arg_info, static_cast<int>(batches)),
                           "cublasXgetrsBatched");
      EMBER_CHECK(arg_info == 0, "cublasXgetrsBatched: invalid argument ", -arg_info);
      return;
    }
    for (int64_t i = 0; i < batches; ++i) {
      check_cusolver(
          Solver<T>::getrs(h, transpose ? CUBLAS_OP_T : CUBLAS_OP_N, n, k, pa + i * n * n,
                           pp + i * n, pb + i * n * k, info.data_ptr<int>()),
          "cusolverDnXgetrs");
    }
  });
}

void potrf_cuda(Tensor& a, Tensor& infos) {
  const int n = checked_int(a.size(-1), "potrf");
  detail::DeviceGuard guard(a.device().index());
  if (n == 0) {
    if (infos.numel() > 0) infos.zero_();
    return;
  }
  checked_int(static_cast<int64_t>(n) * n, "potrf");
  cusolverDnHandle_t h = solver_handle(a.device().index());
  const int64_t batches = matrices(a);
  dispatch(a, "cholesky_cuda", [&](auto zero) {
    using T = decltype(zero);
    T* pa = a.data_ptr<T>();
    int lwork = 0;
    check_cusolver(Solver<T>::potrf_size(h, n, pa, &lwork), "cusolverDnXpotrf_bufferSize");
    Tensor work = workspace(a, lwork);
    int* pi = infos.data_ptr<int>();
    for (int64_t i = 0; i < batches; ++i) {
      check_cusolver(Solver<T>::potrf(h, n, pa + i * n * n, work.data_ptr<T>(), lwork, pi + i),
                     "cusolverDnXpotrf");
    }
  });
}

void potrs_cuda(const Tensor& l, Tensor& b, bool upper) {
  const int n = checked_int(l.size(-1), "potrs"), k = checked_int(b.size(-2), "potrs");
  if (n == 0 || k == 0) return;
  checked_int(static_cast<int64_t>(n) * std::max(n, k), "potrs");
  detail::DeviceGuard guard(b.device().index());
  cusolverDnHandle_t h = solver_handle(b.device().index());
  const int64_t batches = matrices(b);
  Tensor info = empty({1}, TensorOptions(kInt).device(b.device()));
  dispatch(b, "cholesky_solve_cuda", [&](auto zero) {
    using T = decltype(zero);
    const T* pl = l.data_ptr<T>();
    T* pb = b.data_ptr<T>();
    for (int64_t i = 0; i < batches; ++i) {
      check_cusolver(Solver<T>::potrs(h, upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, n,
                                      k, pl + i * n * n, pb + i * n * k, info.data_ptr<int>()),
                     "cusolverDnXpotrs");
    }
  });
}

void trsm_cuda(const Tensor& a, Tensor& b, bool upper, bool transpose, bool unitriangular) {
  const int n = checked_int(a.size(-1), "trsm"), k = checked_int(b.size(-2), "trsm");
  if (n == 0 || k == 0) return;
  checked_int(static_cast<int64_t>(n) * std::max(n, k), "trsm");
  detail::DeviceGuard guard(b.device().index());
  cublasHandle_t h = detail::cublas_handle(b.device().index());
  const int64_t batches = matrices(b);
  dispatch(b, "triangular_solve_cuda", [&](auto zero) {
    using T = decltype(zero);
    const T* pa = a.data_ptr<T>();
    T* pb = b.data_ptr<T>();
    for (int64_t i = 0; i < batches; ++i) {
      detail::check_cublas(
          Solver<T>::trsm(h, upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
                          transpose ? CUBLAS_OP_T : CUBLAS_OP_N,
                          unitriangular ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, n, k,
                          pa + i * n * n, pb + i * n * k),
          "cublasXtrsm");
    }
  });
}

void syevd_cuda(Tensor& a, Tensor& w, Tensor& infos, bool upper, bool vectors) {
  const int n = checked_int(a.size(-1), "syevd");
  detail::DeviceGuard guard(a.device().index());
  if (n == 0) {
    if (infos.numel() > 0) infos.zero_();
    return;
  }
  checked_int(static_cast<int64_t>(n) * n, "syevd");
  cusolverDnHandle_t h = solver_handle(a.device().index());
  const int64_t batches = matrices(a);
  const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  dispatch(a, "linalg_eigh_cuda", [&](auto zero) {
    using T = decltype(zero);
    T* pa = a.data_ptr<T>();
    T* pw = w.data_ptr<T>();
    int lwork = 0;
    check_cusolver(Solver<T>::syevd_size(h, jobz, uplo, n, pa, pw, &lwork),
                   "cusolverDnXsyevd_bufferSize");
    Tensor work = workspace(a, lwork);
    int* pi = infos.data_ptr<int>();
    for (int64_t i = 0; i < batches; ++i) {
      check_cusolver(Solver<T>::syevd(h, jobz, uplo, n, pa + i * n * n, pw + i * n,
                                      work.data_ptr<T>(), lwork, pi + i),
                     "cusolverDnXsyevd");
    }
  });
}

void geqrf_cuda(Tensor& a, Tensor& tau) {
  const int m = checked_int(a.size(-1), "geqrf"), n = checked_int(a.size(-2), "geqrf");
  if (m == 0 || n == 0) return;
  checked_int(static_cast<int64_t>(m) * n, "geqrf");
  const int k = std::min(m, n);
  detail::DeviceGuard guard(a.device().index());
  cusolverDnHandle_t h = solver_handle(a.device().index());
  const int64_t batches = matrices(a);
  Tensor info = empty({1}, TensorOptions(kInt).device(a.device()));
  dispatch(a, "geqrf_cuda", [&](auto zero) {
    using T = decltype(zero);
    T* pa = a.data_ptr<T>();
    T* pt = tau.data_ptr<T>();
    int lwork = 0;
    check_cusolver(Solver<T>::geqrf_size(h, m, n, pa, &lwork), "cusolverDnXgeqrf_bufferSize");
    Tensor work = workspace(a, lwork);
    for (int64_t i = 0; i < batches; ++i) {
      check_cusolver(Solver<T>::geqrf(h, m, n, pa + i * m * n, pt + i * k, work.data_ptr<T>(),
                                      lwork, info.data_ptr<int>()),
                     "cusolverDnXgeqrf");
    }
  });
}

void orgqr_cuda(Tensor& q, const Tensor& tau) {
  const int cols = checked_int(q.size(-2), "orgqr"), m = checked_int(q.size(-1), "orgqr");
  const int k = checked_int(tau.size(-1), "orgqr");
  if (m == 0 || cols == 0) return;
  checked_int(static_cast<int64_t>(m) * cols, "orgqr");
  detail::DeviceGuard guard(q.device().index());
  cusolverDnHandle_t h = solver_handle(q.device().index());
  const int64_t batches = matrices(q);
  Tensor info = empty({1}, TensorOptions(kInt).device(q.device()));
  dispatch(q, "orgqr_cuda", [&](auto zero) {
    using T = decltype(zero);
    T* pq = q.data_ptr<T>();
    const T* pt = tau.data_ptr<T>();
    int lwork = 0;
    check_cusolver(Solver<T>::orgqr_size(h, m, cols, k, pq, pt, &lwork),
                   "cusolverDnXorgqr_bufferSize");
    Tensor work = workspace(q, lwork);
    for (int64_t i = 0; i < batches; ++i) {
      check_cusolver(Solver<T>::orgqr(h, m, cols, k, pq + i * m * cols, pt + i * k,
                                      work.data_ptr<T>(), lwork, info.data_ptr<int>()),
                     "cusolverDnXorgqr");
    }
  });
}

void ormqr_cuda(const Tensor& a, const Tensor& tau, Tensor& c, bool left, bool transpose) {
  const int mi = checked_int(a.size(-1), "ormqr"), ni = checked_int(a.size(-2), "ormqr");
  const int m = checked_int(c.size(-1), "ormqr"), n = checked_int(c.size(-2), "ormqr");
  const int k = checked_int(tau.size(-1), "ormqr");
  if (m == 0 || n == 0) return;
  checked_int(static_cast<int64_t>(mi) * ni, "ormqr");
  checked_int(static_cast<int64_t>(m) * n, "ormqr");
  const int lda = std::max(1, mi);
  detail::DeviceGuard guard(c.device().index());
  cusolverDnHandle_t h = solver_handle(c.device().index());
  const int64_t batches = matrices(c);
  const cublasSideMode_t side = left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
  const cublasOperation_t t = transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  Tensor info = empty({1}, TensorOptions(kInt).device(c.device()));
  dispatch(c, "ormqr_cuda", [&](auto zero) {
    using T = decltype(zero);
    const T* pa = a.data_ptr<T>();
    const T* pt = tau.data_ptr<T>();
    T* pc = c.data_ptr<T>();
    int lwork = 0;
    check_cusolver(Solver<T>::ormqr_size(h, side, t, m, n, k, pa, lda, pt, pc, &lwork),
                   "cusolverDnXormqr_bufferSize");
    Tensor work = workspace(c, lwork);
    for (int64_t i = 0; i < batches; ++i) {
      check_cusolver(
          Solver<T>::ormqr(h, side, t, m, n, k, pa + i * mi * ni, lda, pt + i * k, pc + i * m * n,
                           work.data_ptr<T>(), lwork, info.data_ptr<int>()),
          "cusolverDnXormqr");
    }
  });
}

void gesvd_cuda(Tensor& a, Tensor& s, Tensor& u, Tensor& vt, Tensor& infos, char job) {
  const int m = checked_int(a.size(-1), "gesvd"), n = checked_int(a.size(-2), "gesvd");
  EMBER_CHECK(m >= n, "gesvd_cuda: expects rows >= columns");
  detail::DeviceGuard guard(a.device().index());
  if (n == 0) {
    if (infos.numel() > 0) infos.zero_();
    return;
  }
  checked_int(static_cast<int64_t>(m) * m, "gesvd");
  cusolverDnHandle_t h = solver_handle(a.device().index());
  const int64_t batches = matrices(a);
  const int ucols = job == 'A' ? m : n;
  dispatch(a, "linalg_svd_cuda", [&](auto zero) {
    using T = decltype(zero);
    T* pa = a.data_ptr<T>();
    T* ps = s.data_ptr<T>();
    T* pu = job != 'N' ? u.data_ptr<T>() : nullptr;
    T* pv = job != 'N' ? vt.data_ptr<T>() : nullptr;
    int lwork = 0;
    check_cusolver(Solver<T>::gesvd_size(h, m, n, &lwork), "cusolverDnXgesvd_bufferSize");
    Tensor work = workspace(a, lwork);
    Tensor rwork = workspace(a, n);
    int* pi = infos.data_ptr<int>();
    for (int64_t i = 0; i < batches; ++i) {
      check_cusolver(
          Solver<T>::gesvd(h, static_cast<signed char>(job), m, n, pa + i * m * n, ps + i * n,
                           pu ? pu + i * m * ucols : nullptr, pv ? pv + i * n * n : nullptr,
                           work.data_ptr<T>(), lwork, rwork.data_ptr<T>(), pi + i),
          "cusolverDnXgesvd");
    }
  });
}

void lu_permutation_cuda(const Tensor& pivots, Tensor& perm) {
  const int64_t m = perm.size(-1), npiv = pivots.size(-1);
  detail::DeviceGuard guard(perm.device().index());
  const int64_t batches = m == 0 ? 0 : perm.numel() / m;
  const cudaError_t err = kernels::launch_lu_permutation(
      pivots.data_ptr<int>(), perm.data_ptr<int64_t>(), batches, npiv, m, lapack_stream());
  if (err != cudaSuccess) {
    throw Error(
        absl::StrCat("CUDA error: ", cudaGetErrorString(err), " when launching `lu_unpack`"));
  }
}

}  // namespace
}  // namespace cuda

EMBER_REGISTER_KERNEL(lapack_getrf, kCUDA, &cuda::getrf_cuda);
EMBER_REGISTER_KERNEL(lapack_getrs, kCUDA, &cuda::getrs_cuda);
EMBER_REGISTER_KERNEL(lapack_potrf, kCUDA, &cuda::potrf_cuda);
EMBER_REGISTER_KERNEL(lapack_potrs, kCUDA, &cuda::potrs_cuda);
EMBER_REGISTER_KERNEL(lapack_trsm, kCUDA, &cuda::trsm_cuda);
EMBER_REGISTER_KERNEL(lapack_syevd, kCUDA, &cuda::syevd_cuda);
EMBER_REGISTER_KERNEL(lapack_geqrf, kCUDA, &cuda::geqrf_cuda);
EMBER_REGISTER_KERNEL(lapack_orgqr, kCUDA, &cuda::orgqr_cuda);
EMBER_REGISTER_KERNEL(lapack_ormqr, kCUDA, &cuda::ormqr_cuda);
EMBER_REGISTER_KERNEL(lapack_gesvd, kCUDA, &cuda::gesvd_cuda);
EMBER_REGISTER_KERNEL(lu_permutation_kernel, kCUDA, &cuda::lu_permutation_cuda);

}  // namespace ember
