// Binary arithmetic and the other pointwise ops against PyTorch 1.13
// (tools/golden/math.py).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/math.h"
#include "tensor/parallel.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::check;
using testing::check_error;
using In = std::vector<Tensor>;

// float16 ** +-0.5 is C pow in 1.13 (no sqrt fast path as for the other
// floating types): its signs and infinities at -inf and -0.0. Values
// printed by Debian's PyTorch 1.13:
//   torch.tensor([-inf, inf, -0.0, -2.0, nan], dtype=float16).pow(0.5) etc.
TEST(PowTest, HalfSquareRootsFollowCPow) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (ScalarType t : {kHalf, kBFloat16, kFloat}) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor x = tensor({-inf, inf, -0.0, -2.0, nan}, TensorOptions(kDouble)).to(t);
    const bool half = t == kHalf;
    const Tensor root = tensor({half ? inf : nan, inf, half ? 0.0 : -0.0, nan, nan}).to(t);
    const Tensor inv = tensor({half ? 0.0 : nan, 0.0, half ? inf : -inf, nan, nan}).to(t);
    const Tensor r = x.pow(0.5), ir = x.pow(-0.5);
    EXPECT_TRUE(r.isnan().equal(root.isnan()));
    EXPECT_TRUE(ir.isnan().equal(inv.isnan()));
    // Same bits where not NaN (so -0.0 and 0.0 differ).
    for (int64_t i : {0, 1, 2}) {
      if (root[i].isnan().item<bool>()) continue;
      EXPECT_EQ(r.to(kDouble)[i].item<double>(), root.to(kDouble)[i].item<double>()) << i;
      EXPECT_EQ(std::signbit(r.to(kDouble)[i].item<double>()),
                std::signbit(root.to(kDouble)[i].item<double>()))
          << i;
    }
    for (int64_t i : {0, 1, 2}) {
      if (inv[i].isnan().item<bool>()) continue;
      EXPECT_EQ(ir.to(kDouble)[i].item<double>(), inv.to(kDouble)[i].item<double>()) << i;
    }
  }
}

// pow's negative bases (pointwise.cc's pow_real): a finite negative base to
// a finite non-integer power is C pow's NaN, bit for bit (glibc's default
// NaN), wherever it sits among the vector lanes; integer powers of negative
// bases keep their signs; the special values are C pow's. Float and double,
// a length no multiple of 8, and a scalar base (pow(Scalar, Tensor)).
template <typename T>
void expect_pow_negative_bases(ScalarType dtype) {
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::vector<T> bases = {-1.5, 2.0,  -0.25, -3.0, -2.0, 0.0, -0.0,  -inf, inf,
                                nan,  -7.5, 1.25,  -1.0, -2.5, 3.0, -1e30, -0.5};
  const std::vector<T> exps = {0.5, 1.5,  -2.0, 3.0, 2.5,  -0.5, 0.5, 0.5, -1.5,
                               2.0, -inf, inf,  nan, 1e10, -3.0, 0.3, 7.0};
  std::vector<T> a, b;
  for (int rep = 0; rep < 7; ++rep) {
    for (size_t i = 0; i < bases.size(); ++i) {
      a.push_back(bases[(i + rep) % bases.size()]);
      b.push_back(exps[(i * 3 + rep) % exps.size()]);
    }
  }
  const int64_t n = static_cast<int64_t>(a.size());
  const Tensor ta = from_blob(a.data(), {n}, dtype).clone();
  const Tensor tb = from_blob(b.data(), {n}, dtype).clone();
  const Tensor r = ta.pow(tb).contiguous();
  for (int64_t i = 0; i < n; ++i) {
    const T want = std::pow(a[i], b[i]);
    const T got = r.data_ptr<T>()[i];
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << a[i] << " ** " << b[i];
      if (a[i] < 0 && std::isfinite(a[i]) && std::isfinite(b[i])) {
        EXPECT_EQ(std::memcmp(&got, &want, sizeof(T)), 0) << a[i] << " ** " << b[i];
      }
    } else if (!std::isfinite(want) || want == 0) {
      EXPECT_EQ(std::memcmp(&got, &want, sizeof(T)), 0) << a[i] << " ** " << b[i];
    } else {
      EXPECT_NEAR(got, want, 4 * std::numeric_limits<T>::epsilon() * std::fabs(want))
          << a[i] << " ** " << b[i];
    }
  }
  const Tensor s = pow(Scalar(-2.0), tb).contiguous();
  for (int64_t i = 0; i < n; ++i) {
    const T want = std::pow(T(-2), b[i]);
    const T got = s.data_ptr<T>()[i];
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << "-2 ** " << b[i];
    } else if (!std::isfinite(want) || want == 0) {
      EXPECT_EQ(std::memcmp(&got, &want, sizeof(T)), 0) << "-2 ** " << b[i];
    } else {
      EXPECT_NEAR(got, want, 4 * std::numeric_limits<T>::epsilon() * std::fabs(want))
          << "-2 ** " << b[i];
    }
  }
}

TEST(PowTest, NegativeBasesInVectorLanes) {
  expect_pow_negative_bases<float>(kFloat);
  expect_pow_negative_bases<double>(kDouble);
}

// The same for a number as the power (pointwise.cc's pow_tensor_scalar_cpu:
// integer powers as pow(|a|, e) with the sign of an odd power, other powers
// through pow_real), computed in double as 1.13 does. The powers PyTorch
// gives fast paths of their own (2, 3, -2, +-0.5, -1) are not these.
template <typename T>
void expect_pow_scalar_negative_bases(ScalarType dtype) {
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::vector<T> bases = {-1.5, 2.0,  -0.25, -3.0, -2.0, 0.0, -0.0,  -inf, inf,
                                nan,  -7.5, 1.25,  -1.0, -2.5, 3.0, -1e30, -0.5, -1e-30};
  const double exps[] = {-3,  4,    -4,  5,   7,   11,   1e10, 1e20, -1e20,
                         1.5, -1.5, 0.3, 2.5, inf, -inf, nan,  1,    0};
  std::vector<T> a;
  for (int rep = 0; rep < 3; ++rep) a.insert(a.end(), bases.begin(), bases.end());
  const int64_t n = static_cast<int64_t>(a.size());
  const Tensor ta = from_blob(a.data(), {n}, dtype).clone();
  for (double e : exps) {
    const Tensor r = ta.pow(e).contiguous();
    for (int64_t i = 0; i < n; ++i) {
      const T want = static_cast<T>(std::pow(static_cast<double>(a[i]), e));
      const T got = r.data_ptr<T>()[i];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << a[i] << " ** " << e;
      } else if (!std::isfinite(want) || want == 0) {
        EXPECT_EQ(std::memcmp(&got, &want, sizeof(T)), 0) << a[i] << " ** " << e << ": " << got;
      } else {
        EXPECT_NEAR(got, want, 4 * std::numeric_limits<T>::epsilon() * std::fabs(want))
            << a[i] << " ** " << e;
      }
    }
  }
}

TEST(PowTest, NumberPowersOfNegativeBasesInVectorLanes) {
  expect_pow_scalar_negative_bases<float>(kFloat);
  expect_pow_scalar_negative_bases<double>(kDouble);
}

TEST(AddTest, SameShape) {
  check("add_float", [](In& x) { return x[0] + x[1]; });
  check("add_double", [](In& x) { return x[0] + x[1]; });
}

TEST(AddTest, Broadcasting) {
  check("add_broadcast", [](In& x) { return x[0] + x[1]; });
}

TEST(AddTest, NonContiguousInputs) {
  check("add_transposed", [](In& x) { return x[0] + x[1]; });
  check("add_sliced", [](In& x) { return x[0] + x[1]; });
  check("add_expanded", [](In& x) { return x[0] + x[1]; });
}

TEST(AddTest, Alpha) {
  check("add_alpha", [](In& x) { return add(x[0], x[1], 2.5); });
  check("add_int_alpha", [](In& x) { return x[0].add(x[1], 3); });
}

TEST(AddTest, BoolAndTypePromotion) {
  check("add_bool", [](In& x) { return x[0] + x[1]; });
  check("add_bool_int", [](In& x) { return x[0] + x[1]; });
  check("add_long_float", [](In& x) { return x[0] + x[1]; });
  check("add_int8_int16", [](In& x) { return x[0] + x[1]; });
  check("add_uint8_int8", [](In& x) { return x[0] + x[1]; });
  check("add_half_float", [](In& x) { return x[0] + x[1]; });
}

TEST(AddTest, ReducedPrecision) {
  check("add_half", [](In& x) { return x[0] + x[1]; });
  check("add_bfloat16", [](In& x) { return x[0] + x[1]; });
}

TEST(AddTest, ZeroDimOperands) {
  check("add_zero_dim_double", [](In& x) { return x[0] + x[1]; });
  check("add_zero_dim_int_double", [](In& x) { return x[0] + x[1]; });
}

TEST(AddTest, Numbers) {
  check("add_scalar_int", [](In& x) { return x[0] + 2; });
  check("add_scalar_float_to_int", [](In& x) { return x[0] + 2.5; });
  check("add_scalar_half", [](In& x) { return x[0] + 0.1; });
  check("add_scalar_bool", [](In& x) { return x[0] + true; });
  check("add_scalar_left", [](In& x) { return 3 + x[0]; });
}

TEST(AddTest, InPlace) {
  check("add_inplace", [](In& x) {
    Tensor& r = x[0].add_(x[1], 2);
    EXPECT_TRUE(r.is_same(x[0]));
    return r;
  });
  check("add_inplace_int8_int16", [](In& x) { return x[0] += x[1]; });
  check("add_inplace_scalar", [](In& x) { return x[0] += 1; });
  check("add_inplace_transposed", [](In& x) { return x[0].add_(x[1]); });
}

TEST(AddTest, InPlaceWritesThroughView) {
  Tensor base = empty({2, 2}, kFloat);
  base.fill_(1);
  Tensor row = testing::strided_view(base, {2}, {1}, /*offset=*/2);
  row += 5;
  EXPECT_EQ(testing::values_of(base), (std::vector<double>{1, 1, 6, 6}));
}

TEST(AddTest, Errors) {
  check_error("err_alpha_float_int", [](In& x) { add(x[0], x[1], 0.5); });
  check_error("err_alpha_bool_int", [](In& x) { add(x[0], x[1], true); });
  check_error("err_add_inplace_float_to_long", [](In& x) { x[0].add_(1.5); });
  check_error("err_broadcast", [](In& x) { x[0] + x[1]; });
  check_error("err_inplace_shape", [](In& x) { x[0].add_(x[1]); });
  check_error("err_inplace_expanded", [](In& x) { x[0].add_(x[1]); });
}

TEST(SubTest, Values) {
  check("sub_float", [](In& x) { return x[0] - x[1]; });
  check("sub_alpha", [](In& x) { return sub(x[0], x[1], 2); });
  check("sub_scalar", [](In& x) { return x[0] - 1.5; });
  check("rsub_scalar", [](In& x) { return 2 - x[0]; });
  check("sub_inplace", [](In& x) { return x[0] -= x[1]; });
}

TEST(SubTest, BoolErrors) {
  check_error("err_sub_bools", [](In& x) { x[0] - x[1]; });
  check_error("err_sub_bool_scalar", [](In& x) { x[0] - 1; });
  check_error("err_rsub_bool", [](In& x) { 1 - x[0]; });
  check_error("err_sub_uint8_bool", [](In& x) { x[0] - x[1]; });
}

TEST(MulTest, Values) {
  check("mul_float", [](In& x) { return x[0] * x[1]; });
  check("mul_int", [](In& x) { return mul(x[0], x[1]); });
  check("mul_bool", [](In& x) { return x[0] * x[1]; });
  check("mul_bool_scalar_float", [](In& x) { return x[0] * 2.5; });
  check("mul_scalar_left", [](In& x) { return 2 * x[0]; });
  check("mul_broadcast_int_float", [](In& x) { return x[0] * x[1]; });
}

TEST(MulTest, InPlace) {
  check("mul_inplace", [](In& x) { return x[0] *= x[1]; });
  check("mul_inplace_scalar", [](In& x) { return x[0].mul_(3); });
  check_error("err_mul_inplace_long_float", [](In& x) { x[0].mul_(x[1]); });
}

TEST(DivTest, TrueDivision) {
  check("div_float", [](In& x) { return x[0] / x[1]; });
  check("div_int_int", [](In& x) { return x[0] / x[1]; });
  check("div_float_zero", [](In& x) { return true_divide(x[0], x[1]); });
  check("div_scalar", [](In& x) { return x[0] / 3; });
  check("div_scalar_left", [](In& x) { return 1 / x[0]; });
  check("div_half", [](In& x) { return x[0].div(x[1]); });
}

TEST(DivTest, RoundingModes) {
  check("div_trunc_int", [](In& x) { return div(x[0], x[1], "trunc"); });
  check("div_trunc_float", [](In& x) { return div(x[0], x[1], "trunc"); });
  check("div_floor_int", [](In& x) { return div(x[0], x[1], "floor"); });
  check("div_floor_float", [](In& x) { return x[0].div(x[1], "floor"); });
  check("div_floor_uint8", [](In& x) { return div(x[0], x[1], "floor"); });
}

TEST(DivTest, InPlace) {
  check("div_inplace", [](In& x) { return x[0] /= x[1]; });
  check("div_inplace_floor_scalar", [](In& x) { return x[0].div_(2, "floor"); });
  check_error("err_div_inplace_long", [](In& x) { x[0] /= 2; });
}

TEST(DivTest, Errors) {
  check_error("err_rounding_mode", [](In& x) { div(x[0], x[1], "bad"); });
  check_error("err_floor_divide_zero", [](In& x) { floor_divide(x[0], x[1]); });
  check_error("err_div_trunc_zero", [](In& x) { div(x[0], 0, "trunc"); });
  check_error("err_div_trunc_bool", [](In& x) { div(x[0], x[0], "trunc"); });
  check_error("err_floor_divide_bool", [](In& x) { floor_divide(x[0], x[0]); });
}

TEST(RemainderTest, PythonSignRule) {
  check("remainder_int", [](In& x) { return x[0] % x[1]; });
  check("remainder_float", [](In& x) { return remainder(x[0], x[1]); });
  check("remainder_scalar", [](In& x) { return x[0] % 3; });
  check("remainder_scalar_left", [](In& x) { return remainder(5, x[0]); });
  check_error("err_remainder_zero", [](In& x) { x[0] % 0; });
  check_error("err_remainder_bool", [](In& x) { x[0] % x[0]; });
}

TEST(FmodTest, CSignRule) {
  check("fmod_int", [](In& x) { return fmod(x[0], x[1]); });
  check("fmod_float", [](In& x) { return x[0].fmod(x[1]); });
  check("fmod_scalar", [](In& x) { return fmod(x[0], 1.5); });
  check_error("err_fmod_zero", [](In& x) { fmod(x[0], 0); });
}

TEST(FloorDivideTest, Values) {
  check("floor_divide_int", [](In& x) { return floor_divide(x[0], x[1]); });
  check("floor_divide_float", [](In& x) { return x[0].floor_divide(x[1]); });
  check("floor_divide_scalar", [](In& x) { return floor_divide(x[0], 4); });
}

// Note [Guarded fast paths], Note [Exact fmod by division]: fmod,
// remainder and floor division of float and double compute fmod without
// libm where the quotient is below 2^52, and must give libm's bits
// everywhere: quotients that round up to an integer, exact multiples (zero
// takes the dividend's sign), huge and tiny ratios (libm's path), b = 0,
// infinities and NaN inside the same 256-element blocks as ordinary lanes,
// lengths that are no multiple of the vector width, broadcast numbers,
// strided and in-place inputs.
template <typename T>
std::vector<T> fmod_cases(uint64_t seed) {
  std::vector<T> a, b;
  uint64_t state = seed;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 11;
  };
  auto uniform = [&] { return static_cast<double>(next()) / 9007199254740992.0; };
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T specials[] = {T(0),
                        -T(0),
                        inf,
                        -inf,
                        nan,
                        std::numeric_limits<T>::denorm_min(),
                        std::numeric_limits<T>::max(),
                        std::numeric_limits<T>::min()};
  std::vector<T> out;
  for (int i = 0; i < 3001; ++i) {
    const int kind = static_cast<int>(next() % 8);
    T x, y;
    const T sx = next() % 2 ? T(-1) : T(1), sy = next() % 2 ? T(-1) : T(1);
    if (kind == 0) {  // a just above or below a multiple of b
      y = sy * static_cast<T>(std::ldexp(1.0 + uniform(), static_cast<int>(next() % 20) - 10));
      const T k = static_cast<T>(next() % 100000);
      x = sx * std::nextafter(k * y, next() % 2 ? inf : -inf);
    } else if (kind == 1) {  // an exact multiple
      y = sy * static_cast<T>(1 + next() % 64) / T(8);
      x = sx * y * static_cast<T>(next() % 1000);
    } else if (kind == 2) {  // any exponents: huge and tiny quotients
      x = sx * static_cast<T>(std::ldexp(1.0 + uniform(), static_cast<int>(next() % 200) - 100));
      y = sy * static_cast<T>(std::ldexp(1.0 + uniform(), static_cast<int>(next() % 200) - 100));
    } else if (kind == 3 && i % 37 == 0) {  // a special in an otherwise ordinary block
      x = specials[next() % 8];
      y = next() % 2 ? specials[next() % 8] : sy * static_cast<T>(uniform() * 10);
    } else {
      x = sx * static_cast<T>(uniform() * 100);
      y = sy * static_cast<T>(uniform() * 10 + 0.001);
    }
    out.push_back(x);
    out.push_back(y);
  }
  return out;
}

template <typename T>
void expect_same_bits(const Tensor& got, const std::vector<T>& want, const char* what) {
  const Tensor c = got.contiguous();
  ASSERT_EQ(c.numel(), static_cast<int64_t>(want.size())) << what;
  const T* g = c.data_ptr<T>();
  int shown = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const bool same =
        std::isnan(want[i]) ? std::isnan(g[i]) : std::memcmp(&g[i], &want[i], sizeof(T)) == 0;
    if (!same && shown++ < 5)
      ADD_FAILURE() << what << " at " << i << ": " << g[i] << " != " << want[i];
  }
}

template <typename T>
void check_fmod_family(ScalarType dtype) {
  const std::vector<T> pairs = fmod_cases<T>(dtype == kFloat ? 7 : 8);
  const int64_t n = static_cast<int64_t>(pairs.size()) / 2;
  const Tensor ab = from_blob(const_cast<T*>(pairs.data()), {n, 2}, TensorOptions(dtype)).clone();
  const Tensor a = ab.select(1, 0), b = ab.select(1, 1);  // strided: the per-element path
  const Tensor ac = a.contiguous(), bc = b.contiguous();
  std::vector<T> fm(n), rem(n), fdiv(n);
  for (int64_t i = 0; i < n; ++i) {
    const T x = pairs[2 * i], y = pairs[2 * i + 1];
    fm[i] = std::fmod(x, y);
    T r = fm[i];
    if (r != 0 && (y < 0) != (r < 0)) r += y;
    rem[i] = r;
    // PyTorch 1.13's c10::div_floor_floating.
    if (y == 0) {
      fdiv[i] = x / y;
      continue;
    }
    T div = (x - fm[i]) / y;
    if (fm[i] != 0 && (y < 0) != (fm[i] < 0)) div -= T(1);
    T fl = std::floor(div);
    if (div != 0 && div - fl > T(0.5)) fl += T(1);
    fdiv[i] = div != 0 ? fl : std::copysign(T(0), x / y);
  }
  for (const Tensor* in : {&a, &ac}) {
    const Tensor& x = *in;
    const Tensor& y = in == &a ? b : bc;
    expect_same_bits(fmod(x, y), fm, "fmod");
    expect_same_bits(remainder(x, y), rem, "remainder");
    expect_same_bits(floor_divide(x, y), fdiv, "floor_divide");
    expect_same_bits(div(x, y, "floor"), fdiv, "div floor");
  }
  Tensor inplace = ac.clone();
  inplace.fmod_(bc);
  expect_same_bits(inplace, fm, "fmod_");
  inplace = ac.clone();
  inplace.remainder_(bc);
  expect_same_bits(inplace, rem, "remainder_");
  // A broadcast number on either side, over an odd length.
  for (const T num : {T(2.5), T(-3), T(1e-30), T(0)}) {
    std::vector<T> left(n), right(n);
    for (int64_t i = 0; i < n; ++i) {
      left[i] = std::fmod(pairs[2 * i], num);
      right[i] = std::fmod(num, pairs[2 * i + 1]);
    }
    const Tensor s = tensor({static_cast<double>(num)}, TensorOptions(dtype)).squeeze();
    expect_same_bits(fmod(ac, s), left, "fmod(tensor, number)");
    expect_same_bits(fmod(s, bc), right, "fmod(number, tensor)");
  }
}

TEST(FmodFamilyTest, FastPathGivesLibmBitsFloat) { check_fmod_family<float>(kFloat); }
TEST(FmodFamilyTest, FastPathGivesLibmBitsDouble) { check_fmod_family<double>(kDouble); }

// float16 and bfloat16 compute in float (binary.cc's fmod_family_floating,
// guarded as float is): each result is the float formula on the rounded
// inputs, with fmodf's remainder, rounded once to the dtype.
void check_fmod_family_reduced(ScalarType dtype) {
  const std::vector<float> pairs = fmod_cases<float>(9);
  const int64_t n = static_cast<int64_t>(pairs.size()) / 2;
  const Tensor ab = from_blob(const_cast<float*>(pairs.data()), {n, 2}).clone().to(dtype);
  const Tensor a = ab.select(1, 0).contiguous(), b = ab.select(1, 1).contiguous();
  const Tensor af = a.to(kFloat), bf = b.to(kFloat);
  std::vector<float> fm(n), rem(n), fdiv(n);
  for (int64_t i = 0; i < n; ++i) {
    const float x = af.data_ptr<float>()[i], y = bf.data_ptr<float>()[i];
    fm[i] = std::fmod(x, y);
    rem[i] = fm[i] != 0 && (y < 0) != (fm[i] < 0) ? fm[i] + y : fm[i];
    if (y == 0) {
      fdiv[i] = x / y;
      continue;
    }
    float d = (x - fm[i]) / y;
    if (fm[i] != 0 && (y < 0) != (fm[i] < 0)) d -= 1.0f;
    float fl = std::floor(d);
    if (d != 0 && d - fl > 0.5f) fl += 1.0f;
    fdiv[i] = d != 0 ? fl : std::copysign(0.0f, x / y);
  }
  const auto rounded = [&](const std::vector<float>& v) {
    const Tensor t = from_blob(const_cast<float*>(v.data()), {n}).to(dtype).to(kFloat);
    return std::vector<float>(t.data_ptr<float>(), t.data_ptr<float>() + n);
  };
  expect_same_bits(fmod(a, b).to(kFloat), rounded(fm), "fmod");
  expect_same_bits(remainder(a, b).to(kFloat), rounded(rem), "remainder");
  expect_same_bits(floor_divide(a, b).to(kFloat), rounded(fdiv), "floor_divide");
  expect_same_bits(remainder(ab.select(1, 0), ab.select(1, 1)).to(kFloat), rounded(rem),
                   "remainder strided");
}

TEST(FmodFamilyTest, FastPathGivesLibmBitsHalf) { check_fmod_family_reduced(kHalf); }
TEST(FmodFamilyTest, FastPathGivesLibmBitsBFloat16) { check_fmod_family_reduced(kBFloat16); }

TEST(PowTest, TensorExponent) {
  check("pow_tensor_tensor", [](In& x) { return pow(x[0], x[1]); });
  check("pow_int_tensor", [](In& x) { return pow(x[0], x[1]); });
  check("pow_int8_wraps", [](In& x) { return x[0].pow(x[1]); });
  check("pow_broadcast_transposed", [](In& x) { return pow(x[0], x[1]); });
}

TEST(PowTest, NumberExponent) {
  check("pow_scalar_2", [](In& x) { return pow(x[0], 2); });
  check("pow_scalar_3", [](In& x) { return pow(x[0], 3); });
  check("pow_scalar_half", [](In& x) { return pow(x[0], 0.5); });
  check("pow_scalar_minus_half", [](In& x) { return pow(x[0], -0.5); });
  check("pow_scalar_minus_1", [](In& x) { return x[0].pow(-1); });
  check("pow_scalar_minus_2", [](In& x) { return x[0].pow(-2); });
  check("pow_scalar_2_5", [](In& x) { return x[0].pow(2.5); });
  check("pow_scalar_double", [](In& x) { return x[0].pow(1.7); });
  check("pow_zero_exponent", [](In& x) { return pow(x[0], 0); });
  check("pow_one_exponent", [](In& x) { return pow(x[0], 1); });
  check("pow_half", [](In& x) { return pow(x[0], 2); });
  check("pow_half_scalar_1_5", [](In& x) { return pow(x[0], 1.5); });
}

TEST(PowTest, IntegerAndBoolBases) {
  check("pow_int_scalar", [](In& x) { return pow(x[0], 3); });
  check("pow_int_float_scalar", [](In& x) { return pow(x[0], 2.5); });
  check("pow_bool_scalar", [](In& x) { return pow(x[0], 2); });
  check("pow_int16_wraps", [](In& x) { return pow(x[0], x[1]); });
  check("pow_uint8_wraps", [](In& x) { return pow(x[0], 2); });
}

TEST(PowTest, NumberBase) {
  check("pow_scalar_base_int", [](In& x) { return pow(2, x[0]); });
  check("pow_scalar_base_float", [](In& x) { return pow(2.5, x[0]); });
}

TEST(PowTest, InPlace) {
  check("pow_inplace", [](In& x) { return x[0].pow_(2); });
  check("pow_inplace_tensor", [](In& x) { return x[0].pow_(x[1]); });
}

TEST(PowTest, Errors) {
  check_error("err_pow_negative_int", [](In& x) { pow(x[0], -1); });
  check_error("err_pow_bools", [](In& x) { pow(x[0], x[0]); });
  check_error("err_pow_inplace_long_float", [](In& x) { x[0].pow_(0.5); });
}

TEST(Atan2Test, Values) {
  check("atan2_float", [](In& x) { return atan2(x[0], x[1]); });
  check("atan2_int", [](In& x) { return x[0].atan2(x[1]); });
}

TEST(MinMaxTest, NanPropagates) {
  check("minimum_float_nan", [](In& x) { return minimum(x[0], x[1]); });
  check("maximum_float_nan", [](In& x) { return maximum(x[0], x[1]); });
}

TEST(MinMaxTest, PromotionBroadcastBool) {
  check("maximum_int_float", [](In& x) { return maximum(x[0], x[1]); });
  check("minimum_int_broadcast", [](In& x) { return x[0].minimum(x[1]); });
  check("minimum_bool", [](In& x) { return minimum(x[0], x[1]); });
  check("maximum_bool", [](In& x) { return maximum(x[0], x[1]); });
}

TEST(MinMaxTest, FminFmaxIgnoreNan) {
  check("fmin_nan", [](In& x) { return fmin(x[0], x[1]); });
  check("fmax_nan", [](In& x) { return x[0].fmax(x[1]); });
  check("fmax_int", [](In& x) { return fmax(x[0], x[1]); });
}

TEST(LerpTest, Values) {
  check("lerp_small_weight", [](In& x) { return lerp(x[0], x[1], 0.25); });
  check("lerp_large_weight", [](In& x) { return x[0].lerp(x[1], 0.75); });
  check("lerp_double", [](In& x) { return lerp(x[0], x[1], 1.5); });
}

TEST(LerpTest, Errors) {
  check_error("err_lerp_dtype", [](In& x) { lerp(x[0], x[1], 0.5); });
  check_error("err_lerp_long", [](In& x) { lerp(x[0], x[0], 0.5); });
}

TEST(AddcmulTest, Values) {
  check("addcmul_float", [](In& x) { return addcmul(x[0], x[1], x[2], 0.5); });
  check("addcmul_int", [](In& x) { return addcmul(x[0], x[1], x[2], 2); });
  check("addcmul_inplace", [](In& x) { return x[0].addcmul_(x[1], x[2]); });
  check_error("err_addcmul_bool", [](In& x) { addcmul(x[0], x[0], x[0]); });
}

TEST(AddcdivTest, Values) {
  check("addcdiv_float", [](In& x) { return addcdiv(x[0], x[1], x[2], -2); });
  check("addcdiv_mixed", [](In& x) { return x[0].addcdiv(x[1], x[2]); });
  check("addcdiv_inplace", [](In& x) { return x[0].addcdiv_(x[1], x[2], 0.5); });
  check_error("err_addcdiv_int", [](In& x) { addcdiv(x[0], x[1], x[2]); });
}

TEST(ClampTest, NumberBounds) {
  check("clamp_float", [](In& x) { return clamp(x[0], -1.0, 1.0); });
  check("clamp_min_only", [](In& x) { return clamp(x[0], 0.0); });
  check("clamp_max_only", [](In& x) { return clamp(x[0], std::nullopt, 0); });
  check("clamp_int", [](In& x) { return x[0].clamp(-1, 2); });
  check("clamp_min_greater_than_max", [](In& x) { return clamp(x[0], 2.0, 1.0); });
  check("clamp_half", [](In& x) { return clamp(x[0], -1.0, 1.0); });
  check("clamp_transposed", [](In& x) { return x[0].clip(-1, 1); });
  check("clamp_min_fn", [](In& x) { return clamp_min(x[0], 1); });
  check("clamp_max_fn", [](In& x) { return x[0].clamp_max(1.5); });
}

TEST(ClampTest, NumberBoundsPromote) {
  check("clamp_int_float_bound", [](In& x) { return clamp(x[0], 0.5); });
  check("clamp_bool_int_bounds", [](In& x) { return clamp(x[0], 0, 1); });
}

TEST(ClampTest, InPlace) {
  check("clamp_inplace", [](In& x) { return x[0].clamp_(-1.0, 1.0); });
  check_error("err_clamp_inplace_long", [](In& x) { x[0].clamp_(0.5); });
  check_error("err_clamp_inplace_bool", [](In& x) { x[0].clamp_(0, 1); });
}

TEST(ClampTest, TensorBounds) {
  check("clamp_tensor", [](In& x) { return clamp(x[0], x[1], x[2]); });
  check("clamp_tensor_min_only", [](In& x) { return clamp(x[0], x[1], Tensor()); });
  check("clamp_tensor_max_only", [](In& x) { return x[0].clamp(Tensor(), x[1]); });
  check("clamp_tensor_int_float", [](In& x) { return clamp(x[0], x[1], x[2]); });
}

TEST(ClampTest, Errors) {
  check_error("err_clamp_none", [](In& x) { clamp(x[0], std::nullopt, std::nullopt); });
  check_error("err_clamp_bool_tensors", [](In& x) { clamp(x[0], x[0], x[0]); });
  check_error("err_clamp_scalar_bool", [](In& x) { clamp(x[0], true, true); });
}

TEST(ReluTest, Values) {
  check("relu_float", [](In& x) { return relu(x[0]); });
  check("relu_int", [](In& x) { return x[0].relu(); });
  check("relu_inplace", [](In& x) { return x[0].relu_(); });
  check_error("err_relu_bool", [](In& x) { relu(x[0]); });
}

TEST(SquareTest, Values) {
  check("square_float", [](In& x) { return square(x[0]); });
  check("square_int", [](In& x) { return x[0].square(); });
  check("square_bool", [](In& x) { return square(x[0]); });
}

TEST(BinaryTest, ParallelContiguousAdd) {
  // Above kGrainSize the loop is split across threads; every element must
  // still be written exactly once.
  const int64_t n = 3 * kGrainSize + 17;
  Tensor a = empty({n}, kFloat), b = empty({n}, kFloat);
  float* pa = a.data_ptr<float>();
  float* pb = b.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) {
    pa[i] = static_cast<float>(i);
    pb[i] = 0.5f * static_cast<float>(i);
  }
  Tensor c = a + b;
  const float* pc = c.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(pc[i], 1.5f * static_cast<float>(i)) << i;
}

}  // namespace
}  // namespace ember
