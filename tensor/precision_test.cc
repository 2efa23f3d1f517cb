// Note [float32 matmul precision]: the switches' defaults and how the two
// views of cuBLAS's setting agree, as in PyTorch. (Their effect on products
// is checked on a GPU: //tensor/cuda:ops_test.)

#include "tensor/precision.h"

#include <gtest/gtest.h>

namespace ember {
namespace {

class PrecisionTest : public ::testing::Test {
 protected:
  void TearDown() override {
    set_float32_matmul_precision("highest");
    cuda::set_cudnn_allow_tf32(true);
  }
};

TEST_F(PrecisionTest, DefaultsArePyTorchs) {
  EXPECT_EQ(get_float32_matmul_precision(), "highest");
  EXPECT_FALSE(cuda::matmul::allow_tf32());
  EXPECT_TRUE(cuda::cudnn_allow_tf32());
}

TEST_F(PrecisionTest, PrecisionAndAllowTf32AreOneSetting) {
  set_float32_matmul_precision("high");
  EXPECT_TRUE(cuda::matmul::allow_tf32());
  set_float32_matmul_precision("medium");
  EXPECT_EQ(get_float32_matmul_precision(), "medium");
  EXPECT_TRUE(cuda::matmul::allow_tf32());
  cuda::matmul::set_allow_tf32(false);
  EXPECT_EQ(get_float32_matmul_precision(), "highest");
  cuda::matmul::set_allow_tf32(true);
  EXPECT_EQ(get_float32_matmul_precision(), "high");
}

TEST_F(PrecisionTest, CudnnSwitchIsSeparate) {
  cuda::set_cudnn_allow_tf32(false);
  EXPECT_FALSE(cuda::cudnn_allow_tf32());
  EXPECT_EQ(get_float32_matmul_precision(), "highest");
  cuda::matmul::set_allow_tf32(true);
  EXPECT_FALSE(cuda::cudnn_allow_tf32());
}

TEST_F(PrecisionTest, UnknownPrecisionWarnsAndChangesNothing) {
  set_float32_matmul_precision("high");
  ::testing::internal::CaptureStderr();
  set_float32_matmul_precision("fast");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "UserWarning: fast is not one of 'highest', 'high', or 'medium'; the current "
            "set_float32_matmul_precision call has no effect.\n");
  EXPECT_EQ(get_float32_matmul_precision(), "high");
}

}  // namespace
}  // namespace ember
