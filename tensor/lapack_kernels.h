#ifndef EMBER_TENSOR_LAPACK_KERNELS_H_
#define EMBER_TENSOR_LAPACK_KERNELS_H_

// The per-device LAPACK routines of the linalg ops (Note [Kernel tables]):
// the CPU runs OpenBLAS's LAPACK in linalg_more.cc and linalg_factor.cc
// itself; the CUDA backend registers cuSOLVER/cuBLAS entries from
// tensor/cuda/cusolver.cc. An op whose input is on a device with an entry
// keeps its buffers there and reads only the `infos` back (to raise
// PyTorch's errors, where PyTorch synchronizes too); a device without an
// entry reaches the CPU through Note [CPU fallback]. Internal.
//
// Every matrix buffer is a batch in LAPACK's column-major layout
// (Note [Column-major batches] in linalg_more.cc): a contiguous tensor
// (..., cols, rows) holding each rows x cols matrix column after column,
// with leading dimension max(1, rows). Pivots are int32 (..., min(rows,
// cols)) contiguous, 1-based as LAPACK's; infos int32 (...) contiguous, one
// per matrix, written with LAPACK's meaning. All on one device, float or
// double.

#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

namespace ember {

// getrf: a (m x n matrices) overwritten by its LU factors.
using LapackGetrfFn = void (*)(Tensor& a, Tensor& pivots, Tensor& infos);
EMBER_DECLARE_KERNEL_TABLE(lapack_getrf, LapackGetrfFn);

// getrs: b (n x k) overwritten by X with op(A) X = b, A given by getrf's
// (lu, pivots) of n x n matrices; op(A) = A^T when transpose.
using LapackGetrsFn = void (*)(const Tensor& lu, const Tensor& pivots, Tensor& b, bool transpose);
EMBER_DECLARE_KERNEL_TABLE(lapack_getrs, LapackGetrsFn);

// potrf: the lower Cholesky factor into a's lower triangle (the strict
// upper triangle is left as it was).
using LapackPotrfFn = void (*)(Tensor& a, Tensor& infos);
EMBER_DECLARE_KERNEL_TABLE(lapack_potrf, LapackPotrfFn);

// potrs: b (n x k) overwritten by X with A X = b, A = L L^T from its lower
// factor l (or A = U^T U from the upper factor when upper).
using LapackPotrsFn = void (*)(const Tensor& l, Tensor& b, bool upper);
EMBER_DECLARE_KERNEL_TABLE(lapack_potrs, LapackPotrsFn);

// BLAS trsm from the left: b (n x k) overwritten by X with op(A) X = b, A's
// upper (lower) triangle, op(A) = A^T when transpose, a unit diagonal
// assumed when unitriangular. No singularity check.
using LapackTrsmFn = void (*)(const Tensor& a, Tensor& b, bool upper, bool transpose,
                              bool unitriangular);
EMBER_DECLARE_KERNEL_TABLE(lapack_trsm, LapackTrsmFn);

// syevd: w (..., n) of a's dtype filled with the eigenvalues (ascending)
// of the symmetric matrices given by a's upper (lower) triangle; a
// overwritten by the eigenvectors when vectors (else destroyed).
using LapackSyevdFn = void (*)(Tensor& a, Tensor& w, Tensor& infos, bool upper, bool vectors);
EMBER_DECLARE_KERNEL_TABLE(lapack_syevd, LapackSyevdFn);

// geqrf: a (m x n matrices) overwritten by R and the Householder
// reflectors below it; tau (..., min(m, n)) of a's dtype.
using LapackGeqrfFn = void (*)(Tensor& a, Tensor& tau);
EMBER_DECLARE_KERNEL_TABLE(lapack_geqrf, LapackGeqrfFn);

// orgqr: q (m x cols reflectors, cols <= m) overwritten by the first cols
// columns of Q = H(1)...H(k), k = tau.size(-1) <= cols.
using LapackOrgqrFn = void (*)(Tensor& q, const Tensor& tau);
EMBER_DECLARE_KERNEL_TABLE(lapack_orgqr, LapackOrgqrFn);

// ormqr: c (m x n) overwritten by op(Q) c (left) or c op(Q), Q given by
// geqrf's reflectors a and tau (k of them), op(Q) = Q^T when transpose.
using LapackOrmqrFn = void (*)(const Tensor& a, const Tensor& tau, Tensor& c, bool left,
                               bool transpose);
EMBER_DECLARE_KERNEL_TABLE(lapack_ormqr, LapackOrmqrFn);

// gesvd of m x n matrices with m >= n (the op transposes wide ones): s
// (..., n) of a's dtype; job 'A' (u (..., m, m) and vt (..., n, n), both
// column-major), 'S' (u (..., n, m)) or 'N' (u, vt undefined, not
// written). a is destroyed.
using LapackGesvdFn = void (*)(Tensor& a, Tensor& s, Tensor& u, Tensor& vt, Tensor& infos,
                               char job);
EMBER_DECLARE_KERNEL_TABLE(lapack_gesvd, LapackGesvdFn);

// lu_unpack's permutation: pivots (..., npiv) int32 contiguous, each in
// [1, m], composed in order into perm (..., m) int64 (row i of P^T A is
// row perm[i] of A).
using LuPermutationFn = void (*)(const Tensor& pivots, Tensor& perm);
EMBER_DECLARE_KERNEL_TABLE(lu_permutation_kernel, LuPermutationFn);

}  // namespace ember

#endif  // EMBER_TENSOR_LAPACK_KERNELS_H_
