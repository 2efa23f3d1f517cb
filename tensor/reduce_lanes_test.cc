// The vectorized paths of the reductions, scans and softmax (Note
// [Vectorized max and min], Note [Reduction lanes], Note [Softmax along a
// contiguous line], equal's block compare) against the element-by-element
// rule, at lengths around the lane and block widths, with NaN, infinities
// and signed zeros in every lane position, and their strided fallbacks.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::from_values;

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

const int64_t kLengths[] = {1, 5, 31, 32, 33, 63, 64, 65, 127, 128, 129, 257, 1000, 4099};

// Deterministic values in [lo, hi), exactly representable in float.
std::vector<double> values(int64_t n, uint32_t seed, double lo = -4, double hi = 4) {
  std::vector<double> v(n);
  uint32_t s = seed * 2654435761u + 12345u;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<double>(static_cast<float>(lo + (hi - lo) * (s >> 8) / 16777216.0));
  }
  return v;
}

double at(const Tensor& t, int64_t i) { return t.to(kDouble).contiguous().data_ptr<double>()[i]; }

// The same value, NaN matching NaN, and the same sign of zero.
::testing::AssertionResult same_value(double got, double want) {
  if (std::isnan(want) ? std::isnan(got) : got == want && std::signbit(got) == std::signbit(want)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "got " << got << ", want " << want;
}

::testing::AssertionResult near(double got, double want, double rel) {
  if (std::isnan(want) || std::isinf(want)) return same_value(got, want);
  if (std::abs(got - want) <= rel * std::max(1.0, std::abs(want))) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "got " << got << ", want " << want;
}

struct Best {
  double v;
  int64_t i;
};

// max/min's element rule: strictly better, or the first NaN.
Best best_of(const std::vector<double>& x, bool is_max) {
  Best b{x[0], 0};
  for (size_t i = 1; i < x.size(); ++i) {
    bool better = is_max ? x[i] > b.v : x[i] < b.v;
    if (better || (std::isnan(x[i]) && !std::isnan(b.v))) b = {x[i], static_cast<int64_t>(i)};
  }
  return b;
}

// Inputs of length n: plain values, a NaN in each of several lane
// positions, ties of the best value, signed zeros as the best value.
std::vector<std::vector<double>> cases(int64_t n) {
  std::vector<std::vector<double>> out;
  out.push_back(values(n, static_cast<uint32_t>(n)));
  for (int64_t pos : {int64_t{0}, int64_t{3}, n / 2, n - 1, int64_t{37}, int64_t{70}}) {
    if (pos >= n) continue;
    std::vector<double> v = values(n, static_cast<uint32_t>(n + pos));
    v[pos] = kNan;
    if (pos + 9 < n) v[pos + 9] = -kNan;
    out.push_back(v);
  }
  {
    std::vector<double> v = values(n, 7);
    for (int64_t i = 0; i < n; i += 13) v[i] = 9;   // the max, tied
    for (int64_t i = 5; i < n; i += 17) v[i] = -9;  // the min, tied
    out.push_back(v);
  }
  for (int first_negative = 0; first_negative < 2; ++first_negative) {
    // Every value <= 0 (max) or >= 0 (min): the sign of the first zero wins.
    std::vector<double> lo(n), hi(n);
    for (int64_t i = 0; i < n; ++i) {
      const bool zero = i % 7 == 6 || i == n - 1;
      const double z = ((i / 7) % 2 == 0) == (first_negative == 1) ? -0.0 : 0.0;
      lo[i] = zero ? z : -1.0 - static_cast<double>(i % 5);
      hi[i] = zero ? z : 1.0 + static_cast<double>(i % 5);
    }
    out.push_back(lo);
    out.push_back(hi);
  }
  {
    std::vector<double> v = values(n, 11);
    v[n / 3] = kInf;
    v[n - 1] = -kInf;
    out.push_back(v);
  }
  return out;
}

void check_max_min(const Tensor& t, const std::vector<double>& v, const std::string& what) {
  const int64_t n = static_cast<int64_t>(v.size());
  for (bool is_max : {true, false}) {
    SCOPED_TRACE(what + (is_max ? " max" : " min") + " n=" + std::to_string(n));
    Best b = best_of(v, is_max);
    // What the tensor holds: the reference reads values through its dtype.
    std::vector<double> held(n);
    const Tensor d = t.to(kDouble).contiguous();
    for (int64_t i = 0; i < n; ++i) held[i] = d.data_ptr<double>()[i];
    b = best_of(held, is_max);
    EXPECT_TRUE(same_value(at(is_max ? t.amax({}) : t.amin({}), 0), b.v));
    EXPECT_TRUE(same_value(at(is_max ? t.max() : t.min(), 0), b.v));
    auto [val, idx] = is_max ? t.max(0) : t.min(0);
    EXPECT_TRUE(same_value(at(val, 0), b.v));
    EXPECT_EQ(idx.item<int64_t>(), b.i);
    EXPECT_EQ((is_max ? t.argmax() : t.argmin()).item<int64_t>(), b.i);
    // Two rows (row mode with two outputs), and the rows of a transposed
    // copy (strided runs: the element-by-element loop).
    Tensor two = stack({t, t}, 0);
    auto [v2, i2] = is_max ? two.max(1) : two.min(1);
    EXPECT_TRUE(same_value(at(v2, 1), b.v));
    EXPECT_EQ(at(i2, 1), b.i);
    Tensor tr = stack({t, t}, 1).t();
    auto [v3, i3] = is_max ? tr.max(1) : tr.min(1);
    EXPECT_TRUE(same_value(at(v3, 1), b.v));
    EXPECT_EQ(at(i3, 1), b.i);
    EXPECT_TRUE(same_value(at(is_max ? tr.amax({1}) : tr.amin({1}), 0), b.v));
  }
}

TEST(ReduceLanesTest, MaxMinFollowTheElementRule) {
  for (int64_t n : kLengths) {
    for (const auto& v : cases(n)) {
      check_max_min(from_values({n}, v, kFloat), v, "float");
      check_max_min(from_values({n}, v, kDouble), v, "double");
      check_max_min(from_values({n}, v, kBFloat16), v, "bfloat16");
      std::vector<double> iv(v);
      for (auto& x : iv) x = std::isfinite(x) ? std::floor(x * 3) : 0;
      check_max_min(from_values({n}, iv, kInt), iv, "int32");
      check_max_min(from_values({n}, iv, kLong), iv, "int64");
      check_max_min(from_values({n}, iv, kChar), iv, "int8");
    }
  }
}

double ref_norm(const std::vector<double>& v, double p) {
  long double a = std::isinf(p) && p < 0 ? INFINITY : 0;
  for (double x : v) {
    const double y = std::abs(x);
    if (p == 0) {
      a += y != 0;  // NaN counts as nonzero
      continue;
    }
    if (std::isnan(y)) return kNan;
    if (std::isinf(p)) a = p > 0 ? std::max<long double>(a, y) : std::min<long double>(a, y);
    if (p > 0 && std::isfinite(p)) a += std::pow(static_cast<long double>(y), p);
  }
  if (p > 0 && std::isfinite(p))
    return static_cast<double>(std::pow(a, 1 / static_cast<long double>(p)));
  return static_cast<double>(a);
}

TEST(ReduceLanesTest, ArithmeticReductionsMatchDoubleReferences) {
  for (int64_t n : kLengths) {
    SCOPED_TRACE("n=" + std::to_string(n));
    for (ScalarType dt : {kFloat, kDouble}) {
      const double rel = dt == kFloat ? 2e-6 : 1e-12;
      std::vector<double> v = values(n, static_cast<uint32_t>(n), 0.5, 1.5);
      Tensor t = from_values({n}, v, dt);
      long double prod = 1, sum = 0, sq = 0, lse = 0;
      for (double x : v) prod *= x, sum += x;
      const long double mean = sum / n;
      for (double x : v)
        sq += (x - mean) * (x - mean), lse += std::exp(static_cast<long double>(x) - 1.5L);
      EXPECT_TRUE(near(t.prod().item<double>(), static_cast<double>(prod), rel * 4));
      EXPECT_TRUE(near(at(t.prod(0), 0), static_cast<double>(prod), rel * 4));
      if (n > 1) {
        EXPECT_TRUE(
            near(t.var({0}, true, false).item<double>(), static_cast<double>(sq / (n - 1)), rel));
        EXPECT_TRUE(near(t.std({0}, false, false).item<double>(),
                         static_cast<double>(std::sqrt(sq / n)), rel));
        auto [var, mn] = var_mean(t, {0}, false, false);
        EXPECT_TRUE(near(var.item<double>(), static_cast<double>(sq / n), rel));
        EXPECT_TRUE(near(mn.item<double>(), static_cast<double>(mean), rel));
      }
      EXPECT_TRUE(near(t.logsumexp({0}).item<double>(), static_cast<double>(std::log(lse) + 1.5L),
                       rel * 2));
      for (double p : {2.0, 1.0, 0.0, 3.0, 4.0, 2.5, kInf, -kInf}) {
        SCOPED_TRACE("p=" + std::to_string(p));
        EXPECT_TRUE(near(t.norm(p).item<double>(), ref_norm(v, p), rel * 2));
        Tensor neg = -t;
        EXPECT_TRUE(near(neg.norm(p).item<double>(), ref_norm(v, p), rel * 2));
      }
      // Strided runs (rows of a transposed copy) take the same lanes.
      const Tensor tr = stack({t, t}, 1).t();
      EXPECT_TRUE(near(at(tr.prod(1), 1), static_cast<double>(prod), rel * 4));
      EXPECT_TRUE(
          near(at(tr.logsumexp({1}), 1), static_cast<double>(std::log(lse) + 1.5L), rel * 2));
      EXPECT_TRUE(near(at(tr.norm(3, {1}, false), 1), ref_norm(v, 3), rel * 2));
      EXPECT_TRUE(near(at(tr.norm(kInf, {1}, false), 1), ref_norm(v, kInf), rel * 2));
      if (n > 1) {
        EXPECT_TRUE(near(at(tr.var({1}, false, false), 1), static_cast<double>(sq / n), rel));
      }
      // Non-finite elements: 1.13's Welford makes var and mean NaN; norm
      // and logsumexp propagate NaN, inf and -inf as the element rule does.
      for (int64_t pos : {int64_t{0}, n / 2, n - 1}) {
        for (double bad : {kNan, kInf, -kInf}) {
          std::vector<double> w = v;
          w[pos] = bad;
          Tensor b = from_values({n}, w, dt);
          auto [var, mn] = var_mean(b, {0}, true, false);
          if (n > 1) {
            EXPECT_TRUE(std::isnan(var.item<double>()));
          }
          EXPECT_FALSE(std::isfinite(mn.item<double>()));
          for (double p : {2.0, 1.0, 0.0, 3.0, kInf, -kInf}) {
            EXPECT_TRUE(near(b.norm(p).item<double>(), ref_norm(w, p), rel * 2)) << p << " " << bad;
          }
          const Tensor btr = stack({b, b}, 1).t();
          EXPECT_TRUE(std::isnan(at(btr.var({1}, true, false), 1)));
          EXPECT_TRUE(near(at(btr.norm(kInf, {1}, false), 0), ref_norm(w, kInf), rel * 2));
          EXPECT_TRUE(same_value(at(btr.logsumexp({1}), 1), at(b.logsumexp({0}), 0)) ||
                      near(at(btr.logsumexp({1}), 1), at(b.logsumexp({0}), 0), rel * 2));
          const double l = b.logsumexp({0}).item<double>();
          if (std::isnan(bad)) {
            EXPECT_TRUE(std::isnan(l));
          } else if (bad > 0) {
            EXPECT_EQ(l, kInf);
          } else {
            EXPECT_TRUE(std::isfinite(l) || n == 1);
          }
          // nansum reads NaN as 0.
          long double ns = 0;
          for (double x : w) ns += std::isnan(x) ? 0 : x;
          EXPECT_TRUE(near(nansum(b).item<double>(), static_cast<double>(ns), rel));
          EXPECT_TRUE(near(at(nansum(b, {0}, true), 0), static_cast<double>(ns), rel));
          const int64_t kept = std::isnan(bad) ? n - 1 : n;
          const double nm = kept == 0 ? kNan : static_cast<double>(ns / kept);
          EXPECT_TRUE(near(nanmean(b).item<double>(), nm, rel));
          EXPECT_TRUE(near(at(nanmean(stack({b, b}, 0), {1}, true), 1), nm, rel));
          EXPECT_TRUE(near(at(nanmean(stack({b, b}, 1), {0}), 0), nm, rel));
        }
      }
    }
  }
  // logsumexp of a line of -inf is -inf.
  EXPECT_EQ(
      from_values({100}, std::vector<double>(100, -kInf), kFloat).logsumexp({0}).item<float>(),
      -kInf);
}

TEST(ReduceLanesTest, ScansAndSoftmaxAlongALine) {
  for (int64_t n : kLengths) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<double> v = values(2 * n, static_cast<uint32_t>(n));
    v[n + n / 2] = kNan;  // the second line holds a NaN
    Tensor t = from_values({2, n}, v, kFloat);
    // cumsum / cumprod: one running double, rounded to float at each step.
    Tensor cs = t.cumsum(1), cp = t.cumprod(1);
    for (int64_t r = 0; r < 2; ++r) {
      double s = 0, p = 1;
      for (int64_t i = 0; i < n; ++i) {
        const double x = static_cast<float>(v[r * n + i]);
        s += x;
        p *= x;
        ASSERT_TRUE(same_value(at(cs, r * n + i), static_cast<float>(s)));
        ASSERT_TRUE(same_value(at(cp, r * n + i), static_cast<float>(p)));
      }
    }
    // cummax / cummin: ties take the later index; from a NaN on, the
    // latest NaN.
    std::vector<double> tied(v);
    for (int64_t i = 0; i < 2 * n; i += 3) tied[i] = 1;
    const Tensor tt = from_values({2, n}, tied, kFloat);
    for (bool is_max : {true, false}) {
      auto [cv, ci] = is_max ? tt.cummax(1) : tt.cummin(1);
      for (int64_t r = 0; r < 2; ++r) {
        double best = tied[r * n];
        int64_t bi = 0;
        for (int64_t i = 0; i < n; ++i) {
          const double x = tied[r * n + i];
          if (std::isnan(x) || (!std::isnan(best) && (is_max ? x >= best : x <= best))) {
            best = x;
            bi = i;
          }
          ASSERT_TRUE(same_value(at(cv, r * n + i), static_cast<float>(best))) << i;
          ASSERT_EQ(at(ci, r * n + i), bi) << i;
        }
      }
    }
    for (bool log : {false, true}) {
      Tensor y = log ? t.log_softmax(1) : t.softmax(1);
      Tensor yd = log ? t.to(kDouble).log_softmax(1) : t.to(kDouble).softmax(1);
      double m = -kInf;
      for (int64_t i = 0; i < n; ++i) m = std::max(m, v[i]);
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_TRUE(near(at(y, i), at(yd, i), 2e-6)) << i;
        ASSERT_TRUE(std::isnan(at(y, n + i))) << i;  // NaN fills its line
      }
    }
  }
  // Infinities in a line: 1.13's values (NaN where inf - inf appears).
  std::vector<double> iv(120, 1.0);
  iv[5] = kInf;
  iv[40 + 5] = -kInf;
  for (int i = 80; i < 120; ++i) iv[i] = -kInf;
  Tensor inf = from_values({3, 40}, iv, kFloat);
  Tensor s = inf.softmax(1), ls = inf.log_softmax(1);
  EXPECT_TRUE(std::isnan(at(s, 5)));
  EXPECT_TRUE(std::isnan(at(s, 6)));
  EXPECT_TRUE(std::isnan(at(ls, 6)));
  EXPECT_EQ(at(s, 40 + 5), 0);
  EXPECT_FLOAT_EQ(at(s, 40 + 6), 1.0 / 39);
  EXPECT_EQ(at(ls, 40 + 5), -kInf);
  EXPECT_FLOAT_EQ(at(ls, 40 + 6), -std::log(39.0));
  EXPECT_TRUE(std::isnan(at(s, 80)));
  EXPECT_TRUE(std::isnan(at(ls, 80)));
}

// Long rows split across threads in fixed chunks: the same results on one
// thread and on two, the first NaN / best index found across chunks.
// float16 / bfloat16 softmax along a line keeps its float exponentials in
// a scratch line (up to 65536 elements) or computes them again: either way
// the float softmax of the same values, rounded once.
TEST(ReduceLanesTest, ReducedFloatSoftmaxLineIsTheRoundedFloatOne) {
  std::vector<int64_t> lengths(std::begin(kLengths), std::end(kLengths));
  lengths.push_back(65536);
  lengths.push_back(65537);
  for (int64_t n : lengths) {
    for (ScalarType dt : {kBFloat16, kHalf}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " " + scalar_type_name(dt));
      const Tensor x = from_values({2, n}, values(2 * n, static_cast<uint32_t>(n) + 9), dt);
      const Tensor want = x.to(kFloat).softmax(1).to(dt);
      EXPECT_TRUE(x.softmax(1).equal(want));
    }
  }
}

// Note [Float prod]: 1.13's order and rounding, in the accumulator's own
// type: 4 vectors of lanes from the first block, (v0 * v1) * (v2 * v3),
// the lanes in order, then the rest one by one.
template <typename T>
T prod_113(const std::vector<double>& v, int64_t stride = 1) {
  constexpr int kW = 32 / sizeof(T);
  const int64_t n = static_cast<int64_t>(v.size()) / stride;
  auto x = [&](int64_t i) { return static_cast<T>(v[i * stride]); };
  T acc = 1;
  int64_t i = 0;
  if (n >= 4 * kW) {
    std::vector<T> lanes(4 * kW);
    for (int l = 0; l < 4 * kW; ++l) lanes[l] = x(l);
    for (i = 4 * kW; i + 4 * kW <= n; i += 4 * kW) {
      for (int l = 0; l < 4 * kW; ++l) lanes[l] *= x(i + l);
    }
    T r = 0;
    for (int l = 0; l < kW; ++l) {
      const T w = (lanes[l] * lanes[l + kW]) * (lanes[l + 2 * kW] * lanes[l + 3 * kW]);
      r = l == 0 ? w : r * w;
    }
    acc *= r;
  }
  for (; i < n; ++i) acc *= x(i);
  return acc;
}

TEST(ReduceLanesTest, FloatProdFollows113) {
  for (int64_t n : kLengths) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const std::vector<double> v = values(n, static_cast<uint32_t>(n) + 3, 0.6, 1.6);
    const Tensor f = from_values({n}, v, kFloat), d = from_values({n}, v, kDouble);
    EXPECT_TRUE(same_value(f.prod().item<double>(), prod_113<float>(v)));
    EXPECT_TRUE(same_value(at(f.prod(0), 0), prod_113<float>(v)));
    EXPECT_TRUE(same_value(d.prod().item<double>(), prod_113<double>(v)));
    // Rows of a matrix (contiguous runs) and its columns (tile mode: one by
    // one, in order).
    const Tensor rows = stack({f, f * 0.5}, 0);
    EXPECT_TRUE(same_value(at(rows.prod(1), 0), prod_113<float>(v)));
    const Tensor cols = rows.t().contiguous();
    float seq = 1;
    for (double x : v) seq *= static_cast<float>(x);
    EXPECT_TRUE(same_value(at(cols.prod(0), 0), seq));
    // A NaN in any lane, and a zero, still decide.
    for (int64_t pos : {int64_t{0}, n / 3, n - 1}) {
      std::vector<double> w = v;
      w[pos] = kNan;
      EXPECT_TRUE(std::isnan(from_values({n}, w, kFloat).prod().item<double>()));
      w[pos] = -0.0;
      EXPECT_TRUE(
          same_value(from_values({n}, w, kFloat).prod().item<double>(), prod_113<float>(w)));
    }
  }
  // float accumulates in float, as 1.13 does: 1e30 * 1e30 overflows before
  // the small factors arrive (double would give 1).
  const Tensor big = from_values({4}, {1e30, 1e30, 1e-30, 1e-30}, kFloat);
  EXPECT_EQ(big.prod().item<float>(), INFINITY);
  std::vector<double> many(70, 1e30);
  for (int i = 35; i < 70; ++i) many[i] = 1e-30;
  EXPECT_TRUE(
      same_value(from_values({70}, many, kFloat).prod().item<double>(), prod_113<float>(many)));
}

// Tile mode over contiguous columns (kStrip at a time, then the rest):
// every column is its own element-by-element reduction.
TEST(ReduceLanesTest, ColumnStripsFollowTheElementRule) {
  for (int64_t cols : {int64_t{31}, int64_t{32}, int64_t{33}, int64_t{64}, int64_t{100}}) {
    for (int64_t rows : {int64_t{1}, int64_t{5}, int64_t{40}}) {
      SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
      std::vector<double> v = values(3 * rows * cols, static_cast<uint32_t>(rows * cols));
      for (int64_t c = 0; c < cols; c += 7) v[(c % rows) * cols + c] = kNan;      // column c
      for (int64_t c = 3; c < cols; c += 11) v[((c + 1) % rows) * cols + c] = 9;  // ties at 9
      for (int64_t c = 3; c < cols; c += 11) v[((c + 2) % rows) * cols + c] = 9;
      for (ScalarType dt : {kFloat, kDouble, kBFloat16}) {
        SCOPED_TRACE(scalar_type_name(dt));
        const Tensor t3 = from_values({3, rows, cols}, v, dt);
        // One reduced dim, and two that do not coalesce (a narrowed middle).
        const std::vector<Tensor> xs = {t3.select(0, 1),
                                        t3.narrow(1, 0, std::max<int64_t>(1, rows - 1))};
        for (size_t k = 0; k < xs.size(); ++k) {
          const Tensor x = xs[k];
          const std::vector<int64_t> dims =
              k == 0 ? std::vector<int64_t>{0} : std::vector<int64_t>{0, 1};
          const Tensor flat = x.reshape({-1, cols});
          const Tensor amax = x.amax(dims), sum = x.sum(dims), prod = x.prod(0);
          const Tensor am = k == 0 ? x.argmax(0) : Tensor();
          for (int64_t c = 0; c < cols; ++c) {
            const Tensor col = flat.select(1, c).contiguous();
            double best = -kInf, s = 0;
            int64_t at_best = -1;
            for (int64_t r = 0; r < col.size(0); ++r) {
              const double y = at(col, r);
              if (std::isnan(y)) {
                if (!std::isnan(best)) best = y, at_best = r;
              } else if (!std::isnan(best) && (y > best || at_best < 0)) {
                best = y, at_best = r;
              }
              s += y;
            }
            EXPECT_TRUE(same_value(at(amax.reshape({-1}), c), best)) << c;
            if (k == 0) {
              EXPECT_EQ(at(am, c), at_best) << c;
              if (dt == kFloat) {
                float pr = 1;
                for (int64_t r = 0; r < rows; ++r) pr *= static_cast<float>(at(col, r));
                EXPECT_TRUE(same_value(at(prod, c), pr)) << c;
              }
            }
            if (dt != kBFloat16) {
              EXPECT_TRUE(near(at(sum.reshape({-1}), c), s, 1e-6)) << c;
            }
          }
        }
      }
    }
  }
}

// Note [Reduced dims in memory order]: full and multi-dim reductions of
// transposed, permuted, channels-last and expanded inputs walk memory order;
// their results are those of the contiguous copy (exactly for the
// comparisons and counts, including amax's choice between 0.0 and -0.0,
// which follows the logical order; within rounding for the arithmetic).
TEST(ReduceLanesTest, NonContiguousReductionsMatchContiguousCopies) {
  for (ScalarType dt : {kFloat, kDouble, kLong}) {
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE(std::string(scalar_type_name(dt)) + " variant " + std::to_string(variant));
      std::vector<double> v = values(6 * 5 * 7 * 3, 11 + variant);
      if (dt == kLong) {
        for (auto& x : v) x = std::floor(x);
      }
      if (variant == 1) {
        // Negative values around a 0.0 and a -0.0 whose order differs
        // between memory and logical order.
        for (auto& x : v) x = -std::abs(x) - 1;
        v[2] = 0.0;
        v[7 * 3 * 5] = -0.0;
      } else if (variant == 2 && dt != kLong) {
        v[100] = kNan;
        v[17] = kInf;
      }
      const Tensor base = from_values({6, 5, 7, 3}, v, dt);
      const std::vector<Tensor> views = {
          base.permute({3, 1, 0, 2}),
          base.view({30, 21}).t(),
          base.contiguous(MemoryFormat::ChannelsLast),
          base.select(0, 1).unsqueeze(0).expand({4, 5, 7, 3}),
          base.transpose(1, 2),
      };
      for (size_t k = 0; k < views.size(); ++k) {
        SCOPED_TRACE("view " + std::to_string(k));
        const Tensor x = views[k];
        const Tensor c = x.contiguous();
        auto exact = [](const Tensor& got, const Tensor& want) {
          const Tensor g = got.to(kDouble).contiguous(), w = want.to(kDouble).contiguous();
          ASSERT_EQ(g.sizes(), w.sizes());
          for (int64_t i = 0; i < g.numel(); ++i) {
            EXPECT_TRUE(same_value(g.data_ptr<double>()[i], w.data_ptr<double>()[i])) << i;
          }
        };
        auto close = [](const Tensor& got, const Tensor& want, double rel) {
          const Tensor g = got.to(kDouble).contiguous(), w = want.to(kDouble).contiguous();
          ASSERT_EQ(g.sizes(), w.sizes());
          for (int64_t i = 0; i < g.numel(); ++i) {
            EXPECT_TRUE(near(g.data_ptr<double>()[i], w.data_ptr<double>()[i], rel)) << i;
          }
        };
        const double rel = dt == kFloat ? 1e-5 : 1e-12;
        for (const std::vector<int64_t>& dims :
             {std::vector<int64_t>{}, {0, 1}, {1, 3}, {0, 2, 3}, {2, 0}}) {
          SCOPED_TRACE("dims " + std::to_string(dims.size()));
          if (x.dim() == 2 && dims.size() > 2) continue;
          const std::vector<int64_t> d2 = {dims.empty() ? 0 : 1};
          if (x.dim() == 2 && !dims.empty() && dims != std::vector<int64_t>{0, 1}) {
            // The 2-d view: along its dim 1 (a strided line) instead.
            exact(x.amax(d2), c.amax(d2));
            close(x.sum(d2), c.sum(d2), dt == kFloat ? 1e-5 : 1e-12);
            continue;
          }
          exact(x.amax(dims), c.amax(dims));
          exact(x.amin(dims, true), c.amin(dims, true));
          exact(count_nonzero(x, dims), count_nonzero(c, dims));
          if (dt == kLong) {
            exact(x.sum(dims), c.sum(dims));
            continue;
          }
          close(x.sum(dims), c.sum(dims), rel);
          close(x.mean(dims), c.mean(dims), rel);
          close(x.norm(2, dims, false), c.norm(2, dims, false), rel);
          close(x.norm(kInf, dims, false), c.norm(kInf, dims, false), rel);
          close(x.logsumexp(dims), c.logsumexp(dims), rel);
          close(x.var(dims, true, false), c.var(dims, true, false), rel * 10);
          close(nansum(x, dims), nansum(c, dims), rel);
        }
        exact(x.max(), c.max());
        exact(x.min(), c.min());
        exact(x.argmax(), c.argmax());
        exact(x.argmin(), c.argmin());
        exact(x.all(), c.all());
        exact(x.any(), c.any());
        // (Variant 1 overflows float's product to inf before or after its
        // zero, depending on the order: Note [Float prod].)
        if (dt != kLong && variant != 1) close(x.prod(), c.prod(), rel * 10);
      }
    }
  }
}

TEST(ReduceLanesTest, ThreadCountDoesNotChangeResults) {
  const int64_t n = 100003;
  std::vector<double> v = values(3 * n, 5);
  v[n + 70001] = kNan;   // row 1: a NaN in the fifth chunk
  v[2 * n + 40000] = 9;  // row 2: the max in the third chunk, tied later
  v[2 * n + 90000] = 9;
  const Tensor t = from_values({3, n}, v, kFloat);
  auto run = [&] {
    auto [mv, mi] = t.max(1);
    return std::vector<Tensor>{t.amax({1}),
                               mv,
                               mi,
                               t.argmin(1),
                               t.var({1}, true, false),
                               t.norm(2, {1}, false),
                               t.norm(kInf, {1}, false),
                               t.logsumexp({1}),
                               nansum(t, {1}),
                               nanmean(t, {1}),
                               t.prod(1),
                               t.softmax(1),
                               t.cumsum(1),
                               t.count_nonzero(1)};
  };
  const int saved = get_num_threads();
  set_num_threads(1);
  const std::vector<Tensor> one = run();
  set_num_threads(2);
  const std::vector<Tensor> two = run();
  set_num_threads(saved);
  for (size_t k = 0; k < one.size(); ++k) {
    EXPECT_TRUE(one[k].equal(two[k]) || (one[k].isnan().equal(two[k].isnan()) &&
                                         one[k].nan_to_num().equal(two[k].nan_to_num())))
        << k;
  }
  EXPECT_EQ(at(one[2], 1), 70001);
  EXPECT_EQ(at(one[2], 2), 40000);
  EXPECT_TRUE(std::isnan(at(one[1], 1)));
  // One output: two threads split the reduction into chunks.
  const Tensor row2 = t.select(0, 2).contiguous(), row1 = t.select(0, 1).contiguous();
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    EXPECT_EQ(row2.argmax().item<int64_t>(), 40000) << threads;
    EXPECT_EQ(std::get<1>(row2.max(0)).item<int64_t>(), 40000) << threads;
    EXPECT_EQ(row2.amax({}).item<float>(), 9.f) << threads;
    EXPECT_EQ(row1.argmin().item<int64_t>(), 70001) << threads;
    EXPECT_TRUE(std::isnan(row1.amin({}).item<float>())) << threads;
    EXPECT_TRUE(near(at(row2.var({0}, true, false), 0), at(one[4], 2), 1e-6)) << threads;
    EXPECT_TRUE(near(row2.logsumexp({0}).item<double>(), at(one[7], 2), 1e-6)) << threads;
    EXPECT_TRUE(near(row2.norm(2).item<double>(), at(one[5], 2), 1e-6)) << threads;
    EXPECT_EQ(row1.count_nonzero(std::nullopt).item<int64_t>(), at(one[13], 1)) << threads;
    EXPECT_TRUE(near(nanmean(row1).item<double>(), at(one[9], 1), 1e-6)) << threads;
  }
  set_num_threads(saved);
}

TEST(ReduceLanesTest, EqualComparesInBlocks) {
  for (int64_t n : kLengths) {
    for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kLong, kByte, kBool}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " " + scalar_type_name(dt));
      std::vector<double> v = values(n, 3, 0, 2);
      for (auto& x : v) x = std::floor(x);
      Tensor a = from_values({n}, v, dt);
      EXPECT_TRUE(a.equal(a.clone()));
      for (int64_t pos : {int64_t{0}, n / 2, n - 1}) {
        std::vector<double> w = v;
        w[pos] = 1 - w[pos];
        EXPECT_FALSE(a.equal(from_values({n}, w, dt))) << pos;
      }
      // Non-contiguous and mixed dtypes compare through eq.
      EXPECT_TRUE(stack({a, a}, 1).t().equal(stack({a, a}, 0)));
      EXPECT_TRUE(a.equal(a.to(kDouble)));
    }
    if (n < 3) continue;
    std::vector<double> z(n, 0.0);
    std::vector<double> nz(n, -0.0);
    EXPECT_TRUE(from_values({n}, z, kFloat).equal(from_values({n}, nz, kFloat)));
    z[n - 2] = kNan;
    Tensor withnan = from_values({n}, z, kFloat);
    EXPECT_FALSE(withnan.equal(withnan));
  }
}

}  // namespace
}  // namespace ember
