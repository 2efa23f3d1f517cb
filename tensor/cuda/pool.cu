// avg_pool2d and adaptive_avg_pool2d, forward and backward (launched from
// nn_ops.cc). Each output sums its window in the CPU kernel's order
// (tensor/pool.cc), so the forwards match it bit for bit; the backwards
// gather (one thread per input element, the windows that hold it in the
// CPU's order of outputs), so no atomics and no run-to-run variation.

#include <type_traits>

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

// PyTorch's avg_pool2d window of output (oy, ox), clipped to the input;
// false when it holds no input element.
struct Window {
  int64_t y0, y1, x0, x1, div;
};
__device__ __forceinline__ bool avg_window(const PoolWindow& p, bool count_include_pad,
                                           int64_t divisor, int64_t oy, int64_t ox, Window* w) {
  int64_t y0 = oy * p.sh - p.ph, x0 = ox * p.sw - p.pw;
  int64_t y1 = min(y0 + p.kh, p.h + p.ph), x1 = min(x0 + p.kw, p.w + p.pw);
  const int64_t pool_size = (y1 - y0) * (x1 - x0);
  y0 = max(y0, int64_t{0});
  x0 = max(x0, int64_t{0});
  y1 = min(y1, p.h);
  x1 = min(x1, p.w);
  if (y0 >= y1 || x0 >= x1) return false;
  w->y0 = y0;
  w->y1 = y1;
  w->x0 = x0;
  w->x1 = x1;
  w->div = divisor > 0 ? divisor : count_include_pad ? pool_size : (y1 - y0) * (x1 - x0);
  return true;
}

template <typename T>
__global__ void avg_pool_kernel(const T* x, T* out, PoolWindow p, bool count_include_pad,
                                int64_t divisor) {
  const int64_t total = p.planes * p.oh * p.ow;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{blockDim.x} * gridDim.x) {
    const int64_t ox = i % p.ow, oy = (i / p.ow) % p.oh, pl = i / (p.ow * p.oh);
    const T* in = x + pl * p.h * p.w;
    Window w;
    // half / bfloat16 sum in float (A); other dtypes in their own.
    using A = opmath_t<T>;
    A o = 0;
    if (avg_window(p, count_include_pad, divisor, oy, ox, &w)) {
      A sum = 0;
      for (int64_t y = w.y0; y < w.y1; ++y) {
        for (int64_t xx = w.x0; xx < w.x1; ++xx) sum += static_cast<A>(in[y * p.w + xx]);
      }
      if constexpr (std::is_integral<T>::value) {  // int64: truncating
        o = sum / static_cast<A>(w.div);
      } else {
        o = sum * (A(1) / static_cast<A>(w.div));
      }
    }
    out[i] = static_cast<T>(o);
  }
}

template <typename T>
__global__ void avg_pool_backward_kernel(const T* gy, T* gx, PoolWindow p, bool count_include_pad,
                                         int64_t divisor) {
  const int64_t total = p.planes * p.h * p.w;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{blockDim.x} * gridDim.x) {
    const int64_t x = i % p.w, y = (i / p.w) % p.h, pl = i / (p.w * p.h);
    const T* g = gy + pl * p.oh * p.ow;
    // Outputs whose (unclipped) window can hold y: a superset, checked below.
    const int64_t oy0 = max(int64_t{0}, (y + p.ph - p.kh) / p.sh);
    const int64_t oy1 = min(p.oh - 1, (y + p.ph) / p.sh);
    const int64_t ox0 = max(int64_t{0}, (x + p.pw - p.kw) / p.sw);
    const int64_t ox1 = min(p.ow - 1, (x + p.pw) / p.sw);
    using A = opmath_t<T>;
    A acc = 0;
    for (int64_t oy = oy0; oy <= oy1; ++oy) {
      for (int64_t ox = ox0; ox <= ox1; ++ox) {
        Window w;
        if (!avg_window(p, count_include_pad, divisor, oy, ox, &w)) continue;
        if (y < w.y0 || y >= w.y1 || x < w.x0 || x >= w.x1) continue;
        acc += static_cast<A>(g[oy * p.ow + ox]) * (A(1) / static_cast<A>(w.div));
      }
    }
    gx[i] = static_cast<T>(acc);
  }
}

__device__ __forceinline__ int64_t a_start(int64_t o, int64_t in, int64_t out) {
  return (o * in) / out;
}
__device__ __forceinline__ int64_t a_end(int64_t o, int64_t in, int64_t out) {
  return ((o + 1) * in + out - 1) / out;
}

template <typename T>
__global__ void adaptive_kernel(const T* x, T* out, int64_t planes, int64_t h, int64_t w,
                                int64_t oh, int64_t ow) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < planes * oh * ow;
       i += int64_t{blockDim.x} * gridDim.x) {
    const int64_t ox = i % ow, oy = (i / ow) % oh, pl = i / (ow * oh);
    const int64_t y0 = a_start(oy, h, oh), y1 = a_end(oy, h, oh);
    const int64_t x0 = a_start(ox, w, ow), x1 = a_end(ox, w, ow);
    // half / bfloat16 accumulate in float; for float and double A is T.
    using A = opmath_t<T>;
    A sum = 0;
    for (int64_t y = y0; y < y1; ++y) {
      for (int64_t xx = x0; xx < x1; ++xx) sum += static_cast<A>(x[(pl * h + y) * w + xx]);
    }
    out[i] = static_cast<T>(sum / static_cast<A>((y1 - y0) * (x1 - x0)));
  }
}

template <typename T>
__global__ void adaptive_backward_kernel(const T* gy, T* gx, int64_t planes, int64_t h, int64_t w,
                                         int64_t oh, int64_t ow) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < planes * h * w;
       i += int64_t{blockDim.x} * gridDim.x) {
    const int64_t x = i % w, y = (i / w) % h, pl = i / (w * h);
    const T* g = gy + pl * oh * ow;
    // Outputs whose window can hold y: a superset, checked below.
    const int64_t oy0 = max(int64_t{0}, (y * oh) / h - 1), oy1 = min(oh - 1, ((y + 1) * oh) / h);
    const int64_t ox0 = max(int64_t{0}, (x * ow) / w - 1), ox1 = min(ow - 1, ((x + 1) * ow) / w);
    using A = opmath_t<T>;
    A acc = 0;
    for (int64_t oy = oy0; oy <= oy1; ++oy) {
      const int64_t y0 = a_start(oy, h, oh), y1 = a_end(oy, h, oh);
      if (y < y0 || y >= y1) continue;
      for (int64_t ox = ox0; ox <= ox1; ++ox) {
        const int64_t x0 = a_start(ox, w, ow), x1 = a_end(ox, w, ow);
        if (x < x0 || x >= x1) continue;
        acc += static_cast<A>(g[oy * ow + ox]) / static_cast<A>((y1 - y0) * (x1 - x0));
      }
    }
    gx[i] = static_cast<T>(acc);
  }
}

}  // namespace

cudaError_t launch_avg_pool(DType dtype, const void* x, void* out, const PoolWindow& p,
                            bool count_include_pad, int64_t divisor) {
  const int64_t total = p.planes * p.oh * p.ow;
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (total == 0) return cudaSuccess;
    avg_pool_kernel<T><<<grid_for(total), kBlockThreads, 0, current_stream()>>>(
        static_cast<const T*>(x), static_cast<T*>(out), p, count_include_pad, divisor);
    return cudaGetLastError();
  };
  if (dtype == DType::kFloat) return run(Tag<float>{});
  if (dtype == DType::kDouble) return run(Tag<double>{});
  if (dtype == DType::kHalf) return run(Tag<__half>{});
  if (dtype == DType::kBFloat16) return run(Tag<__nv_bfloat16>{});
  if (dtype == DType::kInt64) return run(Tag<int64_t>{});
  return cudaErrorInvalidValue;
}

cudaError_t launch_avg_pool_backward(DType dtype, const void* gy, void* gx, const PoolWindow& p,
                                     bool count_include_pad, int64_t divisor) {
  const int64_t total = p.planes * p.h * p.w;
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (total == 0) return cudaSuccess;
    avg_pool_backward_kernel<T><<<grid_for(total), kBlockThreads, 0, current_stream()>>>(
        static_cast<const T*>(gy), static_cast<T*>(gx), p, count_include_pad, divisor);
    return cudaGetLastError();
  };
  return dispatch<kFloatingKinds>(dtype, run);
}

cudaError_t launch_adaptive_avg_pool(bool backward, DType dtype, const void* in, void* out,
                                     int64_t planes, int64_t h, int64_t w, int64_t oh, int64_t ow) {
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t total = planes * (backward ? h * w : oh * ow);
    if (total == 0) return cudaSuccess;
    if (backward) {
      adaptive_backward_kernel<T><<<grid_for(total), kBlockThreads, 0, current_stream()>>>(
          static_cast<const T*>(in), static_cast<T*>(out), planes, h, w, oh, ow);
    } else {
      adaptive_kernel<T><<<grid_for(total), kBlockThreads, 0, current_stream()>>>(
          static_cast<const T*>(in), static_cast<T*>(out), planes, h, w, oh, ow);
    }
    return cudaGetLastError();
  };
  return dispatch<kFloatingKinds>(dtype, run);
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
