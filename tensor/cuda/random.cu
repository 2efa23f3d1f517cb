// Random fills on the device (Note [Device random numbers] in
// tensor/random.cc): one kernel per output dtype, with the distribution a
// run-time argument, so that ten instantiations serve every fill. Each
// thread computes whole groups of `per` elements from one Philox draw at
// counter (group, offset); which thread runs a group changes nothing.

#include <type_traits>

#include "tensor/cuda/elementwise.cuh"
#include "tensor/cuda/random_kernels.h"
#include "tensor/philox.h"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

constexpr float kTwoPow24Inv = 1.0f / 16777216.0f;
constexpr double kTwoPow53Inv = 1.0 / 9007199254740992.0;

// Uniforms from the top 24 bits of a word (float) or 53 bits of two:
// [0, 1), and (0, 1] for a logarithm's argument.
__device__ __forceinline__ float uniform_f(uint32_t r) {
  return static_cast<float>(r >> 8) * kTwoPow24Inv;
}
__device__ __forceinline__ float uniform_open0_f(uint32_t r) {
  return static_cast<float>((r >> 8) + 1) * kTwoPow24Inv;
}
__device__ __forceinline__ uint64_t join(uint32_t lo, uint32_t hi) {
  return (static_cast<uint64_t>(hi) << 32) | lo;
}
__device__ __forceinline__ double uniform_d(uint64_t r) {
  return static_cast<double>(r >> 11) * kTwoPow53Inv;
}
__device__ __forceinline__ double uniform_open0_d(uint64_t r) {
  return static_cast<double>((r >> 11) + 1) * kTwoPow53Inv;
}

template <typename T, typename A>
__device__ __forceinline__ T to_out(A v) {
  if constexpr (std::is_same<T, __half>::value) {
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else if constexpr (std::is_same<T, bool>::value) {
    return v != A(0);
  } else {
    return static_cast<T>(v);
  }
}

template <typename T>
__device__ __forceinline__ double to_double(T v) {
  if constexpr (std::is_same<T, __half>::value) {
    return static_cast<double>(__half2float(v));
  } else if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    return static_cast<double>(__bfloat162float(v));
  } else {
    return static_cast<double>(v);
  }
}

// Element k (< per) of a group whose draw is w. per == 2: each element has
// 64 bits (words 2k, 2k + 1) and computes in double; per == 4: one word,
// in float. `p` is the element's probability (kBernoulliTensor).
template <typename T>
__device__ __forceinline__ T random_value(const RandomArgs& a, const uint32_t* w, int k, bool wide,
                                          double p) {
  switch (a.op) {
    case RandomOp::kUniform: {
      T v;
      if (wide) {
        v = to_out<T>(uniform_d(join(w[2 * k], w[2 * k + 1])) * (a.b - a.a) + a.a);
      } else {
        const float range = static_cast<float>(a.b - a.a);
        v = to_out<T>(uniform_f(w[k]) * range + static_cast<float>(a.a));
      }
      // Rounded up to `to` (half, bfloat16, a wide range): [from, to) as
      // PyTorch's CUDA kernel keeps it, by taking `from` instead.
      return to_double(v) >= a.b ? to_out<T>(a.a) : v;
    }
    case RandomOp::kNormal: {
      // Box-Muller: the pair (u1, u2) gives the element pair (cos, sin).
      if (wide) {
        const double u1 = uniform_open0_d(join(w[0], w[1]));
        const double u2 = uniform_d(join(w[2], w[3]));
        double s, c;
        sincospi(2.0 * u2, &s, &c);
        const double z = sqrt(-2.0 * log(u1)) * (k == 0 ? c : s);
        return to_out<T>(z * a.b + a.a);
      }
      const int pair = k & ~1;
      const float u1 = uniform_open0_f(w[pair]);
      const float u2 = uniform_f(w[pair + 1]);
      float s, c;
      sincospif(2.0f * u2, &s, &c);
      const float z = sqrtf(-2.0f * logf(u1)) * ((k & 1) == 0 ? c : s);
      return to_out<T>(z * static_cast<float>(a.b) + static_cast<float>(a.a));
    }
    case RandomOp::kBernoulli:
    case RandomOp::kBernoulliTensor: {
      const double prob = a.op == RandomOp::kBernoulli ? a.a : p;
      const double u = wide ? uniform_d(join(w[2 * k], w[2 * k + 1]))
                            : static_cast<double>(uniform_f(w[k]));
      return to_out<T>(u < prob ? 1 : 0);
    }
    case RandomOp::kRandom: {
      const uint64_t r = wide ? join(w[2 * k], w[2 * k + 1]) : w[k];
      const int64_t v = static_cast<int64_t>(static_cast<uint64_t>(a.from) + r % a.range);
      if constexpr (std::is_same<T, bool>::value) {
        return v != 0;
      } else if constexpr (std::is_same<T, __half>::value ||
                           std::is_same<T, __nv_bfloat16>::value) {
        return to_out<T>(static_cast<float>(v));
      } else {
        return static_cast<T>(v);
      }
    }
    case RandomOp::kExponential:
    default: {
      if (wide) return to_out<T>(-log(uniform_open0_d(join(w[2 * k], w[2 * k + 1]))) / a.a);
      return to_out<T>(-logf(uniform_open0_f(w[k])) / static_cast<float>(a.a));
    }
  }
}

template <typename T>
__global__ void random_kernel(Elementwise e, RandomArgs a, int per) {
  const int64_t n = e.numel;
  const int64_t groups = (n + per - 1) / per;
  const bool wide = per == 2;
  const bool with_p = a.op == RandomOp::kBernoulliTensor;
  const int p_size = a.p_double ? 8 : 4;
  uint64_t seed = a.seed, offset = a.offset;
  if (a.graph_state != nullptr) {
    seed = a.graph_state[0];
    offset += a.graph_state[1];
  }
  for (int64_t g = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; g < groups;
       g += int64_t{blockDim.x} * gridDim.x) {
    const Philox4x32 draw = philox_draw(seed, offset, static_cast<uint64_t>(g));
    for (int k = 0; k < per; ++k) {
      const int64_t i = g * per + k;
      if (i >= n) break;
      int64_t off[2];
      if (e.contiguous) {
        off[0] = i * static_cast<int64_t>(sizeof(T));
        off[1] = i * p_size;
      } else if (with_p) {
        loop_offsets<2>(e, i, off);
      } else {
        loop_offsets<1>(e, i, off);
      }
      double p = 0;
      if (with_p) {
        const char* q = e.data[1] + off[1];
        p = a.p_double ? *reinterpret_cast<const double*>(q)
                       : static_cast<double>(*reinterpret_cast<const float*>(q));
      }
      *reinterpret_cast<T*>(e.data[0] + off[0]) = random_value<T>(a, draw.v, k, wide, p);
    }
  }
}

// native_dropout's one pass: groups of 4 elements share a draw, as the
// float kBernoulli fill's; element i of the loop is the row-major position.
template <typename T>
__global__ void dropout_kernel(Elementwise e, RandomArgs a, double keep, opmath_t<T> scale,
                               bool draw) {
  using A = opmath_t<T>;
  const int64_t n = e.numel;
  uint64_t seed = a.seed, offset = a.offset;
  if (a.graph_state != nullptr) {
    seed = a.graph_state[0];
    offset += a.graph_state[1];
  }
  for (int64_t g = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; g < (n + 3) / 4;
       g += int64_t{blockDim.x} * gridDim.x) {
    uint32_t w[4] = {0, 0, 0, 0};
    if (draw) {
      const Philox4x32 d = philox_draw(seed, offset, static_cast<uint64_t>(g));
      for (int k = 0; k < 4; ++k) w[k] = d.v[k];
    }
    for (int k = 0; k < 4; ++k) {
      const int64_t i = g * 4 + k;
      if (i >= n) break;
      int64_t off[3];
      if (e.contiguous) {
        off[0] = off[1] = i * static_cast<int64_t>(sizeof(T));
        off[2] = i;
      } else {
        loop_offsets<3>(e, i, off);
      }
      bool* m = reinterpret_cast<bool*>(e.data[2] + off[2]);
      if (draw) *m = static_cast<double>(uniform_f(w[k])) < keep;
      // (x * mask) * scale, as the CPU's input.mul(mask).mul_(scale): a
      // dropped infinity or NaN gives NaN, a dropped -x gives -0.
      const A x = static_cast<A>(*reinterpret_cast<const T*>(e.data[1] + off[1]));
      *reinterpret_cast<T*>(e.data[0] + off[0]) = from_opmath<T>(x * A(*m ? 1 : 0) * scale);
    }
  }
}

}  // namespace

cudaError_t launch_dropout(DType dtype, const Elementwise& e, const RandomArgs& args, double keep,
                           double scale, bool draw) {
  if (e.numel == 0) return cudaSuccess;
  const int64_t groups = (e.numel + 3) / 4;
  switch (dtype) {
#define EMBER_DROPOUT_CASE(D, T)                                                 \
  case DType::D:                                                                 \
    dropout_kernel<T><<<grid_for(groups), kBlockThreads, 0, current_stream()>>>( \
        e, args, keep, static_cast<opmath_t<T>>(scale), draw);                   \
    return cudaGetLastError();
    EMBER_DROPOUT_CASE(kHalf, __half)
    EMBER_DROPOUT_CASE(kBFloat16, __nv_bfloat16)
    EMBER_DROPOUT_CASE(kFloat, float)
    EMBER_DROPOUT_CASE(kDouble, double)
#undef EMBER_DROPOUT_CASE
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t launch_random(DType dtype, const Elementwise& e, const RandomArgs& args) {
  const bool floating_only = args.op == RandomOp::kUniform || args.op == RandomOp::kNormal ||
                             args.op == RandomOp::kExponential;
  const bool is_floating = dtype == DType::kHalf || dtype == DType::kBFloat16 ||
                           dtype == DType::kFloat || dtype == DType::kDouble;
  if (floating_only && !is_floating) return cudaErrorInvalidValue;
  bool wide;
  switch (args.op) {
    case RandomOp::kRandom: wide = args.range >= (uint64_t{1} << 32); break;
    case RandomOp::kBernoulliTensor: wide = args.p_double; break;
    default: wide = dtype == DType::kDouble; break;
  }
  const int per = wide ? 2 : 4;
  if (e.numel == 0) return cudaSuccess;
  return dispatch<kAllKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    random_kernel<T>
        <<<grid_for((e.numel + per - 1) / per), kBlockThreads, 0, current_stream()>>>(e, args, per);
    return cudaGetLastError();
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
