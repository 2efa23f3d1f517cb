// Note [Small-k topk]: topk and kthvalue with k <= topk::kMaxK (16) over
// rows of at most kTopkMaxLen elements select without sorting: one block
// per row, each thread keeps the k smallest (key, position) pairs of its
// strided share of the row in registers (sort.cu's order-preserving keys,
// so descending, NaN and -0.0 order exactly as the sort does), then the
// block merges the 128 sorted lists pairwise in shared memory (7 rounds of
// k steps). Since (key, position) pairs are distinct and ordered as the
// stable sort orders elements, the result is bit for bit the first k
// columns of the sorted row, ties included: the sort path and this one
// agree, and topk_select_test.cc checks the reduction on the host.
// PyTorch's CUDA topk is a radix select; for the issue's classifier shape
// (4096 rows of 1000, k = 5) this reads each row once.

#include "tensor/cuda/elementwise.cuh"
#include "tensor/cuda/sort_keys.cuh"
#include "tensor/cuda/sort_kernels.h"
#include "tensor/cuda/topk_select.h"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

constexpr int kTopkThreads = 128;

template <typename U>
__global__ void __launch_bounds__(kTopkThreads)
    topk_rows_kernel(const U* x, int64_t n_rows, int64_t len, int k, KeySpec s, U* values,
                     int64_t* indices) {
  __shared__ topk::Cand lists[kTopkThreads * topk::kMaxK];
  const int tid = threadIdx.x;
  for (int64_t row = blockIdx.x; row < n_rows; row += gridDim.x) {
    const U* r = x + row * len;
    topk::Cand mine[topk::kMaxK];
    for (int i = 0; i < k; ++i) mine[i] = topk::sentinel();
    for (int64_t j = tid; j < len; j += kTopkThreads) {
      topk::insert(mine, k, topk::Cand{static_cast<uint64_t>(order_key<U>(r[j], s)), j});
    }
    topk::Cand* own = lists + tid * topk::kMaxK;
    for (int i = 0; i < k; ++i) own[i] = mine[i];
    __syncthreads();
    for (int half = kTopkThreads / 2; half > 0; half /= 2) {
      if (tid < half) {
        topk::merge(own, lists + (tid + half) * topk::kMaxK, mine, k);
        for (int i = 0; i < k; ++i) own[i] = mine[i];
      }
      __syncthreads();
    }
    if (tid < k) {
      const int64_t p = lists[tid].pos;
      values[row * k + tid] = r[p];
      indices[row * k + tid] = p;
    }
    __syncthreads();  // lists is reused by the next row
  }
}

template <typename U>
cudaError_t topk_rows(const void* x, int64_t n_rows, int64_t len, int k, const KeySpec& s,
                      void* values, int64_t* indices) {
  const int64_t blocks = n_rows < 65535 * 8 ? n_rows : 65535 * 8;
  topk_rows_kernel<U><<<static_cast<unsigned>(blocks), kTopkThreads, 0, current_stream()>>>(
      static_cast<const U*>(x), n_rows, len, k, s, static_cast<U*>(values), indices);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_topk_rows(DType dtype, const void* x, int64_t n_rows, int64_t len, int k,
                             bool descending, void* values, int64_t* indices) {
  if (k < 1 || k > topk::kMaxK || k > len || len > kTopkMaxLen) return cudaErrorInvalidValue;
  if (n_rows == 0) return cudaSuccess;
  int size = 0;
  const KeySpec s = key_spec(dtype, descending, &size);
  switch (size) {
    case 1:
      return topk_rows<uint8_t>(x, n_rows, len, k, s, values, indices);
    case 2:
      return topk_rows<uint16_t>(x, n_rows, len, k, s, values, indices);
    case 4:
      return topk_rows<uint32_t>(x, n_rows, len, k, s, values, indices);
    case 8:
      return topk_rows<uint64_t>(x, n_rows, len, k, s, values, indices);
  }
  return cudaErrorInvalidValue;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
