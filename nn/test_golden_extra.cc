#include "nn/test_golden_extra.h"

namespace ember {
namespace nn {
namespace testing {
namespace extra {
namespace {

using ::ember::testing::GoldenEntry;
using ::ember::testing::GoldenError;

const GoldenEntry kGolden[] = {
#include "nn/testdata/nn_modules_extra_golden.inc"
};

const GoldenError kErrors[] = {
#include "nn/testdata/nn_modules_extra_errors_golden.inc"
};

const GoldenString kStrings[] = {
#include "nn/testdata/nn_modules_extra_strings_golden.inc"
};

constexpr GoldenTables kTables(kGolden, kErrors, kStrings);

}  // namespace

const GoldenTables& tables() { return kTables; }

}  // namespace extra
}  // namespace testing
}  // namespace nn
}  // namespace ember
