// cumsum / cumprod along one dim (scan_stub, scan_kernels.h; launched from
// nn_ops.cc). One thread per line of the [outer, len, inner] view walks len
// in order, accumulating as the CPU kernel (scan.cc) does: in int64 for
// bool and integers (products wrap), in double for floating types, rounded
// through float for half and bfloat16. The same order and types give the
// CPU's results bit for bit. A serial walk suits the lines scans see in
// training code (a few thousand long at most); a single very long line would
// want a parallel scan.

#include <type_traits>

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename Acc, typename In>
__device__ __forceinline__ Acc to_acc(In x) {
  if constexpr (std::is_same<In, __half>::value || std::is_same<In, __nv_bfloat16>::value) {
    return static_cast<Acc>(static_cast<float>(x));
  } else {
    return static_cast<Acc>(x);
  }
}

template <typename Out, typename Acc>
__device__ __forceinline__ Out from_acc(Acc a) {
  if constexpr (std::is_same<Out, __half>::value) {
    return __float2half(static_cast<float>(a));
  } else if constexpr (std::is_same<Out, __nv_bfloat16>::value) {
    return __float2bfloat16(static_cast<float>(a));
  } else {
    return static_cast<Out>(a);
  }
}

template <typename In, typename Out, bool kProd>
__global__ void cumulative_lines(const In* x, Out* y, int64_t outer, int64_t len, int64_t inner) {
  using Acc = std::conditional_t<std::is_integral<Out>::value, int64_t, double>;
  for (int64_t line = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; line < outer * inner;
       line += int64_t{blockDim.x} * gridDim.x) {
    const int64_t o = line / inner, j = line % inner;
    const In* xr = x + o * len * inner + j;
    Out* yr = y + o * len * inner + j;
    Acc acc = kProd ? Acc(1) : Acc(0);
    for (int64_t l = 0; l < len; ++l) {
      const Acc v = to_acc<Acc>(xr[l * inner]);
      if constexpr (!kProd) {
        acc += v;
      } else if constexpr (std::is_integral<Acc>::value) {
        acc = static_cast<Acc>(static_cast<uint64_t>(acc) * static_cast<uint64_t>(v));
      } else {
        acc *= v;
      }
      yr[l * inner] = from_acc<Out>(acc);
    }
  }
}

}  // namespace

cudaError_t launch_cumulative(bool prod, DType dtype, const void* x, void* y, int64_t outer,
                              int64_t len, int64_t inner) {
  if (outer * inner == 0 || len == 0) return cudaSuccess;
  return dispatch<kAllKinds>(dtype, [&](auto tag) {
    using In = typename decltype(tag)::type;
    using Out = std::conditional_t<std::is_integral<In>::value, int64_t, In>;
    const In* xp = static_cast<const In*>(x);
    Out* yp = static_cast<Out*>(y);
    if (prod) {
      cumulative_lines<In, Out, true>
          <<<grid_for(outer * inner), kBlockThreads, 0, current_stream()>>>(xp, yp, outer, len,
                                                                            inner);
    } else {
      cumulative_lines<In, Out, false>
          <<<grid_for(outer * inner), kBlockThreads, 0, current_stream()>>>(xp, yp, outer, len,
                                                                            inner);
    }
    return cudaGetLastError();
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
