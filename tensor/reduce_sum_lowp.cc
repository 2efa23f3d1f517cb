// Note [Reduced-float sum]: the CPU sum (and mean) of float16 and bfloat16
// tensors, rounded exactly where PyTorch 1.13 rounds (issue 22).
//
// 1.13's sum (aten/src/ATen/native/cpu/SumKernel.cpp, cascade_sum) is not
// "accumulate in float, round once". It zero-fills the half output and
// runs its reduction TensorIterator, whose dims are reordered (reduced dims
// first, each group by stride), coalesced, and walked in 2-D slabs (the two
// innermost iterator dims). Each slab sums in float and adds its partial
// sums into the output with `half += float`, which rounds the float to the
// half type and then rounds the half + half sum again. So an output whose
// reduced elements span more than one slab (a transposed or channels-last
// input whose reduced dims do not coalesce into the two innermost ones) is
// rounded once per slab. Within a slab the float sums follow one of four
// loops, each with its own order of additions:
//  - contiguous inner reduction (input stride 1 along iterator dim 0 and at
//    least 16 elements): 16-element blocks are pre-reduced to 8 float lanes
//    (float16: neighbours 2i, 2i+1; bfloat16: i, i+8), the blocks are summed
//    by row_sum below, then the scalar tail and the 8 lanes are added in
//    order;
//  - contiguous outer reduction (input stride 1 along iterator dim 1, at
//    least 16 columns): groups of 32 columns by multi_row_sum of 4 x 8
//    lanes, then groups of 8 by row_sum, then single columns by row_sum;
//  - otherwise, inner (dim 0 denser) by row_sum per column, outer by
//    multi_row_sum of 4 columns then row_sum.
// multi_row_sum is ATen's cascade: 4 levels of accumulators flushed every
// 2^level_power rows; row_sum splits a row 4 ways (ilp) and sums those.
// The vector widths are those of 1.13's AVX2 kernels, the code Debian's
// build runs on AVX2 and AVX-512 machines.
//
// mean is 1.13's sum followed by div_(n): the half sum divided in float by
// n rounded to the half type, rounded again.
//
// Deliberate difference: 1.13 splits large reductions across threads (over
// 32768 elements with several threads), and its full reductions then
// depend on the thread count (per-thread half partials); ember gives 1.13's
// one-thread result with any number of threads. CUDA keeps its own kernel.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tensor/dispatch.h"
#include "tensor/reduce_engine.h"

namespace ember {
namespace reduce_detail {
namespace {

// L float lanes (one AVX2 register of float when L == 8).
template <int L>
struct Lanes {
  float v[L];
  void zero() {
    for (int l = 0; l < L; ++l) v[l] = 0.f;
  }
  void add(const Lanes& o) {
    for (int l = 0; l < L; ++l) v[l] += o.v[l];
  }
};

int64_t ceil_log2(int64_t x) {
  if (x <= 2) return 1;
  int64_t b = 0;
  for (uint64_t v = static_cast<uint64_t>(x - 1); v != 0; v >>= 1) ++b;
  return b;
}

// ATen's multi_row_sum: `size` rows of NR columns, load(i, k) the lanes of
// row i, column k.
template <int L, int NR, typename Load>
std::array<Lanes<L>, NR> multi_row_sum(const Load& load, int64_t size) {
  constexpr int kLevels = 4;
  const int64_t level_power = std::max<int64_t>(4, ceil_log2(size) / kLevels);
  const int64_t level_step = int64_t{1} << level_power;
  const int64_t level_mask = level_step - 1;
  Lanes<L> acc[kLevels][NR];
  for (int j = 0; j < kLevels; ++j) {
    for (int k = 0; k < NR; ++k) acc[j][k].zero();
  }
  int64_t i = 0;
  while (i + level_step <= size) {
    for (int64_t j = 0; j < level_step; ++j, ++i) {
      for (int k = 0; k < NR; ++k) acc[0][k].add(load(i, k));
    }
    for (int j = 1; j < kLevels; ++j) {
      for (int k = 0; k < NR; ++k) {
        acc[j][k].add(acc[j - 1][k]);
        acc[j - 1][k].zero();
      }
      if ((i & (level_mask << (j * level_power))) != 0) break;
    }
  }
  for (; i < size; ++i) {
    for (int k = 0; k < NR; ++k) acc[0][k].add(load(i, k));
  }
  for (int j = 1; j < kLevels; ++j) {
    for (int k = 0; k < NR; ++k) acc[0][k].add(acc[j][k]);
  }
  std::array<Lanes<L>, NR> ret;
  for (int k = 0; k < NR; ++k) ret[k] = acc[0][k];
  return ret;
}

// ATen's row_sum: load(i) the lanes of element i of the row.
template <int L, typename Load>
Lanes<L> row_sum(const Load& load, int64_t size) {
  constexpr int kIlp = 4;
  const int64_t size_ilp = size / kIlp;
  auto partial =
      multi_row_sum<L, kIlp>([&](int64_t i, int k) { return load(i * kIlp + k); }, size_ilp);
  for (int64_t i = size_ilp * kIlp; i < size; ++i) partial[0].add(load(i));
  for (int k = 1; k < kIlp; ++k) partial[0].add(partial[k]);
  return partial[0];
}

// kSkipNan (nansum): NaN reads as 0, as 1.13's cascade_sum<ignore_nan>
// does, which is where(isnan(x), 0, x).sum() to the bit.
template <typename T, bool kSkipNan = false>
float load1(const char* p) {
  T x;
  std::memcpy(&x, p, sizeof(T));
  const float v = static_cast<float>(x);
  return kSkipNan && v != v ? 0.f : v;
}

// c10's `half += float`: the float is rounded to T, then the T + T sum.
template <typename T>
void store_add(char* p, float v) {
  T o;
  std::memcpy(&o, p, sizeof(T));
  o = static_cast<T>(static_cast<float>(o) + static_cast<float>(static_cast<T>(v)));
  std::memcpy(p, &o, sizeof(T));
}

// One 2-D slab of ATen's reduction loop, columns [jb, je) of size1
// (jb, je multiples of 32 or je == size1). Strides in bytes.
template <typename T, bool kSkipNan = false>
void slab(char* out, const char* in, const int64_t* istr_in, const int64_t* ostr_in, int64_t size0,
          int64_t size1, int64_t jb, int64_t je) {
  constexpr int64_t es = sizeof(T);
  int64_t istr[2] = {istr_in[0], istr_in[1]};
  int64_t ostr[2] = {ostr_in[0], ostr_in[1]};
  if (ostr[0] != 0 && ostr[1] == 0) {
    std::swap(istr[0], istr[1]);
    std::swap(ostr[0], ostr[1]);
    std::swap(size0, size1);
    // Only reached for 1-D iterators (size0 == 1 after the swap), never
    // split into column ranges.
    jb = 0;
    je = size1;
  }
  if (ostr[0] != 0 && ostr[1] != 0) {  // not a true reduction
    for (int64_t j = jb; j < je; ++j) {
      for (int64_t i = 0; i < size0; ++i) {
        char* o = out + i * ostr[0] + j * ostr[1];
        T a;
        std::memcpy(&a, o, sizeof(T));
        a = static_cast<T>(static_cast<float>(a) +
                           load1<T, kSkipNan>(in + i * istr[0] + j * istr[1]));
        std::memcpy(o, &a, sizeof(T));
      }
    }
    return;
  }
  const int64_t os = ostr[1];
  auto scalar_row = [&](const char* row, int64_t stride) {
    return row_sum<1>([&](int64_t i) { return Lanes<1>{{load1<T, kSkipNan>(row + i * stride)}}; },
                      size0)
        .v[0];
  };
  if (istr[0] == es && size0 >= 16) {
    // Contiguous inner reduction.
    const int64_t nvec = size0 / 16;
    for (int64_t j = jb; j < je; ++j) {
      const char* row = in + j * istr[1];
      Lanes<8> acc = row_sum<8>(
          [&](int64_t i) {
            const char* b = row + i * 16 * es;
            Lanes<8> r;
            for (int l = 0; l < 8; ++l) {
              if (std::is_same<T, BFloat16>::value) {
                r.v[l] = load1<T, kSkipNan>(b + l * es) + load1<T, kSkipNan>(b + (l + 8) * es);
              } else {
                r.v[l] =
                    load1<T, kSkipNan>(b + 2 * l * es) + load1<T, kSkipNan>(b + (2 * l + 1) * es);
              }
            }
            return r;
          },
          nvec);
      float total = 0.f;
      for (int64_t k = nvec * 16; k < size0; ++k) total += load1<T, kSkipNan>(row + k * es);
      for (int l = 0; l < 8; ++l) total += acc.v[l];
      store_add<T>(out + j * os, total);
    }
  } else if (istr[1] == es && size1 >= 16) {
    // Contiguous outer reduction: columns advance together.
    int64_t j = jb;
    auto lanes8 = [&](const char* p) {
      Lanes<8> r;
      for (int l = 0; l < 8; ++l) r.v[l] = load1<T, kSkipNan>(p + l * es);
      return r;
    };
    for (; j + 32 <= je; j += 32) {
      const char* base = in + j * es;
      auto sums = multi_row_sum<8, 4>(
          [&](int64_t i, int k) { return lanes8(base + i * istr[0] + k * 8 * es); }, size0);
      for (int k = 0; k < 4; ++k) {
        for (int l = 0; l < 8; ++l) store_add<T>(out + (j + k * 8 + l) * os, sums[k].v[l]);
      }
    }
    for (; j + 8 <= je; j += 8) {
      const char* base = in + j * es;
      Lanes<8> s = row_sum<8>([&](int64_t i) { return lanes8(base + i * istr[0]); }, size0);
      for (int l = 0; l < 8; ++l) store_add<T>(out + (j + l) * os, s.v[l]);
    }
    for (; j < je; ++j) store_add<T>(out + j * os, scalar_row(in + j * es, istr[0]));
  } else if (istr[0] < istr[1]) {
    for (int64_t j = jb; j < je; ++j) {
      store_add<T>(out + j * os, scalar_row(in + j * istr[1], istr[0]));
    }
  } else {
    int64_t j = jb;
    for (; j + 3 < je; j += 4) {
      const char* base = in + j * istr[1];
      auto sums = multi_row_sum<1, 4>(
          [&](int64_t i, int k) {
            return Lanes<1>{{load1<T, kSkipNan>(base + i * istr[0] + k * istr[1])}};
          },
          size0);
      for (int k = 0; k < 4; ++k) store_add<T>(out + (j + k) * os, sums[k].v[0]);
    }
    for (; j < je; ++j) store_add<T>(out + j * os, scalar_row(in + j * istr[1], istr[0]));
  }
}

// ATen's reduction TensorIterator over (out, in): dims ordered innermost
// first, strides in bytes.
struct SumIter {
  int nd = 0;
  int64_t shape[kMaxDims];
  int64_t ostr[kMaxDims];
  int64_t istr[kMaxDims];
};

// `ostr_full`: the output's byte stride for each input dim (0 for a
// reduced dim of size > 1, as review_reduce_result and compute_strides
// give).
SumIter make_iter(const Tensor& in, const int64_t* ostr_full) {
  SumIter it;
  const int n = static_cast<int>(in.dim());
  const int64_t es = in.element_size();
  int perm[kMaxDims];
  for (int i = 0; i < n; ++i) perm[i] = n - 1 - i;
  auto should_swap = [&](int d0, int d1) {
    // Operand 0: the output, whose reduced dims go first.
    {
      const int64_t s0 = ostr_full[d0], s1 = ostr_full[d1];
      if ((s0 == 0) != (s1 == 0)) return s1 == 0 ? 1 : -1;
      if (s0 != 0 && s1 != 0) {
        if (s0 < s1) return -1;
        if (s0 > s1) return 1;
        if (in.sizes()[d0] > in.sizes()[d1]) return 1;
      }
    }
    const int64_t s0 = in.strides()[d0] * es, s1 = in.strides()[d1] * es;
    if (s0 != 0 && s1 != 0) {
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (in.sizes()[d0] > in.sizes()[d1]) return 1;
    }
    return 0;
  };
  if (n > 1) {
    for (int i = 1; i < n; ++i) {
      int d1 = i;
      for (int d0 = i - 1; d0 >= 0; --d0) {
        const int c = should_swap(perm[d0], perm[d1]);
        if (c > 0) {
          std::swap(perm[d0], perm[d1]);
          d1 = d0;
        } else if (c < 0) {
          break;
        }
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    it.shape[i] = in.sizes()[perm[i]];
    it.ostr[i] = ostr_full[perm[i]];
    it.istr[i] = in.strides()[perm[i]] * es;
  }
  it.nd = n;
  if (n <= 1) return it;
  int prev = 0;
  for (int d = 1; d < n; ++d) {
    const bool can = it.shape[prev] == 1 || it.shape[d] == 1 ||
                     (it.shape[prev] * it.ostr[prev] == it.ostr[d] &&
                      it.shape[prev] * it.istr[prev] == it.istr[d]);
    if (can) {
      if (it.shape[prev] == 1) {
        it.ostr[prev] = it.ostr[d];
        it.istr[prev] = it.istr[d];
      }
      it.shape[prev] *= it.shape[d];
    } else {
      ++prev;
      if (prev != d) {
        it.ostr[prev] = it.ostr[d];
        it.istr[prev] = it.istr[d];
        it.shape[prev] = it.shape[d];
      }
    }
  }
  it.nd = prev + 1;
  return it;
}

template <typename T, bool kSkipNan = false>
void sum_lowp(const Tensor& in, const DimMask& mask, const ReduceArgs& args, Tensor& out) {
  const int n = static_cast<int>(in.dim());
  const int64_t es = sizeof(T);
  char* o = static_cast<char*>(out.data_ptr());
  const int64_t nout = out.numel();
  std::memset(o, 0, nout * es);  // +0 in both types
  int64_t nred = 1;
  for (int d = 0; d < n; ++d) {
    if (mask.test(d)) nred *= in.sizes()[d];
  }
  if (nred != 0 && nout != 0) {
    int64_t ostr_full[kMaxDims];
    const bool keepdim = out.dim() == in.dim();
    for (int d = 0, k = 0; d < n; ++d) {
      if (keepdim) {
        ostr_full[d] = mask.test(d) && in.sizes()[d] != 1 ? 0 : out.strides()[d] * es;
      } else {
        ostr_full[d] = mask.test(d) ? 0 : out.strides()[k++] * es;
      }
    }
    const SumIter it = make_iter(in, ostr_full);
    const char* ip = static_cast<const char*>(in.data_ptr());
    if (it.nd <= 1) {
      // serial_for_each of a 0-/1-D iterator: one slab of (numel, 1).
      const int64_t is[2] = {it.nd == 1 ? it.istr[0] : 0, 0};
      const int64_t os[2] = {it.nd == 1 ? it.ostr[0] : 0, 0};
      const int64_t size0 = it.nd == 1 ? it.shape[0] : 1;
      slab<T, kSkipNan>(o, ip, is, os, size0, 1, 0, 1);
    } else {
      // Outer dims (2..): the leading ones still reduced (`nr_outer`), then
      // kept ones; tasks split the kept outer index space, and when there
      // is none, the kept columns of the slab in groups of 32.
      int first_kept = 2;
      while (first_kept < it.nd && it.ostr[first_kept] == 0) ++first_kept;
      int64_t nkept = 1, nredo = 1;
      for (int d = 2; d < first_kept; ++d) nredo *= it.shape[d];
      for (int d = first_kept; d < it.nd; ++d) nkept *= it.shape[d];
      const int64_t size0 = it.shape[0], size1 = it.shape[1];
      const bool split_cols = nkept == 1 && it.ostr[1] != 0 && it.ostr[0] == 0;
      auto run_slabs = [&](int64_t kb, int64_t ke, int64_t jb, int64_t je) {
        for (int64_t kk = kb; kk < ke; ++kk) {
          int64_t ooff = 0, ioff = 0, rest = kk;
          for (int d = first_kept; d < it.nd; ++d) {
            const int64_t i = rest % it.shape[d];
            rest /= it.shape[d];
            ooff += i * it.ostr[d];
            ioff += i * it.istr[d];
          }
          for (int64_t r = 0; r < nredo; ++r) {
            int64_t roff = 0, rrest = r;
            for (int d = 2; d < first_kept; ++d) {
              roff += (rrest % it.shape[d]) * it.istr[d];
              rrest /= it.shape[d];
            }
            slab<T, kSkipNan>(o + ooff, ip + ioff + roff, it.istr, it.ostr, size0, size1, jb, je);
          }
        }
      };
      const int64_t work = in.numel();
      if (split_cols) {
        const int64_t ngroups = (size1 + 31) / 32;
        const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, 32 * nred));
        parallel_for(0, ngroups, work > kGrainSize ? grain : ngroups, [&](int64_t gb, int64_t ge) {
          run_slabs(0, 1, gb * 32, std::min(size1, ge * 32));
        });
      } else {
        const int64_t per = std::max<int64_t>(1, work / std::max<int64_t>(1, nkept));
        const int64_t grain = std::max<int64_t>(1, kGrainSize / per);
        parallel_for(0, nkept, work > kGrainSize ? grain : nkept,
                     [&](int64_t kb, int64_t ke) { run_slabs(kb, ke, 0, size1); });
      }
    }
  }
  if (args.scale != 1.0) {
    // mean: 1.13's sum(...).div_(n), n rounded to T.
    const float d = static_cast<float>(static_cast<T>(static_cast<float>(nred)));
    T* p = reinterpret_cast<T*>(o);
    for (int64_t k = 0; k < nout; ++k) p[k] = static_cast<T>(static_cast<float>(p[k]) / d);
  }
}

// Note [Reduced-float norm]: 1.13's CPU norm of float16 / bfloat16
// (ReduceOpsKernel.cpp, norm_kernel_tensor_iterator_impl) accumulates in the
// half type itself (binary_kernel_reduce with acc_t = scalar_t): one output
// at a time, its reduced elements in the reduction iterator's order (dims by
// increasing input stride), each step rounded: p=2 adds T(x * x), p=1 |x|,
// p=0 the count, p=inf/-inf max/min of |x| (NaN propagates), other p
// pow(|x|, p) (rounded to T for bfloat16, whose std::pow returns
// bfloat16; not for float16), then sqrt / pow(acc, T(1) / T(p)) in float.
// The exception: bfloat16 p=2 over a single contiguous innermost reduced
// dim takes its vectorized path: float lanes (8) fed 16 elements a step
// (first the low 8, then the high 8), summed across lanes in order, then
// the scalar tail, in float.
template <typename T>
void norm_lowp(const Tensor& in, const DimMask& mask, double p, Tensor& out) {
  const int n = static_cast<int>(in.dim());
  const int64_t es = sizeof(T);
  T* o = static_cast<T*>(out.data_ptr());
  const int64_t nout = out.numel();
  int64_t nred = 1;
  for (int d = 0; d < n; ++d) {
    if (mask.test(d)) nred *= in.sizes()[d];
  }
  const bool neg_inf = std::isinf(p) && p < 0;
  if (nred == 0 || nout == 0) {
    for (int64_t k = 0; k < nout; ++k) {
      o[k] = static_cast<T>(neg_inf ? std::numeric_limits<float>::infinity() : 0.f);
    }
    return;
  }
  int64_t ostr_full[kMaxDims];
  const bool keepdim = out.dim() == in.dim();
  for (int d = 0, k = 0; d < n; ++d) {
    if (keepdim) {
      ostr_full[d] = mask.test(d) && in.sizes()[d] != 1 ? 0 : out.strides()[d] * es;
    } else {
      ostr_full[d] = mask.test(d) ? 0 : out.strides()[k++] * es;
    }
  }
  SumIter it = make_iter(in, ostr_full);
  if (it.nd == 0) {  // a 0-dim input: one element
    it.nd = 1;
    it.shape[0] = 1;
    it.ostr[0] = 0;
    it.istr[0] = 0;
  }
  int nr = 0;  // leading reduced iterator dims
  while (nr < it.nd && it.ostr[nr] == 0) ++nr;
  const char* ip = static_cast<const char*>(in.data_ptr());
  char* op = reinterpret_cast<char*>(o);
  const bool fast = std::is_same<T, BFloat16>::value && p == 2 && nr == 1 && it.istr[0] == es;
  const int64_t inner = nr > 0 ? it.shape[0] : 1;
  int64_t nk = 1;
  for (int d = nr; d < it.nd; ++d) nk *= it.shape[d];
  const T inv_p = static_cast<T>(1.f / static_cast<float>(static_cast<T>(static_cast<float>(p))));
  auto one = [&](int64_t kk) {
    int64_t ioff = 0, ooff = 0, rest = kk;
    for (int d = nr; d < it.nd; ++d) {
      const int64_t i = rest % it.shape[d];
      rest /= it.shape[d];
      ioff += i * it.istr[d];
      ooff += i * it.ostr[d];
    }
    const char* base = ip + ioff;
    float r;
    if (fast) {
      float lanes[8] = {};
      int64_t d = 0;
      for (; d + 16 <= inner; d += 16) {
        for (int h = 0; h < 2; ++h) {
          for (int l = 0; l < 8; ++l) {
            const float v = load1<T>(base + (d + h * 8 + l) * es);
            const float sq = v * v;
            lanes[l] += sq;
          }
        }
      }
      float b = lanes[0];
      for (int l = 1; l < 8; ++l) b += lanes[l];
      for (; d < inner; ++d) {
        const float v = load1<T>(base + d * es);
        const float sq = v * v;
        b += sq;
      }
      r = std::sqrt(b);
    } else {
      T acc = static_cast<T>(neg_inf ? std::numeric_limits<float>::infinity() : 0.f);
      int64_t idx[kMaxDims] = {};
      int64_t off = 0;
      for (int64_t e = 0; e < nred; ++e) {
        const float v = load1<T>(base + off);
        const float a = std::fabs(v);
        float acc_f = static_cast<float>(acc);
        if (p == 2) {
          acc = static_cast<T>(acc_f + static_cast<float>(static_cast<T>(v * v)));
        } else if (p == 1) {
          acc = static_cast<T>(acc_f + a);
        } else if (p == 0) {
          acc = static_cast<T>(acc_f + (v == 0.f ? 0.f : 1.f));
        } else if (std::isinf(p)) {
          const bool take = std::isnan(a) || (p > 0 ? a > acc_f : a < acc_f);
          if (!std::isnan(acc_f) && take) acc = static_cast<T>(a);
        } else {
          float pw = std::pow(a, static_cast<float>(static_cast<T>(static_cast<float>(p))));
          if (std::is_same<T, BFloat16>::value) pw = static_cast<float>(static_cast<T>(pw));
          acc = static_cast<T>(acc_f + pw);
        }
        for (int d = 0; d < nr; ++d) {  // next reduced element, dim 0 fastest
          off += it.istr[d];
          if (++idx[d] < it.shape[d]) break;
          off -= idx[d] * it.istr[d];
          idx[d] = 0;
        }
      }
      r = static_cast<float>(acc);
      if (p == 2) {
        r = std::sqrt(r);
      } else if (!(p == 1 || p == 0 || std::isinf(p))) {
        r = std::pow(r, static_cast<float>(inv_p));
      }
    }
    T t = static_cast<T>(r);
    std::memcpy(op + ooff, &t, sizeof(T));
  };
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, nred));
  parallel_for(0, nk, grain, [&](int64_t kb, int64_t ke) {
    for (int64_t kk = kb; kk < ke; ++kk) one(kk);
  });
}

}  // namespace

void sum_lowp_cpu(const Tensor& in, const DimMask& mask, const ReduceArgs& args, Tensor* outs) {
  if (in.dtype() == kHalf) {
    if (args.skip_nan) {
      sum_lowp<Half, true>(in, mask, args, outs[0]);
    } else {
      sum_lowp<Half>(in, mask, args, outs[0]);
    }
  } else if (args.skip_nan) {
    sum_lowp<BFloat16, true>(in, mask, args, outs[0]);
  } else {
    sum_lowp<BFloat16>(in, mask, args, outs[0]);
  }
}

void norm_lowp_cpu(const Tensor& in, const DimMask& mask, const ReduceArgs& args, Tensor* outs) {
  if (in.dtype() == kHalf) {
    norm_lowp<Half>(in, mask, args.p, outs[0]);
  } else {
    norm_lowp<BFloat16>(in, mask, args.p, outs[0]);
  }
}

}  // namespace reduce_detail
}  // namespace ember
