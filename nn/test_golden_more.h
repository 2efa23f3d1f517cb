#ifndef EMBER_NN_TEST_GOLDEN_MORE_H_
#define EMBER_NN_TEST_GOLDEN_MORE_H_

// Test-only: the tables tools/golden/nn_modules_more.py writes from PyTorch
// (testdata/nn_modules_more_*golden.inc), the same lookups as
// test_golden.h's for the modules added after nn_modules.py.

#include <functional>
#include <sstream>
#include <string>

#include "nn/module.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace nn {
namespace testing {
namespace more {

const ::ember::testing::GoldenEntry& golden(const std::string& name);
inline Tensor golden_tensor(const std::string& name) {
  return ::ember::testing::golden_tensor(golden(name));
}
std::string golden_string(const std::string& name);
void expect_golden_error(const std::string& name, const std::function<void()>& f);

// "name [sizes]" per parameter, one a line, as the generator prints them.
std::string params_string(const Module& m);
// The state_dict's keys, one a line.
std::string state_dict_keys(const Module& m);
std::string repr(const Module& m);

}  // namespace more
}  // namespace testing
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_TEST_GOLDEN_MORE_H_
