#ifndef EMBER_TENSOR_SPECTRAL_MORE_H_
#define EMBER_TENSOR_SPECTRAL_MORE_H_

// libtorch 1.13's einsum, cdist, pdist, the signal windows (hann, hamming,
// blackman, bartlett, kaiser) and nuclear_norm (issue 22), written as
// composites of existing ember ops (permute, diagonal, bmm, norm, cos, i0,
// linalg_svdvals...): CUDA comes from those ops, and autograd too except
// for cdist and pdist, recorded as 1.13's nodes with 1.13's formulas
// (Note [cdist and pdist nodes] in spectral_more.cc). Semantics, defaults, result dtypes
// and error messages are PyTorch 1.13's (tensor/spectral_more_test.cc,
// tools/golden/spectral_more.py).
//
// Deviations:
// - einsum has no `path` argument (1.13's opt_einsum contraction path);
//   operands contract left to right, as 1.13 does without opt_einsum.
// - cdist's direct (non-matmul) form materialises the (..., r1, r2, c)
//   differences, where PyTorch's kernel streams them; the values agree to
//   rounding.
// - A window with an integral dtype raises "<name> expects floating point
//   dtypes, got: " followed by the options as libtorch prints them (with
//   "(default)" markers for what the caller did not set); Python's text
//   differs only in those markers.

#include <cstdint>
#include <optional>
#include <string_view>

#include "tensor/tensor.h"
#include "tensor/tensor_options.h"

namespace ember {

// Einstein summation: "ij,jk->ik", implicit output (the letters that appear
// once, in sorted order, upper case before lower case, after the ellipsis
// dims), "..." broadcasting, a letter repeated in one operand takes the
// diagonal, letters absent from the output are summed.
Tensor einsum(std::string_view equation, TensorList tensors);

// The p-norm distances between the rows of x1 (..., r1, c) and x2
// (..., r2, c): (..., r1, r2), batch dims broadcast. compute_mode: 0 (or
// nullopt) uses the matmul form for p == 2 when r1 > 25 or r2 > 25, 1
// always for p == 2, 2 never (Python's "use_mm_for_euclid_dist_if_necessary",
// "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist").
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2,
             std::optional<int64_t> compute_mode = std::nullopt);

// The p-norm distances between the rows i < j of a 2-D input, in row-major
// order of (i, j): n * (n - 1) / 2 values.
Tensor pdist(const Tensor& self, double p = 2);

// Windows of window_length points (default dtype float). periodic drops the
// last point of a window_length + 1 symmetric window. Length 0 gives an
// empty tensor, length 1 a single one.
Tensor hann_window(int64_t window_length, const TensorOptions& options = {});
Tensor hann_window(int64_t window_length, bool periodic, const TensorOptions& options = {});
// alpha - beta * cos(2 pi n / (N - 1)); alpha 0.54, beta 0.46.
Tensor hamming_window(int64_t window_length, const TensorOptions& options = {});
Tensor hamming_window(int64_t window_length, bool periodic, const TensorOptions& options = {});
Tensor hamming_window(int64_t window_length, bool periodic, double alpha,
                      const TensorOptions& options = {});
Tensor hamming_window(int64_t window_length, bool periodic, double alpha, double beta,
                      const TensorOptions& options = {});
Tensor blackman_window(int64_t window_length, const TensorOptions& options = {});
Tensor blackman_window(int64_t window_length, bool periodic, const TensorOptions& options = {});
Tensor bartlett_window(int64_t window_length, const TensorOptions& options = {});
Tensor bartlett_window(int64_t window_length, bool periodic, const TensorOptions& options = {});
// i0(beta * sqrt(1 - ((n - N/2) / (N/2))^2)) / i0(beta); beta 12.
Tensor kaiser_window(int64_t window_length, const TensorOptions& options = {});
Tensor kaiser_window(int64_t window_length, bool periodic, const TensorOptions& options = {});
Tensor kaiser_window(int64_t window_length, bool periodic, double beta,
                     const TensorOptions& options = {});

// The sum of the singular values of a 2-D input, or of the matrices over
// the two dims in dim.
Tensor nuclear_norm(const Tensor& self, bool keepdim = false);
Tensor nuclear_norm(const Tensor& self, IntArrayRef dim, bool keepdim = false);

}  // namespace ember

#endif  // EMBER_TENSOR_SPECTRAL_MORE_H_
