// multinomial with replacement on the device (launch_multinomial; the CUDA
// entry of tensor/multinomial_kernels.h, registered by
// multinomial_cuda.cc). One thread per row builds the row's cumulative
// distribution with the CPU kernel's arithmetic (tensor/multinomial.cc:
// a running sum in float, double for double, divided by the total, the
// last entry set to 1), so the table is the CPU's bit for bit; then one
// thread per draw runs the CPU's binary search for its uniform. The work is
// O(rows x categories + rows x samples x log(categories)). A serial sum
// per row suits batches of rows; a single row of a very large vocabulary
// would want a parallel scan (with a rounding that is no longer the CPU's).

#include <type_traits>

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename T, typename Acc>
__global__ void multinomial_cdf(const T* probs, Acc* cum, int64_t rows, int64_t n,
                                unsigned long long* bad) {
  EMBER_GRID_LOOP(r, rows) {
    const T* p = probs + r * n;
    Acc* c = cum + r * n;
    Acc sum = 0;
    unsigned long long code = 0;
    for (int64_t j = 0; j < n; ++j) {
      const Acc val = static_cast<Acc>(static_cast<opmath_t<T>>(p[j]));
      if (!(static_cast<double>(val) >= 0)) {
        code = 1;
        break;
      }
      if (!isfinite(static_cast<double>(val))) {
        code = 2;
        break;
      }
      sum += val;
      c[j] = sum;
    }
    if (code == 0 && !(static_cast<double>(sum) > 0)) code = 3;
    if (code != 0) {
      atomicMin(bad, static_cast<unsigned long long>(r) * 4 + code);
      continue;
    }
    for (int64_t j = 0; j < n; ++j) c[j] /= sum;
    c[n - 1] = 1;
  }
}

template <typename Acc>
__global__ void multinomial_search(const Acc* cum, const double* u, int64_t* out, int64_t rows,
                                   int64_t n, int64_t samples) {
  EMBER_GRID_LOOP(i, rows * samples) {
    const Acc* c = cum + (i / samples) * n;
    const double v = u[i];
    int64_t left = 0, right = n;
    while (right - left > 0) {
      const int64_t mid = left + (right - left) / 2;
      if (static_cast<double>(c[mid]) < v) {
        left = mid + 1;
      } else {
        right = mid;
      }
    }
    out[i] = left;
  }
}

}  // namespace

cudaError_t launch_multinomial(DType dtype, const void* probs, void* cum, const double* u,
                               int64_t* out, int64_t rows, int64_t categories, int64_t samples,
                               unsigned long long* bad) {
  if (rows == 0 || categories == 0 || samples == 0) return cudaSuccess;
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
    multinomial_cdf<T, Acc><<<grid_for(rows), kBlockThreads, 0, current_stream()>>>(
        static_cast<const T*>(probs), static_cast<Acc*>(cum), rows, categories, bad);
    multinomial_search<Acc><<<grid_for(rows * samples), kBlockThreads, 0, current_stream()>>>(
        static_cast<const Acc*>(cum), u, out, rows, categories, samples);
    return cudaGetLastError();
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
