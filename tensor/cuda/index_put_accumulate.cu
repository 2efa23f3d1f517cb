// index_put_ with accumulate=true, deterministic as PyTorch's CUDA
// index_put_with_sort: the keys (advanced_index.cu) are sorted with CUB's
// stable radix sort, then each run of equal keys is summed by one thread per
// element in the order of the index positions, from self's value, as the
// CPU's loop adds them (tensor/indexing.cc). No atomics: the same inputs
// give the same bits on every run, and the CPU's bits.

#include <cub/device/device_radix_sort.cuh>

#include <type_traits>

#include "tensor/cuda/advanced_index_kernels.h"
#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

// a + b as the CPU's index_put_ computes static_cast<T>(a + b).
template <typename T>
__device__ __forceinline__ T add_as_cpu(T a, T b) {
  if constexpr (std::is_same<T, bool>::value) {
    return a || b;
  } else if constexpr (std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value) {
    return T(static_cast<float>(a) + static_cast<float>(b));
  } else if constexpr (std::is_integral<T>::value) {
    using U = typename std::make_unsigned<T>::type;  // wraps, as the CPU's in practice
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

template <typename T>
__global__ void index_put_accumulate_kernel(IndexPutAccumulateLoop l) {
  T* self = static_cast<T*>(l.self);
  const T* values = static_cast<const T*>(l.values);
  const int64_t total = l.n_rest * l.n_b;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{blockDim.x} * gridDim.x) {
    const int64_t s = i / l.n_rest;
    const uint64_t key = l.keys[s];
    if (key == l.sentinel || (s > 0 && l.keys[s - 1] == key)) continue;  // not a run's head
    int64_t r = i % l.n_rest, so = 0, vo = 0;
    for (int d = 0; d < l.ndim; ++d) {
      const int64_t c = r % l.sizes[d];
      r /= l.sizes[d];
      so += c * l.self_strides[d];
      vo += c * l.values_strides[d];
    }
    T* dst = self + so + static_cast<int64_t>(key);
    T acc = *dst;
    for (int64_t t = s; t < l.n_b && l.keys[t] == key; ++t) {
      int64_t j = l.perm[t], vb = 0;
      for (int d = 0; d < l.b_ndim; ++d) {
        vb += (j % l.b_sizes[d]) * l.b_strides[d];
        j /= l.b_sizes[d];
      }
      acc = add_as_cpu(acc, values[vo + vb]);
    }
    *dst = acc;
  }
}

}  // namespace

cudaError_t sort_index_put_keys(void* temp, size_t* temp_bytes, const uint64_t* keys_in,
                                uint64_t* keys_out, const int64_t* perm_in, int64_t* perm_out,
                                int n, int end_bit) {
  return cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, keys_in, keys_out, perm_in, perm_out, n,
                                         0, end_bit, current_stream());
}

cudaError_t launch_index_put_accumulate(DType dtype, const IndexPutAccumulateLoop& l) {
  const int64_t total = l.n_rest * l.n_b;
  if (total == 0) return cudaSuccess;
  return dispatch<kAllKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    index_put_accumulate_kernel<T><<<grid_for(total), kBlockThreads, 0, current_stream()>>>(l);
    return cudaGetLastError();
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
