// where, masked_fill (tensor/selection.cc) and clamp with number or tensor
// bounds (tensor/pointwise.cc). where and masked_fill only move elements,
// so they are instantiated per element size (4 kernels), not per dtype.

#include <type_traits>

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

// The element of size N bytes, as an unsigned integer.
template <int N>
using Bits = std::conditional_t<
    N == 1, uint8_t,
    std::conditional_t<N == 2, uint16_t, std::conditional_t<N == 4, uint32_t, uint64_t>>>;

// out[i] = f(a[i], b[i], c[i]) with operands of three types.
template <typename Out, typename A, typename B, typename C, typename F>
__global__ void mixed_ternary_loop(Elementwise e, F f) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < e.numel;
       i += int64_t{blockDim.x} * gridDim.x) {
    if (e.contiguous) {
      reinterpret_cast<Out*>(e.data[0])[i] = f(reinterpret_cast<const A*>(e.data[1])[i],
                                               reinterpret_cast<const B*>(e.data[2])[i],
                                               reinterpret_cast<const C*>(e.data[3])[i]);
    } else {
      int64_t off[4];
      loop_offsets<4>(e, i, off);
      *reinterpret_cast<Out*>(e.data[0] + off[0]) =
          f(*reinterpret_cast<const A*>(e.data[1] + off[1]),
            *reinterpret_cast<const B*>(e.data[2] + off[2]),
            *reinterpret_cast<const C*>(e.data[3] + off[3]));
    }
  }
}

// out[i] = f(a[i], b[i]) with inputs of two types.
template <typename Out, typename A, typename B, typename F>
__global__ void mixed_binary_loop(Elementwise e, F f) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < e.numel;
       i += int64_t{blockDim.x} * gridDim.x) {
    if (e.contiguous) {
      reinterpret_cast<Out*>(e.data[0])[i] = f(reinterpret_cast<const A*>(e.data[1])[i],
                                               reinterpret_cast<const B*>(e.data[2])[i]);
    } else {
      int64_t off[3];
      loop_offsets<3>(e, i, off);
      *reinterpret_cast<Out*>(e.data[0] + off[0]) =
          f(*reinterpret_cast<const A*>(e.data[1] + off[1]),
            *reinterpret_cast<const B*>(e.data[2] + off[2]));
    }
  }
}

template <typename U>
struct WhereFn {
  __device__ U operator()(bool c, U a, U b) const { return c ? a : b; }
};

template <typename U>
struct MaskedFillFn {
  U value;
  __device__ U operator()(bool m, U a) const { return m ? value : a; }
};

template <int N>
cudaError_t where_as(const Elementwise& e) {
  using U = Bits<N>;
  mixed_ternary_loop<U, bool, U, U>
      <<<grid_for(e.numel), kBlockThreads, 0, current_stream()>>>(e, WhereFn<U>{});
  return cudaGetLastError();
}

template <int N>
cudaError_t masked_fill_as(const Elementwise& e, ScalarBits value) {
  using U = Bits<N>;
  mixed_binary_loop<U, bool, U><<<grid_for(e.numel), kBlockThreads, 0, current_stream()>>>(
      e, MaskedFillFn<U>{from_bits<U>(value)});
  return cudaGetLastError();
}

// std::min(std::max(x, lo), hi): a NaN x stays (its comparisons are false);
// a NaN bound is ignored.
template <typename A>
__device__ __forceinline__ A clamp_value(A x, A lo, A hi) {
  const A y = x < lo ? lo : x;
  return hi < y ? hi : y;
}

template <typename T>
struct ClampFn {
  opmath_t<T> lo, hi;
  __device__ T operator()(T a) const {
    return static_cast<T>(clamp_value(static_cast<opmath_t<T>>(a), lo, hi));
  }
};

template <typename T>
struct ClampTensorFn {
  __device__ T operator()(T a, T lo, T hi) const {
    using A = opmath_t<T>;
    const A l = static_cast<A>(lo), h = static_cast<A>(hi);
    if (is_nan(l)) return lo;
    if (is_nan(h)) return hi;
    return static_cast<T>(clamp_value(static_cast<A>(a), l, h));
  }
};

}  // namespace

cudaError_t launch_where(int elem_size, const Elementwise& e) {
  if (e.numel == 0) return cudaSuccess;
  switch (elem_size) {
    case 1: return where_as<1>(e);
    case 2: return where_as<2>(e);
    case 4: return where_as<4>(e);
    case 8: return where_as<8>(e);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launch_masked_fill(int elem_size, const Elementwise& e, ScalarBits value) {
  if (e.numel == 0) return cudaSuccess;
  switch (elem_size) {
    case 1: return masked_fill_as<1>(e, value);
    case 2: return masked_fill_as<2>(e, value);
    case 4: return masked_fill_as<4>(e, value);
    case 8: return masked_fill_as<8>(e, value);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launch_clamp(DType dtype, const Elementwise& e, ScalarBits lo, ScalarBits hi) {
  return dispatch<kNumericKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    return run_unary<T, T>(
        e, ClampFn<T>{static_cast<A>(from_bits<T>(lo)), static_cast<A>(from_bits<T>(hi))});
  });
}

cudaError_t launch_clamp_tensor(DType dtype, const Elementwise& e) {
  return dispatch<kNumericKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_ternary<T>(e, ClampTensorFn<T>{});
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
