#ifndef EMBER_TENSOR_CUDA_LAUNCH_H_
#define EMBER_TENSOR_CUDA_LAUNCH_H_

// Host-side glue between ember's tensors and the CUDA compute kernels
// (kernels.h): dtype codes, an iterator's loop as the kernels take it, and
// the launch check. Internal to //tensor/cuda; built only with a toolkit.

#include "tensor/cuda/kernels.h"
#include "tensor/iterator.h"
#include "tensor/scalar.h"

namespace ember {
namespace cuda {
namespace detail {

// The kernels' code for `t`; throws for quantized and undefined dtypes.
kernels::DType kernel_dtype(ScalarType t);

// iter's coalesced loop (outputs first), with `contiguous` set when every
// operand steps by its element size through a single dim.
kernels::Elementwise make_elementwise(const TensorIterator& iter);

// Throws PyTorch's '"<name>" not implemented for '<dtype>'' when a kernel
// refused the dtype (cudaErrorInvalidValue from a launcher), else checks
// `err` as EMBER_CUDA_CHECK does.
void check_launch(cudaError_t err, const char* name, ScalarType dtype);

// The bytes of s.to<scalar_t>() for dtype t, low bytes first (kernels.h's
// ScalarBits): the CPU kernel's conversion, to the bit.
kernels::ScalarBits scalar_bits(const Scalar& s, ScalarType t);

// A kernel's pointer to an optional tensor: null when it is undefined.
inline const void* data_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }
inline void* mutable_data_or_null(Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

}  // namespace detail
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_LAUNCH_H_
