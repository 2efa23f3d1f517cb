// Comparisons, logical and bitwise ops, value tests and closeness against
// PyTorch 1.13 (tools/golden/math.py).

#include <gtest/gtest.h>

#include <string>

#include "tensor/math.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::check;
using testing::check_bool;
using testing::check_error;
using In = std::vector<Tensor>;

struct CompareOp {
  const char* name;
  Tensor (*fn)(const Tensor&, const Tensor&);
  Tensor (*scalar_fn)(const Tensor&, const Scalar&);
};
const CompareOp kCompareOps[] = {
    {"eq", &eq, &eq}, {"ne", &ne, &ne}, {"lt", &lt, &lt},
    {"le", &le, &le}, {"gt", &gt, &gt}, {"ge", &ge, &ge},
};

class CompareTest : public ::testing::TestWithParam<CompareOp> {};

std::string name_of(const char* suffix) { return std::string(CompareTest::GetParam().name) + suffix; }

TEST_P(CompareTest, BroadcastWithNan) {
  check(name_of("_broadcast_nan"), [](In& x) { return GetParam().fn(x[0], x[1]); });
}
TEST_P(CompareTest, IntAgainstFloatPromotes) {
  check(name_of("_int_float"), [](In& x) { return GetParam().fn(x[0], x[1]); });
}
TEST_P(CompareTest, WithNumber) {
  check(name_of("_scalar"), [](In& x) { return GetParam().scalar_fn(x[0], 2.5); });
}
TEST_P(CompareTest, TransposedHalf) {
  check(name_of("_half_transposed"), [](In& x) { return GetParam().fn(x[0], x[1]); });
}
TEST_P(CompareTest, Bool) {
  check(name_of("_bool"), [](In& x) { return GetParam().fn(x[0], x[1]); });
}

INSTANTIATE_TEST_SUITE_P(AllOps, CompareTest, ::testing::ValuesIn(kCompareOps),
                         [](const ::testing::TestParamInfo<CompareOp>& info) {
                           return std::string(info.param.name);
                         });

TEST(CompareOperatorTest, Operators) {
  check("eq_operator_int_scalar", [](In& x) { return x[0] == 2; });
  check("lt_operator_uint8_int8", [](In& x) { return x[0] < x[1]; });
  check("ge_operator_expanded", [](In& x) { return x[0] >= x[1]; });
  check("ne_broadcast_nan", [](In& x) { return x[0] != x[1]; });
  check("le_broadcast_nan", [](In& x) { return x[0] <= x[1]; });
  check("gt_broadcast_nan", [](In& x) { return x[0] > x[1]; });
  check("eq_broadcast_nan", [](In& x) { return x[0].eq(x[1]); });
  check_error("err_compare_broadcast", [](In& x) { x[0] == x[1]; });
}

TEST(LogicalTest, MixedDtypes) {
  check("logical_and_mixed", [](In& x) { return logical_and(x[0], x[1]); });
  check("logical_or_mixed", [](In& x) { return x[0].logical_or(x[1]); });
  check("logical_xor_mixed", [](In& x) { return logical_xor(x[0], x[1]); });
}

TEST(LogicalTest, BoolBroadcast) {
  check("logical_and_bool_broadcast", [](In& x) { return x[0].logical_and(x[1]); });
  check("logical_or_bool_broadcast", [](In& x) { return logical_or(x[0], x[1]); });
  check("logical_xor_bool_broadcast", [](In& x) { return x[0].logical_xor(x[1]); });
}

TEST(BitwiseTest, Integers) {
  check("bitwise_and_int", [](In& x) { return x[0] & x[1]; });
  check("bitwise_or_int", [](In& x) { return x[0] | x[1]; });
  check("bitwise_xor_int", [](In& x) { return x[0] ^ x[1]; });
}

TEST(BitwiseTest, Bools) {
  check("bitwise_and_bool", [](In& x) { return bitwise_and(x[0], x[1]); });
  check("bitwise_or_bool", [](In& x) { return x[0].bitwise_or(x[1]); });
  check("bitwise_xor_bool", [](In& x) { return bitwise_xor(x[0], x[1]); });
}

TEST(BitwiseTest, IntWithBoolPromotes) {
  check("bitwise_and_int_bool", [](In& x) { return x[0] & x[1]; });
  check("bitwise_or_int_bool", [](In& x) { return x[0] | x[1]; });
  check("bitwise_xor_int_bool", [](In& x) { return x[0] ^ x[1]; });
}

TEST(BitwiseTest, WithNumber) {
  check("bitwise_and_uint8_scalar", [](In& x) { return bitwise_and(x[0], 6); });
  check("bitwise_or_uint8_scalar", [](In& x) { return bitwise_or(x[0], 6); });
  check("bitwise_xor_uint8_scalar", [](In& x) { return bitwise_xor(x[0], 6); });
}

TEST(BitwiseTest, FloatIsRefused) {
  check_error("err_bitwise_and_float", [](In& x) { x[0] & x[1]; });
  check_error("err_bitwise_or_float", [](In& x) { x[0] | x[1]; });
  check_error("err_bitwise_xor_float", [](In& x) { x[0] ^ x[1]; });
}

TEST(ValueTest, IsNan) {
  check("isnan_float", [](In& x) { return isnan(x[0]); });
  check("isnan_half", [](In& x) { return x[0].isnan(); });
  check("isnan_int", [](In& x) { return isnan(x[0]); });
}

TEST(ValueTest, IsInf) {
  check("isinf_float", [](In& x) { return isinf(x[0]); });
  check("isinf_half", [](In& x) { return x[0].isinf(); });
  check("isinf_int", [](In& x) { return isinf(x[0]); });
}

TEST(ValueTest, IsFinite) {
  check("isfinite_float", [](In& x) { return isfinite(x[0]); });
  check("isfinite_half", [](In& x) { return x[0].isfinite(); });
  check("isfinite_int", [](In& x) { return isfinite(x[0]); });
}

TEST(IscloseTest, Tolerances) {
  check("isclose_default", [](In& x) { return isclose(x[0], x[1]); });
  check("isclose_equal_nan", [](In& x) { return isclose(x[0], x[1], 1e-5, 1e-8, true); });
  check("isclose_tolerances", [](In& x) { return x[0].isclose(x[1], 1e-3, 1e-2); });
  check("isclose_exact", [](In& x) { return isclose(x[0], x[1], 0, 0); });
}

TEST(IscloseTest, DtypesAndBroadcast) {
  check("isclose_int", [](In& x) { return isclose(x[0], x[1], 0.1, 1); });
  check("isclose_half", [](In& x) { return isclose(x[0], x[1]); });
  check("isclose_double_broadcast", [](In& x) { return isclose(x[0], x[1]); });
}

TEST(IscloseTest, Errors) {
  check_error("err_isclose_dtype", [](In& x) { isclose(x[0], x[1]); });
  check_error("err_isclose_rtol", [](In& x) { isclose(x[0], x[0], -1.0); });
  check_error("err_isclose_atol", [](In& x) { isclose(x[0], x[0], 1e-5, -0.5); });
}

TEST(AllcloseTest, Values) {
  check_bool("allclose_true", [](In& x) { return allclose(x[0], x[1]); });
  check_bool("allclose_false", [](In& x) { return x[0].allclose(x[1]); });
  check_bool("allclose_nan", [](In& x) { return allclose(x[0], x[1], 1e-5, 1e-8, true); });
}

TEST(EqualTest, Values) {
  check_bool("equal_true", [](In& x) { return equal(x[0], x[0].clone()); });
  check_bool("equal_same_values_transposed", [](In& x) { return x[0].equal(x[0].contiguous()); });
  check_bool("equal_false", [](In& x) { return equal(x[0], x[1]); });
  check_bool("equal_sizes_differ", [](In& x) { return equal(x[0], x[1]); });
  check_bool("equal_dtypes_differ", [](In& x) { return equal(x[0], x[1]); });
  check_bool("equal_nan", [](In& x) { return equal(x[0], x[1]); });
}

}  // namespace
}  // namespace ember
