#include "nn/test_golden_misc.h"

namespace ember {
namespace nn {
namespace testing {
namespace misc {
namespace {

using ::ember::testing::GoldenEntry;
using ::ember::testing::GoldenError;

const GoldenEntry kGolden[] = {
#include "nn/testdata/nn_modules_misc_golden.inc"
};

const GoldenError kErrors[] = {
#include "nn/testdata/nn_modules_misc_errors_golden.inc"
};

const GoldenString kStrings[] = {
#include "nn/testdata/nn_modules_misc_strings_golden.inc"
};

constexpr GoldenTables kTables(kGolden, kErrors, kStrings);

}  // namespace

const GoldenTables& tables() { return kTables; }

}  // namespace misc
}  // namespace testing
}  // namespace nn
}  // namespace ember
