// nn::init::dirac_ and sparse_ against PyTorch 1.13 (tools/golden/init_extra.py).

#include <gtest/gtest.h>

#include "nn/init.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::find_golden;
using testing::matches_golden;

const testing::GoldenEntry kGolden[] = {
#include "nn/testdata/init_extra_golden.inc"
};

TEST(InitExtraTest, DiracAsPyTorch) {
  EXPECT_TRUE(matches_golden(nn::init::dirac_(empty({3, 2, 5})), find_golden(kGolden, "dirac_3d")));
  EXPECT_TRUE(matches_golden(nn::init::dirac_(empty({4, 3, 3, 2}), 2),
                             find_golden(kGolden, "dirac_4d_groups2")));
  EXPECT_TRUE(
      matches_golden(nn::init::dirac_(empty({2, 2, 3, 1, 3})), find_golden(kGolden, "dirac_5d")));
  EXPECT_THROW(nn::init::dirac_(empty({3, 3})), Error);
  EXPECT_THROW(nn::init::dirac_(empty({3, 2, 2}), 2), Error);  // 3 out channels, 2 groups
}

TEST(InitExtraTest, SparseDrawsAsPyTorch) {
  manual_seed(0);
  EXPECT_TRUE(matches_golden(nn::init::sparse_(empty({6, 4}), 0.5, 0.02),
                             find_golden(kGolden, "sparse_6x4")));
  manual_seed(1);
  EXPECT_TRUE(matches_golden(nn::init::sparse_(empty({5, 3}), 0.3),
                             find_golden(kGolden, "sparse_5x3_default_std")));
  EXPECT_THROW(nn::init::sparse_(empty({2, 2, 2}), 0.5), Error);
}

}  // namespace
}  // namespace ember
