#include "nn/test_golden_more.h"

#include <cstddef>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

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

struct GoldenString {
  const char* name;
  const char* text;
};
const GoldenString kStrings[] = {
#include "nn/testdata/nn_modules_more_strings_golden.inc"
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
