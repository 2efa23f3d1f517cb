// Device-side pieces shared by the CUDA compute kernels (nvcc only):
// dtype dispatch, the opmath type, and the elementwise loop over an
// Elementwise geometry (Note [CUDA compute kernels] in ops.cc).

#ifndef EMBER_TENSOR_CUDA_ELEMENTWISE_CUH_
#define EMBER_TENSOR_CUDA_ELEMENTWISE_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tensor/cuda/kernels.h"

namespace ember {
namespace cuda {
namespace kernels {

constexpr int kBlockThreads = 256;

// Enough blocks to cover n, capped: the loops are grid-strided.
inline unsigned grid_for(int64_t n) {
  int64_t b = (n + kBlockThreads - 1) / kBlockThreads;
  return static_cast<unsigned>(b < 65536 ? (b > 0 ? b : 1) : 65536);
}

template <typename T>
struct Tag {
  using type = T;
};

// Half and bfloat16 compute in float, as PyTorch's CUDA kernels do.
template <typename T>
struct OpMath {
  using type = T;
};
template <>
struct OpMath<__half> {
  using type = float;
};
template <>
struct OpMath<__nv_bfloat16> {
  using type = float;
};
template <typename T>
using opmath_t = typename OpMath<T>::type;

// An opmath value back in T (half and bfloat16 round to nearest even).
template <typename T>
__device__ __forceinline__ T from_opmath(opmath_t<T> a) {
  if constexpr (std::is_same<T, __half>::value) {
    return __float2half(a);
  } else if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    return __float2bfloat16(a);
  } else {
    return static_cast<T>(a);
  }
}

// A grid-strided loop of i over [0, n) (launches sized by grid_for).
#define EMBER_GRID_LOOP(i, n)                                               \
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < (n); \
       i += int64_t{blockDim.x} * gridDim.x)

template <typename T>
__device__ __forceinline__ bool is_nan(T x) {
  return x != x;  // false for integers
}
// max / min that propagate NaN (either operand's), as the CPU's reductions.
template <typename T>
__device__ __forceinline__ T nan_max(T a, T b) {
  return (b > a || is_nan(b)) ? b : a;
}
template <typename T>
__device__ __forceinline__ T nan_min(T a, T b) {
  return (b < a || is_nan(b)) ? b : a;
}
template <typename T>
__device__ __forceinline__ bool is_inf(T x) {
  return x == T(INFINITY) || x == -T(INFINITY);  // opmath types only
}

// The value whose bytes are the low sizeof(T) bytes of `bits` (ScalarBits:
// a number the host converted to T).
template <typename T>
__host__ __device__ inline T from_bits(ScalarBits bits) {
  T v;
  memcpy(&v, &bits, sizeof(T));
  return v;
}

// Calls f(Tag<T>{}) for the C++ type of `t` among the listed kinds; returns
// cudaErrorInvalidValue for a dtype the caller did not ask for.
enum Kinds : unsigned {
  kBoolKind = 1,
  kIntegralKinds = 2,
  kFloatingKinds = 4,
  kAllKinds = 7,
  kNumericKinds = 6,
};
template <unsigned kKinds, typename F>
cudaError_t dispatch(DType t, F&& f) {
  if constexpr ((kKinds & kBoolKind) != 0) {
    if (t == DType::kBool) return f(Tag<bool>{});
  }
  if constexpr ((kKinds & kIntegralKinds) != 0) {
    switch (t) {
      case DType::kUInt8: return f(Tag<uint8_t>{});
      case DType::kInt8: return f(Tag<int8_t>{});
      case DType::kInt16: return f(Tag<int16_t>{});
      case DType::kInt32: return f(Tag<int32_t>{});
      case DType::kInt64: return f(Tag<int64_t>{});
      default: break;
    }
  }
  if constexpr ((kKinds & kFloatingKinds) != 0) {
    switch (t) {
      case DType::kHalf: return f(Tag<__half>{});
      case DType::kBFloat16: return f(Tag<__nv_bfloat16>{});
      case DType::kFloat: return f(Tag<float>{});
      case DType::kDouble: return f(Tag<double>{});
      default: break;
    }
  }
  return cudaErrorInvalidValue;
}

// Byte offsets of linear index i in the first N operands.
template <int N>
__device__ __forceinline__ void loop_offsets(const Elementwise& e, int64_t i, int64_t* off) {
#pragma unroll
  for (int t = 0; t < N; ++t) off[t] = 0;
  if (e.numel <= int64_t{0xffffffff}) {
    // 32-bit division, several times cheaper than 64-bit on the GPU; every
    // size fits since it divides numel. The same branch for every thread.
    uint32_t j = static_cast<uint32_t>(i);
    for (int d = 0; d < e.ndim; ++d) {
      const uint32_t size = static_cast<uint32_t>(e.sizes[d]);
      const uint32_t q = j / size;
      const int64_t idx = static_cast<int64_t>(j - q * size);
      j = q;
#pragma unroll
      for (int t = 0; t < N; ++t) off[t] += idx * e.strides[t][d];
    }
    return;
  }
  for (int d = 0; d < e.ndim; ++d) {
    const int64_t size = e.sizes[d];
    const int64_t idx = i % size;
    i /= size;
#pragma unroll
    for (int t = 0; t < N; ++t) off[t] += idx * e.strides[t][d];
  }
}

// Strided operands (any geometry): one element per thread and step.
template <typename Out, typename In, typename F>
__global__ void unary_loop(Elementwise e, F f) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < e.numel;
       i += int64_t{blockDim.x} * gridDim.x) {
    int64_t off[2];
    loop_offsets<2>(e, i, off);
    *reinterpret_cast<Out*>(e.data[0] + off[0]) = f(*reinterpret_cast<const In*>(e.data[1] + off[1]));
  }
}

template <typename Out, typename In, typename F>
__global__ void binary_loop(Elementwise e, F f) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < e.numel;
       i += int64_t{blockDim.x} * gridDim.x) {
    int64_t off[3];
    loop_offsets<3>(e, i, off);
    *reinterpret_cast<Out*>(e.data[0] + off[0]) = f(*reinterpret_cast<const In*>(e.data[1] + off[1]),
                                                    *reinterpret_cast<const In*>(e.data[2] + off[2]));
  }
}

template <typename T, typename F>
__global__ void ternary_loop(Elementwise e, F f) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < e.numel;
       i += int64_t{blockDim.x} * gridDim.x) {
    int64_t off[4];
    loop_offsets<4>(e, i, off);
    *reinterpret_cast<T*>(e.data[0] + off[0]) = f(*reinterpret_cast<const T*>(e.data[1] + off[1]),
                                                  *reinterpret_cast<const T*>(e.data[2] + off[2]),
                                                  *reinterpret_cast<const T*>(e.data[3] + off[3]));
  }
}

// Contiguous operands: each thread loads kUnroll elements of every input
// (a block's loads stay coalesced, k * blockDim apart) before it computes
// and stores any, so that several loads are in flight per thread; the
// strided loops above keep one. PyTorch's elementwise kernels unroll so too.
constexpr int kUnroll = 4;

template <typename Out, typename In, int kArity, typename F>
__global__ void contiguous_loop(Elementwise e, F f) {
  const int64_t n = e.numel;
  Out* out = reinterpret_cast<Out*>(e.data[0]);
  const int64_t step = int64_t{gridDim.x} * blockDim.x * kUnroll;
  for (int64_t base = int64_t{blockIdx.x} * blockDim.x * kUnroll; base < n; base += step) {
    In v[kArity][kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      const int64_t i = base + int64_t{k} * blockDim.x + threadIdx.x;
      if (i < n) {
#pragma unroll
        for (int a = 0; a < kArity; ++a) v[a][k] = reinterpret_cast<const In*>(e.data[a + 1])[i];
      }
    }
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      const int64_t i = base + int64_t{k} * blockDim.x + threadIdx.x;
      if (i < n) {
        if constexpr (kArity == 1) {
          out[i] = f(v[0][k]);
        } else if constexpr (kArity == 2) {
          out[i] = f(v[0][k], v[1][k]);
        } else {
          out[i] = f(v[0][k], v[1][k], v[2][k]);
        }
      }
    }
  }
}

inline unsigned contiguous_grid_for(int64_t n) { return grid_for((n + kUnroll - 1) / kUnroll); }

template <typename T, typename F>
cudaError_t run_ternary(const Elementwise& e, F f) {
  if (e.numel == 0) return cudaSuccess;
  if (e.contiguous) {
    contiguous_loop<T, T, 3, F>
        <<<contiguous_grid_for(e.numel), kBlockThreads, 0, current_stream()>>>(e, f);
  } else {
    ternary_loop<T, F><<<grid_for(e.numel), kBlockThreads, 0, current_stream()>>>(e, f);
  }
  return cudaGetLastError();
}

template <typename Out, typename In, typename F>
cudaError_t run_unary(const Elementwise& e, F f) {
  if (e.numel == 0) return cudaSuccess;
  if (e.contiguous) {
    contiguous_loop<Out, In, 1, F>
        <<<contiguous_grid_for(e.numel), kBlockThreads, 0, current_stream()>>>(e, f);
  } else {
    unary_loop<Out, In, F><<<grid_for(e.numel), kBlockThreads, 0, current_stream()>>>(e, f);
  }
  return cudaGetLastError();
}

template <typename Out, typename In, typename F>
cudaError_t run_binary(const Elementwise& e, F f) {
  if (e.numel == 0) return cudaSuccess;
  if (e.contiguous) {
    contiguous_loop<Out, In, 2, F>
        <<<contiguous_grid_for(e.numel), kBlockThreads, 0, current_stream()>>>(e, f);
  } else {
    binary_loop<Out, In, F><<<grid_for(e.numel), kBlockThreads, 0, current_stream()>>>(e, f);
  }
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_ELEMENTWISE_CUH_
