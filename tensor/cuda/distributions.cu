// poisson and binomial on the device (distributions_launch.h): one thread
// per element runs the CPU's sampler on the element's own Philox stream.

#include <cmath>
#include <type_traits>

#include "tensor/cuda/distributions_launch.h"
#include "tensor/cuda/elementwise.cuh"
#include "tensor/distribution_samplers.h"
#include "tensor/philox.h"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

// Element `element`'s uniforms in [0, 1): two per Philox draw, the j-th
// draw at position (j << 40) | element.
struct ElementUniform {
  uint64_t seed, offset, element;
  uint32_t draws = 0;
  int next = 2;
  Philox4x32 w;

  __device__ double operator()() {
    if (next == 2) {
      w = philox_draw(seed, offset, (static_cast<uint64_t>(draws++) << 40) | element);
      next = 0;
    }
    const uint64_t bits = (static_cast<uint64_t>(w.v[2 * next + 1]) << 32) | w.v[2 * next];
    ++next;
    return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);
  }
};

template <typename T>
__device__ __forceinline__ T from_double(double v) {
  if constexpr (std::is_same<T, __half>::value) {
    return __double2half(v);
  } else if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    return __double2bfloat16(v);
  } else {
    return static_cast<T>(v);
  }
}

__device__ __forceinline__ void philox_state(const RandomArgs& a, uint64_t* seed,
                                             uint64_t* offset) {
  *seed = a.seed;
  *offset = a.offset;
  if (a.graph_state != nullptr) {
    *seed = a.graph_state[0];
    *offset += a.graph_state[1];
  }
}

template <typename T>
__global__ void poisson_kernel(const T* rates, T* out, int64_t n, RandomArgs a,
                               IndexErrorRecord* bad) {
  uint64_t seed, offset;
  philox_state(a, &seed, &offset);
  EMBER_GRID_LOOP(i, n) {
    const double lambda = static_cast<double>(static_cast<opmath_t<T>>(rates[i]));
    if (!(lambda >= 0)) {
      if (atomicCAS(&bad->flag, 0, 1) == 0) {
        bad->check = kPoissonRateCheck;
        bad->value = i;
        bad->dim = 0;
        bad->bound = n;
      }
      out[i] = from_double<T>(NAN);
      continue;
    }
    ElementUniform u{seed, offset, static_cast<uint64_t>(i)};
    out[i] = from_double<T>(samplers::poisson(lambda, u));
  }
}

template <typename T>
__global__ void binomial_kernel(const T* count, const T* prob, T* out, int64_t n, RandomArgs a) {
  using S = opmath_t<T>;
  uint64_t seed, offset;
  philox_state(a, &seed, &offset);
  EMBER_GRID_LOOP(i, n) {
    ElementUniform u{seed, offset, static_cast<uint64_t>(i)};
    const S c = static_cast<S>(count[i]), p = static_cast<S>(prob[i]);
    out[i] = from_opmath<T>(samplers::binomial<S>(c, p, u));
  }
}

}  // namespace

cudaError_t launch_poisson(DType dtype, const void* rates, void* out, int64_t n,
                           const RandomArgs& philox, IndexErrorRecord* bad) {
  if (n == 0) return cudaSuccess;
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    poisson_kernel<T><<<grid_for(n), kBlockThreads, 0, current_stream()>>>(
        static_cast<const T*>(rates), static_cast<T*>(out), n, philox, bad);
    return cudaGetLastError();
  });
}

cudaError_t launch_binomial(DType dtype, const void* count, const void* prob, void* out, int64_t n,
                            const RandomArgs& philox) {
  if (n == 0) return cudaSuccess;
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    binomial_kernel<T><<<grid_for(n), kBlockThreads, 0, current_stream()>>>(
        static_cast<const T*>(count), static_cast<const T*>(prob), static_cast<T*>(out), n, philox);
    return cudaGetLastError();
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
