// CPU kernels of the arithmetic reductions: sum (and mean), prod, var/std,
// norm, logsumexp (Note [Reduction engine]).

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tensor/dispatch.h"
#include "tensor/loops.h"
#include "tensor/reduce_engine.h"
#include "tensor/vec_math.h"
// After <cmath>: double exp vectorizes through libmvec (Note [Vectorized
// libm]).
#include "tensor/simd_math.h"

namespace ember {
namespace reduce_detail {
namespace {

template <typename T>
constexpr bool is_reduced_float() {
  return std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value;
}

// Accumulator of sum/prod: int64 for bool and integers, double for floating
// types (more accurate than PyTorch's float cascade; the result is rounded
// to the output dtype once). float16/bfloat16 sums take reduce_sum_lowp.cc.
template <typename T>
using arith_acc_t = std::conditional_t<std::is_integral<T>::value, int64_t, double>;
// The element type of sum/prod's output: int64 for bool and integers.
template <typename T>
using arith_out_t = std::conditional_t<std::is_integral<T>::value, int64_t, T>;

template <typename T>
inline double to_double(T x) {
  if constexpr (is_reduced_float<T>()) {
    return static_cast<double>(static_cast<float>(x));
  } else {
    return static_cast<double>(x);
  }
}

// Sum of a contiguous float/double run: kLanes independent accumulators
// (the compiler keeps them in vector registers), flushed into a double every
// kBlock elements so that no float accumulator sums more than
// kBlock / kLanes terms.
// kSkipNan (nansum): NaN reads as 0.
template <typename T, bool kSkipNan = false>
double sum_contiguous(const T* p, int64_t n) {
  constexpr int kLanes = 128 / sizeof(T);  // four AVX2 registers: hides add latency
  constexpr int64_t kBlock = 4096;
  double total = 0;
  int64_t i = 0;
  while (n - i >= kLanes) {
    T lanes[kLanes] = {};
    const int64_t end = i + std::min<int64_t>((n - i) / kLanes * kLanes, kBlock);
    for (; i < end; i += kLanes) {
      // 4 KiB ahead: a 16M-float sum ran 8% faster (the hardware
      // prefetcher stops at page boundaries); past the end it is harmless.
      __builtin_prefetch(p + i + 4096 / sizeof(T));
      if constexpr (kSkipNan && std::is_same<T, double>::value) {
        // As vector types: GCC leaves the select loop scalar for double.
        typedef double W __attribute__((vector_size(32)));
        for (int l = 0; l < kLanes; l += 4) {
          W v, a;
          std::memcpy(&v, p + i + l, sizeof v);
          std::memcpy(&a, lanes + l, sizeof a);
          a += v != v ? W{} : v;
          std::memcpy(lanes + l, &a, sizeof a);
        }
      } else {
        for (int l = 0; l < kLanes; ++l) {
          const T v = p[i + l];
          lanes[l] += kSkipNan && v != v ? T(0) : v;
        }
      }
    }
    for (int w = kLanes / 2; w > 0; w /= 2) {
      for (int l = 0; l < w; ++l) lanes[l] += lanes[l + w];
    }
    total += static_cast<double>(lanes[0]);
  }
  // Then whole registers (at most 3): a short row (sum over a last dim of
  // 16) ran its elements through one double add chain, 2.4 times 1.13's
  // time.
  constexpr int kW = 32 / sizeof(T);
  if (n - i >= kW) {
    T lanes[kW] = {};
    for (; i + kW <= n; i += kW) {
      for (int l = 0; l < kW; ++l) {
        const T v = p[i + l];
        lanes[l] += kSkipNan && v != v ? T(0) : v;
      }
    }
    for (int w = kW / 2; w > 0; w /= 2) {
      for (int l = 0; l < w; ++l) lanes[l] += lanes[l + w];
    }
    total += static_cast<double>(lanes[0]);
  }
  for (; i < n; ++i) total += kSkipNan && p[i] != p[i] ? 0.0 : static_cast<double>(p[i]);
  return total;
}

// Note [Reduction lanes]: the arithmetic reductions of a contiguous run
// (prod, var/std, norm, logsumexp) accumulate in kDoubleLanes independent
// double lanes, which the compiler keeps in four AVX2 registers, and add
// (or multiply) the lanes pairwise at the end. One running double was a
// dependency chain of 4-cycle adds the compiler may not reorder: prod and
// norm of 65536 floats took 65-90 us where libtorch 1.13 took 5-17 us.
// The lanes only change the order of the double operations, so float
// results keep their value (within rounding of the double).
constexpr int kDoubleLanes = 16;

// Reduces term(i) for i < n with `op` (+ or *) from `init` in double lanes.
template <typename Term, typename Op>
inline double lane_reduce(int64_t n, double init, const Term& term, const Op& op) {
  double lanes[kDoubleLanes];
  for (int l = 0; l < kDoubleLanes; ++l) lanes[l] = init;
  int64_t i = 0;
  for (; i + kDoubleLanes <= n; i += kDoubleLanes) {
    for (int l = 0; l < kDoubleLanes; ++l) lanes[l] = op(lanes[l], term(i + l));
  }
  for (int w = kDoubleLanes / 2; w > 0; w /= 2) {
    for (int l = 0; l < w; ++l) lanes[l] = op(lanes[l], lanes[l + w]);
  }
  double r = lanes[0];
  for (; i < n; ++i) r = op(r, term(i));
  return r;
}
template <typename Term>
inline double lane_sum(int64_t n, const Term& term) {
  return lane_reduce(n, 0.0, term, [](double a, double b) { return a + b; });
}

// Runs shorter than this take the element-by-element loops.
constexpr int64_t kMinLaneRun = 32;

// Sum or product of a contiguous run of bool / integers in uint64 lanes:
// wrapping arithmetic is associative, so the result is the running
// int64's, bit for bit (4 times libtorch 1.13's time as one chain).
template <bool kProd, typename T>
int64_t int_lanes(const T* p, int64_t n) {
  constexpr int kLanes = 16;
  uint64_t lanes[kLanes];
  for (int l = 0; l < kLanes; ++l) lanes[l] = kProd ? 1 : 0;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const uint64_t v = static_cast<uint64_t>(static_cast<int64_t>(p[i + l]));
      lanes[l] = kProd ? lanes[l] * v : lanes[l] + v;
    }
  }
  uint64_t r = kProd ? 1 : 0;
  for (int l = 0; l < kLanes; ++l) r = kProd ? r * lanes[l] : r + lanes[l];
  for (; i < n; ++i) {
    const uint64_t v = static_cast<uint64_t>(static_cast<int64_t>(p[i]));
    r = kProd ? r * v : r + v;
  }
  return static_cast<int64_t>(r);
}

// kSkipNan: nansum (float and double only), NaN read as 0.
template <typename T, bool kSkipNan = false>
struct SumOp {
  using scalar_t = T;
  using acc_t = arith_acc_t<T>;
  using out_t = arith_out_t<T>;
  out_t* out;
  double scale;  // 1, or 1/N for mean

  acc_t identity() const { return 0; }
  void step(acc_t& a, T x, int64_t) const {
    if constexpr (std::is_integral<T>::value) {
      a += static_cast<int64_t>(x);
    } else {
      const double v = to_double(x);
      a += kSkipNan && v != v ? 0.0 : v;
    }
  }
  void run(acc_t& a, const T* p, int64_t stride, int64_t n, int64_t idx0) const {
    if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
      if (stride == 1) {
        a += sum_contiguous<T, kSkipNan>(p, n);
        return;
      }
      if (kSkipNan && n >= kMinLaneRun) {
        // A strided nansum in lanes: as one chain it ran slower than the
        // where() copy and contiguous sum it replaced.
        a += lane_sum(n, [&](int64_t i) {
          const double v = p[i * stride];
          return v != v ? 0.0 : v;
        });
        return;
      }
    }
    if constexpr (std::is_integral<T>::value) {
      if (stride == 1 && n >= kMinLaneRun) {
        a = static_cast<int64_t>(static_cast<uint64_t>(a) +
                                 static_cast<uint64_t>(int_lanes<false>(p, n)));
        return;
      }
    }
    run_by_steps(*this, a, p, stride, n, idx0);
  }
  void combine(acc_t& a, const acc_t& b) const { a += b; }
  void write(int64_t k, const acc_t& a) const {
    if constexpr (std::is_integral<T>::value) {
      out[k] = a;
    } else if constexpr (std::is_same<T, double>::value) {
      out[k] = a * scale;
    } else {
      out[k] = static_cast<out_t>(static_cast<float>(a * scale));
    }
  }
};

// Note [Float prod]: prod of float and double accumulates in its own type
// as PyTorch 1.13 does (binary_kernel_reduce_vec), which matters beyond
// rounding: a float product overflows to inf or underflows to 0 where a
// double accumulator would not. A contiguous run of at least 4 vectors
// takes 1.13's vectorized_inner_reduction order: 4 AVX2 vectors of lanes
// start from the run's first 4 vectors and multiply in each following
// block; then (v0 * v1) * (v2 * v3) lane by lane, the lanes of that in
// order, and the remaining elements one by one, so that a run's product
// is 1.13's bit for bit. Outputs that advance together (tile mode) and
// short runs multiply element by element in order, as 1.13's outer and
// basic loops do. prod of 65536 floats took 8 us in double lanes where
// libtorch took 4.7.
template <typename T>
using prod_acc_t =
    std::conditional_t<std::is_same<T, float>::value || std::is_same<T, double>::value, T,
                       arith_acc_t<T>>;

// The product of p[0], p[stride], ... (n >= kW * 4 elements) in 1.13's
// order; the elements after the last whole block are left to the caller
// (returns how many it took).
template <typename T, typename S>
int64_t prod_blocks(const T* p, int64_t n, S stride, T* r) {
  constexpr int kW = 32 / sizeof(T);
  constexpr int kLanes = 4 * kW;
  T lanes[kLanes];
  for (int l = 0; l < kLanes; ++l) lanes[l] = p[l * stride];
  int64_t i = kLanes;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) lanes[l] *= p[(i + l) * stride];
  }
  T v[kW];
  for (int l = 0; l < kW; ++l) {
    v[l] = (lanes[l] * lanes[l + kW]) * (lanes[l + 2 * kW] * lanes[l + 3 * kW]);
  }
  T acc = v[0];
  for (int l = 1; l < kW; ++l) acc *= v[l];
  *r = acc;
  return i;
}

template <typename T>
struct ProdOp {
  using scalar_t = T;
  using acc_t = prod_acc_t<T>;
  using out_t = arith_out_t<T>;
  out_t* out;

  acc_t identity() const { return 1; }
  void step(acc_t& a, T x, int64_t) const {
    if constexpr (std::is_integral<T>::value) {
      // Wraps like PyTorch's int64 arithmetic instead of overflowing UB.
      a = static_cast<int64_t>(static_cast<uint64_t>(a) *
                               static_cast<uint64_t>(static_cast<int64_t>(x)));
    } else if constexpr (std::is_same<acc_t, T>::value) {
      a *= x;
    } else {
      a *= to_double(x);
    }
  }
  void run(acc_t& a, const T* p, int64_t stride, int64_t n, int64_t idx0) const {
    if constexpr (std::is_integral<T>::value) {
      if (stride == 1 && n >= kMinLaneRun) {
        a = mul(a, int_lanes<true>(p, n));
        return;
      }
    } else if constexpr (std::is_same<acc_t, T>::value) {
      // Note [Float prod]. Strided runs take the same lanes (1.13 walks
      // them one by one: only the rounding differs).
      constexpr int64_t kLanes = 4 * 32 / sizeof(T);
      if (n >= kLanes) {
        T r;
        const int64_t done =
            stride == 1 ? prod_blocks(p, n, Unit(), &r) : prod_blocks(p, n, stride, &r);
        a *= r;
        for (int64_t i = done; i < n; ++i) a *= p[i * stride];
        return;
      }
    } else {
      if (n >= kMinLaneRun) {
        auto lanes = [&](auto s) {
          return lane_reduce(
              n, 1.0, [&](int64_t i) { return to_double(p[i * s]); },
              [](double x, double y) { return x * y; });
        };
        a *= stride == 1 ? lanes(Unit()) : lanes(stride);
        return;
      }
    }
    run_by_steps(*this, a, p, stride, n, idx0);
  }
  void combine(acc_t& a, const acc_t& b) const { a = mul(a, b); }
  static acc_t mul(acc_t a, acc_t b) {
    if constexpr (std::is_integral<T>::value) {
      return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    } else {
      return a * b;
    }
  }
  void write(int64_t k, const acc_t& a) const {
    if constexpr (std::is_same<acc_t, T>::value || std::is_integral<T>::value) {
      out[k] = a;
    } else {
      out[k] = static_cast<out_t>(static_cast<float>(a));
    }
  }
};

// Welford's running mean and sum of squared deviations, merged with Chan's
// formula across chunks.
struct WelfordAcc {
  double mean = 0;
  double m2 = 0;
  int64_t n = 0;
};

template <typename T>
struct VarOp {
  using scalar_t = T;
  using acc_t = WelfordAcc;
  T* var_out;
  T* mean_out;  // may be null
  int64_t correction;
  bool take_sqrt;

  acc_t identity() const { return {}; }
  void step(acc_t& a, T x, int64_t) const {
    double v = to_double(x);
    a.n += 1;
    double d = v - a.mean;
    a.mean += d / static_cast<double>(a.n);
    a.m2 += d * (v - a.mean);
  }
  void run(acc_t& a, const T* p, int64_t stride, int64_t n, int64_t idx0) const {
    if (n >= kMinLaneRun) {
      // Two passes over the run in double lanes (Note [Reduction lanes]):
      // its mean, then its squared deviations from it, merged into `a` as
      // a chunk. An infinite or NaN element (or an overflow) makes 1.13's
      // Welford mean NaN where this mean would be inf: such runs take the
      // element-by-element loop.
      auto two_pass = [&](auto s) {
        const double mean =
            lane_sum(n, [&](int64_t i) { return to_double(p[i * s]); }) / static_cast<double>(n);
        const double m2 = lane_sum(n, [&](int64_t i) {
          const double d = to_double(p[i * s]) - mean;
          return d * d;
        });
        return acc_t{mean, m2, n};
      };
      const acc_t b = stride == 1 ? two_pass(Unit()) : two_pass(stride);
      if (std::isfinite(b.mean) && std::isfinite(b.m2)) {
        combine(a, b);
        return;
      }
    }
    run_by_steps(*this, a, p, stride, n, idx0);
  }
  void combine(acc_t& a, const acc_t& b) const {
    if (b.n == 0) return;
    if (a.n == 0) {
      a = b;
      return;
    }
    double n = static_cast<double>(a.n + b.n);
    double d = b.mean - a.mean;
    a.mean += d * static_cast<double>(b.n) / n;
    a.m2 += b.m2 + d * d * static_cast<double>(a.n) * static_cast<double>(b.n) / n;
    a.n += b.n;
  }
  void write(int64_t k, const acc_t& a) const {
    double divisor = std::max<double>(0, static_cast<double>(a.n - correction));
    double v = a.m2 / divisor;
    if (take_sqrt) v = std::sqrt(v);
    var_out[k] = static_cast<T>(v);
    if (mean_out != nullptr) {
      mean_out[k] = static_cast<T>(a.n == 0 ? std::numeric_limits<double>::quiet_NaN() : a.mean);
    }
  }
};

enum class NormKind { kTwo, kOne, kInf, kNegInf, kZero, kOther };

// NaN-propagating max / min.
inline double nan_max(double a, double b) { return (b > a || std::isnan(b)) ? b : a; }
inline double nan_min(double a, double b) { return (b < a || std::isnan(b)) ? b : a; }

template <typename T>
struct NormOp {
  using scalar_t = T;
  using acc_t = double;
  T* out;
  NormKind kind;
  double p;

  acc_t identity() const {
    return kind == NormKind::kNegInf ? std::numeric_limits<double>::infinity() : 0.0;
  }
  void step(acc_t& a, T x, int64_t) const {
    double v = std::abs(to_double(x));
    switch (kind) {
      case NormKind::kTwo: a += v * v; break;
      case NormKind::kOne: a += v; break;
      case NormKind::kInf: a = nan_max(a, v); break;
      case NormKind::kNegInf: a = nan_min(a, v); break;
      case NormKind::kZero: a += v != 0 ? 1.0 : (std::isnan(v) ? v : 0.0); break;
      case NormKind::kOther: a += std::pow(v, p); break;
    }
  }
  void run(acc_t& a, const T* q, int64_t stride, int64_t n, int64_t idx0) const {
    if (n >= kMinLaneRun &&
        (stride == 1 ? run_lanes(a, q, n, Unit()) : run_lanes(a, q, n, stride))) {
      return;
    }
    // The kind is fixed for a call: hoist the switch out of the loop.
    switch (kind) {
      case NormKind::kTwo:
        for (int64_t i = 0; i < n; ++i) {
          double v = to_double(q[i * stride]);
          a += v * v;
        }
        return;
      case NormKind::kOne:
        for (int64_t i = 0; i < n; ++i) a += std::abs(to_double(q[i * stride]));
        return;
      default:
        run_by_steps(*this, a, q, stride, n, idx0);
    }
  }
  // A run in lanes (Note [Reduction lanes]); false where the element-by-
  // element loop must decide (a NaN in an inf / -inf norm, whose payload
  // it picks; p other than 3 and 4).
  template <typename S>
  bool run_lanes(acc_t& a, const T* q, int64_t n, S stride) const {
    auto abs_at = [&](int64_t i) { return std::abs(to_double(q[i * stride])); };
    switch (kind) {
      case NormKind::kTwo:
        a += lane_sum(n, [&](int64_t i) {
          const double v = to_double(q[i * stride]);
          return v * v;
        });
        return true;
      case NormKind::kOne:
        a += lane_sum(n, abs_at);
        return true;
      case NormKind::kZero:
        // NaN != 0: 1.13 counts NaN as nonzero.
        a += lane_sum(n, [&](int64_t i) { return to_double(q[i * stride]) != 0 ? 1.0 : 0.0; });
        return true;
      case NormKind::kInf:
      case NormKind::kNegInf: {
        const bool neg = kind == NormKind::kNegInf;
        if (lane_sum(n, [&](int64_t i) {
              return std::isnan(to_double(q[i * stride])) ? 1.0 : 0.0;
            }) != 0) {
          return false;
        }
        // No NaN: max / min of |x| in any order.
        const double r = neg ? lane_reduce(n, identity(), abs_at,
                                           [](double x, double y) { return y < x ? y : x; })
                             : lane_reduce(n, identity(), abs_at,
                                           [](double x, double y) { return y > x ? y : x; });
        a = neg ? nan_min(a, r) : nan_max(a, r);
        return true;
      }
      case NormKind::kOther: {
        // p = 3 or 4: |x|^p as a product, within an ulp or two of the
        // double pow (which cost 15 ns an element).
        auto sum_pow = [&](auto ip) {
          return lane_sum(n, [&](int64_t i) {
            const double v = abs_at(i);
            double r = v;
            for (int k = 1; k < decltype(ip)::value; ++k) r *= v;
            return r;
          });
        };
        if (p == 3) {
          a += sum_pow(std::integral_constant<int, 3>());
        } else if (p == 4) {
          a += sum_pow(std::integral_constant<int, 4>());
        } else {
          return false;
        }
        return true;
      }
    }
    return false;
  }
  void combine(acc_t& a, const acc_t& b) const {
    if (kind == NormKind::kInf) {
      a = nan_max(a, b);
    } else if (kind == NormKind::kNegInf) {
      a = nan_min(a, b);
    } else {
      a += b;
    }
  }
  void write(int64_t k, const acc_t& a) const {
    double r = a;
    if (kind == NormKind::kTwo) r = std::sqrt(a);
    if (kind == NormKind::kOther) r = std::pow(a, 1.0 / p);
    out[k] = static_cast<T>(r);
  }
};

// log(sum(exp(x))) in one pass: a running max m and sum s of exp(x - m);
// when a larger x arrives, s is rescaled. Infinite and equal maxima are
// handled so that inf - inf never appears.
struct LseAcc {
  double m = -std::numeric_limits<double>::infinity();
  double s = 0;
};

template <typename T>
struct LogSumExpOp {
  using scalar_t = T;
  using acc_t = LseAcc;
  T* out;

  acc_t identity() const { return {}; }
  static void add(acc_t& a, double m, double s) {
    if (m > a.m) {
      a.s = a.s * std::exp(a.m - m) + s;
      a.m = m;
    } else if (m == a.m) {
      a.s += s;
    } else {
      a.s += s * std::exp(m - a.m);
    }
  }
  void step(acc_t& a, T x, int64_t) const {
    double v = to_double(x);
    if (std::isnan(v)) {
      a.s = v;
      return;
    }
    add(a, v, 1.0);
  }
  void run(acc_t& a, const T* p, int64_t stride, int64_t n, int64_t idx0) const {
    if (n >= kMinLaneRun && !std::isnan(a.s) &&
        (stride == 1 ? run_lanes(a, p, n, Unit()) : run_lanes(a, p, n, stride))) {
      return;
    }
    run_by_steps(*this, a, p, stride, n, idx0);
  }
  template <typename S>
  bool run_lanes(acc_t& a, const T* p, int64_t n, S stride) const {
    // Two passes in lanes (Note [Reduction lanes]): the run's max m, then
    // the sum of exp(x - m), float's with exp_f (Note [Vectorizable exp
    // and erfc]). A NaN or an infinite max takes the element-by-element
    // loop, which decides those cases.
    double m = -std::numeric_limits<double>::infinity();
    bool nan = false;
    if constexpr ((std::is_same<T, float>::value || std::is_same<T, double>::value) &&
                  std::is_same<S, Unit>::value) {
      T best = -std::numeric_limits<T>::infinity();
      int64_t i = vector_best<true>(p, n, &best, &nan);
      for (; i < n; ++i) {
        best = p[i] > best ? p[i] : best;
        nan |= p[i] != p[i];
      }
      m = best;
    } else {
      m = lane_reduce(
          n, m, [&](int64_t i) { return to_double(p[i * stride]); },
          [](double x, double y) { return y > x ? y : x; });
      nan = lane_sum(n, [&](int64_t i) {
              return std::isnan(to_double(p[i * stride])) ? 1.0 : 0.0;
            }) != 0;
    }
    if (!nan && std::isfinite(m)) {
      double s;
      if constexpr (std::is_same<T, double>::value) {
        s = lane_sum(n, [&](int64_t i) { return std::exp(p[i * stride] - m); });
      } else {
        const float mf = static_cast<float>(m);
        s = lane_sum(n, [&](int64_t i) {
          return static_cast<double>(detail::exp_f(static_cast<float>(p[i * stride]) - mf));
        });
      }
      add(a, m, s);
      return true;
    }
    return false;
  }
  void combine(acc_t& a, const acc_t& b) const {
    if (std::isnan(b.s)) {
      a.s = b.s;
      return;
    }
    if (b.s == 0) return;
    add(a, b.m, b.s);
  }
  void write(int64_t k, const acc_t& a) const {
    double r;
    if (std::isnan(a.s)) {
      r = a.s;
    } else if (std::isinf(a.m)) {
      r = a.m;
    } else {
      r = a.m + std::log(a.s);
    }
    out[k] = static_cast<T>(r);
  }
};

// Note [Short sum rows]: a float or double sum (or mean) over a contiguous
// last dim shorter than one AVX2 register (x.sum(-1) of an [n, 2] tensor)
// is, per output, sum_contiguous's tail: one double add chain from 0 in
// order, scaled and rounded as SumOp::write. Through the engine each row
// paid a call and the lanes' setup: 65536 rows of 2 floats took 664 us
// (libtorch 1.13 525). Here the row length is known at compile time, so
// each row is a few instructions and the rows overlap.
template <typename T, int N>
void sum_short_rows_n(const ReducePlan& p, const T* in, T* out, double scale) {
  const int64_t os = p.ostr[0];
  parallel_for(0, p.nout, std::max<int64_t>(1, kGrainSize / N), [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const T* q = in + k * os;
      double t = 0;
      for (int i = 0; i < N; ++i) t += static_cast<double>(q[i]);
      out[k] = static_cast<T>(t * scale);
    }
  });
}

template <typename T>
bool sum_short_rows(const ReducePlan& p, const T* in, T* out, double scale) {
  constexpr int64_t kW = 32 / sizeof(T);
  if (p.osz.size() != 1 || p.rsz.size() != 1 || p.rstr[0] != 1 || p.nred >= kW) return false;
  switch (p.nred) {
    case 1:
      sum_short_rows_n<T, 1>(p, in, out, scale);
      return true;
    case 2:
      sum_short_rows_n<T, 2>(p, in, out, scale);
      return true;
    case 3:
      sum_short_rows_n<T, 3>(p, in, out, scale);
      return true;
    case 4:
      sum_short_rows_n<T, 4>(p, in, out, scale);
      return true;
    case 5:
      sum_short_rows_n<T, 5>(p, in, out, scale);
      return true;
    case 6:
      sum_short_rows_n<T, 6>(p, in, out, scale);
      return true;
    case 7:
      sum_short_rows_n<T, 7>(p, in, out, scale);
      return true;
    default:
      return false;
  }
}

// The same for few rows summed into contiguous outputs (x.sum(0) of a
// [2, n] tensor, repeat's and expand's backward): each output's double chain
// from 0 adds the rows in order, as the engine's tile steps do, and a block
// of outputs advances together so the adds vectorize. The engine paid a
// strip's setup per 32 outputs: [2, 65536] took 96-107 us, libtorch 42.
template <typename T>
bool sum_short_columns(const ReducePlan& p, const T* in, T* out, double scale) {
  constexpr int64_t kBlock = 256;
  if (p.osz.size() != 1 || p.ostr[0] != 1 || p.rsz.size() != 1 || p.nred < 1 || p.nred > 32) {
    return false;
  }
  const int64_t rs = p.rstr[0], n = p.nred;
  parallel_for(0, p.nout, std::max<int64_t>(kBlock, kGrainSize / n), [&](int64_t b, int64_t e) {
    double acc[kBlock];
    for (int64_t k0 = b; k0 < e; k0 += kBlock) {
      const int64_t m = std::min(kBlock, e - k0);
      for (int64_t j = 0; j < m; ++j) acc[j] = 0;
      for (int64_t r = 0; r < n; ++r) {
        const T* q = in + r * rs + k0;
        for (int64_t j = 0; j < m; ++j) acc[j] += static_cast<double>(q[j]);
      }
      for (int64_t j = 0; j < m; ++j) out[k0 + j] = static_cast<T>(acc[j] * scale);
    }
  });
  return true;
}

NormKind norm_kind(double p) {
  if (p == 2) return NormKind::kTwo;
  if (p == 1) return NormKind::kOne;
  if (p == 0) return NormKind::kZero;
  if (std::isinf(p)) return p > 0 ? NormKind::kInf : NormKind::kNegInf;
  return NormKind::kOther;
}

}  // namespace

void reduce_cpu(ReduceKind kind, const Tensor& in, const DimMask& mask, const ReduceArgs& args,
                Tensor* outs) {
  // Every kind here is order-insensitive (Note [Reduced dims in memory order]).
  const ReducePlan plan = make_plan(in, mask, /*any_order=*/true);
  switch (kind) {
    case ReduceKind::kSum:
      if (in.dtype() == kHalf || in.dtype() == kBFloat16) {
        sum_lowp_cpu(in, mask, args, outs);
        return;
      }
      if (args.skip_nan) {
        EMBER_CHECK(in.dtype() == kFloat || in.dtype() == kDouble,
                    "nansum_cpu: expected float or double");
        EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "nansum_cpu", [&] {
          if constexpr (std::is_same<scalar_t, float>::value ||
                        std::is_same<scalar_t, double>::value) {
            SumOp<scalar_t, true> op{outs[0].data_ptr<scalar_t>(), args.scale};
            reduce_kernel(op, plan, in.data_ptr<scalar_t>());
          }
        });
        return;
      }
      EMBER_DISPATCH_ALL_TYPES(in.dtype(), "sum_cpu", [&] {
        if constexpr (std::is_same<scalar_t, float>::value ||
                      std::is_same<scalar_t, double>::value) {
          if (sum_short_rows(plan, in.data_ptr<scalar_t>(), outs[0].data_ptr<scalar_t>(),
                             args.scale) ||
              sum_short_columns(plan, in.data_ptr<scalar_t>(), outs[0].data_ptr<scalar_t>(),
                                args.scale)) {
            return;
          }
        }
        SumOp<scalar_t> op{outs[0].data_ptr<arith_out_t<scalar_t>>(), args.scale};
        reduce_kernel(op, plan, in.data_ptr<scalar_t>());
      });
      return;
    case ReduceKind::kProd:
      EMBER_DISPATCH_ALL_TYPES(in.dtype(), "prod_cpu", [&] {
        ProdOp<scalar_t> op{outs[0].data_ptr<arith_out_t<scalar_t>>()};
        reduce_kernel(op, plan, in.data_ptr<scalar_t>());
      });
      return;
    case ReduceKind::kVar:
      EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "var_cpu", [&] {
        VarOp<scalar_t> op{outs[0].data_ptr<scalar_t>(),
                           outs[1].defined() ? outs[1].data_ptr<scalar_t>() : nullptr,
                           args.correction, args.take_sqrt};
        reduce_kernel(op, plan, in.data_ptr<scalar_t>());
      });
      return;
    case ReduceKind::kNorm:
      if (in.dtype() == kHalf || in.dtype() == kBFloat16) {
        norm_lowp_cpu(in, mask, args, outs);
        return;
      }
      EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "norm_cpu", [&] {
        NormOp<scalar_t> op{outs[0].data_ptr<scalar_t>(), norm_kind(args.p), args.p};
        reduce_kernel(op, plan, in.data_ptr<scalar_t>());
      });
      return;
    case ReduceKind::kLogSumExp:
      EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "logsumexp_cpu", [&] {
        LogSumExpOp<scalar_t> op{outs[0].data_ptr<scalar_t>()};
        reduce_kernel(op, plan, in.data_ptr<scalar_t>());
      });
      return;
    default:
      reduce_minmax_cpu(kind, in, mask, args, outs);
  }
}

}  // namespace reduce_detail
}  // namespace ember
