// scatter_reduce_ / index_reduce_ on the device (launch_scatter_reduce; the
// CUDA entry of tensor/reduce_ops_kernels.h, registered by
// reduce_ops_cuda.cc). Each position of the IndexLoop combines its src
// element into dst with an atomic update: atomicAdd for sums of float,
// double, int32 and int64, a compare-and-swap loop otherwise (products,
// amax/amin, and the 1- and 2-byte types). Each combination rounds as the
// CPU's loop (tensor/reduce_ops.cc) does (half and bfloat16 in float,
// rounded to the dtype; integers wrap), and amax/amin propagate NaN as it
// does, so integer results and amax/amin are the CPU's exactly; only the
// order of the combinations into one element varies, hence the last bits
// of floating sums, products and means. Index values are checked on the
// device (Note [Device-side index checks]).

#include <type_traits>

#include "tensor/cuda/index.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

// ember::detail::ScatterReduceOp's values.
constexpr int kSum = 0, kProd = 1, kMean = 2, kAmax = 3, kAmin = 4;

template <typename T>
constexpr bool kIntegral = std::is_integral<T>::value && !std::is_same<T, bool>::value;

// Integer sums and products wrap in T's width: computed unsigned (at least
// 32 bits, so that no promotion to int overflows), then narrowed.
template <typename T, bool = kIntegral<T>>
struct Wrap {
  using type = opmath_t<T>;
};
template <typename T>
struct Wrap<T, true> {
  using type = typename std::conditional<sizeof(T) < 4, uint32_t,
                                         typename std::make_unsigned<T>::type>::type;
};

// The CPU's reduce_identity.
template <typename T>
__device__ T identity(int op) {
  if constexpr (std::is_same<T, bool>::value) {
    return op == kProd || op == kAmin;
  } else if constexpr (kIntegral<T>) {
    using U = typename std::make_unsigned<T>::type;
    const T lowest = std::is_signed<T>::value ? static_cast<T>(U(1) << (sizeof(T) * 8 - 1)) : T(0);
    const T highest = static_cast<T>(~static_cast<U>(lowest));
    return op == kProd ? T(1) : op == kAmax ? lowest : op == kAmin ? highest : T(0);
  } else {
    using A = opmath_t<T>;
    return from_opmath<T>(op == kProd   ? A(1)
                          : op == kAmax ? -A(INFINITY)
                          : op == kAmin ? A(INFINITY)
                                        : A(0));
  }
}

// The CPU's combine: a reduced with b.
template <typename T>
__device__ __forceinline__ T combine(int op, T a, T b) {
  if constexpr (std::is_same<T, bool>::value) {
    switch (op) {
      case kProd:
        return a && b;
      case kAmax:
        return a < b ? b : a;
      case kAmin:
        return b < a ? b : a;
      default:
        return a || b;
    }
  } else {
    using A = opmath_t<T>;
    using W = typename Wrap<T>::type;
    const A av = static_cast<A>(a), bv = static_cast<A>(b);
    switch (op) {
      case kProd:
        if constexpr (kIntegral<T>) return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
        return from_opmath<T>(av * bv);
      case kAmax:
        return is_nan(bv) ? b : (av < bv ? b : a);
      case kAmin:
        return is_nan(bv) ? b : (bv < av ? b : a);
      default:
        if constexpr (kIntegral<T>) return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));
        return from_opmath<T>(av + bv);
    }
  }
}

// *p = combine(op, *p, v) atomically.
template <typename T>
__device__ __forceinline__ void atomic_combine(T* p, int op, T v) {
  if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
    if (op == kSum || op == kMean) {
      atomicAdd(p, v);
      return;
    }
  } else if constexpr (std::is_same<T, int32_t>::value) {
    if (op == kSum || op == kMean) {
      atomicAdd(reinterpret_cast<unsigned int*>(p), static_cast<unsigned int>(v));
      return;
    }
  } else if constexpr (std::is_same<T, int64_t>::value) {
    if (op == kSum || op == kMean) {
      atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
      return;
    }
  }
  if constexpr (sizeof(T) <= 2) {
    atomic_update_small(p, [op, v](T cur) { return combine(op, cur, v); });
  } else {
    using Word = typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type;
    Word* w = reinterpret_cast<Word*>(p);
    Word old = *w, assumed;
    do {
      assumed = old;
      T cur;
      memcpy(&cur, &assumed, sizeof(T));
      const T next = combine(op, cur, v);
      Word nb;
      memcpy(&nb, &next, sizeof(T));
      if (nb == assumed) break;
      old = atomicCAS(w, assumed, nb);
    } while (assumed != old);
  }
}

// Every position scattered to starts from the identity (include_self false).
template <typename T>
__global__ void scatter_reduce_init(IndexLoop l, int op, IndexErrorRecord* err) {
  T* dst = static_cast<T*>(l.dst);
  const T init = identity<T>(op);
  EMBER_GRID_LOOP(i, l.numel) {
    int64_t off[3];
    index_offsets(l, i, off);
    int64_t v;
    if (!read_index(l, off[1], err, &v)) continue;
    dst[off[0] + v * l.dim_stride] = init;
  }
}

template <typename T>
__global__ void scatter_reduce_combine(IndexLoop l, int op, int32_t* counts,
                                       IndexErrorRecord* err) {
  T* dst = static_cast<T*>(l.dst);
  const T* src = static_cast<const T*>(l.src);
  EMBER_GRID_LOOP(i, l.numel) {
    int64_t off[3];
    index_offsets(l, i, off);
    int64_t v;
    if (!read_index(l, off[1], err, &v)) continue;
    const int64_t at = off[0] + v * l.dim_stride;
    atomic_combine(dst + at, op, src[off[2]]);
    if (counts != nullptr) atomicAdd(counts + at, 1);
  }
}

// The CPU's mean: the sum over the count (self's value counting once when
// included), floored for integers.
template <typename T>
__global__ void scatter_reduce_mean(T* dst, const int32_t* counts, int64_t numel,
                                    bool include_self) {
  EMBER_GRID_LOOP(i, numel) {
    if (counts[i] == 0) continue;
    const int64_t count = counts[i] + (include_self ? 1 : 0);
    if constexpr (kIntegral<T>) {
      const int64_t v = static_cast<int64_t>(dst[i]), q = v / count;
      dst[i] = static_cast<T>(v % count != 0 && v < 0 ? q - 1 : q);
    } else if constexpr (!std::is_same<T, bool>::value) {
      using A = opmath_t<T>;
      dst[i] = from_opmath<T>(static_cast<A>(dst[i]) / static_cast<A>(count));
    }
  }
}

}  // namespace

cudaError_t launch_scatter_reduce(DType dtype, int op, bool include_self, const IndexLoop& l,
                                  int32_t* counts, int64_t dst_numel, IndexErrorRecord* err) {
  if (l.numel == 0) return cudaSuccess;
  return dispatch<kAllKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (!include_self) {
      scatter_reduce_init<T><<<grid_for(l.numel), kBlockThreads, 0, current_stream()>>>(l, op, err);
    }
    scatter_reduce_combine<T>
        <<<grid_for(l.numel), kBlockThreads, 0, current_stream()>>>(l, op, counts, err);
    if (op == kMean && counts != nullptr) {
      scatter_reduce_mean<T><<<grid_for(dst_numel), kBlockThreads, 0, current_stream()>>>(
          static_cast<T*>(l.dst), counts, dst_numel, include_self);
    }
    return cudaGetLastError();
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
