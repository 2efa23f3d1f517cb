// libtorch's macros, c10::str and c10::optional under ember's names
// (tensor/libtorch_compat.h): what they throw and print.

#include "tensor/libtorch_compat.h"

#include <cmath>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include "tensor/all.h"

namespace ember {
namespace {

static_assert(std::is_same<optional<int>, std::optional<int>>::value, "c10::optional");

std::string message_of(void (*fn)()) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(LibtorchCompatTest, StrStreamsEveryArgument) {
  EXPECT_EQ(str("dcgan-sample-", 3, ".pt"), "dcgan-sample-3.pt");
  EXPECT_EQ(str("a", 1, 2.5, zeros({2, 3}).sizes()), "a12.5[2, 3]");
  EXPECT_EQ(str(), "");
  EXPECT_EQ(str(std::string("s"), 'c', -2L), "sc-2");
}

TEST(LibtorchCompatTest, OptionalAndNullopt) {
  optional<int64_t> dim = nullopt;
  EXPECT_FALSE(dim.has_value());
  dim = 3;
  EXPECT_EQ(*dim, 3);
}

TEST(LibtorchCompatTest, TorchCheckThrowsWithTheCallersMessage) {
  EXPECT_EQ(message_of([] { TORCH_CHECK(1 == 2, "bad ", 3); }), "bad 3");
  // Without parts: c10's default message.
  EXPECT_EQ(message_of([] { TORCH_CHECK(1 == 2); }),
            "Expected 1 == 2 to be true, but got false.");
  TORCH_CHECK(2 == 2, "never built");  // no throw
  int evaluated = 0;
  TORCH_CHECK(true, "x", ++evaluated);
  EXPECT_EQ(evaluated, 0);  // parts only on failure
  EXPECT_THROW(TORCH_CHECK_INDEX(false, "i"), IndexError);
  EXPECT_THROW(TORCH_CHECK_VALUE(false, "v"), ValueError);
  EXPECT_THROW(TORCH_CHECK_TYPE(false, "t"), TypeError);
}

TEST(LibtorchCompatTest, InternalAssertsNameTheConditionAndPlace) {
  const std::string m = message_of([] { AT_ASSERT(1 == 2); });
  EXPECT_EQ(m.find("1 == 2 INTERNAL ASSERT FAILED at \""), 0u) << m;
  EXPECT_NE(m.find("libtorch_compat_test.cc\":"), std::string::npos) << m;
  EXPECT_NE(m.find(", please report a bug to ember. "), std::string::npos) << m;
  const std::string m2 = message_of([] { TORCH_INTERNAL_ASSERT(1 == 2, "msg ", 4); });
  EXPECT_EQ(m2.substr(m2.size() - 5), "msg 4") << m2;
  AT_ASSERT(!std::isnan(1.0f));  // no throw
}

void warn_twice() {
  for (int i = 0; i < 2; ++i) TORCH_WARN_ONCE("once ", i);
}

TEST(LibtorchCompatTest, WarnPrintsToStderr) {
  ::testing::internal::CaptureStderr();
  TORCH_WARN("warned ", 7);
  warn_twice();
  warn_twice();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "Warning: warned 7 (function TestBody)\n"
            "Warning: once 0 (function warn_twice)\n");
}

TEST(LibtorchCompatTest, ShortDtypeNames) {
  EXPECT_EQ(kF32, kFloat);
  EXPECT_EQ(kF64, kDouble);
  EXPECT_EQ(kF16, kHalf);
  EXPECT_EQ(kI8, kChar);
  EXPECT_EQ(kI16, kShort);
  EXPECT_EQ(kI32, kInt);
  EXPECT_EQ(kI64, kLong);
  EXPECT_EQ(kU8, kByte);
  EXPECT_EQ(ones({2}).to(kF32).dtype(), kFloat);
}

}  // namespace
}  // namespace ember
