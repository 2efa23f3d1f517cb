#include "nn/test_golden.h"

#include <cstddef>

namespace ember {
namespace nn {
namespace testing {
namespace {

using ::ember::testing::GoldenEntry;
using ::ember::testing::GoldenError;

const GoldenEntry kGolden[] = {
#include "nn/testdata/nn_modules_golden.inc"
};

const GoldenError kErrors[] = {
#include "nn/testdata/nn_modules_errors_golden.inc"
};

struct GoldenString {
  const char* name;
  const char* text;
};
const GoldenString kStrings[] = {
#include "nn/testdata/nn_modules_strings_golden.inc"
};

}  // namespace

const GoldenEntry& golden(const std::string& name) {
  return ::ember::testing::find_golden(kGolden, name);
}

std::string golden_string(const std::string& name) {
  for (const GoldenString& s : kStrings) {
    if (name == s.name) return s.text;
  }
  ADD_FAILURE() << "no golden string " << name;
  return "";
}

void expect_golden_error(const std::string& name, const std::function<void()>& f) {
  ::ember::testing::expect_golden_error(kErrors, name, f);
}

}  // namespace testing
}  // namespace nn
}  // namespace ember
