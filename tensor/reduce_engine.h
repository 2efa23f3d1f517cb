#ifndef EMBER_TENSOR_REDUCE_ENGINE_H_
#define EMBER_TENSOR_REDUCE_ENGINE_H_

// Note [Reduction engine]: every reduction (sum, mean, prod, max/min and
// their arg forms, var/std, norm, logsumexp, all/any, count_nonzero) is one
// small "op" run by reduce_kernel below. The plan splits the input's dims
// into kept dims (which index the outputs, row-major) and reduced dims, and
// coalesces each group so that a reduction walks as few, as long runs as
// the strides allow. Then, per output:
//  - "row" mode (the innermost reduced stride is the smallest): the op
//    reduces 1-D runs of the reduced range (Op::run); contiguous runs get
//    the op's vectorized loop (sum: multi-accumulator lanes);
//  - "tile" mode (the innermost kept dim is the densest, e.g. sum over
//    dim 0 of a row-major matrix): up to kTile neighbouring outputs advance
//    together through the reduced range, so each reduced step reads a
//    contiguous strip of the input (Op::step on an array of accumulators);
//    also when every reduced dim has size 1 (x.sum(0) of a [1, n] tensor):
//    each output is then one step, where row mode paid a 1-element run per
//    output (a bfloat16 convolution's weight-gradient sum spent 14% of its
//    step there).
// Work is split across threads by outputs, or, when there are fewer
// outputs than threads, by fixed chunks of the reduced range whose partial
// results are combined in order (Op::combine): the result does not depend
// on the thread count.
//
// An op provides:
//   using scalar_t, acc_t;
//   acc_t identity() const;
//   void step(acc_t& a, scalar_t x, int64_t idx) const;   // idx: position
//       // in the reduced range (row-major over the reduced dims)
//   void run(acc_t& a, const scalar_t* p, int64_t stride, int64_t n,
//            int64_t idx0) const;                          // a 1-D run
//   void combine(acc_t& a, const acc_t& b) const;         // b follows a
//   void write(int64_t out_index, const acc_t& a) const;

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "tensor/kernel_table.h"
#include "tensor/parallel.h"
#include "tensor/tensor.h"

namespace ember {
namespace reduce_detail {

constexpr int kMaxDims = 64;
using DimMask = std::bitset<kMaxDims>;

// Wraps `dims` against t.dim(); an empty list means every dim (PyTorch
// 1.13). Errors: IndexError for a bad dim, "dim 0 appears multiple times in
// the list of dims".
DimMask make_dim_mask(const Tensor& t, IntArrayRef dims);

// Output shape: reduced dims removed, or set to 1 with keepdim.
DimVector reduced_shape(const Tensor& t, const DimMask& mask, bool keepdim);

struct ReducePlan {
  // Kept and reduced dims after coalescing, outermost first; strides in
  // elements of the input.
  DimVector osz, ostr, rsz, rstr;
  int64_t nout = 1;
  int64_t nred = 1;
};
// any_order (Note [Reduced dims in memory order]): the op's result does not
// depend on the order in which it meets the elements (beyond rounding), so
// the reduced dims are walked in memory order.
ReducePlan make_plan(const Tensor& t, const DimMask& mask, bool any_order = false);

// The reductions a device backend implements. The device-independent part
// (dims, output shape and dtype, allocation) is in reduce.cc; a kernel
// fills the preallocated contiguous outputs.
enum class ReduceKind {
  kSum,           // out0 = sum (scaled by args.scale: mean)
  kProd,
  kAmax,
  kAmin,
  kMax,           // out0 = values, out1 = int64 indices
  kMin,
  kArgmax,        // out0 = int64 indices
  kArgmin,
  kVar,           // out0 = var or std (args.take_sqrt), out1 (if defined) = mean
  kNorm,          // args.p
  kLogSumExp,
  kAll,
  kAny,
  kCountNonzero,
};
struct ReduceArgs {
  double scale = 1.0;
  double p = 2.0;
  int64_t correction = 1;
  bool take_sqrt = false;
  // float / double on the CPU: kSum reads NaN as 0 (nansum), kCountNonzero
  // counts the elements that are not NaN (nanmean's count).
  bool skip_nan = false;
};
using ReduceKernelFn = void (*)(ReduceKind kind, const Tensor& in, const DimMask& mask,
                                const ReduceArgs& args, Tensor* outs);
EMBER_DECLARE_KERNEL_TABLE(reduce_stub, ReduceKernelFn);

// The CPU kernels (reduce_kernels.cc, reduce_minmax.cc).
void reduce_cpu(ReduceKind kind, const Tensor& in, const DimMask& mask, const ReduceArgs& args,
                Tensor* outs);
void reduce_minmax_cpu(ReduceKind kind, const Tensor& in, const DimMask& mask,
                       const ReduceArgs& args, Tensor* outs);
// kSum (and mean) of float16 / bfloat16, rounded where PyTorch 1.13 rounds
// (Note [Reduced-float sum], reduce_sum_lowp.cc).
void sum_lowp_cpu(const Tensor& in, const DimMask& mask, const ReduceArgs& args, Tensor* outs);
// kNorm of float16 / bfloat16, accumulated as 1.13 does (Note [Reduced-float
// norm], reduce_sum_lowp.cc).
void norm_lowp_cpu(const Tensor& in, const DimMask& mask, const ReduceArgs& args, Tensor* outs);

// nansum of a float or double CPU tensor over `dim` (all dims if empty):
// sum with NaN read as 0, in one pass (composite_ops.cc's nansum).
Tensor nansum_cpu(const Tensor& self, IntArrayRef dim, bool keepdim);
// The number of elements that are not NaN over `dim`, as int64 (nanmean).
Tensor count_not_nan_cpu(const Tensor& self, IntArrayRef dim, bool keepdim);

// Pointer offset (elements) of position `r` of the reduced range, where
// the innermost reduced dim is excluded (the caller adds i0 * its stride).
inline int64_t outer_reduced_offset(const ReducePlan& p, int64_t rest) {
  int64_t off = 0;
  for (int d = static_cast<int>(p.rsz.size()) - 2; d >= 0 && rest > 0; --d) {
    off += (rest % p.rsz[d]) * p.rstr[d];
    rest /= p.rsz[d];
  }
  return off;
}

inline int64_t kept_offset(const ReducePlan& p, int64_t k) {
  int64_t off = 0;
  for (int d = static_cast<int>(p.osz.size()) - 1; d >= 0 && k > 0; --d) {
    off += (k % p.osz[d]) * p.ostr[d];
    k /= p.osz[d];
  }
  return off;
}

// Reduces positions [rb, re) of the reduced range of the output whose
// first element is at `base`, in row mode.
template <typename Op>
void reduce_range(const Op& op, const ReducePlan& p, const typename Op::scalar_t* base, int64_t rb,
                  int64_t re, typename Op::acc_t& acc) {
  const int64_t inner = p.rsz.empty() ? 1 : p.rsz.back();
  const int64_t istr = p.rsz.empty() ? 0 : p.rstr.back();
  int64_t pos = rb;
  while (pos < re) {
    int64_t i0 = pos % inner;
    int64_t off = outer_reduced_offset(p, pos / inner);
    int64_t n = std::min(inner - i0, re - pos);
    op.run(acc, base + off + i0 * istr, istr, n, pos);
    pos += n;
  }
}

constexpr int64_t kTile = 64;
// Chunk of the reduced range one task reduces when outputs are few. Fixed,
// so results do not depend on the number of threads.
constexpr int64_t kReduceChunk = 16384;

// kStrip outputs whose inputs are contiguous (the innermost kept stride is
// 1), reduced together in tile mode with a width known at compile time:
// their accumulators stay in registers and each reduced step is a few
// vector instructions. The loop over the tile's whole width kept them in
// memory (sum over dim 0 of a [256, 256] float matrix: 15 us, libtorch
// 1.13: 9). Each output sees the same steps in the same order.
constexpr int64_t kStrip = 32;
template <typename Op>
void reduce_strip(const Op& op, const ReducePlan& p, const typename Op::scalar_t* base, int64_t k) {
  using acc_t = typename Op::acc_t;
  const int nr = static_cast<int>(p.rsz.size());
  acc_t acc[kStrip];
  for (int64_t j = 0; j < kStrip; ++j) acc[j] = op.identity();
  if (nr == 1) {
    const int64_t rs = p.rstr[0];
    for (int64_t r = 0; r < p.nred; ++r) {
      const typename Op::scalar_t* q = base + r * rs;
      for (int64_t j = 0; j < kStrip; ++j) op.step(acc[j], q[j], r);
    }
  } else {
    int64_t idx[kMaxDims];
    for (int d = 0; d < nr; ++d) idx[d] = 0;
    int64_t off = 0;
    for (int64_t r = 0; r < p.nred; ++r) {
      const typename Op::scalar_t* q = base + off;
      for (int64_t j = 0; j < kStrip; ++j) op.step(acc[j], q[j], r);
      for (int d = nr - 1; d >= 0; --d) {
        off += p.rstr[d];
        if (++idx[d] < p.rsz[d]) break;
        off -= idx[d] * p.rstr[d];
        idx[d] = 0;
      }
    }
  }
  for (int64_t j = 0; j < kStrip; ++j) op.write(k + j, acc[j]);
}

// Outputs [kb, ke) in tile mode: neighbours along the innermost kept dim
// advance together through the reduced range.
template <typename Op>
void reduce_tiles(const Op& op, const ReducePlan& p, const typename Op::scalar_t* in, int64_t kb,
                  int64_t ke) {
  using acc_t = typename Op::acc_t;
  const int64_t oin = p.osz.back();
  const int64_t ostride = p.ostr.back();
  const int nr = static_cast<int>(p.rsz.size());
  acc_t acc[kTile];
  int64_t idx[kMaxDims];
  int64_t k = kb;
  while (k < ke) {
    const int64_t col = k % oin;
    int64_t g = std::min({kTile, oin - col, ke - k});
    const typename Op::scalar_t* base = in + kept_offset(p, k);
    if (ostride == 1 && g >= kStrip && p.nred > 0) {
      int64_t j0 = 0;
      for (; j0 + kStrip <= g; j0 += kStrip) reduce_strip(op, p, base + j0, k + j0);
      k += j0;
      g -= j0;
      base += j0;
      if (g == 0) continue;
    }
    for (int64_t j = 0; j < g; ++j) acc[j] = op.identity();
    for (int d = 0; d < nr; ++d) idx[d] = 0;
    int64_t off = 0;
    for (int64_t r = 0; r < p.nred; ++r) {
      const typename Op::scalar_t* q = base + off;
      for (int64_t j = 0; j < g; ++j) op.step(acc[j], q[j * ostride], r);
      // Advance the reduced multi-index.
      for (int d = nr - 1; d >= 0; --d) {
        off += p.rstr[d];
        if (++idx[d] < p.rsz[d]) break;
        off -= idx[d] * p.rstr[d];
        idx[d] = 0;
      }
    }
    for (int64_t j = 0; j < g; ++j) op.write(k + j, acc[j]);
    k += g;
  }
}

template <typename Op>
void reduce_kernel(const Op& op, const ReducePlan& p, const typename Op::scalar_t* in) {
  using acc_t = typename Op::acc_t;
  if (p.nout == 0) return;
  const bool tile = !p.osz.empty() && (p.rsz.empty() || p.ostr.back() < p.rstr.back());
  auto rows = [&](int64_t kb, int64_t ke) {
    if (tile) {
      reduce_tiles(op, p, in, kb, ke);
      return;
    }
    if (p.osz.size() == 1 && p.rsz.size() == 1) {
      // One kept and one reduced dim (sum over the last dim of a matrix):
      // reduce_range's and kept_offset's divisions cost as much as a short
      // row.
      for (int64_t k = kb; k < ke; ++k) {
        acc_t acc = op.identity();
        op.run(acc, in + k * p.ostr[0], p.rstr[0], p.nred, 0);
        op.write(k, acc);
      }
      return;
    }
    for (int64_t k = kb; k < ke; ++k) {
      acc_t acc = op.identity();
      reduce_range(op, p, in + kept_offset(p, k), 0, p.nred, acc);
      op.write(k, acc);
    }
  };
  const int nt = get_num_threads();
  const bool big = p.nout * p.nred > kGrainSize && nt > 1 && !in_parallel_region();
  if (!big) {
    rows(0, p.nout);
    return;
  }
  if (p.nout >= nt || p.nred < 2 * kReduceChunk) {
    int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(p.nred, 1));
    parallel_for(0, p.nout, grain, rows);
    return;
  }
  // Few outputs, long reductions: split each reduction into fixed chunks.
  const int64_t nchunks = (p.nred + kReduceChunk - 1) / kReduceChunk;
  std::vector<acc_t> partial(nchunks);
  for (int64_t k = 0; k < p.nout; ++k) {
    const typename Op::scalar_t* base = in + kept_offset(p, k);
    parallel_for(0, nchunks, 1, [&](int64_t cb, int64_t ce) {
      for (int64_t c = cb; c < ce; ++c) {
        acc_t acc = op.identity();
        reduce_range(op, p, base, c * kReduceChunk, std::min(p.nred, (c + 1) * kReduceChunk), acc);
        partial[c] = acc;
      }
    });
    acc_t acc = partial[0];
    for (int64_t c = 1; c < nchunks; ++c) op.combine(acc, partial[c]);
    op.write(k, acc);
  }
}

// A run's stride in the lane loops: 1 known at compile time (contiguous),
// or an int64_t.
using Unit = std::integral_constant<int64_t, 1>;

// Lanes of float or double as GCC / Clang vector types (Note [Vectorized
// max and min]): GCC's vectorizer leaves a plain select loop over double
// lanes scalar (it moves them to integer registers for cmov). Reduces
// p[0, done), done the largest multiple of one register's lanes <= n, into
// *best (max or min ignoring NaN; lanes start from *best) and *any_nan
// (set if a NaN was seen); returns done.
template <bool kMax, typename V>
int64_t vector_best(const V* p, int64_t n, V* best, bool* any_nan) {
  typedef V W __attribute__((vector_size(32)));
  constexpr int kW = 32 / sizeof(V);
  // Four registers of lanes hide the max/min latency. Named values, not
  // arrays: GCC kept arrays of them on the stack and cleared them with
  // rep stos, which cost more than a short run.
  auto pick = [](W v, W a) {
    if constexpr (kMax) {
      return v > a ? v : a;
    } else {
      return v < a ? v : a;
    }
  };
  auto nan_of = [](W v, W z) { return v != v ? v : z; };  // a NaN the lane saw, else 0
  auto load = [&](int64_t i) {
    W v;
    std::memcpy(&v, p + i, sizeof v);
    return v;
  };
  W start;
  for (int j = 0; j < kW; ++j) start[j] = *best;
  W a0 = start, a1 = start, a2 = start, a3 = start;
  W z0 = {}, z1 = {}, z2 = {}, z3 = {};
  int64_t i = 0;
  for (; i + 4 * kW <= n; i += 4 * kW) {
    const W v0 = load(i), v1 = load(i + kW), v2 = load(i + 2 * kW), v3 = load(i + 3 * kW);
    a0 = pick(v0, a0);
    a1 = pick(v1, a1);
    a2 = pick(v2, a2);
    a3 = pick(v3, a3);
    z0 = nan_of(v0, z0);
    z1 = nan_of(v1, z1);
    z2 = nan_of(v2, z2);
    z3 = nan_of(v3, z3);
  }
  // Then one register at a time (short runs: softmax over a last dim of
  // 16 spent most of its time on a scalar, branchy max).
  for (; i + kW <= n; i += kW) {
    const W v = load(i);
    a0 = pick(v, a0);
    z0 = nan_of(v, z0);
  }
  // The registers into one with the same selects, then its lanes: a
  // lane-by-lane end over all four cost as much as a 256-element run
  // (amax over the last dim of a [256, 256] float matrix: 5 times 1.13's
  // time).
  a0 = pick(a3, pick(a2, pick(a1, a0)));
  z0 = nan_of(z3, nan_of(z2, nan_of(z1, z0)));
  for (int j = 0; j < kW; ++j) {
    *best = (kMax ? a0[j] > *best : a0[j] < *best) ? a0[j] : *best;
    *any_nan |= z0[j] != z0[j];
  }
  return i;
}

// Default 1-D run: step element by element.
template <typename Op, typename acc_t, typename scalar_t>
inline void run_by_steps(const Op& op, acc_t& a, const scalar_t* p, int64_t stride, int64_t n,
                         int64_t idx0) {
  for (int64_t i = 0; i < n; ++i) op.step(a, p[i * stride], idx0 + i);
}

}  // namespace reduce_detail
}  // namespace ember

#endif  // EMBER_TENSOR_REDUCE_ENGINE_H_
