#ifndef EMBER_TENSOR_ADDR_KERNEL_H_
#define EMBER_TENSOR_ADDR_KERNEL_H_

// addr's CPU loop for float and double (tensor/shape_ops.cc's addr): one
// pass over the [n, m] result instead of three (the scaled vector's outer
// product, beta * self, their sum).

#include <cstdint>

namespace ember {
namespace detail {

// out[i * m + j] = beta * self[i * s0 + j * s1] + (alpha * v1[i * v1_stride]) * v2[j],
// each product and the sum rounded on its own, as PyTorch 1.13's addr;
// read_self false (beta == 0) leaves self unread (NaN there too) and gives
// (alpha * v1[i]) * v2[j]. out is contiguous and no input; v2 contiguous.
void addr_cpu(float* out, const float* self, int64_t s0, int64_t s1, const float* v1,
              int64_t v1_stride, const float* v2, int64_t n, int64_t m, float beta, float alpha,
              bool read_self);
void addr_cpu(double* out, const double* self, int64_t s0, int64_t s1, const double* v1,
              int64_t v1_stride, const double* v2, int64_t n, int64_t m, double beta, double alpha,
              bool read_self);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_ADDR_KERNEL_H_
