#ifndef EMBER_NN_TEST_GOLDEN_MISC_H_
#define EMBER_NN_TEST_GOLDEN_MISC_H_

// Test-only: the tables tools/golden/nn_modules_misc.py writes from
// PyTorch (testdata/nn_modules_misc_*golden.inc), for issue 19's layers.

#include <string>

#include "nn/test_golden.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace nn {
namespace testing {
namespace misc {

const GoldenTables& tables();
inline Tensor golden_tensor(const std::string& name) {
  return ::ember::testing::golden_tensor(tables().golden(name));
}

}  // namespace misc
}  // namespace testing
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_TEST_GOLDEN_MISC_H_
