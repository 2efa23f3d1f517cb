#ifndef EMBER_TENSOR_COMPOSITE_KERNELS_H_
#define EMBER_TENSOR_COMPOSITE_KERNELS_H_

// CPU loops for float and double that replace a composition of ops with one
// pass and must give its values bit for bit: each product and sum rounded on
// its own, as the separate ops (and PyTorch's kernels) round them. Their
// library compiles without FMA contraction (tensor/BUILD.bazel).

#include <cstdint>

#include "tensor/iterator.h"

namespace ember {
namespace detail {

// addr (shape_ops.cc): one pass over the [n, m] result instead of three
// (the scaled vector's outer product, beta * self, their sum).
// out[i * m + j] = beta * self[i * s0 + j * s1] + (alpha * v1[i * v1_stride]) * v2[j],
// each product and the sum rounded on its own, as PyTorch 1.13's addr;
// read_self false (beta == 0) leaves self unread (NaN there too) and gives
// (alpha * v1[i]) * v2[j]. out is no input, stored row by row
// (out[i * m + j]), or column by column (out[j * n + i]) when by_columns;
// v2 contiguous.
void addr_cpu(float* out, const float* self, int64_t s0, int64_t s1, const float* v1,
              int64_t v1_stride, const float* v2, int64_t n, int64_t m, float beta, float alpha,
              bool read_self, bool by_columns);
void addr_cpu(double* out, const double* self, int64_t s0, int64_t s1, const double* v1,
              int64_t v1_stride, const double* v2, int64_t n, int64_t m, double beta, double alpha,
              bool read_self, bool by_columns);

// lerp with a tensor weight (composite_ops.cc), out = weight < 0.5 ?
// self + weight * (end - self) : end - (end - self) * (1 - weight), for an
// iterator (out, self, end, weight) of one floating dtype.
void lerp_tensor_cpu(TensorIterator& iter);

// heaviside (composite_ops.cc): self == 0 ? values : (self > 0), for an
// iterator (out, self, values) of one dtype; a NaN self gives 0, as 1.13.
void heaviside_cpu(TensorIterator& iter);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_COMPOSITE_KERNELS_H_
