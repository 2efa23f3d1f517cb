#ifndef EMBER_NN_TEST_GOLDEN_H_
#define EMBER_NN_TEST_GOLDEN_H_

// Test-only: the tables tools/golden/nn_modules.py writes from PyTorch
// (testdata/nn_modules_*golden.inc), compiled once for all //nn tests.

#include <functional>
#include <string>

#include "tensor/testing/golden.h"

namespace ember {
namespace nn {
namespace testing {

// The named tensor; fails the test when missing.
const ::ember::testing::GoldenEntry& golden(const std::string& name);
inline Tensor golden_tensor(const std::string& name) {
  return ::ember::testing::golden_tensor(golden(name));
}
// A printed tree or key list ("repr.net", "state_dict.small").
std::string golden_string(const std::string& name);
// Runs f, which must throw PyTorch's error `name`.
void expect_golden_error(const std::string& name, const std::function<void()>& f);

}  // namespace testing
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_TEST_GOLDEN_H_
