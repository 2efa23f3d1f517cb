// var/std (with the mean), norm and logsumexp over any dims of a strided
// floating input, in double as the CPU's ops (tensor/reduce_kernels.cc).
//
// The geometry and splitting are reduce.cu's: each block reduces one output
// or one piece of its reduced range; each thread accumulates a strided part
// of it, the block combines the threads' accumulators in a fixed tree, and a
// second kernel combines an output's pieces in order. The association
// differs from the CPU's, so results agree to rounding, not to the bit.

#include <limits>
#include <type_traits>

#include "tensor/cuda/reduce.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
__device__ __forceinline__ double to_double(T x) {
  return static_cast<double>(static_cast<opmath_t<T>>(x));
}

// double -> T as the CPU's static_cast<T>(double): via float for half and
// bfloat16.
template <typename T>
__device__ __forceinline__ T from_double(double v) {
  if constexpr (std::is_same<T, double>::value) {
    return v;
  } else {
    return static_cast<T>(static_cast<float>(v));
  }
}

__device__ __forceinline__ double nan_value() { return __longlong_as_double(0x7ff8000000000000LL); }
__device__ __forceinline__ double inf_value() { return __longlong_as_double(0x7ff0000000000000LL); }

// Welford's running mean and sum of squared deviations, merged with Chan's
// formula (VarOp in tensor/reduce_kernels.cc). Plain data: it lives in
// shared memory.
struct Welford {
  double mean, m2;
  int64_t n;
};

template <typename T>
struct VarStat {
  using Acc = Welford;
  T* var;
  T* mean;  // may be null
  int64_t correction;
  bool take_sqrt;

  __device__ Acc identity() const { return {0.0, 0.0, 0}; }
  __device__ void step(Acc& a, double v) const {
    a.n += 1;
    const double d = v - a.mean;
    a.mean += d / static_cast<double>(a.n);
    a.m2 += d * (v - a.mean);
  }
  __device__ void combine(Acc& a, const Acc& b) const {
    if (b.n == 0) return;
    if (a.n == 0) {
      a = b;
      return;
    }
    const double n = static_cast<double>(a.n + b.n);
    const double d = b.mean - a.mean;
    a.mean += d * static_cast<double>(b.n) / n;
    a.m2 += b.m2 + d * d * static_cast<double>(a.n) * static_cast<double>(b.n) / n;
    a.n += b.n;
  }
  __device__ void write(int64_t o, const Acc& a) const {
    const double c = static_cast<double>(a.n - correction);
    double v = a.m2 / (c > 0 ? c : 0.0);
    if (take_sqrt) v = sqrt(v);
    var[o] = from_double<T>(v);
    if (mean != nullptr) mean[o] = from_double<T>(a.n == 0 ? nan_value() : a.mean);
  }
};

// As the CPU's NormOp (NormKind there).
enum class NormKind : int { kTwo, kOne, kInf, kNegInf, kZero, kOther };


template <typename T>
struct NormStat {
  using Acc = double;
  T* out;
  NormKind kind;
  double p;

  __device__ Acc identity() const { return kind == NormKind::kNegInf ? inf_value() : 0.0; }
  __device__ void step(Acc& a, double x) const {
    const double v = fabs(x);
    switch (kind) {
      case NormKind::kTwo: a += v * v; break;
      case NormKind::kOne: a += v; break;
      case NormKind::kInf: a = nan_max(a, v); break;
      case NormKind::kNegInf: a = nan_min(a, v); break;
      case NormKind::kZero: a += v != 0 ? 1.0 : (is_nan(v) ? v : 0.0); break;
      default: a += pow(v, p); break;
    }
  }
  __device__ void combine(Acc& a, const Acc& b) const {
    if (kind == NormKind::kInf) {
      a = nan_max(a, b);
    } else if (kind == NormKind::kNegInf) {
      a = nan_min(a, b);
    } else {
      a += b;
    }
  }
  __device__ void write(int64_t o, const Acc& a) const {
    double r = a;
    if (kind == NormKind::kTwo) r = sqrt(a);
    if (kind == NormKind::kOther) r = pow(a, 1.0 / p);
    out[o] = from_double<T>(r);
  }
};

// A running max m and sum s of exp(x - m) (the CPU's LogSumExpOp).
struct Lse {
  double m, s;
};

template <typename T>
struct LseStat {
  using Acc = Lse;
  T* out;

  __device__ Acc identity() const { return {-inf_value(), 0.0}; }
  __device__ static void add(Acc& a, double m, double s) {
    if (m > a.m) {
      a.s = a.s * exp(a.m - m) + s;
      a.m = m;
    } else if (m == a.m) {
      a.s += s;
    } else {
      a.s += s * exp(m - a.m);
    }
  }
  __device__ void step(Acc& a, double v) const {
    if (is_nan(v)) {
      a.s = v;
      return;
    }
    add(a, v, 1.0);
  }
  __device__ void combine(Acc& a, const Acc& b) const {
    if (is_nan(b.s)) {
      a.s = b.s;
      return;
    }
    if (b.s == 0) return;
    add(a, b.m, b.s);
  }
  __device__ void write(int64_t o, const Acc& a) const {
    double r;
    if (is_nan(a.s)) {
      r = a.s;
    } else if (a.m == inf_value() || a.m == -inf_value()) {
      r = a.m;
    } else {
      r = a.m + log(a.s);
    }
    out[o] = from_double<T>(r);
  }
};

// Block b handles output b / splits, piece b % splits of its reduced range.
template <typename T, typename Op>
__global__ void stats_blocks(const T* in, Op op, typename Op::Acc* partial, Reduction r,
                             int64_t splits) {
  using Acc = typename Op::Acc;
  __shared__ Acc shared[kBlockThreads];
  const bool dense = r.ored == 1 && r.rstrides[0] == 1;
  for (int64_t b = blockIdx.x; b < r.nout * splits; b += gridDim.x) {
    const int64_t o = b / splits, piece = b % splits;
    const int64_t begin = r.nred * piece / splits, end = r.nred * (piece + 1) / splits;
    const T* base = in + offset_of(o, r.okept, r.ksizes, r.kstrides);
    Acc a = op.identity();
    for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
      const int64_t off = dense ? i : offset_of(i, r.ored, r.rsizes, r.rstrides);
      op.step(a, to_double(base[off]));
    }
    shared[threadIdx.x] = a;
    __syncthreads();
    for (int s = kBlockThreads / 2; s > 0; s /= 2) {
      if (threadIdx.x < s) op.combine(shared[threadIdx.x], shared[threadIdx.x + s]);
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      if (splits == 1) {
        op.write(o, shared[0]);
      } else {
        partial[b] = shared[0];
      }
    }
    __syncthreads();  // shared is reused by the next output
  }
}

template <typename Op>
__global__ void combine_stats(const typename Op::Acc* partial, Op op, int64_t nout,
                              int64_t splits) {
  for (int64_t o = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; o < nout;
       o += int64_t{blockDim.x} * gridDim.x) {
    typename Op::Acc a = partial[o * splits];
    for (int64_t s = 1; s < splits; ++s) op.combine(a, partial[o * splits + s]);
    op.write(o, a);
  }
}

template <typename T, typename Op>
cudaError_t run(const void* in, const Op& op, const Reduction& r, void* scratch) {
  using Acc = typename Op::Acc;
  if (r.nout == 0) return cudaSuccess;
  const int64_t splits = splits_for(r);
  const int64_t blocks = r.nout * splits;
  stats_blocks<T, Op>
      <<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), kBlockThreads, 0,
         current_stream()>>>(static_cast<const T*>(in), op, static_cast<Acc*>(scratch), r, splits);
  if (splits > 1) {
    combine_stats<Op><<<grid_for(r.nout), kBlockThreads, 0, current_stream()>>>(
        static_cast<const Acc*>(scratch), op, r.nout, splits);
  }
  return cudaGetLastError();
}

NormKind norm_kind(double p) {
  if (p == 2) return NormKind::kTwo;
  if (p == 1) return NormKind::kOne;
  if (p == 0) return NormKind::kZero;
  if (p == std::numeric_limits<double>::infinity()) return NormKind::kInf;
  if (p == -std::numeric_limits<double>::infinity()) return NormKind::kNegInf;
  return NormKind::kOther;
}

}  // namespace

size_t stats_scratch_bytes(const Reduction& r) {
  const int64_t splits = splits_for(r);
  return splits > 1 ? static_cast<size_t>(r.nout * splits) * sizeof(Welford) : 0;
}

cudaError_t launch_var(DType dtype, const void* in, void* var, void* mean, const Reduction& r,
                       int64_t correction, bool take_sqrt, void* scratch) {
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run<T>(in, VarStat<T>{static_cast<T*>(var), static_cast<T*>(mean), correction, take_sqrt},
                  r, scratch);
  });
}

cudaError_t launch_norm(DType dtype, const void* in, void* out, const Reduction& r, double p,
                        void* scratch) {
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run<T>(in, NormStat<T>{static_cast<T*>(out), norm_kind(p), p}, r, scratch);
  });
}

cudaError_t launch_logsumexp(DType dtype, const void* in, void* out, const Reduction& r,
                             void* scratch) {
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run<T>(in, LseStat<T>{static_cast<T*>(out)}, r, scratch);
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
