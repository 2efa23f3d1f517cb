#ifndef EMBER_TENSOR_LINALG_MORE_H_
#define EMBER_TENSOR_LINALG_MORE_H_

// The dense linear algebra of torch.Tensor and torch.linalg that ember
// lacked: inverse, det, slogdet, logdet, solve, triangular_solve and the
// Cholesky family, on (..., n, n) batches of float or double matrices,
// computed by LAPACK (OpenBLAS) on the CPU and by cuSOLVER/cuBLAS on CUDA
// (tensor/lapack_kernels.h, tensor/cuda/cusolver.cc: the buffers stay on
// the device; only the per-matrix infos are read back, to raise the CPU's
// errors). inverse on CUDA solves against the identity (getrs) where the
// CPU runs getri, as PyTorch's CUDA path does; results agree to rounding.
// A device without those entries goes through the CPU with Note [CPU
// fallback]'s warning. Semantics and error messages are PyTorch 1.13's
// (tensor/linalg_more_test.cc, tools/golden/linalg_more.py); derivatives
// are in autograd/derivatives/linalg_more.cc. The methods are declared in
// tensor.h.
//
// Deviations: PyTorch raises torch.linalg.LinAlgError (a RuntimeError) for
// singular and non-positive-definite inputs, ember its ember::Error. The
// gradient of det at a singular matrix goes through an SVD
// (linalg_spectral.h) and is the adjugate, as PyTorch 1.13's under grad mode;
// PyTorch's first-order path returns zeros there instead (wrong for rank
// n-1), which ember deliberately does not copy.

#include <tuple>

#include "tensor/tensor.h"

namespace ember {

// A^-1 for each matrix of A (..., n, n); a singular one is an error.
Tensor linalg_inv(const Tensor& A);
Tensor inverse(const Tensor& self);

// The determinant of each matrix (shape A.shape[:-2]).
Tensor linalg_det(const Tensor& A);
Tensor det(const Tensor& self);

// (sign, log|det|) of each matrix; a singular one gives (0, -inf).
std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A);
std::tuple<Tensor, Tensor> slogdet(const Tensor& self);

// log(det): NaN where det < 0, -inf where it is 0.
Tensor logdet(const Tensor& self);

// X with A X = B (left) or X A = B (!left). B is a batch of vectors when it
// is 1-D or its shape is A's without the last dim; batch dims broadcast.
Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left = true);

// (X, A's copy) with op(A) X = self (self = b), A upper or lower
// triangular (the other triangle is ignored), op(A) = A^T when transpose,
// A's diagonal taken as ones when unitriangular. A singular A gives
// infinities, not an error (as PyTorch's).
std::tuple<Tensor, Tensor> triangular_solve(const Tensor& self, const Tensor& A, bool upper = true,
                                            bool transpose = false, bool unitriangular = false);

// The Cholesky factor L (A = L L^T) from A's lower triangle, or U = L^T
// when upper.
Tensor linalg_cholesky(const Tensor& A, bool upper = false);
Tensor cholesky(const Tensor& self, bool upper = false);

// X with A X = self, given A's Cholesky factor input2 (lower, or upper
// when upper); batch dims broadcast.
Tensor cholesky_solve(const Tensor& self, const Tensor& input2, bool upper = false);

// A^-1 from A's Cholesky factor self.
Tensor cholesky_inverse(const Tensor& self, bool upper = false);

}  // namespace ember

#endif  // EMBER_TENSOR_LINALG_MORE_H_
