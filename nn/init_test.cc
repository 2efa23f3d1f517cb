#include "nn/init.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "autograd/autograd.h"
#include "nn/test_golden.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

using ::ember::testing::matches_golden;
using testing::golden;

// Fills a fresh float tensor of the golden's shape after manual_seed(0), as
// tools/golden/nn_modules.py does, and expects PyTorch's values exactly.
void expect_fill(const std::string& name, const std::function<void(Tensor)>& fill) {
  SCOPED_TRACE(name);
  const auto& g = golden("init." + name);
  manual_seed(0);
  Tensor t = ember::empty(g.sizes);
  fill(t);
  EXPECT_TRUE(matches_golden(t, g));
}

TEST(InitTest, FillsEqualPyTorchsUnderManualSeed) {
  expect_fill("uniform", [](Tensor t) { init::uniform_(t, -1.0, 2.0); });
  expect_fill("normal", [](Tensor t) { init::normal_(t, 0.5, 2.0); });
  expect_fill("normal_big", [](Tensor t) { init::normal_(t); });
  expect_fill("constant", [](Tensor t) { init::constant_(t, 0.25); });
  expect_fill("ones", [](Tensor t) { init::ones_(t); });
  expect_fill("zeros", [](Tensor t) { init::zeros_(t); });
  expect_fill("eye", [](Tensor t) { init::eye_(t); });
}

TEST(InitTest, XavierAndKaimingEqualPyTorchs) {
  expect_fill("xavier_uniform", [](Tensor t) { init::xavier_uniform_(t); });
  expect_fill("xavier_uniform_gain", [](Tensor t) { init::xavier_uniform_(t, 2.0); });
  expect_fill("xavier_normal", [](Tensor t) { init::xavier_normal_(t, 0.5); });
  expect_fill("kaiming_uniform", [](Tensor t) { init::kaiming_uniform_(t); });
  expect_fill("kaiming_uniform_a", [](Tensor t) { init::kaiming_uniform_(t, std::sqrt(5.0)); });
  expect_fill("kaiming_uniform_fan_out_relu",
              [](Tensor t) { init::kaiming_uniform_(t, 0, init::kFanOut, init::kReLU); });
  expect_fill("kaiming_normal", [](Tensor t) { init::kaiming_normal_(t); });
  expect_fill("kaiming_normal_fan_out",
              [](Tensor t) { init::kaiming_normal_(t, 0.2, init::kFanOut); });
}

TEST(InitTest, GainsAndFans) {
  Tensor gains = ember::tensor(
      {init::calculate_gain(init::kLinear), init::calculate_gain(init::kConv1D),
       init::calculate_gain(init::kConv2D), init::calculate_gain(init::kSigmoid),
       init::calculate_gain(init::kTanh), init::calculate_gain(init::kReLU),
       init::calculate_gain(init::kLeakyReLU), init::calculate_gain(init::kSELU),
       init::calculate_gain(init::kLeakyReLU, 0.2)},
      kDouble);
  EXPECT_TRUE(matches_golden(gains, golden("init.gains")));
  std::vector<int64_t> fans;
  const std::vector<std::vector<int64_t>> shapes = {{3, 4}, {6, 2, 5, 5}, {4, 3, 7}};
  for (const auto& shape : shapes) {
    auto [in, out] = init::_calculate_fan_in_and_fan_out(ember::empty(shape));
    fans.push_back(in);
    fans.push_back(out);
  }
  EXPECT_TRUE(matches_golden(ember::tensor(fans).reshape({3, 2}), golden("init.fans")));
}

TEST(InitTest, ErrorsArePyTorchs) {
  testing::expect_golden_error("init.fan_1d",
                               [] { init::xavier_uniform_(ember::empty({5})); });
  testing::expect_golden_error("init.eye_3d", [] { init::eye_(ember::empty({2, 2, 2})); });
}

TEST(InitTest, FillsParametersWithoutRecordingAndInPlace) {
  Tensor w = ember::zeros({3, 4}).requires_grad_();
  Tensor same = init::kaiming_uniform_(w, std::sqrt(5.0));
  EXPECT_TRUE(same.is_same(w));
  EXPECT_TRUE(w.is_leaf());
  EXPECT_EQ(w.grad_fn(), nullptr);
  EXPECT_GT(w.abs().sum().item<float>(), 0);
  // A tensor without elements is left alone (PyTorch warns).
  Tensor empty = ember::empty({0, 3});
  EXPECT_TRUE(init::kaiming_normal_(empty).is_same(empty));
}

}  // namespace
}  // namespace nn
}  // namespace ember
