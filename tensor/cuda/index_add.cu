// scatter_add_ / index_add_ (launch_index_add): dst[p + v * dim_stride] +=
// alpha * src[p] with atomics, so that repeated indices accumulate. Each
// addition rounds as the CPU's (tensor/gather.cc) does: integers wrap in
// their own width (exact in any order), float and double add the rounded
// product, half and bfloat16 add in float and round once; only the order of
// the additions to one element varies, as in PyTorch's CUDA kernels.

#include <type_traits>

#include "tensor/cuda/index.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
__device__ __forceinline__ void add_scaled(T* p, T alpha, T s) {
  if constexpr (std::is_same<T, bool>::value) {
    if (alpha && s) *p = true;  // every writer stores true: no race to lose
  } else if constexpr (std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value) {
    const float add = static_cast<float>(alpha) * static_cast<float>(s);
    atomic_update_small(p, [add](T cur) { return T(static_cast<float>(cur) + add); });
  } else if constexpr (sizeof(T) < 4) {
    const T add = static_cast<T>(alpha * s);
    atomic_update_small(p, [add](T cur) { return static_cast<T>(cur + add); });
  } else if constexpr (std::is_same<T, int64_t>::value) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p),
              static_cast<unsigned long long>(static_cast<int64_t>(
                  static_cast<unsigned long long>(alpha) * static_cast<unsigned long long>(s))));
  } else if constexpr (std::is_same<T, int32_t>::value) {
    atomicAdd(reinterpret_cast<unsigned int*>(p),
              static_cast<unsigned int>(alpha) * static_cast<unsigned int>(s));
  } else {
    atomicAdd(p, static_cast<T>(alpha * s));  // float, double
  }
}

template <typename T>
__global__ void index_add_kernel(IndexLoop l, T alpha, IndexErrorRecord* err) {
  T* dst = static_cast<T*>(l.dst);
  const T* src = static_cast<const T*>(l.src);
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < l.numel;
       i += int64_t{blockDim.x} * gridDim.x) {
    int64_t off[3];
    index_offsets(l, i, off);
    int64_t v;
    if (!read_index(l, off[1], err, &v)) continue;
    add_scaled(dst + off[0] + v * l.dim_stride, alpha, src[off[2]]);
  }
}

}  // namespace

cudaError_t launch_index_add(DType dtype, const IndexLoop& l, ScalarBits alpha,
                             IndexErrorRecord* err) {
  if (l.numel == 0) return cudaSuccess;
  return dispatch<kAllKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    index_add_kernel<T>
        <<<grid_for(l.numel), kBlockThreads, 0, current_stream()>>>(l, from_bits<T>(alpha), err);
    return cudaGetLastError();
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
