#ifndef EMBER_TENSOR_LINALG_FACTOR_H_
#define EMBER_TENSOR_LINALG_FACTOR_H_

// The QR and LU factorizations of torch.Tensor and torch.linalg, on
// (..., m, n) batches of float or double matrices (square, wide or tall),
// computed by LAPACK (OpenBLAS: geqrf, orgqr, ormqr, getrf, getrs) on the
// CPU and by cuSOLVER's routines of the same names on CUDA, on the device
// (as linalg_more.h's). linalg_lu_solve and lu_unpack read back what their
// pivot range checks need (the pivots; one flag), as the other ops read
// their infos.
// Values, semantics and error messages are PyTorch 1.13's
// (tensor/linalg_factor_test.cc, tools/golden/linalg_factor.py): PyTorch's
// CPU path calls the same LAPACK routines, so Q, R, LU and the pivots carry
// LAPACK's sign and pivoting conventions. Derivatives are in
// autograd/derivatives/linalg_factor.cc; the methods are declared in
// tensor.h.
//
// Deviations:
// - pivot=false (LU without pivoting) is CUDA-only in PyTorch; ember
//   computes through LAPACK on every device, so it raises PyTorch's CPU
//   error ("LU without pivoting is not implemented on the CPU") for CUDA
//   inputs too.
// - As in PyTorch 1.13, geqrf and ormqr record GeqrfBackward0 and
//   OrmqrBackward0 nodes whose backward raises "the derivative for
//   'geqrf' is not implemented." (an ember::Error; PyTorch: a
//   NotImplementedError).
// - Tensor::lu (Python's torch.Tensor.lu, which has no libtorch method)
//   always returns the 3-tuple (LU, pivots, infos); get_infos only says
//   whether the caller wants infos, and, as in PyTorch 1.13, a singular
//   matrix is never an error there.

#include <string>
#include <tuple>

#include "tensor/tensor.h"

namespace ember {

// --- QR ----------------------------------------------------------------------------

// (Q, R) with A = Q R. mode "reduced": Q (..., m, k), R (..., k, n) with
// k = min(m, n); "complete": Q (..., m, m), R (..., m, n); "r": only R
// (k, n), Q empty.
std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, const std::string& mode = "reduced");
// linalg_qr(self, some ? "reduced" : "complete") (deprecated in PyTorch).
std::tuple<Tensor, Tensor> qr(const Tensor& self, bool some = true);

// LAPACK's geqrf: (a, tau), R in a's upper triangle and the Householder
// vectors below it, tau (..., min(m, n)) their scales.
std::tuple<Tensor, Tensor> geqrf(const Tensor& self);

// The first n columns of H_1 ... H_k (H_i = I - tau_i v_i v_i^T, v_i from
// input's column i below the diagonal): Q from geqrf's (a, tau).
// input (..., m, n) with m >= n >= k = tau.size(-1).
Tensor linalg_householder_product(const Tensor& input, const Tensor& tau);
Tensor orgqr(const Tensor& self, const Tensor& input2);

// op(Q) C (left) or C op(Q) (!left), Q = H_1 ... H_k the full m x m
// product of geqrf's reflectors (self, input2), op(Q) = Q^T when
// transpose; C = input3.
Tensor ormqr(const Tensor& self, const Tensor& input2, const Tensor& input3, bool left = true,
             bool transpose = false);

// --- LU ----------------------------------------------------------------------------

// (LU, pivots) with A = P L U: L (unit lower, below LU's diagonal) and U
// packed in LU (..., m, n); pivots (..., min(m, n)) int32, LAPACK's
// 1-based row interchanges. A singular matrix is an error here.
std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot = true);
// (LU, pivots, info): info (...) int32, LAPACK's (> 0: U[i-1, i-1] is 0);
// an error only when check_errors.
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot = true,
                                                       bool check_errors = false);
// torch._lu_with_info: what Tensor::lu calls (check_errors is ignored, as
// in PyTorch 1.13).
std::tuple<Tensor, Tensor, Tensor> _lu_with_info(const Tensor& self, bool pivot = true,
                                                 bool check_errors = true);

// (P, L, U) from lu_factor's (LU, pivots): P (..., m, m), L (..., m, k),
// U (..., k, n); P empty unless unpack_pivots, L and U empty unless
// unpack_data.
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU_data, const Tensor& LU_pivots,
                                             bool unpack_data = true, bool unpack_pivots = true);

// (P, L, U) with A = P L U.
std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot = true);

// X with A X = B (left) or X A = B, A^T in place of A when adjoint, given
// A's (LU, pivots) from lu_factor; batch dims broadcast.
Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true,
                       bool adjoint = false);
// linalg_lu_solve(LU_data, LU_pivots, self): PyTorch 1.13's deprecated
// argument order.
Tensor lu_solve(const Tensor& self, const Tensor& LU_data, const Tensor& LU_pivots);

}  // namespace ember

#endif  // EMBER_TENSOR_LINALG_FACTOR_H_
