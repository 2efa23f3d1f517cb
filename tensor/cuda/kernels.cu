// Elementwise kernels of the CUDA backend. Note [CUDA kernels by element
// size]: copies and fills move bytes, so they are instantiated per element
// size (4 variants), not per dtype (10); nvcc time stays small.

#include "tensor/cuda/kernels.h"

#include <cstdint>

namespace ember {
namespace cuda {
namespace kernels {
namespace {

constexpr int kThreads = 256;

// Offsets of linear index i in the output and the input.
__device__ __forceinline__ void offsets(const Geometry& g, int64_t i, int64_t* dst,
                                        int64_t* src) {
  int64_t d = 0, s = 0;
  for (int k = g.ndim - 1; k >= 0; --k) {
    int64_t size = g.sizes[k];
    int64_t idx = i % size;
    i /= size;
    d += idx * g.dst_strides[k];
    s += idx * g.src_strides[k];
  }
  *dst = d;
  *src = s;
}

template <typename T>
__global__ void contiguous_copy_kernel(T* dst, const T* src, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    dst[i] = src[i];
  }
}

template <typename T>
__global__ void strided_copy_kernel(T* dst, const T* src, Geometry g) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < g.numel;
       i += int64_t{blockDim.x} * gridDim.x) {
    int64_t d, s;
    offsets(g, i, &d, &s);
    dst[d] = src[s];
  }
}

template <typename T>
__global__ void contiguous_fill_kernel(T* dst, int64_t n, T value) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    dst[i] = value;
  }
}

template <typename T>
__global__ void fill_kernel(T* dst, Geometry g, T value) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < g.numel;
       i += int64_t{blockDim.x} * gridDim.x) {
    int64_t d, s;
    offsets(g, i, &d, &s);
    dst[d] = value;
  }
}

// Enough blocks to cover n, capped: the loops are grid-strided.
unsigned blocks_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65536 ? (b > 0 ? b : 1) : 65536);
}

template <typename T>
cudaError_t copy_as(void* dst, const void* src, const Geometry& g) {
  bool contiguous = g.ndim == 1 && g.dst_strides[0] == 1 && g.src_strides[0] == 1;
  if (contiguous) {
    contiguous_copy_kernel<T><<<blocks_for(g.numel), kThreads, 0, current_stream()>>>(
        static_cast<T*>(dst), static_cast<const T*>(src), g.numel);
  } else {
    strided_copy_kernel<T><<<blocks_for(g.numel), kThreads, 0, current_stream()>>>(
        static_cast<T*>(dst), static_cast<const T*>(src), g);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t fill_as(void* dst, const Geometry& g, uint64_t bits) {
  T value = static_cast<T>(bits);
  if (g.ndim == 1 && g.dst_strides[0] == 1) {
    contiguous_fill_kernel<T><<<blocks_for(g.numel), kThreads, 0, current_stream()>>>(
        static_cast<T*>(dst), g.numel, value);
  } else {
    fill_kernel<T>
        <<<blocks_for(g.numel), kThreads, 0, current_stream()>>>(static_cast<T*>(dst), g, value);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_strided_copy(void* dst, const void* src, const Geometry& g, int elem_size) {
  if (g.numel == 0) return cudaSuccess;
  switch (elem_size) {
    case 1: return copy_as<uint8_t>(dst, src, g);
    case 2: return copy_as<uint16_t>(dst, src, g);
    case 4: return copy_as<uint32_t>(dst, src, g);
    case 8: return copy_as<uint64_t>(dst, src, g);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launch_fill(void* dst, const Geometry& g, int elem_size, uint64_t bits) {
  if (g.numel == 0) return cudaSuccess;
  switch (elem_size) {
    case 1: return fill_as<uint8_t>(dst, g, bits);
    case 2: return fill_as<uint16_t>(dst, g, bits);
    case 4: return fill_as<uint32_t>(dst, g, bits);
    case 8: return fill_as<uint64_t>(dst, g, bits);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
