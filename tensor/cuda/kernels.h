#ifndef EMBER_TENSOR_CUDA_KERNELS_H_
#define EMBER_TENSOR_CUDA_KERNELS_H_

// Launchers for the CUDA kernels in kernels.cu. This header is shared by nvcc
// and the host compiler, so it includes nothing of ember: the kernels see
// raw pointers and a coalesced geometry, never a Tensor.

#include <cuda_runtime_api.h>

#include <cstdint>

namespace ember {
namespace cuda {
namespace kernels {

// PyTorch's limit for a kernel's offset calculator.
constexpr int kMaxDims = 25;

// The index space of an elementwise kernel: `ndim` sizes, and the strides (in
// elements) of the output and of one input over it. Dims are coalesced by
// the caller, so a contiguous tensor is one dim of stride 1.
struct Geometry {
  int ndim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxDims];
  int64_t dst_strides[kMaxDims];
  int64_t src_strides[kMaxDims];
};

// dst[i] = src[i] for elements of `elem_size` bytes (1, 2, 4 or 8): a copy
// moves bytes, so one kernel per element size serves every dtype. dst and
// src are on the current device. Returns the launch status.
cudaError_t launch_strided_copy(void* dst, const void* src, const Geometry& g, int elem_size);

// dst[i] = the element whose bytes are the low `elem_size` bytes of `bits`.
cudaError_t launch_fill(void* dst, const Geometry& g, int elem_size, uint64_t bits);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_KERNELS_H_
