#ifndef EMBER_TENSOR_LINALG_H_
#define EMBER_TENSOR_LINALG_H_

// Matrix products, PyTorch 1.13 semantics: matmul for every rank case
// (1-D operands get a dim prepended / appended and removed again; batch dims
// broadcast), mm, bmm, mv, dot, outer, addmm.
//
// float and double go through OpenBLAS (strided operands are passed as
// transposes with their leading dimension; only layouts BLAS cannot express
// are copied). Integer dtypes use exact integer loops. bfloat16 and float16
// compute in float and round once (PyTorch 1.13 has no float16 CPU matmul;
// ember accepts it).

#include "tensor/tensor.h"

namespace ember {

Tensor matmul(const Tensor& self, const Tensor& other);
Tensor mm(const Tensor& self, const Tensor& mat2);
Tensor bmm(const Tensor& self, const Tensor& mat2);
Tensor mv(const Tensor& self, const Tensor& vec);
Tensor dot(const Tensor& self, const Tensor& other);
Tensor outer(const Tensor& self, const Tensor& vec2);
// beta * self + alpha * (mat1 @ mat2); self broadcasts to the result. With
// beta == 0, self is ignored (NaN and inf in it do not propagate).
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
             const Scalar& alpha = 1);

}  // namespace ember

#endif  // EMBER_TENSOR_LINALG_H_
