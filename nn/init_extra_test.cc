// nn::init::dirac_, sparse_ and trunc_normal_ against PyTorch 1.13 (tools/golden/init_extra.py).

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

// erfinv as ATen computes it in the tensor's dtype: float32 draws bit for
// bit as PyTorch's.
TEST(InitExtraTest, TruncNormalDrawsAsPyTorch) {
  manual_seed(2);
  EXPECT_TRUE(matches_golden(nn::init::trunc_normal_(empty({4, 6})),
                             find_golden(kGolden, "trunc_normal_default")));
  manual_seed(3);
  EXPECT_TRUE(matches_golden(nn::init::trunc_normal_(empty({3, 5}), 0.5, 0.2, -0.1, 0.9),
                             find_golden(kGolden, "trunc_normal_shifted")));
  manual_seed(4);
  EXPECT_TRUE(matches_golden(nn::init::trunc_normal_(empty({2, 7}, kDouble), 0.0, 1.0, -1.5, 0.5),
                             find_golden(kGolden, "trunc_normal_double")));
  Tensor t = nn::init::trunc_normal_(empty({1000}), 0, 1, -0.5, 0.25);
  EXPECT_GE(t.min().item<float>(), -0.5f);
  EXPECT_LE(t.max().item<float>(), 0.25f);
  EXPECT_THROW(nn::init::trunc_normal_(empty({3}, kLong)), Error);
}

// The same draws, and Q unique once R's diagonal is positive: PyTorch's
// matrix within rounding (its QR is LAPACK's, ember's a Householder QR).
TEST(InitExtraTest, OrthogonalAsPyTorch) {
  manual_seed(5);
  EXPECT_TRUE(matches_golden(nn::init::orthogonal_(empty({6, 4})),
                             find_golden(kGolden, "orthogonal_tall"), 1e-5));
  manual_seed(6);
  Tensor wide = nn::init::orthogonal_(empty({3, 2, 4}), 2.0);
  EXPECT_TRUE(matches_golden(wide, find_golden(kGolden, "orthogonal_wide_gain"), 1e-5));
  // Rows orthogonal, of length gain.
  Tensor w = wide.reshape({3, 8});
  EXPECT_TRUE(w.matmul(w.t()).allclose(eye(3) * 4, 1e-5, 1e-5));
  EXPECT_THROW(nn::init::orthogonal_(empty({4})), Error);
}

}  // namespace
}  // namespace ember
