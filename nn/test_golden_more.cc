#include "nn/test_golden_more.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nn/test_golden.h"

namespace ember {
namespace nn {
namespace testing {
namespace more {
namespace {

using ::ember::testing::GoldenEntry;
using ::ember::testing::GoldenError;

const GoldenEntry kGolden[] = {
#include "nn/testdata/nn_modules_more_golden.inc"
};

const GoldenError kErrors[] = {
#include "nn/testdata/nn_modules_more_errors_golden.inc"
};

const GoldenString kStrings[] = {
#include "nn/testdata/nn_modules_more_strings_golden.inc"
};

constexpr GoldenTables kTables(kGolden, kErrors, kStrings);

}  // namespace

const GoldenTables& tables() { return kTables; }

const GoldenEntry& golden(const std::string& name) { return kTables.golden(name); }

std::string golden_string(const std::string& name) { return kTables.golden_string(name); }

void expect_golden_error(const std::string& name, const std::function<void()>& f) {
  kTables.expect_golden_error(name, f);
}

std::string params_string(const Module& m) {
  std::vector<std::string> lines;
  for (const auto& [name, p] : m.named_parameters()) {
    lines.push_back(absl::StrCat(name, " [", absl::StrJoin(p.sizes(), ", "), "]"));
  }
  return absl::StrJoin(lines, "\n");
}

std::string state_dict_keys(const Module& m) {
  std::vector<std::string> keys;
  for (const auto& [name, t] : m.state_dict()) keys.push_back(name);
  return absl::StrJoin(keys, "\n");
}

std::string repr(const Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

}  // namespace more
}  // namespace testing
}  // namespace nn
}  // namespace ember
