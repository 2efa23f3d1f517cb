// Reductions: sum (mean), prod, amax, amin over any dims of a strided input.
//
// Each block reduces one output, or one of `splits` consecutive pieces of an
// output's reduced range when there are few outputs and many elements (a
// full sum): a second kernel then combines each output's pieces in order.
// The launch shape depends only on the geometry, so a result is the same
// from run to run. Floating inputs accumulate in double (as ember's CPU
// sum does), integral and bool inputs in int64.

#include <type_traits>

#include "tensor/cuda/reduce.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
using acc_t = std::conditional_t<std::is_same<T, __half>::value ||
                                     std::is_same<T, __nv_bfloat16>::value ||
                                     std::is_floating_point<T>::value,
                                 double, int64_t>;

template <typename A, ReduceOp kOp>
struct Combine {
  __device__ static A identity() {
    switch (kOp) {
      case ReduceOp::kSum: return A(0);
      case ReduceOp::kProd: return A(1);
      case ReduceOp::kAmax:
        if constexpr (std::is_same<A, double>::value) {
          return -__longlong_as_double(0x7ff0000000000000LL);  // -inf
        } else {
          return INT64_MIN;
        }
      default:
        if constexpr (std::is_same<A, double>::value) {
          return __longlong_as_double(0x7ff0000000000000LL);
        } else {
          return INT64_MAX;
        }
    }
  }
  __device__ static A apply(A a, A b) {
    switch (kOp) {
      case ReduceOp::kSum: return a + b;
      case ReduceOp::kProd:
        if constexpr (std::is_same<A, int64_t>::value) {  // wraps, as the CPU's product
          return A(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
        } else {
          return a * b;
        }
      case ReduceOp::kAmax:
        if (is_nan(a)) return a;
        if (is_nan(b)) return b;
        return a > b ? a : b;
      default:
        if (is_nan(a)) return a;
        if (is_nan(b)) return b;
        return a < b ? a : b;
    }
  }
};

template <typename A, ReduceOp kOp>
__device__ A block_combine(A v) {
  using C = Combine<A, kOp>;
  __shared__ A warp_results[kBlockThreads / 32];
  for (int s = 16; s > 0; s /= 2) v = C::apply(v, __shfl_down_sync(0xffffffffu, v, s));
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_results[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < kBlockThreads / 32 ? warp_results[lane] : C::identity();
    for (int s = 16; s > 0; s /= 2) v = C::apply(v, __shfl_down_sync(0xffffffffu, v, s));
  }
  return v;  // valid in thread 0
}

template <typename Out, typename A>
__device__ __forceinline__ Out finish(A a, double scale) {
  if constexpr (std::is_same<A, double>::value) {
    const double v = a * scale;
    if constexpr (std::is_same<Out, double>::value) {
      return v;
    } else {
      return static_cast<Out>(static_cast<float>(v));  // as the CPU: via float
    }
  } else {
    return static_cast<Out>(a);
  }
}

// Block b handles output b / splits, piece b % splits of its reduced range.
template <typename T, typename Out, ReduceOp kOp>
__global__ void reduce_blocks(const T* in, Out* out, acc_t<T>* partial, Reduction r, int64_t splits,
                              double scale) {
  using A = acc_t<T>;
  using C = Combine<A, kOp>;
  const bool dense = r.ored == 1 && r.rstrides[0] == 1;
  for (int64_t b = blockIdx.x; b < r.nout * splits; b += gridDim.x) {
    const int64_t o = b / splits, piece = b % splits;
    const int64_t begin = r.nred * piece / splits, end = r.nred * (piece + 1) / splits;
    const T* base = in + offset_of(o, r.okept, r.ksizes, r.kstrides);
    A v = C::identity();
    if (dense) {
      // Four independent loads and accumulators per thread keep several
      // loads in flight; they combine in a fixed order.
      A v1 = C::identity(), v2 = C::identity(), v3 = C::identity();
      const int64_t stride = blockDim.x;
      int64_t i = begin + threadIdx.x;
      for (; i + 3 * stride < end; i += 4 * stride) {
        const T x0 = base[i], x1 = base[i + stride], x2 = base[i + 2 * stride],
                x3 = base[i + 3 * stride];
        v = C::apply(v, static_cast<A>(static_cast<opmath_t<T>>(x0)));
        v1 = C::apply(v1, static_cast<A>(static_cast<opmath_t<T>>(x1)));
        v2 = C::apply(v2, static_cast<A>(static_cast<opmath_t<T>>(x2)));
        v3 = C::apply(v3, static_cast<A>(static_cast<opmath_t<T>>(x3)));
      }
      for (; i < end; i += stride) v = C::apply(v, static_cast<A>(static_cast<opmath_t<T>>(base[i])));
      v = C::apply(C::apply(v, v1), C::apply(v2, v3));
    } else {
      for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
        const int64_t off = offset_of(i, r.ored, r.rsizes, r.rstrides);
        v = C::apply(v, static_cast<A>(static_cast<opmath_t<T>>(base[off])));
      }
    }
    v = block_combine<A, kOp>(v);
    if (threadIdx.x == 0) {
      if (splits == 1) {
        out[o] = finish<Out>(v, scale);
      } else {
        partial[b] = v;
      }
    }
    __syncthreads();  // warp_results is reused by the next output
  }
}

// One block per output combines its pieces (splits > 1 only when there are
// few outputs), in a fixed order.
template <typename Out, typename A, ReduceOp kOp>
__global__ void combine_pieces(const A* partial, Out* out, int64_t nout, int64_t splits,
                               double scale) {
  using C = Combine<A, kOp>;
  for (int64_t o = blockIdx.x; o < nout; o += gridDim.x) {
    A v = C::identity();
    for (int64_t s = threadIdx.x; s < splits; s += blockDim.x) v = C::apply(v, partial[o * splits + s]);
    v = block_combine<A, kOp>(v);
    if (threadIdx.x == 0) out[o] = finish<Out>(v, scale);
    __syncthreads();  // warp_results is reused by the next output
  }
}

template <typename T, typename Out, ReduceOp kOp>
cudaError_t run(const void* in, void* out, const Reduction& r, double scale, void* scratch) {
  using A = acc_t<T>;
  if (r.nout == 0) return cudaSuccess;
  const int64_t splits = splits_for(r);
  const int64_t blocks = r.nout * splits;
  reduce_blocks<T, Out, kOp>
      <<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), kBlockThreads, 0,
         current_stream()>>>(static_cast<const T*>(in), static_cast<Out*>(out),
                             static_cast<A*>(scratch), r, splits, scale);
  if (splits > 1) {
    combine_pieces<Out, A, kOp><<<static_cast<unsigned>(r.nout < 65536 ? r.nout : 65536),
                                  kBlockThreads, 0, current_stream()>>>(
        static_cast<const A*>(scratch), static_cast<Out*>(out), r.nout, splits, scale);
  }
  return cudaGetLastError();
}

template <ReduceOp kOp>
cudaError_t run_op(DType in_type, DType out_type, const void* in, void* out, const Reduction& r,
                   double scale, void* scratch) {
  return dispatch<kAllKinds>(in_type, [&](auto tag) -> cudaError_t {
    using T = typename decltype(tag)::type;
    constexpr bool kWidens = (kOp == ReduceOp::kSum || kOp == ReduceOp::kProd) &&
                             std::is_same<acc_t<T>, int64_t>::value;
    if constexpr (kWidens) {
      if (out_type != DType::kInt64) return cudaErrorInvalidValue;
      return run<T, int64_t, kOp>(in, out, r, scale, scratch);
    } else {
      if (out_type != in_type) return cudaErrorInvalidValue;
      return run<T, T, kOp>(in, out, r, scale, scratch);
    }
  });
}

// (value, index) pairs: `b` replaces `a` when it is more extreme, or a NaN
// where `a` is not, or equal (both NaN included) at a smaller index.
template <typename A, bool kMax>
__device__ __forceinline__ void arg_combine(A& a, int64_t& ia, A b, int64_t ib) {
  const bool an = is_nan(a), bn = is_nan(b);
  bool take;
  if (an || bn) {
    take = bn && (!an || ib < ia);
  } else {
    take = (kMax ? b > a : b < a) || (b == a && ib < ia);
  }
  if (take) {
    a = b;
    ia = ib;
  }
}

template <typename T, bool kMax>
__global__ void arg_reduce_blocks(const T* in, T* values, int64_t* indices, Reduction r) {
  using A = acc_t<T>;
  __shared__ A sv[kBlockThreads / 32];
  __shared__ int64_t si[kBlockThreads / 32];
  const bool dense = r.ored == 1 && r.rstrides[0] == 1;
  for (int64_t o = blockIdx.x; o < r.nout; o += gridDim.x) {
    const T* base = in + offset_of(o, r.okept, r.ksizes, r.kstrides);
    A v = static_cast<A>(static_cast<opmath_t<T>>(base[0]));
    int64_t iv = 0;
    for (int64_t i = threadIdx.x; i < r.nred; i += blockDim.x) {
      const int64_t off = dense ? i : offset_of(i, r.ored, r.rsizes, r.rstrides);
      arg_combine<A, kMax>(v, iv, static_cast<A>(static_cast<opmath_t<T>>(base[off])), i);
    }
    for (int s = 16; s > 0; s /= 2) {
      const A ov = __shfl_down_sync(0xffffffffu, v, s);
      const int64_t oi = __shfl_down_sync(0xffffffffu, iv, s);
      arg_combine<A, kMax>(v, iv, ov, oi);
    }
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) {
      sv[warp] = v;
      si[warp] = iv;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 1; w < kBlockThreads / 32; ++w) arg_combine<A, kMax>(v, iv, sv[w], si[w]);
      if (values) values[o] = finish<T>(v, 1.0);
      indices[o] = iv;
    }
    __syncthreads();
  }
}

}  // namespace

cudaError_t launch_arg_reduce(bool max, DType dtype, const void* in, void* values,
                              int64_t* indices, const Reduction& r) {
  if (r.nout == 0 || r.nred == 0) return cudaSuccess;
  const unsigned blocks = static_cast<unsigned>(r.nout < 65536 ? r.nout : 65536);
  return dispatch<kAllKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (max) {
      arg_reduce_blocks<T, true><<<blocks, kBlockThreads, 0, current_stream()>>>(
          static_cast<const T*>(in), static_cast<T*>(values), indices, r);
    } else {
      arg_reduce_blocks<T, false><<<blocks, kBlockThreads, 0, current_stream()>>>(
          static_cast<const T*>(in), static_cast<T*>(values), indices, r);
    }
    return cudaGetLastError();
  });
}

size_t reduce_scratch_bytes(const Reduction& r) {
  const int64_t splits = splits_for(r);
  return splits > 1 ? static_cast<size_t>(r.nout * splits) * 8 : 0;
}

cudaError_t launch_reduce(ReduceOp op, DType in_type, DType out_type, const void* in, void* out,
                          const Reduction& r, double scale, void* scratch) {
  switch (op) {
    case ReduceOp::kSum: return run_op<ReduceOp::kSum>(in_type, out_type, in, out, r, scale, scratch);
    case ReduceOp::kProd:
      return run_op<ReduceOp::kProd>(in_type, out_type, in, out, r, scale, scratch);
    case ReduceOp::kAmax:
      return run_op<ReduceOp::kAmax>(in_type, out_type, in, out, r, scale, scratch);
    case ReduceOp::kAmin:
      return run_op<ReduceOp::kAmin>(in_type, out_type, in, out, r, scale, scratch);
  }
  return cudaErrorInvalidValue;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
