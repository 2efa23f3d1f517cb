// The dtype-converting copy. One kernel serves all 100 (dst, src) pairs:
// each element is read into an int64 (integral and bool sources) or a double
// (floating sources, exactly) and written from it with the conversion
// static_cast would make, so nvcc compiles one loop instead of a hundred.

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

struct Wide {
  bool floating;
  int64_t i;
  double f;
};

__device__ __forceinline__ Wide load(const char* p, DType t) {
  switch (t) {
    case DType::kBool: return {false, *reinterpret_cast<const bool*>(p) ? 1 : 0, 0};
    case DType::kUInt8: return {false, *reinterpret_cast<const uint8_t*>(p), 0};
    case DType::kInt8: return {false, *reinterpret_cast<const int8_t*>(p), 0};
    case DType::kInt16: return {false, *reinterpret_cast<const int16_t*>(p), 0};
    case DType::kInt32: return {false, *reinterpret_cast<const int32_t*>(p), 0};
    case DType::kInt64: return {false, *reinterpret_cast<const int64_t*>(p), 0};
    case DType::kHalf: return {true, 0, __half2float(*reinterpret_cast<const __half*>(p))};
    case DType::kBFloat16:
      return {true, 0, __bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(p))};
    case DType::kFloat: return {true, 0, *reinterpret_cast<const float*>(p)};
    default: return {true, 0, *reinterpret_cast<const double*>(p)};
  }
}

template <typename I>
__device__ __forceinline__ I to_integral(const Wide& w) {
  // Floating to integral truncates (out of range is undefined, as in C++).
  return w.floating ? static_cast<I>(static_cast<int64_t>(w.f)) : static_cast<I>(w.i);
}

__device__ __forceinline__ void store(char* p, DType t, const Wide& w) {
  switch (t) {
    case DType::kBool:
      *reinterpret_cast<bool*>(p) = w.floating ? w.f != 0 : w.i != 0;
      return;
    case DType::kUInt8: *reinterpret_cast<uint8_t*>(p) = to_integral<uint8_t>(w); return;
    case DType::kInt8: *reinterpret_cast<int8_t*>(p) = to_integral<int8_t>(w); return;
    case DType::kInt16: *reinterpret_cast<int16_t*>(p) = to_integral<int16_t>(w); return;
    case DType::kInt32: *reinterpret_cast<int32_t*>(p) = to_integral<int32_t>(w); return;
    case DType::kInt64: *reinterpret_cast<int64_t*>(p) = to_integral<int64_t>(w); return;
    // To half and bfloat16 through float, as c10::Half(float) and the CPU
    // cast do (a double rounds twice, exactly as it does there).
    case DType::kHalf:
      *reinterpret_cast<__half*>(p) =
          __float2half(w.floating ? static_cast<float>(w.f) : static_cast<float>(w.i));
      return;
    case DType::kBFloat16:
      *reinterpret_cast<__nv_bfloat16*>(p) =
          __float2bfloat16(w.floating ? static_cast<float>(w.f) : static_cast<float>(w.i));
      return;
    case DType::kFloat:
      *reinterpret_cast<float*>(p) = w.floating ? static_cast<float>(w.f) : static_cast<float>(w.i);
      return;
    default:
      *reinterpret_cast<double*>(p) = w.floating ? w.f : static_cast<double>(w.i);
      return;
  }
}

__device__ __forceinline__ int size_of(DType t) {
  switch (t) {
    case DType::kBool:
    case DType::kUInt8:
    case DType::kInt8: return 1;
    case DType::kInt16:
    case DType::kHalf:
    case DType::kBFloat16: return 2;
    case DType::kInt32:
    case DType::kFloat: return 4;
    default: return 8;
  }
}

__global__ void cast_loop(Elementwise e, DType dst, DType src) {
  const int dsize = size_of(dst), ssize = size_of(src);
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < e.numel;
       i += int64_t{blockDim.x} * gridDim.x) {
    int64_t off[2];
    if (e.contiguous) {
      off[0] = i * dsize;
      off[1] = i * ssize;
    } else {
      loop_offsets<2>(e, i, off);
    }
    store(e.data[0] + off[0], dst, load(e.data[1] + off[1], src));
  }
}

}  // namespace

cudaError_t launch_cast(DType dst, DType src, const Elementwise& e) {
  if (e.numel == 0) return cudaSuccess;
  cast_loop<<<grid_for(e.numel), kBlockThreads, 0, current_stream()>>>(e, dst, src);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
