// special.h against PyTorch 1.13: every case of
// testdata/special_golden.inc (tools/golden/special.py) — values at poles,
// infinities and NaN, result dtypes, errors — plus the shift counts 1.13
// leaves undefined, the aliases and in-place forms. Gradients:
// autograd/gradcheck_test.cc (Gradcheck.SpecialOps).
#include "tensor/special.h"

#include <cmath>
#include <functional>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "tensor/all.h"
#include "tensor/special_math.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::error_of;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct ValueCase {
  const char* op;
  int64_t arg;
  ScalarType a_dtype;
  std::vector<double> a;
  ScalarType b_dtype;
  std::vector<double> b;
  ScalarType dtype;
  std::vector<double> want;
  const char* error;
};

const std::vector<ValueCase>& value_cases() {
  static const std::vector<ValueCase> cases = {
#define EMBER_SPECIAL_VALUE_CASES
#include "tensor/testdata/special_golden.inc"
#undef EMBER_SPECIAL_VALUE_CASES
  };
  return cases;
}

Tensor make(const std::vector<double>& v, ScalarType dtype) { return tensor(v, kDouble).to(dtype); }

bool starts(const std::string& s, const char* prefix) { return absl::StartsWith(s, prefix); }

// The op a case names, as a PyTorch program would call it.
Tensor apply(const std::string& op, int64_t arg, const Tensor& a, const Tensor& b) {
  if (starts(op, "erfinv")) return a.erfinv();
  if (starts(op, "lgamma")) return a.lgamma();
  if (starts(op, "digamma")) return a.digamma();
  if (starts(op, "polygamma")) return polygamma(arg, a);
  if (starts(op, "i0")) return a.i0();
  if (starts(op, "i1")) return special_i1(a);
  if (starts(op, "sinc")) return a.sinc();
  if (starts(op, "signbit")) return a.signbit();
  if (op == "copysign_scalar_neg0") return a.copysign(-0.0);
  if (op == "copysign") return a.copysign(b);
  if (op == "hypot") return a.hypot(b);
  if (op == "nextafter") return a.nextafter(b);
  if (op == "ldexp") return a.ldexp(b);
  if (op == "float_power_scalar_base") return float_power(2, a);
  if (op == "float_power_scalar") return a.float_power(2);
  if (op == "float_power_") return a.clone().float_power_(b);
  if (op == "float_power") return a.float_power(b);
  if (op == "gcd") return a.gcd(b);
  if (op == "lcm") return a.lcm(b);
  if (op == "lshift_scalar_base2") return bitwise_left_shift(2, a);
  if (op == "lshift_scalar2") return a << 2;
  if (op == "rshift_scalar2") return a >> 2;
  if (op == "lshift_scalar1.5") return a.bitwise_left_shift(1.5);
  if (op == "lshift_") return a.clone().bitwise_left_shift_(b);
  if (op == "rshift_") return a.clone().bitwise_right_shift_(b);
  if (op == "lshift") return a << b;
  if (op == "rshift") return a >> b;
  if (op == "isposinf") return a.isposinf();
  if (op == "isneginf") return a.isneginf();
  if (op == "isreal") return a.isreal();
  if (op == "sgn_") return a.clone().sgn_();
  if (op == "deg2rad_") return a.clone().deg2rad_();
  if (op == "rad2deg_") return a.clone().rad2deg_();
  if (op == "logit_eps") return a.clone().logit_(0.1);
  if (op == "logit_") return a.clone().logit_();
  if (op == "xlogy_scalar3") return a.clone().xlogy_(3);
  if (op == "xlogy_") return a.clone().xlogy_(b);
  if (op == "heaviside_") return a.clone().heaviside_(b);
  ADD_FAILURE() << "no op for case " << op;
  return Tensor();
}

// Relative tolerance by result dtype: the CPU's float and double results
// come from other algorithms than Cephes' (erfinv, i0, i1) or the same ones
// in another order; integers, bool and bfloat16 shifts are exact.
double tolerance(ScalarType t) {
  switch (t) {
    case kDouble:
      return 1e-12;
    case kFloat:
      return 4e-6;
    case kHalf:
    case kBFloat16:
      return 1e-2;
    default:
      return 0;
  }
}

void expect_case(const ValueCase& c, const Tensor& r) {
  SCOPED_TRACE(::testing::Message()
               << c.op << " (" << c.arg << ") on " << scalar_type_name(c.a_dtype));
  ASSERT_EQ(r.dtype(), c.dtype);
  ASSERT_EQ(r.numel(), static_cast<int64_t>(c.want.size()));
  const Tensor got = r.to(kDouble).contiguous().flatten();
  const double tol = tolerance(c.dtype);
  for (size_t i = 0; i < c.want.size(); ++i) {
    const double x = got[i].item<double>(), y = c.want[i];
    if (std::isnan(y)) {
      EXPECT_TRUE(std::isnan(x)) << "at " << i << ": " << x << ", want NaN";
      continue;
    }
    EXPECT_TRUE(x == y || std::abs(x - y) <= tol * std::abs(y))
        << "at " << i << ": " << x << ", want " << y;
    if (y == 0) {
      EXPECT_EQ(std::signbit(x), std::signbit(y)) << "sign of zero at " << i;
    }
  }
}

TEST(SpecialTest, PyTorchValuesDtypesAndErrors) {
  ASSERT_GT(value_cases().size(), 100u);
  for (const ValueCase& c : value_cases()) {
    const Tensor a = make(c.a, c.a_dtype);
    const Tensor b = make(c.b, c.b_dtype);
    if (c.error[0] != '\0') {
      EXPECT_EQ(error_of([&] { apply(c.op, c.arg, a, b); }), c.error) << c.op;
      continue;
    }
    expect_case(c, apply(c.op, c.arg, a, b));
  }
}

// The same cases on a non-contiguous, broadcast layout: a transposed copy
// of the inputs gives the transposed result.
TEST(SpecialTest, NonContiguousInputs) {
  int checked = 0;
  for (const ValueCase& c : value_cases()) {
    if (c.error[0] != '\0' || c.a.size() < 2 || starts(c.op, "float_power_") ||
        absl::EndsWith(c.op, "_")) {
      continue;
    }
    const int64_t n = static_cast<int64_t>(c.a.size());
    // [n, 2] whose column 0 is the input: a stepped view.
    const Tensor a = make(c.a, c.a_dtype).unsqueeze(1).expand({n, 2}).contiguous().select(1, 0);
    Tensor b = make(c.b, c.b_dtype);
    if (b.numel() == n) b = b.unsqueeze(1).expand({n, 2}).contiguous().select(1, 0);
    ASSERT_FALSE(a.is_contiguous());
    expect_case(c, apply(c.op, c.arg, a, b));
    ++checked;
  }
  EXPECT_GT(checked, 60);
}

TEST(SpecialTest, ShiftCountsOutsideTheWidthFollowPyTorch2) {
  // PyTorch 1.13 shifted by the count modulo the register width (undefined
  // in C++); ember gives 2.x's answers: 0 to the left, the sign to the right.
  const Tensor a = tensor({5, -7, 3, -1}, kInt);
  const Tensor counts = tensor({32, 40, -1, 100}, kInt);
  EXPECT_TRUE((a << counts).equal(tensor({0, 0, 0, 0}, kInt)));
  EXPECT_TRUE((a >> counts).equal(tensor({0, -1, 0, -1}, kInt)));
  // 64-bit counts: 63 is inside, 64 outside.
  const Tensor l = tensor({1, -8}, kLong);
  EXPECT_TRUE((l << tensor({63, 64}, kLong))
                  .equal(tensor({std::numeric_limits<int64_t>::min(), int64_t{0}}, kLong)));
  EXPECT_TRUE((l >> tensor({64, 3}, kLong)).equal(tensor({0, -1}, kLong)));
  // uint8: a count of 8 or more (or 128..255, negative as int8) gives
  // a >> 7, as 2.x's kernel.
  const Tensor u = tensor({200, 100, 255}, kByte);
  EXPECT_TRUE((u >> tensor({9, 8, 200}, kByte)).equal(tensor({1, 0, 1}, kByte)));
  EXPECT_TRUE((u << tensor({8, 9, 200}, kByte)).equal(tensor({0, 0, 0}, kByte)));
}

TEST(SpecialTest, ShiftOperatorsAndInPlaceForms) {
  Tensor a = tensor({1, 2, 3}, kLong);
  a <<= 2;
  EXPECT_TRUE(a.equal(tensor({4, 8, 12}, kLong)));
  a >>= tensor({1, 2, 3}, kLong);
  EXPECT_TRUE(a.equal(tensor({2, 2, 1}, kLong)));
  EXPECT_TRUE(bitwise_right_shift(64, tensor({1, 6}, kLong)).equal(tensor({32, 1}, kLong)));
  // In place, self's dtype must hold the result's.
  Tensor i = tensor({1, 2}, kInt);
  EXPECT_EQ(error_of([&] { i.bitwise_left_shift_(tensor({1, 1}, kLong)); }), "(no error)");
  EXPECT_TRUE(i.equal(tensor({2, 4}, kInt)));
  EXPECT_EQ(error_of([&] { tensor({true}).bitwise_left_shift_(1); }),
            "result type Long can't be cast to the desired output type Bool");
}

// Every pair of special values, in the vectorized loop, gives C's bits:
// `op` is the tensor op, `c_op` the C function it must match.
template <typename T, typename Op, typename COp>
void expect_special_pairs_are_c(ScalarType dtype, Op op, COp c_op) {
  const T inf = std::numeric_limits<T>::infinity();
  const T values[] = {T(0),
                      -T(0),
                      T(1),
                      T(-1),
                      T(-2),
                      T(1.5),
                      std::numeric_limits<T>::denorm_min(),
                      -std::numeric_limits<T>::denorm_min(),
                      std::numeric_limits<T>::min(),
                      std::numeric_limits<T>::max(),
                      -std::numeric_limits<T>::max(),
                      inf,
                      -inf,
                      std::numeric_limits<T>::quiet_NaN()};
  std::vector<double> a, b;
  std::vector<T> want;
  for (T x : values) {
    for (T y : values) {
      a.push_back(x);
      b.push_back(y);
      want.push_back(c_op(x, y));
    }
  }
  const int64_t n = static_cast<int64_t>(want.size());
  const Tensor got =
      op(tensor(a, TensorOptions(kDouble)).to(dtype), tensor(b, TensorOptions(kDouble)).to(dtype))
          .contiguous();
  for (int64_t i = 0; i < n; ++i) {
    const T g = got.data_ptr<T>()[i];
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(g)) << a[i] << " " << b[i];
    } else {
      EXPECT_EQ(std::memcmp(&g, &want[i], sizeof(T)), 0) << a[i] << ", " << b[i] << ": " << g;
    }
  }
}

// nextafter is computed on the bits (no libm call, so that it vectorizes).
TEST(SpecialTest, NextafterGivesCBitsAtEverySpecialValue) {
  const auto op = [](const Tensor& x, const Tensor& y) { return x.nextafter(y); };
  expect_special_pairs_are_c<float>(kFloat, op,
                                    [](float x, float y) { return std::nextafter(x, y); });
  expect_special_pairs_are_c<double>(kDouble, op,
                                     [](double x, double y) { return std::nextafter(x, y); });
}

// fmax/fmin are selects (pointwise.cc's min_max_cpu), not libm calls: a NaN
// gives the other operand as C's fmax/fmin do. Equal operands give the first
// one, +0 and -0 included, as 1.13 (measured: torch.fmax([0., -0.],
// [-0., 0.]) and torch.fmin of the same are [0., -0.], in float and double).
TEST(SpecialTest, FmaxFminGiveCBitsAtEverySpecialValue) {
  const auto fmax_op = [](const Tensor& x, const Tensor& y) { return x.fmax(y); };
  const auto fmin_op = [](const Tensor& x, const Tensor& y) { return x.fmin(y); };
  const auto c_fmax = [](auto x, auto y) { return x == y ? x : std::fmax(x, y); };
  const auto c_fmin = [](auto x, auto y) { return x == y ? x : std::fmin(x, y); };
  expect_special_pairs_are_c<float>(kFloat, fmax_op, c_fmax);
  expect_special_pairs_are_c<double>(kDouble, fmax_op, c_fmax);
  expect_special_pairs_are_c<float>(kFloat, fmin_op, c_fmin);
  expect_special_pairs_are_c<double>(kDouble, fmin_op, c_fmin);
}

// maximum/minimum are selects too (pointwise.cc's min_max_cpu): a NaN a,
// else a NaN b, else std::max / std::min, whose ties give a (+0 and -0
// included). float16 and bfloat16 give their float values' results.
TEST(SpecialTest, MaximumMinimumPropagateNaNAtEverySpecialValue) {
  const auto max_op = [](const Tensor& x, const Tensor& y) { return maximum(x, y); };
  const auto min_op = [](const Tensor& x, const Tensor& y) { return minimum(x, y); };
  const auto c_max = [](auto x, auto y) { return x != x ? x : y != y ? y : std::max(x, y); };
  const auto c_min = [](auto x, auto y) { return x != x ? x : y != y ? y : std::min(x, y); };
  expect_special_pairs_are_c<float>(kFloat, max_op, c_max);
  expect_special_pairs_are_c<double>(kDouble, max_op, c_max);
  expect_special_pairs_are_c<float>(kFloat, min_op, c_min);
  expect_special_pairs_are_c<double>(kDouble, min_op, c_min);
  for (ScalarType low : {kHalf, kBFloat16}) {
    const std::vector<double> v = {0.0, -0.0,     1.5,       -2.0, 1e30, -1e-30,
                                   NAN, INFINITY, -INFINITY, 3.0,  0.25};
    std::vector<double> a, b;
    for (double x : v) {
      for (double y : v) {
        a.push_back(x);
        b.push_back(y);
      }
    }
    const Tensor ta = tensor(a, TensorOptions(kDouble)).to(low);
    const Tensor tb = tensor(b, TensorOptions(kDouble)).to(low);
    using BinaryOp = std::function<Tensor(const Tensor&, const Tensor&)>;
    for (const BinaryOp& op : std::vector<BinaryOp>{max_op, min_op}) {
      const Tensor got = op(ta, tb).to(kFloat).view(kInt);
      const Tensor want = op(ta.to(kFloat), tb.to(kFloat)).to(low).to(kFloat).view(kInt);
      EXPECT_TRUE(got.equal(want)) << scalar_type_name(low);
    }
  }
}

// The CPU's vectorized float erfinv (special.cc's erfinv_float) gives
// special::erfinv<float>'s values: every 4099th float of [-1, 1], the
// special values (+-1, beyond +-1, +-0, NaN, infinities, subnormals, the
// floats next to +-1) at odd positions of a length no multiple of 8, so
// that they share vector lanes with ordinary values; and a strided view.
TEST(SpecialTest, FloatErfinvIsTheDoubleAlgorithmRounded) {
  std::vector<float> xs;
  for (uint32_t b = 0; b <= 0x3f800000u; b += 4099) {
    float f;
    std::memcpy(&f, &b, sizeof(f));
    xs.push_back(f);
    xs.push_back(-f);
  }
  const float specials[] = {1.0f,
                            -1.0f,
                            1.5f,
                            -2.0f,
                            0.0f,
                            -0.0f,
                            std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::denorm_min(),
                            -1e-40f,
                            std::nextafter(1.0f, 0.0f),
                            std::nextafter(-1.0f, 0.0f),
                            0.5f,
                            std::nextafter(0.5f, 1.0f)};
  size_t at = 3;
  for (float v : specials) {
    xs.insert(xs.begin() + static_cast<int64_t>(at), v);
    at = (at * 7 + 5) % xs.size();
  }
  if (xs.size() % 8 == 0) xs.push_back(0.25f);
  const Tensor x = from_blob(xs.data(), {static_cast<int64_t>(xs.size())}, kFloat).clone();
  for (const Tensor& in : {x, x.slice(0, 1, x.size(0), 3)}) {
    const Tensor got = in.erfinv().contiguous();
    const Tensor src = in.contiguous();
    for (int64_t i = 0; i < got.numel(); ++i) {
      const float v = src.data_ptr<float>()[i];
      const float want = special::erfinv<float>(v);
      const float g = got.data_ptr<float>()[i];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(g)) << v;
      } else {
        EXPECT_EQ(std::memcmp(&g, &want, sizeof(float)), 0) << v << ": " << g << ", want " << want;
      }
    }
  }
  // Half and bfloat16 compute in float.
  const Tensor h = x.to(kBFloat16);
  EXPECT_TRUE(h.erfinv().to(kFloat).nan_to_num(7, 8, -8).equal(
      h.to(kFloat).erfinv().to(kBFloat16).to(kFloat).nan_to_num(7, 8, -8)));
}

// The CPU's blocked special_i1 (special.cc's i1_strided) is the scalar
// series bit for bit: float and double, |x| up to 35 (past the series' end
// at 30), blocks mixing small and large |x|, special values (NaN,
// infinities, +-0, subnormals) among ordinary lanes, a length no multiple
// of the block, a strided view, on the pool's threads.
template <typename T>
void expect_i1_is_scalar(ScalarType dtype) {
  std::vector<T> xs;
  // More than the grain (kGrainSize): the pool's threads split the run.
  for (int i = 0; i < 40000; ++i) {
    // Every magnitude from 1e-6 to 35, both signs, in a scrambled order.
    const double u = static_cast<double>((i * 7919) % 40000) / 40000.0;
    const double v = 1e-6 * std::pow(35e6, u);
    xs.push_back(static_cast<T>(i % 2 ? -v : v));
  }
  const T specials[] = {std::numeric_limits<T>::quiet_NaN(),
                        std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity(),
                        T(0),
                        -T(0),
                        std::numeric_limits<T>::denorm_min(),
                        T(30),
                        T(-30),
                        T(29.999)};
  size_t at = 5;
  for (T v : specials) {
    xs.insert(xs.begin() + static_cast<int64_t>(at), v);
    at = (at * 13 + 11) % xs.size();
  }
  const Tensor x = from_blob(xs.data(), {static_cast<int64_t>(xs.size())}, dtype).clone();
  for (const Tensor& in : {x, x.slice(0, 2, x.size(0), 3)}) {
    const Tensor got = special_i1(in).contiguous();
    const Tensor src = in.contiguous();
    for (int64_t i = 0; i < got.numel(); ++i) {
      const T v = src.data_ptr<T>()[i];
      const T want = special::i1<T>(v);
      const T g = got.data_ptr<T>()[i];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(g)) << v;
      } else {
        EXPECT_EQ(std::memcmp(&g, &want, sizeof(T)), 0) << v << ": " << g << ", want " << want;
      }
    }
  }
}

TEST(SpecialTest, BlockedI1IsTheScalarSeries) {
  expect_i1_is_scalar<float>(kFloat);
  expect_i1_is_scalar<double>(kDouble);
}

// The CPU's vectorized float lgamma (special.cc's lgamma_float) is
// glibc's double lgamma rounded to float (the correctly rounded value,
// where glibc's lgammaf is up to 4 ulp off near the negative zeros): every
// 65537th float of either sign, the zeros 1 and 2 and their neighbours,
// values near the negative zeros, the poles (0, -0, negative integers),
// +-inf and NaN among ordinary lanes, x <= -7 (the two-log blocks) beside
// blocks without it, half and bfloat16, and a strided view.
TEST(SpecialTest, FloatLgammaIsTheDoubleOneRounded) {
  std::vector<float> xs;
  for (uint32_t b = 0; b < 0x7f800000u; b += 65537) {
    float f;
    std::memcpy(&f, &b, sizeof(f));
    xs.push_back(f);
    xs.push_back(-f);
  }
  // Blocks of 256 with only x > -7 (one log) after the loop above's mix.
  for (int i = 0; i < 600; ++i) xs.push_back(-6.9f + 0.023f * static_cast<float>(i));
  const float specials[] = {1.0f,
                            2.0f,
                            std::nextafter(1.0f, 0.0f),
                            std::nextafter(1.0f, 2.0f),
                            std::nextafter(2.0f, 1.0f),
                            std::nextafter(2.0f, 3.0f),
                            -2.4570248f,
                            -2.7476826f,
                            -3.1435945f,
                            0.0f,
                            -0.0f,
                            -1.0f,
                            -7.0f,
                            -8388608.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::max(),
                            4.0850e36f};
  size_t at = 7;
  for (float v : specials) {
    xs.insert(xs.begin() + static_cast<int64_t>(at), v);
    xs.push_back(v);  // and among the one-log blocks' values
    at = (at * 11 + 3) % xs.size();
  }
  const Tensor x = from_blob(xs.data(), {static_cast<int64_t>(xs.size())}, kFloat).clone();
  for (const Tensor& in : {x, x.slice(0, 1, x.size(0), 2)}) {
    const Tensor got = in.lgamma().contiguous();
    const Tensor src = in.contiguous();
    for (int64_t i = 0; i < got.numel(); ++i) {
      const float v = src.data_ptr<float>()[i];
      const float want = static_cast<float>(std::lgamma(static_cast<double>(v)));
      const float g = got.data_ptr<float>()[i];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(g)) << v;
      } else {
        EXPECT_EQ(std::memcmp(&g, &want, sizeof(float)), 0) << v << ": " << g << ", want " << want;
      }
    }
  }
  for (ScalarType t : {kHalf, kBFloat16}) {
    const Tensor h = x.to(t);
    EXPECT_TRUE(h.lgamma().to(kFloat).nan_to_num(7, 8, -8).equal(
        h.to(kFloat).lgamma().to(t).to(kFloat).nan_to_num(7, 8, -8)));
  }
}

TEST(SpecialTest, InPlaceFormsReturnSelf) {
  Tensor x = tensor({0.5, -0.25}, kDouble);
  EXPECT_TRUE(x.erfinv_().is_same(x));
  EXPECT_TRUE(x.allclose(erfinv(tensor({0.5, -0.25}, kDouble))));
  Tensor y = tensor({1.5, 3.0}, kDouble);
  EXPECT_TRUE(y.polygamma_(1).is_same(y));
  EXPECT_TRUE(y.allclose(polygamma(1, tensor({1.5, 3.0}, kDouble))));
  Tensor z = tensor({3.0, -4.0});
  EXPECT_TRUE(z.hypot_(tensor({4.0, 3.0})).is_same(z));
  EXPECT_TRUE(z.equal(tensor({5.0, 5.0})));
  EXPECT_TRUE(z.copysign_(-1).equal(tensor({-5.0, -5.0})));
  Tensor g = tensor({12, 18}, kLong);
  EXPECT_TRUE(g.gcd_(tensor({8, 12}, kLong)).is_same(g));
  EXPECT_TRUE(g.equal(tensor({4, 6}, kLong)));
  EXPECT_TRUE(g.lcm_(tensor({6, 4}, kLong)).equal(tensor({12, 12}, kLong)));
  Tensor l = tensor({1.0, 2.0});
  EXPECT_TRUE(l.ldexp_(tensor({3, -1}, kLong)).equal(tensor({8.0, 1.0})));
  Tensor n = tensor({1.0, 2.0});
  n.nextafter_(tensor({2.0, 1.0}));
  EXPECT_EQ(n[0].item<float>(), std::nextafter(1.0f, 2.0f));
  // An integer tensor cannot hold erfinv's float result.
  EXPECT_EQ(error_of([] {
              tensor({1, 2}, kLong).erfinv_();
            }),
            "result type Float can't be cast to the desired output type Long");
}

TEST(SpecialTest, AliasesAreTheOpsTheyName) {
  const Tensor x = tensor({0.25, -0.5, 0.75}, kDouble);
  EXPECT_TRUE(x.arccos().equal(x.acos()));
  EXPECT_TRUE(arcsin(x).equal(x.asin()));
  EXPECT_TRUE(x.arctan().equal(x.atan()));
  EXPECT_TRUE(arcsinh(x).equal(x.asinh()));
  EXPECT_TRUE(x.arctanh().equal(x.atanh()));
  EXPECT_TRUE((x + 2).arccosh().equal((x + 2).acosh()));
  EXPECT_TRUE(x.arctan2(x + 1).equal(x.atan2(x + 1)));
  EXPECT_TRUE(x.fix().equal(x.trunc()));
  EXPECT_TRUE(x.divide(x + 1).equal(x.div(x + 1)));
  EXPECT_TRUE(x.divide(0.3, "floor").equal(x.div(0.3, "floor")));
  EXPECT_TRUE(divide(x, 0.3, "trunc").equal(x.div(0.3, "trunc")));
  EXPECT_TRUE(x.true_divide(4).equal(x / 4));
  EXPECT_TRUE(multiply(x, x).equal(x * x));
  EXPECT_TRUE(x.subtract(1, 2).equal(x - 2));
  EXPECT_TRUE(subtract(x, x, 0.5).equal(x * 0.5));
  EXPECT_TRUE(x.greater(0).equal(x > 0));
  EXPECT_TRUE(greater_equal(x, 0.25).equal(x >= 0.25));
  EXPECT_TRUE(x.less(x * 2).equal(x < x * 2));
  EXPECT_TRUE(less_equal(x, 0.25).equal(x <= 0.25));
  EXPECT_TRUE(x.not_equal(0.25).equal(x != 0.25));
  Tensor y = x.clone();
  EXPECT_TRUE(y.arccos_().is_same(y));
  EXPECT_TRUE(y.equal(x.acos()));
  y = x.clone();
  y.multiply_(2).subtract_(1).divide_(2);
  EXPECT_TRUE(y.allclose((x * 2 - 1) / 2));
  y = x.clone();
  EXPECT_TRUE(y.greater_(0).equal(tensor({1.0, 0.0, 1.0}, kDouble)));
  y = x.clone();
  EXPECT_TRUE(y.fix_().equal(tensor({0.0, -0.0, 0.0}, kDouble)));
  EXPECT_TRUE(special_psi(x).equal(digamma(x)));
  EXPECT_TRUE(special_gammaln(x).equal(lgamma(x)));
}

}  // namespace
}  // namespace ember
