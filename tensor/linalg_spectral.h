#ifndef EMBER_TENSOR_LINALG_SPECTRAL_H_
#define EMBER_TENSOR_LINALG_SPECTRAL_H_

// The spectral decompositions of torch.linalg and torch.Tensor: SVD,
// symmetric eigendecomposition, pseudo-inverse, least squares, rank and the
// matrix exponential, on (..., m, n) batches of float or double matrices.
// SVD, eigh and lstsq run LAPACK (OpenBLAS: gesdd, syevd, gelsy/gels/gelsd/
// gelss) on the CPU and cuSOLVER on CUDA, on the device (gesvd, a wide
// matrix through its transpose; syevd; lstsq by QR: geqrf, ormqr and
// cuBLAS trsm, PyTorch's CUDA "gels"). On CUDA, lstsq's default and only
// driver is gels, as PyTorch's (rank and singular_values empty, no rank
// check). matrix_exp
// is PyTorch's degree-18 Taylor polynomial with scaling and squaring,
// written with matmul, so it runs on the input's device. Semantics, defaults
// and error messages are PyTorch 1.13's (tensor/linalg_spectral_test.cc,
// tools/golden/linalg_spectral.py); derivatives are in
// autograd/derivatives/linalg_spectral.cc. The methods are declared in
// tensor.h.
//
// Singular vectors and eigenvectors are LAPACK's (unique only up to sign);
// gradients through them are PyTorch's gauge-invariant formulas.
//
// Deviations: complex inputs are not supported (ember has no complex
// dtype). linalg_svd's driver= is CUDA-only, as PyTorch's: "gesvd",
// "gesvdj" and "gesvda" are accepted there, but ember computes every CUDA
// SVD with gesvd (PyTorch's default, gesvdj, gives the same values to
// rounding; singular vectors may differ in sign). The gradient of det at a singular matrix
// (linalg_more.h) uses linalg_svd.
//
// Non-finite inputs (Note [Non-finite input to the SVD] in
// linalg_spectral.cc): OpenBLAS's gesdd can loop forever on them, so a NaN
// raises PyTorch's "contained non-finite values" error and a matrix of
// infinities gets NaN singular values (PyTorch 1.13's answer) without a
// LAPACK call; lstsq's gelsd and gelss refuse any non-finite matrix
// (PyTorch: an internal assert for gelsd, NaN for gelss). The same rules
// hold on CUDA (the matrices' flags are read back once).

#include <optional>
#include <string_view>
#include <tuple>

#include "tensor/tensor.h"

namespace ember {

// (U, S, Vh) with A = U diag(S) Vh, S descending; U (..., m, m) and Vh
// (..., n, n) when full_matrices, else (..., m, k) and (..., k, n),
// k = min(m, n).
std::tuple<Tensor, Tensor, Tensor> linalg_svd(
    const Tensor& A, bool full_matrices = true,
    std::optional<std::string_view> driver = std::nullopt);
// The older spelling: (U, S, V) with V = Vh^T, reduced when `some`; with
// !compute_uv, U and V are zeros of the full shapes (as PyTorch).
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& self, bool some = true,
                                       bool compute_uv = true);
// S alone.
Tensor linalg_svdvals(const Tensor& A, std::optional<std::string_view> driver = std::nullopt);

// (eigenvalues ascending, eigenvectors as columns) of the symmetric matrix
// held in A's lower (UPLO "L") or upper ("U") triangle.
std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& A, std::string_view UPLO = "L");
Tensor linalg_eigvalsh(const Tensor& A, std::string_view UPLO = "L");
// Deprecated in PyTorch 1.13 but working: eigenvectors is an empty tensor
// unless requested; upper picks the triangle (default: upper).
std::tuple<Tensor, Tensor> symeig(const Tensor& self, bool eigenvectors = false, bool upper = true);

// The pseudo-inverse, dropping singular values (eigenvalues' magnitudes
// when hermitian) at or below max(atol, rtol * largest). Without atol and
// rtol, rtol is eps(dtype) * max(m, n); with atol > 0 alone, rtol is 0.
Tensor linalg_pinv(const Tensor& A, const std::optional<Tensor>& atol = std::nullopt,
                   const std::optional<Tensor>& rtol = std::nullopt, bool hermitian = false);
Tensor linalg_pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol,
                   bool hermitian = false);
// rcond: rtol with atol 0.
Tensor linalg_pinv(const Tensor& A, double rcond, bool hermitian = false);
Tensor linalg_pinv(const Tensor& A, const Tensor& rcond, bool hermitian = false);
Tensor pinverse(const Tensor& self, double rcond = 1e-15);

// (solution, residuals, rank, singular_values) of min ||A X - B||, B
// (..., m, k) or a batch of vectors (..., m). driver: "gelsy" (default),
// "gels" (full rank), "gelsd", "gelss"; rcond defaults to eps * max(m, n).
// rank is empty for gels; singular_values only from gelsd/gelss; residuals
// (squared norms of each column's residual) only when m > n, the driver is
// not gelsy and every matrix has full rank. Free function only, as
// libtorch 1.13 (no Tensor::lstsq).
std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq(
    const Tensor& self, const Tensor& b, std::optional<double> rcond = std::nullopt,
    std::optional<std::string_view> driver = std::nullopt);

// The number of singular values (eigenvalue magnitudes when hermitian)
// above max(atol, rtol * largest), as int64; tolerances as linalg_pinv's.
Tensor linalg_matrix_rank(const Tensor& input, const std::optional<Tensor>& atol = std::nullopt,
                          const std::optional<Tensor>& rtol = std::nullopt, bool hermitian = false);
Tensor linalg_matrix_rank(const Tensor& input, std::optional<double> atol,
                          std::optional<double> rtol, bool hermitian = false);
// tol: atol with rtol 0.
Tensor linalg_matrix_rank(const Tensor& input, double tol, bool hermitian = false);
Tensor linalg_matrix_rank(const Tensor& input, const Tensor& tol, bool hermitian = false);

// e^A of each square matrix, laid out as A. Where ember differs from 1.13:
// a NaN anywhere in a matrix gives NaN (1.13 returns finite numbers), and
// float16/bfloat16 raise "not implemented" (1.13's bfloat16 results are
// wrong: -1.3e30 on the diagonal of e^[[0.1, 0.2], [0.3, 0.4]]; its float16
// raises).
Tensor matrix_exp(const Tensor& self);
Tensor linalg_matrix_exp(const Tensor& A);

}  // namespace ember

#endif  // EMBER_TENSOR_LINALG_SPECTRAL_H_
