// grid_sampler_2d/3d and their backwards on CUDA (launched from
// grid_sampler_cuda.cc): one thread per output point, running
// tensor/grid_sampler_math.h's per-point code, the CPU kernels' own, over
// the point's channels. The backward scatters into grad_input with
// atomicAdd, so its summation order (and so its rounding) varies from run to
// run, as PyTorch's CUDA kernel's does; grad_grid has a single writer.
// Being the CPU's code, it gives NaN and infinite grid values the CPU's
// results (Note [grid_sampler as 1.13 computes it]); 1.13's own CUDA kernel
// is a third code, whose results for them ember does not reproduce.

#include "tensor/cuda/grid_sampler_kernels.h"

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
struct AtomicAdd {
  __host__ __device__ void operator()(T* p, T v) const {
#if defined(__CUDA_ARCH__)
    atomicAdd(p, v);
#else
    *p += v;
#endif
  }
};

// The point i of [N, P) and its grid entry.
struct Point {
  int64_t n, p;
  int64_t grid_offset;
};

__device__ __forceinline__ Point point_of(const grid_sample::Geometry& g, int64_t P, int64_t i) {
  const int64_t n = i / P, p = i % P;
  const int64_t w = p % g.oW, h = (p / g.oW) % g.oH, d = p / (g.oW * g.oH);
  return {n, p, n * g.gsN + d * g.gsD + h * g.gsH + w * g.gsW};
}

template <typename T>
__global__ void grid_sampler_kernel(const grid_sample::Geometry g, int64_t P, const T* in,
                                    const T* grid, T* out) {
  EMBER_GRID_LOOP(i, g.N * P) {
    const Point pt = point_of(g, P, i);
    const T* q = grid + pt.grid_offset;
    T* dst = out + pt.n * g.C * P + pt.p;
    if (g.three_d) {
      grid_sample::sample_3d<T>(g, in + pt.n * g.isN, q[0], q[g.gsK], q[2 * g.gsK], dst, P);
    } else {
      grid_sample::sample_2d<T>(g, in + pt.n * g.isN, q[0], q[g.gsK], dst, P);
    }
  }
}

template <typename T>
__global__ void grid_sampler_backward_kernel(const grid_sample::Geometry g, int64_t P,
                                             const T* gout, const T* in, const T* grid, T* gin,
                                             T* ggrid) {
  const int64_t in_numel = g.C * g.D * g.H * g.W;
  EMBER_GRID_LOOP(i, g.N * P) {
    const Point pt = point_of(g, P, i);
    const T* q = grid + pt.grid_offset;
    const T* gop = gout + pt.n * g.C * P + pt.p;
    T* gi = gin != nullptr ? gin + pt.n * in_numel : nullptr;
    if (g.three_d) {
      grid_sample::sample_3d_backward<T>(g, in + pt.n * g.isN, gop, P, gi, q[0], q[g.gsK],
                                         q[2 * g.gsK], ggrid + i * 3, AtomicAdd<T>{});
    } else {
      grid_sample::sample_2d_backward<T>(g, in + pt.n * g.isN, gop, P, gi, q[0], q[g.gsK],
                                         ggrid + i * 2, AtomicAdd<T>{});
    }
  }
}

}  // namespace

cudaError_t launch_grid_sampler(DType dtype, const grid_sample::Geometry& g, const void* input,
                                const void* grid, void* out) {
  const int64_t P = g.points(), total = g.N * P;
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (total == 0) return cudaSuccess;
    grid_sampler_kernel<T><<<grid_for(total), kBlockThreads, 0, current_stream()>>>(
        g, P, static_cast<const T*>(input), static_cast<const T*>(grid), static_cast<T*>(out));
    return cudaGetLastError();
  };
  if (dtype == DType::kFloat) return run(Tag<float>{});
  if (dtype == DType::kDouble) return run(Tag<double>{});
  return cudaErrorInvalidValue;
}

cudaError_t launch_grid_sampler_backward(DType dtype, const grid_sample::Geometry& g,
                                         const void* grad_output, const void* input,
                                         const void* grid, void* grad_input, void* grad_grid) {
  const int64_t P = g.points(), total = g.N * P;
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (total == 0) return cudaSuccess;
    grid_sampler_backward_kernel<T><<<grid_for(total), kBlockThreads, 0, current_stream()>>>(
        g, P, static_cast<const T*>(grad_output), static_cast<const T*>(input),
        static_cast<const T*>(grid), static_cast<T*>(grad_input), static_cast<T*>(grad_grid));
    return cudaGetLastError();
  };
  if (dtype == DType::kFloat) return run(Tag<float>{});
  if (dtype == DType::kDouble) return run(Tag<double>{});
  return cudaErrorInvalidValue;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
