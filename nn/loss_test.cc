// Loss modules against PyTorch's values for the same inputs and options.

#include <gtest/gtest.h>

#include <string>

#include "nn/loss.h"
#include "nn/test_golden.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

using ::ember::testing::near_golden;
using testing::golden;
using testing::golden_tensor;

template <typename L>
void expect_loss(const std::string& name, L& loss) {
  SCOPED_TRACE(name);
  const std::string p = "loss." + name + ".";
  Tensor out = loss(golden_tensor(p + "input"), golden_tensor(p + "target"));
  EXPECT_TRUE(near_golden(out, golden(p + "output"), kFloat, 1e-6));
}

TEST(LossTest, RegressionLosses) {
  MSELoss mse;
  expect_loss("mse", mse);
  MSELoss mse_sum(kSum);
  expect_loss("mse_sum", mse_sum);
  L1Loss l1;
  expect_loss("l1", l1);
  SmoothL1Loss smooth(SmoothL1LossOptions().beta(0.5));
  expect_loss("smoothl1", smooth);
}

TEST(LossTest, ClassificationLosses) {
  CrossEntropyLoss ce;
  expect_loss("crossentropy", ce);
  CrossEntropyLoss smooth(CrossEntropyLossOptions().label_smoothing(0.1).reduction(kNone));
  expect_loss("crossentropy_smooth", smooth);
  NLLLoss nll(NLLLossOptions().reduction(kSum));
  expect_loss("nll", nll);
  NLLLoss weighted(NLLLossOptions().weight(ember::tensor({1.0f, 2.0f, 0.5f, 1.0f, 3.0f})));
  expect_loss("nll_weight", weighted);
}

TEST(LossTest, BinaryLosses) {
  BCELoss bce;
  expect_loss("bce", bce);
  BCEWithLogitsLoss logits(
      BCEWithLogitsLossOptions().pos_weight(ember::tensor({1.0f, 2.0f, 0.5f, 3.0f})));
  expect_loss("bcelogits", logits);
}

}  // namespace
}  // namespace nn
}  // namespace ember
