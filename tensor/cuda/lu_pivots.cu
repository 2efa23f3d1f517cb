// LAPACK's pivots (row i swapped with row pivots[i] - 1, in order) as the
// permutation they compose to, on the device: one thread per matrix walks
// its pivots in order, as lu_unpack's CPU loop does. For lu_unpack's
// CUDA entry (tensor/cuda/cusolver.cc); and the device arrays of matrix
// addresses that cuBLAS's batched LU routines take (Note [Batched LU]).

#include <cuda_runtime.h>

#include <cstdint>

namespace ember {
namespace cuda {
namespace kernels {
namespace {

__global__ void lu_permutation(const int* pivots, int64_t* perm, int64_t batches, int64_t npiv,
                               int64_t m) {
  const int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b >= batches) return;
  int64_t* p = perm + b * m;
  for (int64_t i = 0; i < m; ++i) p[i] = i;
  const int* pv = pivots + b * npiv;
  for (int64_t i = 0; i < npiv; ++i) {
    const int64_t j = pv[i] - 1;
    const int64_t t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
}

__global__ void pointer_array(void** out, char* base, int64_t stride, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    out[i] = base + i * stride;
  }
}

}  // namespace

cudaError_t launch_pointer_array(void** out, char* base, int64_t stride_bytes, int64_t n,
                                 cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  constexpr int kThreads = 256;
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  pointer_array<<<static_cast<unsigned>(blocks < 65535 ? blocks : 65535), kThreads, 0, stream>>>(
      out, base, stride_bytes, n);
  return cudaGetLastError();
}

// pivots (batches, npiv) int32, each in [1, m] (checked by the caller);
// perm (batches, m) int64: row i of P^T A is row perm[i] of A.
cudaError_t launch_lu_permutation(const int* pivots, int64_t* perm, int64_t batches, int64_t npiv,
                                  int64_t m, cudaStream_t stream) {
  if (batches == 0 || m == 0) return cudaSuccess;
  constexpr int kThreads = 128;
  const unsigned blocks = static_cast<unsigned>((batches + kThreads - 1) / kThreads);
  lu_permutation<<<blocks, kThreads, 0, stream>>>(pivots, perm, batches, npiv, m);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
