// The shared golden checks must fail when ember differs from PyTorch: every
// //tensor test relies on them.

#include "tensor/testing/golden.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tensor/empty.h"
#include "tensor/math.h"

namespace ember {
namespace testing {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const GoldenEntry kTable[] = {
    {"ints", {2, 2}, kLong, {1, 2, 3, 4}},
    {"nan", {3}, kFloat, {1.5, kNaN, -2}},
    {"float64", {2}, kDouble, {100, 0.001}},
};

const GoldenError kErrors[] = {
    {"index", "IndexError", "index 5 is out of bounds"},
    {"runtime", "RuntimeError", "bad shape"},
    {"value", "ValueError", "bad value"},
};

TEST(GoldenTest, FindsEntriesAndFailsOnMissingNames) {
  EXPECT_EQ(find_golden(kTable, "nan").sizes, (std::vector<int64_t>{3}));
  EXPECT_NONFATAL_FAILURE(find_golden(kTable, "absent"), "no golden entry absent");
}

TEST(GoldenTest, MatchesSameDtypeSizesAndValuesWithNaN) {
  EXPECT_TRUE(matches_golden(golden_tensor(kTable[0]), kTable[0]));
  EXPECT_TRUE(matches_golden(from_values({3}, {1.5, kNaN, -2}, kFloat), kTable[1]));
}

TEST(GoldenTest, RejectsDtypeSizesAndValueDifferences) {
  ::testing::AssertionResult r = matches_golden(from_values({2, 2}, {1, 2, 3, 4}, kInt), kTable[0]);
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("dtype torch.int32, expected torch.int64"), std::string::npos)
      << r.message();
  r = matches_golden(from_values({4}, {1, 2, 3, 4}, kLong), kTable[0]);
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("sizes [4], expected [2, 2]"), std::string::npos)
      << r.message();
  r = matches_golden(from_values({2, 2}, {1, 2, 3, 5}, kLong), kTable[0]);
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("element 3 is 5, PyTorch gives 4"), std::string::npos)
      << r.message();
  EXPECT_FALSE(matches_golden(from_values({3}, {1.5, 0, -2}, kFloat), kTable[1]));  // NaN vs 0
}

TEST(GoldenTest, RelativeToleranceScalesWithTheValue) {
  const GoldenEntry& g = kTable[2];  // {100, 0.001}
  EXPECT_FALSE(matches_golden(from_values({2}, {100.05, 0.001}, kDouble), g));
  EXPECT_TRUE(matches_golden(from_values({2}, {100.05, 0.001}, kDouble), g, 1e-3));
  // matches_golden is relative to |want|: 0.001 + 1e-5 is 1% off.
  EXPECT_FALSE(matches_golden(from_values({2}, {100, 0.00101}, kDouble), g, 1e-3));
}

TEST(GoldenTest, NearGoldenChecksItsOwnDtypeAndFloorsTheScaleAtOne) {
  const GoldenEntry& g = kTable[2];  // PyTorch's float64 values
  // near_golden is relative to max(1, |want|): 1e-5 off 0.001 is within 1e-3.
  EXPECT_TRUE(near_golden(from_values({2}, {100.05, 0.00101}, kFloat), g, kFloat, 1e-3));
  EXPECT_FALSE(near_golden(from_values({2}, {100.2, 0.001}, kFloat), g, kFloat, 1e-3));
  EXPECT_FALSE(near_golden(from_values({2}, {100, 0.001}, kDouble), g, kFloat, 1e-3));
  EXPECT_FALSE(near_golden(from_values({2}, {100, 0.0011}, kDouble), g, kDouble));  // rel 0: exact
}

TEST(GoldenTest, GoldenErrorsWantMessageAndPythonClass) {
  expect_golden_error(kErrors, "index", [] { throw IndexError("index 5 is out of bounds"); });
  expect_golden_error(kErrors, "runtime", [] { throw Error("bad shape"); });
  expect_golden_error(kErrors, "value", [] { throw ValueError("bad value"); });
  EXPECT_NONFATAL_FAILURE(
      expect_golden_error(kErrors, "index", [] { throw Error("index 5 is out of bounds"); }),
      "Python raises IndexError");
  EXPECT_NONFATAL_FAILURE(
      expect_golden_error(kErrors, "runtime", [] { throw IndexError("bad shape"); }),
      "Python raises RuntimeError");
  EXPECT_NONFATAL_FAILURE(expect_golden_error(kErrors, "value", [] { throw ValueError("other"); }),
                          "bad value");
  EXPECT_NONFATAL_FAILURE(expect_golden_error(kErrors, "value", [] {}), "no error");
  EXPECT_FATAL_FAILURE(expect_golden_error(kErrors, "absent", [] {}), "no golden error absent");
}

TEST(GoldenTest, ErrorsSpelledInTheTest) {
  EXPECT_EQ(error_of([] { throw Error("boom"); }), "boom");
  EXPECT_EQ(error_of([] {}), "(no error)");
  expect_error<TypeError>([] { throw TypeError("not a sequence"); }, "not a sequence");
  EXPECT_NONFATAL_FAILURE(expect_error([] {}, "boom"), "no exception; expected: boom");
  EXPECT_NONFATAL_FAILURE(expect_error([] { throw Error("bang"); }, "boom"), "bang");
}

TEST(GoldenTest, MakeInputMirrorsGoldenUtilMk) {
  // mk((5,)) and friends in tools/golden/golden_util.py.
  EXPECT_EQ(values_of(make_input({5})), (std::vector<double>{-0.75, 1.0, 0.0, 1.75, 0.75}));
  EXPECT_EQ(make_input({5}).dtype(), kFloat);
  EXPECT_EQ(values_of(make_input({5}, kLong)), (std::vector<double>{-3, 4, 0, 7, 3}));
  EXPECT_EQ(values_of(make_input({5}, kByte)), (std::vector<double>{0, 7, 3, 10, 6}));
  EXPECT_EQ(values_of(make_input({5}, kBool)), (std::vector<double>{0, 1, 1, 0, 0}));
  EXPECT_EQ(values_of(make_input({3}, kInt, 1)), (std::vector<double>{4, 0, 7}));
  EXPECT_EQ(make_input({2, 3}).sizes(), IntArrayRef({2, 3}));
}

TEST(GoldenTest, FromValuesRejectsTheWrongCount) {
  EXPECT_EQ(error_of([] { from_values({2, 2}, {1, 2, 3}, kFloat); }),
            "from_values: 3 values for sizes [2, 2]");
}

TEST(GoldenTest, StridedViewsShareStorage) {
  Tensor base = from_values({6}, {0, 1, 2, 3, 4, 5}, kFloat);
  Tensor v = strided_view(base, {2, 2}, {1, 2}, /*offset=*/1);  // [[1, 3], [2, 4]]
  EXPECT_EQ(values_of(v), (std::vector<double>{1, 3, 2, 4}));
  EXPECT_TRUE(shares_storage(v, base));
  EXPECT_FALSE(shares_storage(v.contiguous(), base));
}

TEST(GoldenTest, MathCasesRebuildViewsAndCompareWithinTolerance) {
  const GoldenCase& c = math_case("add_float");
  ASSERT_EQ(c.inputs.size(), 2u);
  Tensor x = make_tensor(c.inputs[0]);
  EXPECT_EQ(x.dtype(), kFloat);
  EXPECT_EQ(std::vector<int64_t>(x.sizes().begin(), x.sizes().end()), c.inputs[0].sizes);
  EXPECT_NONFATAL_FAILURE(math_case("absent"), "no golden case absent");
  // The right values in the wrong dtype fail once; the wrong sizes stop the check.
  check("add_float", [](std::vector<Tensor>& in) { return in[0] + in[1]; });
  EXPECT_NONFATAL_FAILURE(
      check("add_float", [](std::vector<Tensor>& in) { return (in[0] + in[1]).to(kDouble); }),
      "add_float");
  EXPECT_FATAL_FAILURE(check("add_float", [](std::vector<Tensor>&) { return empty({1}); }),
                       "add_float");
}

}  // namespace
}  // namespace testing
}  // namespace ember
