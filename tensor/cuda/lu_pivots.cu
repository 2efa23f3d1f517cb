// LAPACK's pivots (row i swapped with row pivots[i] - 1, in order) as the
// permutation they compose to, on the device: one thread per matrix walks
// its pivots in order, as lu_unpack's CPU loop does. For lu_unpack's
// CUDA entry (tensor/cuda/cusolver.cc).

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

}  // namespace

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
