// The elementwise math cases (testdata/math_golden.inc, written by
// tools/golden/math.py), compiled once for the three math tests.

#include <string>

#include "tensor/testing/golden.h"

namespace ember {
namespace testing {

#include "tensor/testdata/math_golden.inc"

const GoldenCase& math_case(const std::string& name) {
  for (const GoldenCase& c : kMathGolden) {
    if (name == c.name) return c;
  }
  ADD_FAILURE() << "no golden case " << name;
  static const GoldenCase kNone{"", {}, {}, ""};
  return kNone;
}

}  // namespace testing
}  // namespace ember
