// CPU kernels of the comparison reductions: amax/amin, max/min with
// indices, argmax/argmin, all/any, count_nonzero (Note [Reduction engine]).

#include <cmath>
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

template <typename T, bool kMax>
struct ValueOp {
  using scalar_t = T;
  using acc_t = cmp_t<T>;
  T* out;

  acc_t identity() const { return worst<kMax, acc_t>(); }
  void step(acc_t& a, T x, int64_t) const {
    acc_t v = static_cast<acc_t>(x);
    // Branch-free select, so the loop vectorizes.
    a = better<kMax>(v, a) ? v : a;
  }
  void run(acc_t& a, const T* p, int64_t stride, int64_t n, int64_t idx0) const {
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
    run_by_steps(*this, a, p, stride, n, idx0);
  }
  void combine(acc_t& a, const acc_t& b) const { a += b; }
  void write(int64_t k, const acc_t& a) const { out[k] = a; }
};

template <bool kMax>
void value_reduce(const ReducePlan& plan, const Tensor& in, Tensor* outs) {
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), kMax ? "amax_cpu" : "amin_cpu", [&] {
    ValueOp<scalar_t, kMax> op{outs[0].data_ptr<scalar_t>()};
    reduce_kernel(op, plan, in.data_ptr<scalar_t>());
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
                       const ReduceArgs& /*args*/, Tensor* outs) {
  const ReducePlan plan = make_plan(in, mask);
  switch (kind) {
    case ReduceKind::kAmax: return value_reduce<true>(plan, in, outs);
    case ReduceKind::kAmin: return value_reduce<false>(plan, in, outs);
    case ReduceKind::kMax: return index_reduce<true>(plan, in, outs, true);
    case ReduceKind::kMin: return index_reduce<false>(plan, in, outs, true);
    case ReduceKind::kArgmax: return index_reduce<true>(plan, in, outs, false);
    case ReduceKind::kArgmin: return index_reduce<false>(plan, in, outs, false);
    case ReduceKind::kAll: return all_any_reduce<true>(plan, in, outs);
    case ReduceKind::kAny: return all_any_reduce<false>(plan, in, outs);
    case ReduceKind::kCountNonzero:
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
