#ifndef EMBER_TENSOR_SHAPE_MORE_H_
#define EMBER_TENSOR_SHAPE_MORE_H_

// libtorch 1.13's free functions of the shape, grid and integration family
// that ember lacked (issue 22): atleast_{1,2,3}d, column_stack, row_stack,
// dstack, concatenate, block_diag, cartesian_prod, combinations, meshgrid,
// tril_indices/triu_indices, vander, adjoint, is_neg, chain_matmul,
// trapezoid/trapz, cumulative_trapezoid and isin, with PyTorch's signatures,
// defaults, result dtypes and error messages (tensor/shape_more_test.cc,
// tools/golden/shape_more.py). Each is a composite of existing ops, so it
// runs on every device those ops run on and autograd differentiates it
// through them; the Tensor methods (adjoint, mH, is_neg) are declared in
// tensor.h.
//
// Deliberate differences from PyTorch:
// - Composites record their pieces' grad_fn nodes (block_diag: CatBackward0
//   over the blocks, not PyTorch's BlockDiagBackward0; vander: the cat and
//   cumprod nodes); the gradients are the same.
// - chain_matmul's deprecation warning is not printed.
// - meshgrid's error for a tensor of 2 or more dims prints the tensor in
//   ember's form after "but got: " (libtorch prints its legacy form).
// - is_neg is always false: ember has no lazily negated views.
// - ember has no complex dtypes, so adjoint and mH are the transpose of the
//   last two dims (what PyTorch gives for real tensors).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tensor/shape.h"
#include "tensor/tensor.h"
#include "tensor/tensor_options.h"

namespace ember {

// --- at-least-n-d views ------------------------------------------------------
// Each tensor's atleast_1d / 2d / 3d (the one-tensor forms are in shape.h).
std::vector<Tensor> atleast_1d(TensorList tensors);
std::vector<Tensor> atleast_2d(TensorList tensors);
std::vector<Tensor> atleast_3d(TensorList tensors);

// --- joining -----------------------------------------------------------------
// hstack after making each 0-dim or 1-D tensor an (n, 1) column.
Tensor column_stack(TensorList tensors);
// vstack's alias.
Tensor row_stack(TensorList tensors);
// cat along dim 2 after atleast_3d.
Tensor dstack(TensorList tensors);
// cat's alias.
Tensor concatenate(TensorList tensors, int64_t dim = 0);
// The inputs (0-dim as 1x1, 1-D as 1xn, 2-D) on the diagonal of a matrix
// of their common dtype, zeros elsewhere; no inputs: an empty (1, 0) float.
Tensor block_diag(TensorList tensors);

// --- grids and combinations ----------------------------------------------------
// One tensor per input, each of shape (numel of each input...), expanded
// views of the inputs (0-dim or 1-D, one dtype and device). indexing "ij"
// (matrix) or "xy" (Cartesian: the first two dims swapped).
std::vector<Tensor> meshgrid(TensorList tensors, const std::string& indexing);
// libtorch 1.13's overload without indexing: "ij", with PyTorch's warning
// (once) that the argument will be required.
std::vector<Tensor> meshgrid(TensorList tensors);
// Rows of every tuple of the 1-D inputs' elements, first input slowest
// (shape (product of lengths, number of inputs)); one input is returned as
// it is.
Tensor cartesian_prod(TensorList tensors);
// The r-length combinations of self's elements (1-D) in lexicographic
// order, one per row; with_replacement also repeats elements. r = 0 gives
// an empty 1-D tensor.
Tensor combinations(const Tensor& self, int64_t r = 2, bool with_replacement = false);

// --- index and matrix builders -------------------------------------------------
// The (row, col) coordinates of the lower (upper) triangle of a row x col
// matrix, diagonal shifted by offset, as a (2, N) tensor in row-major order.
// dtype kLong (default) or kInt.
Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0,
                    const TensorOptions& options = kLong);
Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0,
                    const TensorOptions& options = kLong);
// The Vandermonde matrix of x (1-D): columns x^(N-1) ... x^0 (increasing:
// x^0 ... x^(N-1)); N defaults to x's length. dtype: x's promoted with
// long (integral and bool inputs give long).
Tensor vander(const Tensor& x, std::optional<int64_t> N = std::nullopt, bool increasing = false);
// The conjugate transpose of the last two dims (a view; 0-dim: self).
Tensor adjoint(const Tensor& self);
// Always false (see above).
bool is_neg(const Tensor& self);
// The product of 2 or more matrices multiplied in the cheapest order, as
// 1.13 chooses it (Note [multi_dot order] in shape_more.cc), so results agree
// with PyTorch's bit for bit where mm does. A 1-D first operand is a row
// vector, a 1-D last one a column vector, their dim dropped from the result
// (two vectors give a 0-dim dot product); the others must be 2-D, of one
// dtype and device. Differentiable through mm and view (ViewBackward0 <-
// MmBackward0, as 1.13's).
Tensor linalg_multi_dot(TensorList tensors);
// The product of 2-D matrices (deprecated in PyTorch for
// linalg.multi_dot, which it calls); one matrix gives its clone.
Tensor chain_matmul(TensorList matrices);

// --- integration ----------------------------------------------------------------
// The trapezoidal rule along dim, sample points x (1-D along dim, or
// broadcastable after the differences are taken) or spacing dx. No samples
// give zeros. Integral inputs give the default float dtype.
Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);
Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor trapz(const Tensor& y, double dx = 1, int64_t dim = -1);
// The running integrals (one fewer along dim than y).
Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);

// --- membership --------------------------------------------------------------------
// A bool tensor of elements' shape: whether each element equals one of
// test_elements (compared in their common dtype; NaN never matches);
// invert gives the opposite. Bool inputs are refused, as in PyTorch.
// assume_unique is accepted and changes nothing.
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique = false,
            bool invert = false);
Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique = false,
            bool invert = false);
Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique = false,
            bool invert = false);

}  // namespace ember

#endif  // EMBER_TENSOR_SHAPE_MORE_H_
