// im2col and its adjoint for convolutions on CUDA (tensor/cuda/conv.cc).

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
__global__ void im2col_kernel(const T* x, T* col, int64_t nb, ConvWindow g) {
  const int64_t L = g.oh * g.ow, K = g.kh * g.kw, rows = g.c * K;
  const int64_t total = nb * rows * L;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{blockDim.x} * gridDim.x) {
    const int64_t l = i % L, n = (i / L) % nb, r = i / (L * nb);
    const int64_t c = r / K, ki = (r % K) / g.kw, kj = r % g.kw;
    const int64_t oy = l / g.ow, ox = l % g.ow;
    const int64_t y = oy * g.sh - g.ph + ki * g.dh, xx = ox * g.sw - g.pw + kj * g.dw;
    col[i] = (y >= 0 && y < g.h && xx >= 0 && xx < g.w) ? x[((n * g.c + c) * g.h + y) * g.w + xx]
                                                         : T(0);
  }
}

template <typename T>
__global__ void col2im_kernel(const T* col, T* gx, int64_t nb, ConvWindow g) {
  const int64_t L = g.oh * g.ow, K = g.kh * g.kw;
  const int64_t total = nb * g.c * g.h * g.w;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{blockDim.x} * gridDim.x) {
    const int64_t xx = i % g.w, y = (i / g.w) % g.h, c = (i / (g.w * g.h)) % g.c;
    const int64_t n = i / (g.w * g.h * g.c);
    T sum = T(0);
    for (int64_t ki = 0; ki < g.kh; ++ki) {
      const int64_t ty = y + g.ph - ki * g.dh;
      if (ty < 0 || ty % g.sh != 0 || ty / g.sh >= g.oh) continue;
      for (int64_t kj = 0; kj < g.kw; ++kj) {
        const int64_t tx = xx + g.pw - kj * g.dw;
        if (tx < 0 || tx % g.sw != 0 || tx / g.sw >= g.ow) continue;
        const int64_t r = c * K + ki * g.kw + kj, l = (ty / g.sh) * g.ow + tx / g.sw;
        sum += col[(r * nb + n) * L + l];
      }
    }
    gx[i] = sum;
  }
}

template <typename F>
cudaError_t float_or_double(DType dtype, F&& f) {
  if (dtype == DType::kFloat) return f(Tag<float>{});
  if (dtype == DType::kDouble) return f(Tag<double>{});
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launch_im2col(DType dtype, const void* x, void* col, int64_t nb, const ConvWindow& g) {
  const int64_t total = nb * g.c * g.kh * g.kw * g.oh * g.ow;
  if (total == 0) return cudaSuccess;
  return float_or_double(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    im2col_kernel<T><<<grid_for(total), kBlockThreads, 0, current_stream()>>>(
        static_cast<const T*>(x), static_cast<T*>(col), nb, g);
    return cudaGetLastError();
  });
}

cudaError_t launch_col2im(DType dtype, const void* col, void* gx, int64_t nb, const ConvWindow& g) {
  const int64_t total = nb * g.c * g.h * g.w;
  if (total == 0) return cudaSuccess;
  return float_or_double(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    col2im_kernel<T><<<grid_for(total), kBlockThreads, 0, current_stream()>>>(
        static_cast<const T*>(col), static_cast<T*>(gx), nb, g);
    return cudaGetLastError();
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
