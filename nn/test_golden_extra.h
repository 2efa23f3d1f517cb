#ifndef EMBER_NN_TEST_GOLDEN_EXTRA_H_
#define EMBER_NN_TEST_GOLDEN_EXTRA_H_

// Test-only: the tables tools/golden/nn_modules_extra.py writes from
// PyTorch (testdata/nn_modules_extra_*golden.inc): issue 19's Conv3d,
// ConvTranspose3d, BatchNorm3d, the 1-d / 3-d / adaptive pooling layers,
// Upsample, Fold and Unfold. Checked with test_golden_more.h's helpers
// (expect_layer_in(tables(), ...), params_string, repr).

#include "nn/test_golden.h"
#include "nn/test_golden_more.h"

namespace ember {
namespace nn {
namespace testing {
namespace extra {

const GoldenTables& tables();

}  // namespace extra
}  // namespace testing
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_TEST_GOLDEN_EXTRA_H_
