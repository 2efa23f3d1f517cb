// CPU kernels of the comparison reductions: amax/amin, max/min with
// indices, argmax/argmin, all/any, count_nonzero (Note [Reduction engine]).

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tensor/dispatch.h"
#include "tensor/loops.h"
#include "tensor/reduce_engine.h"

namespace ember {
namespace reduce_detail {
namespace {

// half and bfloat16 compare as float.
template <typename T>
using cmp_t = std::conditional_t<std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value,
                                 float, T>;

template <typename V>
inline bool is_nan(V v) {
  if constexpr (std::is_floating_point<V>::value) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// x replaces the current best a: strictly better (ties keep the first), or
// the first NaN (NaN propagates).
template <bool kMax, typename V>
inline bool better(V x, V a) {
  if constexpr (kMax) {
    return x > a || (is_nan(x) && !is_nan(a));
  } else {
    return x < a || (is_nan(x) && !is_nan(a));
  }
}

template <bool kMax, typename V>
constexpr V worst() {
  if constexpr (std::is_floating_point<V>::value) {
    return kMax ? -std::numeric_limits<V>::infinity() : std::numeric_limits<V>::infinity();
  } else {
    return kMax ? std::numeric_limits<V>::lowest() : std::numeric_limits<V>::max();
  }
}

// Note [Vectorized max and min]: a contiguous run is reduced in kLanes
// independent lanes of plain selects (v > a ? v : a, which ignores NaN and
// keeps the earlier of equal values), which the compiler turns into vector
// max/min instructions, while a second set of lanes records whether a NaN
// was seen. The exact answer of the element-by-element rule (the first NaN
// if any, else the first element equal to the best value, which decides
// between 0.0 and -0.0 and is the index of max/min/argmax/argmin) is then
// found by a search for that element, in blocks without early exits.
// A plain loop with the NaN test in its select did not vectorize (min and
// max of 65536 floats took 180 us where libtorch 1.13 took 5-9 us).
// 16: vector_best takes single registers after its blocks of four (amax
// over a last dim of 16 ran element by element, 1.7 times 1.13's time).
constexpr int64_t kMinLaneRun = 16;

// The first index i < n at which pred(i) holds; n if none.
template <typename Pred>
inline int64_t find_first(int64_t n, const Pred& pred) {
  constexpr int64_t kSearchBlock = 64;
  int64_t i = 0;
  for (; i + kSearchBlock <= n; i += kSearchBlock) {
    int hits = 0;
    for (int64_t j = 0; j < kSearchBlock; ++j) hits += pred(i + j) ? 1 : 0;
    if (hits != 0) break;
  }
  for (; i < n; ++i) {
    if (pred(i)) return i;
  }
  return n;
}

// The index (if need_index, else meaningful only for a NaN or a zero) and
// value of the first best element of the run p[0], p[stride], ...
// (n >= 1 elements), by better<kMax>.
template <bool kMax, typename T, typename S>
int64_t first_best(const T* p, int64_t n, S stride, bool need_index, cmp_t<T>* value) {
  using V = cmp_t<T>;
  constexpr bool kFloat = std::is_floating_point<V>::value;
  V best = worst<kMax, V>();
  bool any_nan = false;
  int64_t i = 0;
  if constexpr ((std::is_same<T, float>::value || std::is_same<T, double>::value) &&
                std::is_same<S, Unit>::value) {
    i = vector_best<kMax>(p, n, &best, &any_nan);
  } else {
    // Four AVX2 registers of lanes hide the max/min latency.
    constexpr int kLanes = 128 / sizeof(V);
    V lanes[kLanes];
    V nan_seen[kLanes];  // a NaN the lane saw, else 0
    for (int l = 0; l < kLanes; ++l) {
      lanes[l] = worst<kMax, V>();
      nan_seen[l] = 0;
    }
    for (; i + kLanes <= n; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) {
        const V v = static_cast<V>(p[(i + l) * stride]);
        if constexpr (kMax) {
          lanes[l] = v > lanes[l] ? v : lanes[l];
        } else {
          lanes[l] = v < lanes[l] ? v : lanes[l];
        }
        if constexpr (kFloat) nan_seen[l] = v != v ? v : nan_seen[l];
      }
    }
    for (int l = 0; l < kLanes; ++l) {
      best = (kMax ? lanes[l] > best : lanes[l] < best) ? lanes[l] : best;
      any_nan |= is_nan(nan_seen[l]);
    }
  }
  for (; i < n; ++i) {
    const V v = static_cast<V>(p[i * stride]);
    best = (kMax ? v > best : v < best) ? v : best;
    any_nan |= is_nan(v);
  }
  if (any_nan) {
    const int64_t at =
        find_first(n, [&](int64_t k) { return is_nan(static_cast<V>(p[k * stride])); });
    *value = static_cast<V>(p[at * stride]);
    return at;
  }
  if (need_index || (kFloat && best == V(0))) {
    const int64_t at =
        find_first(n, [&](int64_t k) { return static_cast<V>(p[k * stride]) == best; });
    *value = static_cast<V>(p[at * stride]);
    return at;
  }
  *value = best;
  return 0;
}

template <typename T, bool kMax>
struct ValueOp {
  using scalar_t = T;
  using acc_t = cmp_t<T>;
  T* out;

  acc_t identity() const { return worst<kMax, acc_t>(); }
  void step(acc_t& a, T x, int64_t) const {
    acc_t v = static_cast<acc_t>(x);
    a = better<kMax>(v, a) ? v : a;
  }
  void run(acc_t& a, const T* p, int64_t stride, int64_t n, int64_t idx0) const {
    if (n >= kMinLaneRun) {
      acc_t v;
      if (stride == 1) {
        first_best<kMax>(p, n, Unit(), /*need_index=*/false, &v);
      } else {
        first_best<kMax>(p, n, stride, /*need_index=*/false, &v);
      }
      a = better<kMax>(v, a) ? v : a;
      return;
    }
    run_by_steps(*this, a, p, stride, n, idx0);
  }
  void combine(acc_t& a, const acc_t& b) const { step(a, static_cast<T>(b), 0); }
  void write(int64_t k, const acc_t& a) const { out[k] = static_cast<T>(a); }
};

template <typename V>
struct ValueIndex {
  V v;
  int64_t i;
};

// Values and/or indices; `values` may be null (argmax/argmin).
template <typename T, bool kMax>
struct IndexOp {
  using scalar_t = T;
  using acc_t = ValueIndex<cmp_t<T>>;
  T* values;
  int64_t* indices;

  acc_t identity() const { return {worst<kMax, cmp_t<T>>(), -1}; }
  void step(acc_t& a, T x, int64_t idx) const {
    cmp_t<T> v = static_cast<cmp_t<T>>(x);
    if (a.i < 0 || better<kMax>(v, a.v)) {
      a.v = v;
      a.i = idx;
    }
  }
  void run(acc_t& a, const T* p, int64_t stride, int64_t n, int64_t idx0) const {
    if (n >= kMinLaneRun) {
      acc_t b;
      b.i = idx0 + (stride == 1 ? first_best<kMax>(p, n, Unit(), /*need_index=*/true, &b.v)
                                : first_best<kMax>(p, n, stride, /*need_index=*/true, &b.v));
      combine(a, b);
      return;
    }
    run_by_steps(*this, a, p, stride, n, idx0);
  }
  void combine(acc_t& a, const acc_t& b) const {
    if (b.i >= 0 && (a.i < 0 || better<kMax>(b.v, a.v))) a = b;
  }
  void write(int64_t k, const acc_t& a) const {
    if (values != nullptr) values[k] = static_cast<T>(a.v);
    indices[k] = a.i;
  }
};

// The number of elements of a contiguous run that are nonzero (NaN
// counts), or with kNotNan not NaN, in blocks whose int32 counts the
// compiler vectorizes.
template <bool kNotNan = false, typename T, typename S>
int64_t count_run(const T* p, int64_t n, S stride) {
  constexpr int64_t kBlock = 1 << 16;
  int64_t total = 0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    int32_t c = 0;
    if constexpr (kNotNan) {
      for (int64_t i = b; i < e; ++i) c += p[i * stride] == p[i * stride] ? 1 : 0;
    } else {
      for (int64_t i = b; i < e; ++i) c += cast_value<bool>(p[i * stride]) ? 1 : 0;
    }
    total += c;
  }
  return total;
}

template <typename T, bool kAll>
struct AllAnyOp {
  using scalar_t = T;
  using acc_t = bool;
  uint8_t* out;  // bool or uint8: one byte holding 0 or 1

  acc_t identity() const { return kAll; }
  void step(acc_t& a, T x, int64_t) const {
    bool nz = cast_value<bool>(x);
    a = kAll ? (a && nz) : (a || nz);
  }
  void run(acc_t& a, const T* p, int64_t stride, int64_t n, int64_t idx0) const {
    if (n >= kMinLaneRun) {
      const int64_t c = stride == 1 ? count_run(p, n, Unit()) : count_run(p, n, stride);
      a = kAll ? (a && c == n) : (a || c > 0);
      return;
    }
    run_by_steps(*this, a, p, stride, n, idx0);
  }
  void combine(acc_t& a, const acc_t& b) const { a = kAll ? (a && b) : (a || b); }
  void write(int64_t k, const acc_t& a) const { out[k] = a ? 1 : 0; }
};

template <typename T>
struct CountNonzeroOp {
  using scalar_t = T;
  using acc_t = int64_t;
  int64_t* out;

  acc_t identity() const { return 0; }
  void step(acc_t& a, T x, int64_t) const { a += cast_value<bool>(x) ? 1 : 0; }
  void run(acc_t& a, const T* p, int64_t stride, int64_t n, int64_t idx0) const {
    if (n >= kMinLaneRun) {
      a += stride == 1 ? count_run(p, n, Unit()) : count_run(p, n, stride);
      return;
    }
    run_by_steps(*this, a, p, stride, n, idx0);
  }
  void combine(acc_t& a, const acc_t& b) const { a += b; }
  void write(int64_t k, const acc_t& a) const { out[k] = a; }
};

// nanmean's count: the elements that are not NaN (float and double).
template <typename T>
struct CountNotNanOp {
  using scalar_t = T;
  using acc_t = int64_t;
  int64_t* out;

  acc_t identity() const { return 0; }
  void step(acc_t& a, T x, int64_t) const { a += x == x ? 1 : 0; }
  void run(acc_t& a, const T* p, int64_t stride, int64_t n, int64_t idx0) const {
    if (n >= kMinLaneRun) {
      a += stride == 1 ? count_run</*kNotNan=*/true>(p, n, Unit())
                       : count_run</*kNotNan=*/true>(p, n, stride);
      return;
    }
    run_by_steps(*this, a, p, stride, n, idx0);
  }
  void combine(acc_t& a, const acc_t& b) const { a += b; }
  void write(int64_t k, const acc_t& a) const { out[k] = a; }
};

// amax / amin in memory order (Note [Reduced dims in memory order]). Of
// equal values they keep the first they meet, which decides between 0.0
// and -0.0: a float result of zero is redone in logical order.
template <bool kMax>
void value_reduce(const Tensor& in, const DimMask& mask, Tensor* outs) {
  const ReducePlan plan = make_plan(in, mask, /*any_order=*/true);
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), kMax ? "amax_cpu" : "amin_cpu", [&] {
    scalar_t* out = outs[0].data_ptr<scalar_t>();
    ValueOp<scalar_t, kMax> op{out};
    reduce_kernel(op, plan, in.data_ptr<scalar_t>());
    if constexpr (std::is_floating_point<cmp_t<scalar_t>>::value) {
      const ReducePlan logical = make_plan(in, mask);
      if (logical.rsz == plan.rsz && logical.rstr == plan.rstr) return;
      bool zero = false;
      for (int64_t k = 0; k < plan.nout; ++k) zero |= static_cast<cmp_t<scalar_t>>(out[k]) == 0;
      if (zero) reduce_kernel(op, logical, in.data_ptr<scalar_t>());
    }
  });
}

template <bool kMax>
void index_reduce(const ReducePlan& plan, const Tensor& in, Tensor* outs, bool with_values) {
  if (with_values) {
    EMBER_DISPATCH_ALL_TYPES(in.dtype(), kMax ? "max_cpu" : "min_cpu", [&] {
      IndexOp<scalar_t, kMax> op{outs[0].data_ptr<scalar_t>(), outs[1].data_ptr<int64_t>()};
      reduce_kernel(op, plan, in.data_ptr<scalar_t>());
    });
  } else {
    // PyTorch has no argmax/argmin for bool.
    EMBER_DISPATCH_NUMERIC_TYPES(in.dtype(), kMax ? "argmax_cpu" : "argmin_cpu", [&] {
      IndexOp<scalar_t, kMax> op{nullptr, outs[0].data_ptr<int64_t>()};
      reduce_kernel(op, plan, in.data_ptr<scalar_t>());
    });
  }
}

template <bool kAll>
void all_any_reduce(const ReducePlan& plan, const Tensor& in, Tensor* outs) {
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), kAll ? "all_cpu" : "any_cpu", [&] {
    AllAnyOp<scalar_t, kAll> op{static_cast<uint8_t*>(outs[0].data_ptr())};
    reduce_kernel(op, plan, in.data_ptr<scalar_t>());
  });
}

}  // namespace

void reduce_minmax_cpu(ReduceKind kind, const Tensor& in, const DimMask& mask,
                       const ReduceArgs& args, Tensor* outs) {
  // all/any and the counts do not depend on the order of the elements
  // (Note [Reduced dims in memory order]); the index reductions do.
  const bool any_order =
      kind == ReduceKind::kAll || kind == ReduceKind::kAny || kind == ReduceKind::kCountNonzero;
  const ReducePlan plan = make_plan(in, mask, any_order);
  switch (kind) {
    case ReduceKind::kAmax:
      return value_reduce<true>(in, mask, outs);
    case ReduceKind::kAmin:
      return value_reduce<false>(in, mask, outs);
    case ReduceKind::kMax: return index_reduce<true>(plan, in, outs, true);
    case ReduceKind::kMin: return index_reduce<false>(plan, in, outs, true);
    case ReduceKind::kArgmax: return index_reduce<true>(plan, in, outs, false);
    case ReduceKind::kArgmin: return index_reduce<false>(plan, in, outs, false);
    case ReduceKind::kAll: return all_any_reduce<true>(plan, in, outs);
    case ReduceKind::kAny: return all_any_reduce<false>(plan, in, outs);
    case ReduceKind::kCountNonzero:
      if (args.skip_nan) {
        EMBER_CHECK(in.dtype() == kFloat || in.dtype() == kDouble,
                    "count_not_nan_cpu: expected float or double");
        if (in.dtype() == kFloat) {
          reduce_kernel(CountNotNanOp<float>{outs[0].data_ptr<int64_t>()}, plan,
                        in.data_ptr<float>());
        } else {
          reduce_kernel(CountNotNanOp<double>{outs[0].data_ptr<int64_t>()}, plan,
                        in.data_ptr<double>());
        }
        return;
      }
      EMBER_DISPATCH_ALL_TYPES(in.dtype(), "count_nonzero_cpu", [&] {
        CountNonzeroOp<scalar_t> op{outs[0].data_ptr<int64_t>()};
        reduce_kernel(op, plan, in.data_ptr<scalar_t>());
      });
      return;
    default:
      throw Error("reduce_minmax_cpu: unexpected reduction kind");
  }
}

}  // namespace reduce_detail
}  // namespace ember
