// Capturable Adam and AdamW (Note [Capturable Adam] in adam.h) on the CPU,
// where ember allows it: the step count in a float32 device tensor and the
// bias corrections as tensor ops reach PyTorch 1.13's (non-capturable)
// golden values and the non-capturable trajectories, through the fused loops
// and the tensor-op path; the state dict keeps PyTorch's "capturable" option
// and its float32 step of shape [1]. nn/cuda_graph_test.cc captures a
// capturable step in a CUDA graph and optim/cuda_test.cc runs the CUDA
// paths (both need a GPU).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "optim/optim.h"
#include "optim/testing/optim_golden.h"
#include "tensor/all.h"

namespace ember {
namespace optim {
namespace {

using testing::make;
using testing::start;
using testing::train;

// optimizer_test.cc's Adam cases (tools/golden/optim.py), capturable.
const testing::Cases& capturable_cases() {
  static const auto* m = new testing::Cases{
      {"adam", make<Adam>(AdamOptions(0.05).capturable(true))},
      {"adam_wd_amsgrad",
       make<Adam>(
           AdamOptions(0.05).betas({0.8, 0.9}).weight_decay(0.1).amsgrad(true).capturable(true))},
      {"adam_maximize", make<Adam>(AdamOptions(0.01).eps(1e-3).maximize(true).capturable(true))},
      {"adamw", make<AdamW>(AdamWOptions(0.05).capturable(true))},
      {"adamw_amsgrad",
       make<AdamW>(AdamWOptions(0.05).weight_decay(0.1).amsgrad(true).capturable(true))},
  };
  return *m;
}

// The step a capturable optimizer keeps for p: float32 of shape [1] on p's
// device, and no host count.
void expect_device_step(Optimizer& opt, const Tensor& p, double steps) {
  ParamState* st = opt.state(p);
  ASSERT_NE(st, nullptr);
  EXPECT_FALSE(st->step.has_value());
  ASSERT_TRUE(st->device_step.defined());
  EXPECT_EQ(st->device_step.dtype(), kFloat);
  EXPECT_EQ(st->device_step.sizes(), std::vector<int64_t>{1});
  EXPECT_EQ(st->device_step.device(), p.device());
  EXPECT_EQ(st->device_step.item<double>(), steps);
}

class CapturableAdamTest : public testing::FusedOrOpsTest {};

TEST_P(CapturableAdamTest, TenStepsMatchPyTorch) {
  testing::expect_cases_match(testing::optim_tables(), capturable_cases());
  std::vector<Tensor> params = start();
  auto opt = capturable_cases().at("adam_wd_amsgrad")(params);
  train(*opt, params, 3);
  for (const Tensor& p : params) expect_device_step(*opt, p, 3);
}

// Capturable and not, side by side over several steps, for each option that
// changes the update, in float64 and float32.
TEST_P(CapturableAdamTest, MatchesNonCapturableTrajectory) {
  for (ScalarType dtype : {kDouble, kFloat}) {
    const double rtol = dtype == kDouble ? 1e-12 : 1e-5, atol = dtype == kDouble ? 1e-14 : 1e-6;
    for (bool decoupled : {false, true}) {
      for (int variant = 0; variant < 8; ++variant) {
        const bool amsgrad = variant & 1, maximize = variant & 2;
        const double wd = variant & 4 ? 0.1 : 0.0;
        auto make_opt = [&](std::vector<Tensor> p, bool capturable) -> std::unique_ptr<Optimizer> {
          if (decoupled) {
            return std::make_unique<AdamW>(
                p,
                AdamWOptions(0.05).weight_decay(wd).amsgrad(amsgrad).maximize(maximize).capturable(
                    capturable));
          }
          return std::make_unique<Adam>(
              p, AdamOptions(0.05).weight_decay(wd).amsgrad(amsgrad).maximize(maximize).capturable(
                     capturable));
        };
        std::vector<Tensor> a = start(dtype), b = start(dtype);
        auto cap = make_opt(a, true), plain = make_opt(b, false);
        train(*cap, a, 7);
        train(*plain, b, 7);
        const std::string what = std::string(decoupled ? "AdamW" : "Adam") + " variant " +
                                 std::to_string(variant) + " " + scalar_type_name(dtype);
        for (size_t i = 0; i < a.size(); ++i) {
          EXPECT_TRUE(a[i].allclose(b[i], rtol, atol))
              << what << ": max difference " << (a[i] - b[i]).abs().max();
          ParamState* sa = cap->state(a[i]);
          ParamState* sb = plain->state(b[i]);
          ASSERT_TRUE(sa != nullptr && sb != nullptr);
          ASSERT_EQ(sa->buffers.size(), sb->buffers.size()) << what;
          for (size_t k = 0; k < sa->buffers.size(); ++k) {
            EXPECT_EQ(sa->buffers[k].first, sb->buffers[k].first) << what;
            EXPECT_TRUE(sa->buffers[k].second.allclose(sb->buffers[k].second, rtol, atol))
                << what << " " << sa->buffers[k].first;
          }
          expect_device_step(*cap, a[i], 7);
          EXPECT_EQ(sb->step, 7);
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(FusedAndOps, CapturableAdamTest, ::testing::Bool(), testing::fused_or_ops);

TEST(CapturableAdamTest, OffByDefault) {
  EXPECT_FALSE(AdamOptions().capturable());
  EXPECT_FALSE(AdamWOptions().capturable());
}

// A 0-dim parameter keeps its shape: the corrections are 0-dim (PyTorch
// 1.13's [1]-shaped ones would broadcast it to [1] and fail).
TEST(CapturableAdamTest, ZeroDimParameter) {
  Tensor a = scalar_tensor(0.75, kDouble).requires_grad_();
  Tensor b = scalar_tensor(0.75, kDouble).requires_grad_();
  Adam cap({a}, AdamOptions(0.1).capturable(true));
  Adam plain({b}, AdamOptions(0.1));
  train(cap, {a}, 3);
  train(plain, {b}, 3);
  EXPECT_EQ(a.dim(), 0);
  EXPECT_TRUE(a.allclose(b, 1e-12, 1e-14));
}

// PyTorch 1.13's state dict of a capturable Adam: the option, and a float32
// step of shape [1] (on the parameter's device).
TEST(CapturableAdamTest, StateDictHasPyTorchCapturableStructure) {
  std::vector<Tensor> params = start();
  auto opt = capturable_cases().at("adam")(params);
  train(*opt, params, 2);
  OptimizerStateDict sd = opt->state_dict();
  std::vector<std::string> keys;
  for (const auto& kv : sd.param_groups[0].options) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"lr", "betas", "eps", "weight_decay", "amsgrad",
                                            "maximize", "capturable"}));
  EXPECT_EQ(std::get<bool>(sd.param_groups[0].options.back().second), true);
  const auto& entries = sd.state.at(1);
  ASSERT_EQ(entries[0].first, "step");
  EXPECT_EQ(entries[0].second.dtype(), kFloat);
  EXPECT_EQ(entries[0].second.sizes(), std::vector<int64_t>{1});
  EXPECT_EQ(entries[0].second.item<double>(), 2.0);
  // A copy: the saved dict does not move on with the optimizer.
  train(*opt, params, 1);
  EXPECT_EQ(entries[0].second.item<double>(), 2.0);

  NamedTensors named = sd.to_named_tensors();
  bool saw_option = false;
  for (const auto& kv : named) {
    if (kv.first == "param_groups.0.capturable") {
      saw_option = true;
      EXPECT_EQ(kv.second.dtype(), kBool);
      EXPECT_TRUE(kv.second.item<bool>());
    }
  }
  EXPECT_TRUE(saw_option);
}

// Saved and restored (the flat form, as checkpoints hold it), a capturable
// optimizer continues exactly and ends on PyTorch's values.
TEST(CapturableAdamTest, RestoredOptimizerContinuesExactly) {
  for (const char* name : {"adam_wd_amsgrad", "adamw"}) {
    testing::expect_restored_continues_exactly(testing::optim_tables(), name,
                                               capturable_cases().at(name));
  }
}

// A PyTorch 1.13 state dict of a capturable Adam, flattened: its options
// take capturable; its [1]-shaped float32 step loads as a count that the
// next step moves to the device.
TEST(CapturableAdamTest, LoadsPyTorchCapturableStateFlattened) {
  auto named = [](bool capturable, Tensor step) {
    return NamedTensors{
        {"state.0.step", step},
        {"state.0.exp_avg", full({2}, 0.5, kDouble)},
        {"state.0.exp_avg_sq", full({2}, 0.25, kDouble)},
        {"param_groups.0.lr", scalar_tensor(0.01, kDouble)},
        {"param_groups.0.betas", tensor({0.8, 0.9}, kDouble)},
        {"param_groups.0.eps", scalar_tensor(1e-8, kDouble)},
        {"param_groups.0.weight_decay", scalar_tensor(0.0, kDouble)},
        {"param_groups.0.amsgrad", scalar_tensor(false, kBool)},
        {"param_groups.0.maximize", scalar_tensor(false, kBool)},
        {"param_groups.0.capturable", scalar_tensor(capturable, kBool)},
        {"param_groups.0.differentiable", scalar_tensor(false, kBool)},
        {"param_groups.0.fused", scalar_tensor(false, kBool)},
        {"param_groups.0.params", tensor({0}, kLong)},
    };
  };
  Tensor a = full({2}, 0.25, kDouble).requires_grad_();
  Tensor b = full({2}, 0.25, kDouble).requires_grad_();
  // Built with the other flag: the loaded options replace it.
  Adam cap({a}, AdamOptions(0.1));
  Adam plain({b}, AdamOptions(0.1).capturable(true));
  cap.load_state_dict(OptimizerStateDict::from_named_tensors(named(true, full({1}, 3.0, kFloat))));
  plain.load_state_dict(
      OptimizerStateDict::from_named_tensors(named(false, scalar_tensor(3.0, kFloat))));
  EXPECT_TRUE(static_cast<const AdamOptions&>(cap.param_groups()[0].options()).capturable());
  EXPECT_FALSE(static_cast<const AdamOptions&>(plain.param_groups()[0].options()).capturable());
  ASSERT_NE(cap.state(a), nullptr);
  EXPECT_EQ(cap.state(a)->step, 3);  // as load_state_dict reads every step
  for (int i = 0; i < 2; ++i) {
    a.mutable_grad() = tensor({0.5, -1.0}, kDouble);
    b.mutable_grad() = tensor({0.5, -1.0}, kDouble);
    cap.step();
    plain.step();
  }
  expect_device_step(cap, a, 5);
  EXPECT_EQ(plain.state(b)->step, 5);
  EXPECT_TRUE(a.allclose(b, 1e-12, 1e-14));
}

// Turning a group's capturable off and on again between steps moves the
// count between the host and the device; the trajectory does not notice.
TEST(CapturableAdamTest, SwitchingCapturableKeepsTheCount) {
  std::vector<Tensor> a = start(), b = start();
  Adam switching(a, AdamOptions(0.05).amsgrad(true).capturable(true));
  Adam plain(b, AdamOptions(0.05).amsgrad(true));
  auto& o = static_cast<AdamOptions&>(switching.param_groups()[0].options());
  train(switching, a, 2);
  o.capturable(false);
  train(switching, a, 2);
  EXPECT_EQ(switching.state(a[0])->step, 4);
  EXPECT_FALSE(switching.state(a[0])->device_step.defined());
  o.capturable(true);
  train(switching, a, 2);
  expect_device_step(switching, a[0], 6);
  train(plain, b, 6);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(a[i].allclose(b[i], 1e-12, 1e-14)) << i;
}

}  // namespace
}  // namespace optim
}  // namespace ember
