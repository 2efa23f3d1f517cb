#ifndef EMBER_TENSOR_COPY_H_
#define EMBER_TENSOR_COPY_H_

#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

namespace ember {

// Copies between devices are done by the backend that owns the non-CPU side;
// the CUDA backend registers its function here.
using CrossDeviceCopyFn = void (*)(const Tensor& dst, const Tensor& src);
void register_cross_device_copy(DeviceType t, CrossDeviceCopyFn fn);

// fill_'s loop for each device (Note [Kernel tables]); the CUDA backend
// registers its kernel from tensor/cuda/.
using FillFn = void (*)(const Tensor& self, const Scalar& value);
EMBER_DECLARE_KERNEL_TABLE(fill_kernel, FillFn);

// True when the strides are a permutation of a contiguous layout (no holes,
// no overlap); such tensors keep their layout through clone() and to().
bool is_non_overlapping_and_dense(const Tensor& t);

namespace detail {
// True inside a copy_(src, non_blocking=true) (and so to(..., non_blocking=
// true)): the cross-device copy may then return before the bytes moved
// (Note [CUDA streams] in tensor/cuda/stream.cc).
bool copy_is_non_blocking();

// Note [Result layout]: the convolution and pooling kernels compute
// row-major results; a channels-last input (by its suggested memory format)
// gets its result converted to channels-last here, as PyTorch returns it.
Tensor in_layout_of_input(const Tensor& out, const Tensor& input);
}  // namespace detail

}  // namespace ember

#endif  // EMBER_TENSOR_COPY_H_
