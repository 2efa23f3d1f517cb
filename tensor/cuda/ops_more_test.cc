// The CUDA kernels of ops_more.cc and reduce_stats.cu against the CPU
// kernels on the same inputs: unary math and rounding, sign/logical/bitwise
// and value tests, rounding divisions and remainders, pow, atan2, fmax/fmin,
// isclose, where, masked_fill, clamp, var/std/norm/logsumexp, and the nn
// ops composed of them (normalization, activations). Over dtypes, layouts
// (transposed, sliced, expanded, broadcast) and NaN/inf where an op has
// special cases. Every test needs a GPU and skips without one.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "tensor/activation_kernels.h"
#include "tensor/all.h"
#include "tensor/cuda/ops_testing.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using ::ember::testing::error_of;
using namespace ::ember::cuda_testing;  // NOLINT
using namespace ::ember::indexing;      // NOLINT

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// NaN, infinities, signed zeros and halves (rounding ties) in dtype t.
Tensor specials(ScalarType t) {
  return tensor({kNan, kInf, -kInf, 0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 2.5, 7.25, -7.75, 1e-3})
      .to(kDouble)
      .to(t);
}

// f on the device and on the host over a contiguous, a transposed and a
// sliced view of x.
template <typename F>
void expect_unary_matches(const Tensor& x, F f, double tol) {
  ASSERT_EQ(x.dim(), 2);
  Tensor dx = x.to(kCuda);
  expect_matches(f(dx), f(x), tol, tol);
  expect_matches(f(dx.t()), f(x.t()), tol, tol);
  expect_matches(f(dx.index({Slice(None, None, 2), Slice(1, None, 3)})),
                 f(x.index({Slice(None, None, 2), Slice(1, None, 3)})), tol, tol);
}

TEST(CudaOpsMoreTest, UnaryMathFunctions) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    const double tol = std::max(rtol_for(t), 1e-6);
    Tensor a = values({19, 12}, t, 3);
    Tensor pos = values({19, 12}, t, 3).abs() + 0.1;
    Tensor unit = values({19, 12}, t, 0.99);
    expect_unary_matches(a, [](const Tensor& x) { return x.exp2(); }, tol);
    expect_unary_matches(a, [](const Tensor& x) { return x.expm1(); }, tol);
    expect_unary_matches(pos, [](const Tensor& x) { return x.log2(); }, tol);
    expect_unary_matches(pos, [](const Tensor& x) { return x.log10(); }, tol);
    expect_unary_matches(unit, [](const Tensor& x) { return x.tan(); }, tol);
    expect_unary_matches(unit, [](const Tensor& x) { return x.asin(); }, tol);
    expect_unary_matches(unit, [](const Tensor& x) { return x.acos(); }, tol);
    expect_unary_matches(a, [](const Tensor& x) { return x.atan(); }, tol);
    expect_unary_matches(a, [](const Tensor& x) { return x.sinh(); }, tol);
    expect_unary_matches(a, [](const Tensor& x) { return x.cosh(); }, tol);
    expect_unary_matches(a, [](const Tensor& x) { return x.erf(); }, tol);
    expect_unary_matches(
        a, [](const Tensor& x) { return x.erfc(); }, tol);
    expect_unary_matches(
        a, [](const Tensor& x) { return x.asinh(); }, tol);
    expect_unary_matches(
        pos + 1, [](const Tensor& x) { return x.acosh(); }, tol);
    expect_unary_matches(
        unit, [](const Tensor& x) { return x.atanh(); }, tol);
    // NaN, infinities, zeros; out-of-domain inputs give NaN on both.
    Tensor s = specials(t), ds = s.to(kCuda);
    for (auto f : {&Tensor::exp2, &Tensor::expm1, &Tensor::log2, &Tensor::log10, &Tensor::tan,
                   &Tensor::asin, &Tensor::acos, &Tensor::atan, &Tensor::sinh, &Tensor::cosh,
                   &Tensor::erf, &Tensor::erfc, &Tensor::asinh, &Tensor::acosh, &Tensor::atanh}) {
      expect_matches((ds.*f)(), (s.*f)(), tol, tol);
    }
    // In place on a transposed view.
    Tensor b = values({6, 7}, t, 2), db = b.to(kCuda);
    b.t().expm1_();
    db.t().expm1_();
    expect_matches(db, b, tol, tol);
  }
  // Integer input becomes the default float dtype.
  Tensor i = values({5, 8}, kInt, 4);
  Tensor r = i.to(kCuda).exp2();
  EXPECT_EQ(r.dtype(), kFloat);
  expect_matches(r, i.exp2(), 1e-6, 1e-6);
  expect_matches(i.to(kCuda).erf(), i.erf(), 1e-6, 1e-6);
}

TEST(CudaOpsMoreTest, RoundingIsExact) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor a = values({16, 9}, t, 20);
    for (auto f : {&Tensor::floor, &Tensor::ceil, &Tensor::trunc, &Tensor::frac}) {
      expect_unary_matches(a, [f](const Tensor& x) { return (x.*f)(); }, 0);
    }
    expect_unary_matches(a, [](const Tensor& x) { return x.round(); }, 0);
    Tensor s = specials(t), ds = s.to(kCuda);
    expect_matches(ds.round(), s.round(), 0, 0);  // half to even: 0.5 -> 0, 2.5 -> 2
    expect_matches(ds.floor(), s.floor(), 0, 0);
    expect_matches(ds.ceil(), s.ceil(), 0, 0);
    expect_matches(ds.trunc(), s.trunc(), 0, 0);
    expect_matches(ds.frac(), s.frac(), 0, 0);
    for (int64_t decimals : {2, 1, 0, -1, -2}) {
      expect_matches(ds.round(decimals), s.round(decimals), 0, 0);
      expect_unary_matches(a, [decimals](const Tensor& x) { return x.round(decimals); }, 0);
    }
  }
  // Integers are whole already (a copy, no kernel); bool is refused.
  Tensor i = values({4, 5}, kLong);
  expect_matches(i.to(kCuda).floor(), i.floor());
  EXPECT_EQ(error_of([&] { values({3}, kBool).to(kCuda).floor(); }),
            "\"floor_cuda\" not implemented for 'Bool'");
}

TEST(CudaOpsMoreTest, SignLogicalNotBitwiseNotAndValueTests) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor a = values({11, 6}, t, 5);
    expect_unary_matches(a, [](const Tensor& x) { return x.sign(); }, 0);
    expect_unary_matches(a, [](const Tensor& x) { return x.logical_not(); }, 0);
    expect_unary_matches(a, [](const Tensor& x) { return x.isnan(); }, 0);
    expect_unary_matches(a, [](const Tensor& x) { return x.isinf(); }, 0);
    expect_unary_matches(a, [](const Tensor& x) { return x.isfinite(); }, 0);
    if (!is_floating_point(t)) {
      expect_unary_matches(a, [](const Tensor& x) { return x.bitwise_not(); }, 0);
    }
  }
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor s = specials(t), ds = s.to(kCuda);
    expect_matches(ds.sign(), s.sign(), 0, 0);  // NaN -> 0
    expect_matches(ds.logical_not(), s.logical_not());  // NaN is true, -0 false
    expect_matches(ds.isnan(), s.isnan());
    expect_matches(ds.isinf(), s.isinf());
    expect_matches(ds.isfinite(), s.isfinite());
  }
  // In place: logical_not_ on a float tensor writes 0 / 1 in its dtype.
  Tensor f = specials(kFloat), df = f.to(kCuda);
  f.logical_not_();
  df.logical_not_();
  expect_matches(df, f, 0, 0);
  Tensor i = values({9}, kInt, 100);
  expect_matches(~i.to(kCuda), ~i);
  EXPECT_EQ(error_of([&] { values({3}, kFloat).to(kCuda).bitwise_not(); }),
            "\"bitwise_not_cuda\" not implemented for 'Float'");
}

// Divisors without zeros for integer dtypes.
Tensor nonzero_divisor(IntArrayRef sizes, ScalarType t) {
  Tensor b = values(sizes, t, 7);
  return b.masked_fill(b.eq(0), 3);
}

TEST(CudaOpsMoreTest, RoundingDivisionsAndRemainders) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kNumeric) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor a = values({13, 8}, t, 50), b = nonzero_divisor({13, 8}, t);
    Tensor da = a.to(kCuda), db = b.to(kCuda);
    expect_matches(da.div(db, "trunc"), a.div(b, "trunc"), 0, 0);
    expect_matches(da.div(db, "floor"), a.div(b, "floor"), 0, 0);
    expect_matches(da.remainder(db), a.remainder(b), 0, 0);
    expect_matches(da.fmod(db), a.fmod(b), 0, 0);
    expect_matches(da.floor_divide(db), a.floor_divide(b), 0, 0);
    // Transposed and broadcast operands, a number divisor.
    Tensor row = nonzero_divisor({13}, t);
    expect_matches(da.t().remainder(row.to(kCuda)), a.t().remainder(row), 0, 0);
    expect_matches(da.fmod(3), a.fmod(3), 0, 0);
    expect_matches(da.remainder(-3), a.remainder(-3), 0, 0);
    expect_matches(da.div(-4, "floor"), a.div(-4, "floor"), 0, 0);
    // In place on a transposed view.
    Tensor c = a.clone(), dc = da.clone();
    c.t().div_(b.t(), "floor");
    dc.t().div_(db.t(), "floor");
    expect_matches(dc, c, 0, 0);
  }
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    // Every pair of specials: zero divisors, NaN, infinities, signed zeros.
    Tensor s = specials(t);
    Tensor x = s.unsqueeze(1).expand({s.size(0), s.size(0)});
    Tensor y = s.unsqueeze(0).expand({s.size(0), s.size(0)});
    Tensor dx = x.to(kCuda), dy = y.to(kCuda);
    expect_matches(dx.div(dy, "trunc"), x.div(y, "trunc"), 0, 0);
    expect_matches(dx.div(dy, "floor"), x.div(y, "floor"), 0, 0);
    expect_matches(dx.remainder(dy), x.remainder(y), 0, 0);
    expect_matches(dx.fmod(dy), x.fmod(y), 0, 0);
  }
  // Integer division by zero raises, as on the CPU.
  for (ScalarType t : {kInt, kLong, kByte}) {
    Tensor a = values({6}, t, 5), z = tensor({1, 2, 0, 1, 1, 1}).to(t);
    for (const char* mode : {"trunc", "floor"}) {
      EXPECT_EQ(error_of([&] { a.div(z, mode); }), "ZeroDivisionError");
      EXPECT_EQ(error_of([&] { a.to(kCuda).div(z.to(kCuda), mode); }), "ZeroDivisionError");
    }
    EXPECT_EQ(error_of([&] { a.to(kCuda).remainder(z.to(kCuda)); }), "ZeroDivisionError");
    EXPECT_EQ(error_of([&] { a.to(kCuda).fmod(0); }), "ZeroDivisionError");
  }
  EXPECT_EQ(error_of([&] { values({3}, kBool).to(kCuda).div(values({3}, kBool).to(kCuda), "trunc"); }),
            "\"div_trunc_cuda\" not implemented for 'Bool'");
}

TEST(CudaOpsMoreTest, Pow) {
  SKIP_WITHOUT_CUDA_DEVICE();
  // Integers: exact, wrapping on overflow, negative exponents of 1 and -1.
  for (ScalarType t : {kByte, kChar, kShort, kInt, kLong}) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor base = (t == kByte ? tensor({0, 1, 2, 3, 7, 255}) : tensor({-3, -2, -1, 0, 1, 2, 3, 7}))
                      .to(t);
    Tensor exps = (t == kByte ? tensor({0, 1, 2, 3, 9, 40}) : tensor({-3, -2, -1, 0, 1, 2, 5, 40}))
                      .to(t);
    Tensor x = base.unsqueeze(1).expand({base.size(0), exps.size(0)});
    Tensor y = exps.unsqueeze(0).expand({base.size(0), exps.size(0)});
    expect_matches(x.to(kCuda).pow(y.to(kCuda)), x.pow(y));
    for (int64_t e : {0, 1, 2, 3, 13}) expect_matches(base.to(kCuda).pow(e), base.pow(e));
    expect_matches(base.to(kCuda).square(), base.square());
  }
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    const double tol = std::max(rtol_for(t), 1e-6);
    Tensor pos = values({9, 14}, t, 3).abs() + 0.2, e = values({9, 14}, t, 2);
    Tensor dpos = pos.to(kCuda);
    expect_matches(dpos.pow(e.to(kCuda)), pos.pow(e), tol, tol);
    expect_matches(dpos.t().pow(e.t().to(kCuda)), pos.t().pow(e.t()), tol, tol);
    // Every fast path of a number exponent, and the general one.
    for (double p : {0.5, -0.5, -1.0, 2.0, 3.0, -2.0, 1.7, -0.3, 0.0, 1.0, 0.50001}) {
      SCOPED_TRACE(p);
      expect_unary_matches(pos, [p](const Tensor& x) { return x.pow(p); }, tol);
    }
    Tensor s = specials(t), ds = s.to(kCuda);
    for (double p : {0.5, 2.0, -1.0, 1.7, 0.0}) expect_matches(ds.pow(p), s.pow(p), tol, tol);
    expect_matches(ds.pow(ds), s.pow(s), tol, tol);
    expect_matches(ember::pow(2.0, e.to(kCuda)), ember::pow(2.0, e), tol, tol);
  }
  // int tensor ** float number promotes.
  Tensor i = values({7}, kInt, 4).abs();
  expect_matches(i.to(kCuda).pow(0.5), i.pow(0.5), 1e-6, 1e-6);
}

TEST(CudaOpsMoreTest, Atan2FmaxFmin) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    const double tol = std::max(rtol_for(t), 1e-6);
    Tensor s = specials(t);
    Tensor x = s.unsqueeze(1).expand({s.size(0), s.size(0)});
    Tensor y = s.unsqueeze(0).expand({s.size(0), s.size(0)});
    Tensor dx = x.to(kCuda), dy = y.to(kCuda);
    expect_matches(atan2(dx, dy), atan2(x, y), tol, tol);
    expect_matches(fmax(dx, dy), fmax(x, y), 0, 0);  // a NaN loses to a number
    expect_matches(fmin(dx, dy), fmin(x, y), 0, 0);
    Tensor a = values({8, 5}, t, 4), b = values({5}, t, 4);
    expect_matches(atan2(a.to(kCuda), b.to(kCuda)), atan2(a, b), tol, tol);
  }
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor a = values({7, 9}, t, 5), b = values({9, 7}, t, 5).t();
    expect_matches(fmax(a.to(kCuda), b.to(kCuda)), fmax(a, b));
    expect_matches(fmin(a.to(kCuda), b.to(kCuda)), fmin(a, b));
  }
  Tensor i = values({4}, kInt);
  expect_matches(atan2(i.to(kCuda), i.to(kCuda)), atan2(i, i), 1e-6, 1e-6);  // promotes
}

TEST(CudaOpsMoreTest, LogicalAndBitwise) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor a = values({6, 10}, t, 2), b = values({10}, t, 2);
    Tensor da = a.to(kCuda), db = b.to(kCuda);
    expect_matches(da.logical_and(db), a.logical_and(b));
    expect_matches(da.logical_or(db), a.logical_or(b));
    expect_matches(da.t().logical_xor(da.t()), a.t().logical_xor(a.t()));
    expect_matches(da.logical_xor(db), a.logical_xor(b));
    if (!is_floating_point(t)) {
      expect_matches(da & db, a & b);
      expect_matches(da | db, a | b);
      expect_matches(da ^ db, a ^ b);
      expect_matches(da.t().bitwise_and(da.t()), a.t().bitwise_and(a.t()));
    }
  }
  // Mixed dtypes promote; NaN and -0 as truth values.
  Tensor f = specials(kFloat), i = values({13}, kInt, 1);
  expect_matches(f.to(kCuda).logical_and(i.to(kCuda)), f.logical_and(i));
  expect_matches(f.to(kCuda).logical_xor(f.to(kCuda).neg()), f.logical_xor(f.neg()));
  expect_matches(i.to(kCuda).bitwise_or(values({13}, kChar).to(kCuda)),
                 i.bitwise_or(values({13}, kChar)));
  EXPECT_EQ(error_of([&] { (void)(f.to(kCuda) & f.to(kCuda)); }),
            "\"bitwise_and_cuda\" not implemented for 'Float'");
}

TEST(CudaOpsMoreTest, Isclose) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor a = values({9, 8}, t, 3);
    Tensor b = is_floating_point(t) ? a + values({9, 8}, t, 1e-4) : values({9, 8}, t, 3);
    Tensor da = a.to(kCuda), db = b.to(kCuda);
    expect_matches(da.isclose(db), a.isclose(b));
    expect_matches(da.isclose(db, 1e-3, 1e-3), a.isclose(b, 1e-3, 1e-3));
    expect_matches(da.isclose(db, 0, 0), a.isclose(b, 0, 0));
    expect_matches(da.t().isclose(db.t(), 0.5, 1), a.t().isclose(b.t(), 0.5, 1));
  }
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor s = specials(t);
    Tensor x = s.unsqueeze(1).expand({s.size(0), s.size(0)});
    Tensor y = s.unsqueeze(0).expand({s.size(0), s.size(0)});
    for (bool equal_nan : {false, true}) {
      expect_matches(x.to(kCuda).isclose(y.to(kCuda), 0.1, 0.01, equal_nan),
                     x.isclose(y, 0.1, 0.01, equal_nan));
    }
  }
  // Integer inputs compute in the default dtype (float, then double): 2^60
  // and 2^60 + 1 round to the same float.
  const int64_t big = int64_t{1} << 60;
  Tensor l = tensor({big, int64_t{5}, int64_t{-7}}).to(kLong);
  Tensor m = tensor({big + 1, int64_t{6}, int64_t{-7}}).to(kLong);
  expect_matches(l.to(kCuda).isclose(m.to(kCuda), 0, 0.5), l.isclose(m, 0, 0.5));
  set_default_dtype(kDouble);
  Tensor on_double = l.to(kCuda).isclose(m.to(kCuda), 0, 0.5);
  Tensor cpu_double = l.isclose(m, 0, 0.5);
  set_default_dtype(kFloat);
  expect_matches(on_double, cpu_double);
  // allclose and equal read the device's answer on the host.
  Tensor a = values({40, 3}, kFloat), da = a.to(kCuda);
  EXPECT_TRUE(da.allclose(da + 1e-7));
  EXPECT_FALSE(da.allclose(da + 1));
  EXPECT_TRUE(da.t().equal(a.t().contiguous().to(kCuda)));
  EXPECT_FALSE(da.equal(da.neg()));
}

TEST(CudaOpsMoreTest, WhereEveryDtype) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor c = values({5, 12}, kBool), a = values({5, 12}, t, 9), b = values({12}, t, 9);
    Tensor dc = c.to(kCuda), da = a.to(kCuda), db = b.to(kCuda);
    expect_matches(where(dc, da, db), where(c, a, b));
    expect_matches(where(dc.t(), da.t(), db.unsqueeze(1)), where(c.t(), a.t(), b.unsqueeze(1)));
    expect_matches(where(dc, da, 1), where(c, a, 1));
    expect_matches(where(dc.index({Slice(None, None, 2)}), 0, db), where(c.index({Slice(None, None, 2)}), 0, b));
  }
  // Mixed dtypes promote; a uint8 condition; number branches.
  Tensor c = values({20}, kBool), a = values({20}, kInt), b = values({20}, kDouble);
  expect_matches(where(c.to(kCuda), a.to(kCuda), b.to(kCuda)), where(c, a, b));
  Tensor u = c.to(kByte);
  expect_matches(where(u.to(kCuda), a.to(kCuda), -a.to(kCuda)), where(u, a, -a));
  expect_matches(where(c.to(kCuda), 2.5, -kInf), where(c, 2.5, -kInf));
}

TEST(CudaOpsMoreTest, MaskedFillEveryDtype) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor a = values({7, 8}, t, 9), m = values({8}, kBool);
    Tensor da = a.to(kCuda), dm = m.to(kCuda);
    expect_matches(da.masked_fill(dm, 3), a.masked_fill(m, 3));
    expect_matches(da.masked_fill(dm, true), a.masked_fill(m, true));
    // In place on a transposed view, the mask broadcast across it.
    Tensor b = a.clone(), db = da.clone();
    b.t().masked_fill_(m.unsqueeze(1), -2);
    db.t().masked_fill_(dm.unsqueeze(1), -2);
    expect_matches(db, b);
  }
  // Values the CPU converts exactly: -inf, int64 extremes, a value that
  // rounds in half.
  Tensor f = values({30}, kFloat), m = values({30}, kBool);
  expect_matches(f.to(kCuda).masked_fill(m.to(kCuda), -kInf), f.masked_fill(m, -kInf), 0, 0);
  Tensor l = values({30}, kLong);
  for (int64_t v : {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                    (int64_t{1} << 53) + 1}) {
    expect_matches(l.to(kCuda).masked_fill(m.to(kCuda), v), l.masked_fill(m, v));
  }
  Tensor h = values({30}, kHalf);
  expect_matches(h.to(kCuda).masked_fill(m.to(kCuda), 1.0009765625 / 3),
                 h.masked_fill(m, 1.0009765625 / 3), 0, 0);
  // A 0-dim value tensor, and a uint8 mask.
  expect_matches(f.to(kCuda).masked_fill(m.to(kCuda), tensor(4.5)), f.masked_fill(m, tensor(4.5)));
  expect_matches(f.to(kCuda).masked_fill(m.to(kByte).to(kCuda), 1), f.masked_fill(m.to(kByte), 1));
}

TEST(CudaOpsMoreTest, ClampWithNumberAndTensorBounds) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kNumeric) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor a = values({9, 11}, t, 10);
    expect_unary_matches(a, [](const Tensor& x) { return x.clamp(-3, 4); }, 0);
    expect_unary_matches(a, [](const Tensor& x) { return x.clamp(5, 2); }, 0);  // min > max
    Tensor lo = values({11}, t, 4), hi = lo + 3;
    Tensor da = a.to(kCuda);
    expect_matches(da.clamp(lo.to(kCuda), hi.to(kCuda)), a.clamp(lo, hi));
    expect_matches(da.t().clamp(lo.unsqueeze(1).to(kCuda), hi.unsqueeze(1).to(kCuda)),
                   a.t().clamp(lo.unsqueeze(1), hi.unsqueeze(1)));
    Tensor b = a.clone(), db = da.clone();
    b.t().clamp_(-1, 1);
    db.t().clamp_(-1, 1);
    expect_matches(db, b);
  }
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    Tensor s = specials(t), ds = s.to(kCuda);
    expect_matches(ds.clamp(-1, 2), s.clamp(-1, 2), 0, 0);  // NaN stays
    expect_matches(ds.clamp(-kInf, 0.7), s.clamp(-kInf, 0.7), 0, 0);
    expect_matches(ds.clamp(kNan, 1), s.clamp(kNan, 1), 0, 0);
    // Tensor bounds: a NaN bound is the result.
    Tensor lo = s.flip({0}), hi = s.roll({3}, {0}) + 1;
    expect_matches(ds.clamp(lo.to(kCuda), hi.to(kCuda)), s.clamp(lo, hi), 0, 0);
  }
  // int tensor, float bounds: the result is float.
  Tensor i = values({10}, kInt);
  expect_matches(i.to(kCuda).clamp(-2.5, 3.5), i.clamp(-2.5, 3.5), 0, 0);
  // Bounds the dtype cannot hold: PyTorch's overflow error on both devices.
  Tensor c = values({10}, kChar, 100);
  EXPECT_EQ(error_of([&] { c.to(kCuda).clamp(-1000, 1000); }),
            "value cannot be converted to type int8_t without overflow");
  EXPECT_EQ(error_of([&] { c.clamp(-1000, 1000); }),
            "value cannot be converted to type int8_t without overflow");
  EXPECT_EQ(error_of([&] { values({3}, kBool).to(kCuda).clamp(values({3}, kBool).to(kCuda),
                                                               values({3}, kBool).to(kCuda)); }),
            "\"clamp_cuda\" not implemented for 'Bool'");
}

TEST(CudaOpsMoreTest, VarStdAndMean) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    const double tol = std::max(rtol_for(t), 1e-10);
    Tensor a = values({6, 17, 5}, t, 4) + 2;
    Tensor da = a.to(kCuda);
    expect_matches(da.var(), a.var(), tol, tol);
    expect_matches(da.std(false), a.std(false), tol, tol);
    for (std::vector<int64_t> dims : std::vector<std::vector<int64_t>>{
             {0}, {1}, {2}, {0, 2}, {1, 2}, {-1, 0}}) {
      for (bool keepdim : {false, true}) {
        expect_matches(da.var(dims, true, keepdim), a.var(dims, true, keepdim), tol, tol);
        expect_matches(da.std(dims, false, keepdim), a.std(dims, false, keepdim), tol, tol);
        auto [v, m] = var_mean(a, dims, true, keepdim);
        auto [dv, dm] = var_mean(da, dims, true, keepdim);
        expect_matches(dv, v, tol, tol);
        expect_matches(dm, m, tol, tol);
        auto [sd, sm] = std_mean(a, dims, false, keepdim);
        auto [dsd, dsm] = std_mean(da, dims, false, keepdim);
        expect_matches(dsd, sd, tol, tol);
        expect_matches(dsm, sm, tol, tol);
      }
    }
    for (int64_t correction : {0, 2, 17, 20}) {  // 17, 20: n - correction <= 0 -> inf / NaN
      const std::vector<int64_t> dim1{1};
      const std::optional<IntArrayRef> dims = IntArrayRef(dim1);
      expect_matches(var(da, dims, std::optional<int64_t>(correction)),
                     var(a, dims, std::optional<int64_t>(correction)), tol, tol);
    }
    // Strided inputs: transposed, sliced, expanded.
    expect_matches(da.transpose(0, 2).var({1}), a.transpose(0, 2).var({1}), tol, tol);
    expect_matches(da.index({Slice(None, None, 2), Slice(1, None, 3)}).std({0, 1}),
                   a.index({Slice(None, None, 2), Slice(1, None, 3)}).std({0, 1}), tol, tol);
    Tensor row = values({1, 9}, t, 3);
    expect_matches(row.to(kCuda).expand({4, 9}).var({0}), row.expand({4, 9}).var({0}), tol, tol);
  }
  // A long reduction split over many blocks and combined; a large mean.
  Tensor big = values({3000, 1234}, kFloat, 1) + 1000;
  Tensor dbig = big.to(kCuda);
  expect_matches(dbig.var(), big.var(), 1e-5, 1e-6);
  auto [v, m] = std_mean(big, {0});
  auto [dv, dm] = std_mean(dbig, {0});
  expect_matches(dv, v, 1e-5, 1e-6);
  expect_matches(dm, m, 1e-6, 1e-6);
  // NaN propagates; an empty range gives NaN.
  Tensor n = tensor({1.0, kNan, 3.0}).to(kDouble);
  expect_matches(n.to(kCuda).var(), n.var());
  Tensor e = empty({0, 3}, TensorOptions(kFloat));
  expect_matches(e.to(kCuda).var({0}), e.var({0}));
  auto [ev, em] = var_mean(e, {0});
  auto [dev, dem] = var_mean(e.to(kCuda), {0});
  expect_matches(dev, ev);
  expect_matches(dem, em);
  EXPECT_EQ(error_of([&] { values({3}, kInt).to(kCuda).var(); }),
            "std and var only support floating point and complex dtypes");
}

TEST(CudaOpsMoreTest, NormAndLogsumexp) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : kFloating) {
    SCOPED_TRACE(scalar_type_name(t));
    const double tol = std::max(rtol_for(t), 1e-10);
    Tensor a = values({5, 13, 4}, t, 3);
    Tensor da = a.to(kCuda);
    for (double p : {2.0, 1.0, kInf, -kInf, 0.0, 3.0, 0.5}) {
      SCOPED_TRACE(p);
      expect_matches(da.norm(p), a.norm(p), tol, tol);
      expect_matches(da.norm(p, {1}, true), a.norm(p, {1}, true), tol, tol);
      expect_matches(da.transpose(0, 1).norm(p, {0, 2}), a.transpose(0, 1).norm(p, {0, 2}), tol,
                     tol);
    }
    for (int64_t dim : {0, 1, 2}) {
      expect_matches(da.logsumexp({dim}), a.logsumexp({dim}), tol, tol);
    }
    expect_matches(da.logsumexp({0, 2}, true), a.logsumexp({0, 2}, true), tol, tol);
    // Infinite and NaN entries.
    Tensor s = specials(t).reshape({13, 1}).expand({13, 3});
    Tensor col = tensor({0.0, -kInf, 5.0}).to(t);
    Tensor x = s + col;
    expect_matches(x.to(kCuda).logsumexp({0}), x.logsumexp({0}), tol, tol);
    expect_matches(x.to(kCuda).logsumexp({1}), x.logsumexp({1}), tol, tol);
    expect_matches(x.to(kCuda).norm(2, {0}), x.norm(2, {0}), tol, tol);
    expect_matches(x.to(kCuda).norm(kInf, {1}), x.norm(kInf, {1}), tol, tol);
  }
  Tensor big = values({2000, 999}, kFloat, 1);
  expect_matches(big.to(kCuda).norm(), big.norm(), 1e-5, 1e-6);
  expect_matches(big.to(kCuda).logsumexp({0, 1}), big.logsumexp({0, 1}), 1e-5, 1e-6);
  Tensor i = values({4, 6}, kLong);
  expect_matches(i.to(kCuda).logsumexp({1}), i.logsumexp({1}), 1e-6, 1e-6);  // default dtype
  Tensor e = empty({0, 3}, TensorOptions(kFloat));
  expect_matches(e.to(kCuda).logsumexp({0}), e.logsumexp({0}));
  expect_matches(e.to(kCuda).norm(2, {0}), e.norm(2, {0}));
}

TEST(CudaOpsMoreTest, NormalizationAndActivationsRunOnTheDevice) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kFloat, kDouble}) {
    SCOPED_TRACE(scalar_type_name(t));
    const double tol = t == kFloat ? 1e-5 : 1e-10;
    Tensor x = values({4, 3, 5, 6}, t, 3), w = values({3}, t, 1), b = values({3}, t, 1);
    Tensor rm = zeros({3}, TensorOptions(t)), rv = ones({3}, TensorOptions(t));
    Tensor drm = rm.to(kCuda), drv = rv.to(kCuda);
    auto [o, m, is] = native_batch_norm(x, w, b, rm, rv, true, 0.1, 1e-5);
    auto [d_o, dm, dis] =
        native_batch_norm(x.to(kCuda), w.to(kCuda), b.to(kCuda), drm, drv, true, 0.1, 1e-5);
    expect_matches(d_o, o, tol, tol);
    expect_matches(dm, m, tol, tol);
    expect_matches(dis, is, tol, tol);
    expect_matches(drm, rm, tol, tol);
    expect_matches(drv, rv, tol, tol);
    Tensor lw = values({5, 6}, t, 1), lb = values({5, 6}, t, 1);
    auto [lo, lm, lr] = native_layer_norm(x, {5, 6}, lw, lb, 1e-5);
    auto [dlo, dlm, dlr] = native_layer_norm(x.to(kCuda), {5, 6}, lw.to(kCuda), lb.to(kCuda), 1e-5);
    expect_matches(dlo, lo, tol, tol);
    expect_matches(dlm, lm, tol, tol);
    expect_matches(dlr, lr, tol, tol);
    Tensor a = values({7, 9}, t, 6), da = a.to(kCuda);
    expect_matches(gelu(da), gelu(a), tol, tol);
    expect_matches(gelu(da, "tanh"), gelu(a, "tanh"), tol, tol);
    expect_matches(elu(da), elu(a), tol, tol);
    expect_matches(celu(da, 0.5), celu(a, 0.5), tol, tol);
    expect_matches(leaky_relu(da, 0.2), leaky_relu(a, 0.2), tol, tol);
    expect_matches(softplus(da, 2, 5), softplus(a, 2, 5), tol, tol);
    expect_matches(log_sigmoid(da), log_sigmoid(a), tol, tol);
    expect_matches(mish(da), mish(a), tol, tol);
    expect_matches(silu(da), silu(a), tol, tol);
    expect_matches(hardtanh(da), hardtanh(a), tol, tol);
    expect_matches(hardsigmoid(da), hardsigmoid(a), tol, tol);
    expect_matches(hardswish(da), hardswish(a), tol, tol);
    expect_matches(softshrink(da), softshrink(a), tol, tol);
    expect_matches(hardshrink(da), hardshrink(a), tol, tol);
    expect_matches(threshold(da, 0.5, -1), threshold(a, 0.5, -1), tol, tol);
  }
}

// Note [Fused gelu]: the CUDA kernels against the CPU's in every floating
// dtype (both compute half/bfloat16 in float and round once), forward and
// gelu_backward, both approximations.
TEST(CudaOpsMoreTest, GeluFusedMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kFloat, kDouble, kHalf, kBFloat16}) {
    const double tol = t == kDouble ? 1e-12 : t == kFloat ? 1e-6 : 1e-2;
    Tensor a = values({7, 9}, kFloat, 6).to(t), g = values({7, 9}, kFloat, 2).to(t);
    for (const char* approximate : {"none", "tanh"}) {
      expect_matches(gelu(a.to(kCuda), approximate), gelu(a, approximate), tol, tol);
      expect_matches(gelu_backward(g.to(kCuda), a.to(kCuda), approximate),
                     gelu_backward(g, a, approximate), tol, tol);
    }
  }
}

// Note [Fused relu backward]: threshold_backward on the device equals the
// CPU's bit for bit (a select), with zeros, NaN and a transposed operand,
// and relu's gradient through it.
TEST(CudaOpsMoreTest, ThresholdBackwardMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kFloat, kDouble, kHalf, kBFloat16, kLong}) {
    Tensor s = values({7, 9}, kFloat, 6).round().to(t), g = values({9, 7}, kFloat, 2).to(t).t();
    if (is_floating_point(t)) s.index_put_({0, 0}, NAN);
    for (double th : {0.0, 0.5, -1.0}) {
      expect_matches(threshold_backward(g.to(kCuda), s.to(kCuda), th), threshold_backward(g, s, th),
                     0, 0);
    }
  }
  Tensor x = values({5, 6}, kFloat, 3).round().requires_grad_(true);
  Tensor xc = x.detach().to(kCuda).requires_grad_(true);
  x.relu().sum().backward();
  xc.relu().sum().backward();
  expect_matches(xc.grad(), x.grad(), 0, 0);
}

}  // namespace
}  // namespace ember
