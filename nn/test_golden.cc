#include "nn/test_golden.h"

#include <gtest/gtest.h>

namespace ember {
namespace nn {
namespace testing {

using ::ember::testing::GoldenEntry;
using ::ember::testing::GoldenError;

const GoldenEntry& GoldenTables::golden(const std::string& name) const {
  return ::ember::testing::find_golden(golden_, num_golden_, name);
}

std::string GoldenTables::golden_string(const std::string& name) const {
  for (size_t i = 0; i < num_strings_; ++i) {
    if (name == strings_[i].name) return strings_[i].text;
  }
  ADD_FAILURE() << "no golden string " << name;
  return "";
}

void GoldenTables::expect_golden_error(const std::string& name,
                                       const std::function<void()>& f) const {
  ::ember::testing::expect_golden_error(errors_, num_errors_, name, f);
}

namespace {

const GoldenEntry kGolden[] = {
#include "nn/testdata/nn_modules_golden.inc"
};

const GoldenError kErrors[] = {
#include "nn/testdata/nn_modules_errors_golden.inc"
};

const GoldenString kStrings[] = {
#include "nn/testdata/nn_modules_strings_golden.inc"
};

constexpr GoldenTables kTables(kGolden, kErrors, kStrings);

}  // namespace

const GoldenEntry& golden(const std::string& name) { return kTables.golden(name); }

std::string golden_string(const std::string& name) { return kTables.golden_string(name); }

void expect_golden_error(const std::string& name, const std::function<void()>& f) {
  kTables.expect_golden_error(name, f);
}

}  // namespace testing
}  // namespace nn
}  // namespace ember
