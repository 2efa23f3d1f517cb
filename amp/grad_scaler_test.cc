// ember::amp::GradScaler against PyTorch's GradScaler: scripted sequences
// with injected inf/NaN gradients give PyTorch's scale, growth tracker and
// parameters after every step (tools/golden/grad_scaler.py, run with a
// PyTorch 2.x that has CUDA), and PyTorch's stage rules and errors.

#include "amp/grad_scaler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "optim/clip_grad.h"
#include "optim/sgd.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using ::ember::testing::error_of;

struct Step {
  const char* scenario;
  int step;
  int injected;  // 0 none, 1 inf, 2 -inf, 3 NaN
  double scale;
  int64_t tracker;
  std::vector<double> w;
};

const Step kGolden[] = {
#include "amp/testdata/grad_scaler_golden.inc"
};

struct Scenario {
  amp::GradScalerOptions options;
  double clip = 0;  // > 0: unscale_, clip_grad_norm_ to this, then step
};

// The scenarios of tools/golden/grad_scaler.py.
std::map<std::string, Scenario> scenarios() {
  return {
      {"grow_and_back_off",
       {amp::GradScalerOptions().init_scale(1024).growth_factor(2).backoff_factor(0.5)
            .growth_interval(3)}},
      {"defaults_with_clipping", {amp::GradScalerOptions(), 0.1}},
      {"growth_overflow",
       {amp::GradScalerOptions().init_scale(std::ldexp(1.0, 127)).growth_factor(2)
            .growth_interval(1)}},
      {"odd_factors",
       {amp::GradScalerOptions().init_scale(3).growth_factor(3).backoff_factor(0.25)
            .growth_interval(2)}},
  };
}

double injected_value(int code) {
  switch (code) {
    case 1:
      return std::numeric_limits<double>::infinity();
    case 2:
      return -std::numeric_limits<double>::infinity();
    case 3:
      return std::numeric_limits<double>::quiet_NaN();
    default:
      return 0.5;
  }
}

void replay_golden(const std::string& device) {
  const Device dev(device);
  int checked = 0;
  for (const auto& [name, sc] : scenarios()) {
    SCOPED_TRACE(name);
    Tensor w = tensor({1.0, -2.0}, TensorOptions(kFloat).device(dev)).requires_grad_(true);
    optim::SGD opt({w}, optim::SGDOptions(0.1));
    amp::GradScaler scaler(device, sc.options);
    for (const Step& s : kGolden) {
      if (name != s.scenario) continue;
      SCOPED_TRACE(s.step);
      Tensor x = tensor({injected_value(s.injected), 0.25}, TensorOptions(kFloat).device(dev));
      opt.zero_grad();
      scaler.scale((w * x).sum()).backward();
      if (sc.clip > 0) {
        scaler.unscale_(opt);
        nn::utils::clip_grad_norm_(std::vector<Tensor>{w}, sc.clip);
      }
      scaler.step(opt);
      scaler.update();
      EXPECT_EQ(scaler.get_scale(), s.scale);
      EXPECT_EQ(scaler.state_dict().at("_growth_tracker"), s.tracker);
      Tensor got = w.detach().to(Device(kCPU)).to(kDouble);
      for (int i = 0; i < 2; ++i) {
        EXPECT_NEAR(got[i].item<double>(), s.w[i], 1e-6 * std::abs(s.w[i])) << "w[" << i << "]";
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, static_cast<int>(std::size(kGolden)));
}

TEST(GradScalerTest, MatchesPyTorchSequencesOnCpu) { replay_golden("cpu"); }

TEST(GradScalerTest, MatchesPyTorchSequencesOnCuda) {
  if (!cuda::is_available()) GTEST_SKIP() << "no usable CUDA device on this machine";
  replay_golden("cuda");
}

// A small fixture: one parameter with a gradient, scaled.
struct OneParam {
  Tensor w = tensor({1.0, 2.0}, TensorOptions(kFloat)).requires_grad_(true);
  optim::SGD opt{{w}, optim::SGDOptions(0.5)};
  amp::GradScaler scaler{"cpu", amp::GradScalerOptions().init_scale(8)};
  void backward(double x0 = 1) {
    opt.zero_grad();
    scaler.scale((w * tensor({x0, 1.0})).sum()).backward();
  }
};

TEST(GradScalerTest, ScaleMultipliesAndUnscaleDivides) {
  OneParam s;
  EXPECT_EQ(s.scaler.get_scale(), 8);  // init_scale before the first scale()
  s.backward(3);
  EXPECT_TRUE(s.w.grad().equal(tensor({24.0, 8.0}, TensorOptions(kFloat))));
  s.scaler.unscale_(s.opt);
  EXPECT_TRUE(s.w.grad().equal(tensor({3.0, 1.0}, TensorOptions(kFloat))));
  s.scaler.step(s.opt);
  EXPECT_TRUE(s.w.detach().equal(tensor({-0.5, 1.5}, TensorOptions(kFloat))));
}

TEST(GradScalerTest, StagesFollowPyTorchsRules) {
  OneParam s;
  EXPECT_EQ(error_of([&] { s.scaler.update(); }),
            "Attempted update but _scale is None.  This may indicate your script did not use "
            "scaler.scale(loss or outputs) earlier in the iteration.");
  s.backward();
  s.scaler.unscale_(s.opt);
  EXPECT_EQ(error_of([&] { s.scaler.unscale_(s.opt); }),
            "unscale_() has already been called on this optimizer since the last update().");
  s.scaler.step(s.opt);
  EXPECT_EQ(error_of([&] { s.scaler.step(s.opt); }),
            "step() has already been called since the last update().");
  EXPECT_EQ(error_of([&] { s.scaler.unscale_(s.opt); }),
            "unscale_() is being called after step().");
  s.scaler.update();
  s.backward();
  s.scaler.step(s.opt);  // a new iteration starts ready
  s.scaler.update();
}

TEST(GradScalerTest, StepWithoutGradientsOrUpdateWithoutChecksIsAnError) {
  OneParam s;
  s.scaler.scale(tensor({1.0}));
  s.opt.zero_grad();
  EXPECT_EQ(error_of([&] { s.scaler.step(s.opt); }),
            "No inf checks were recorded for this optimizer.");
  amp::GradScaler fresh("cpu");
  fresh.scale(tensor({1.0}));
  EXPECT_EQ(error_of([&] { fresh.update(); }), "No inf checks were recorded prior to update.");
}

TEST(GradScalerTest, RefusesFloat16Gradients) {
  Tensor w = tensor({1.0, 2.0}, TensorOptions(kHalf)).requires_grad_(true);
  optim::SGD opt({w}, optim::SGDOptions(0.5));
  amp::GradScaler scaler("cpu");
  scaler.scale((w * w).sum().to(kFloat)).backward();
  EXPECT_EQ(error_of([&] { scaler.unscale_(opt); }), "Attempting to unscale FP16 gradients.");
}

TEST(GradScalerTest, ExplicitNewScale) {
  OneParam s;
  s.backward();
  s.scaler.step(s.opt);
  s.scaler.update(4.0);
  EXPECT_EQ(s.scaler.get_scale(), 4);
  s.backward();
  s.scaler.step(s.opt);
  s.scaler.update(tensor({16.0}, TensorOptions(kFloat)));
  EXPECT_EQ(s.scaler.get_scale(), 16);
  EXPECT_EQ(error_of([&] { s.scaler.update(tensor({1.0, 2.0})); }),
            "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
            "torch.FloatTensor with requires_grad=False.");
}

TEST(GradScalerTest, StateDictRoundTrips) {
  OneParam s;
  s.backward();
  s.scaler.step(s.opt);
  s.scaler.update();
  const amp::GradScalerState sd = s.scaler.state_dict();
  const amp::GradScalerState want = {{"scale", 8.0},
                                     {"growth_factor", 2.0},
                                     {"backoff_factor", 0.5},
                                     {"growth_interval", 2000.0},
                                     {"_growth_tracker", 1.0}};
  EXPECT_EQ(sd, want);
  amp::GradScaler other("cpu");
  other.load_state_dict(sd);
  EXPECT_EQ(other.get_scale(), 8);
  EXPECT_EQ(other.state_dict(), want);
  EXPECT_EQ(error_of([&] { other.load_state_dict({}); }),
            "The source state dict is empty, possibly because it was saved from a disabled "
            "instance of GradScaler.");
}

TEST(GradScalerTest, DisabledPassesThrough) {
  Tensor w = tensor({1.0, 2.0}, TensorOptions(kFloat)).requires_grad_(true);
  optim::SGD opt({w}, optim::SGDOptions(0.5));
  amp::GradScaler scaler("cpu", amp::GradScalerOptions().enabled(false));
  Tensor loss = (w * 2).sum();
  EXPECT_TRUE(scaler.scale(loss).equal(loss));
  loss.backward();
  scaler.unscale_(opt);
  scaler.step(opt);
  scaler.update();
  EXPECT_TRUE(w.detach().equal(tensor({0.0, 1.0}, TensorOptions(kFloat))));
  EXPECT_EQ(scaler.get_scale(), 1.0);
  EXPECT_TRUE(scaler.state_dict().empty());
}

TEST(GradScalerTest, CudaScalerWithoutCudaWarnsAndDisables) {
  if (cuda::is_available()) GTEST_SKIP() << "this machine has a GPU";
  ::testing::internal::CaptureStderr();
  amp::GradScaler scaler;
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "UserWarning: torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
            "Disabling.\n");
  EXPECT_FALSE(scaler.is_enabled());
}

TEST(GradScalerTest, RejectsFactorsPyTorchRejects) {
  EXPECT_EQ(error_of([] { amp::GradScaler("cpu", amp::GradScalerOptions().growth_factor(1)); }),
            "The growth factor must be > 1.0.");
  EXPECT_EQ(error_of([] { amp::GradScaler("cpu", amp::GradScalerOptions().backoff_factor(1)); }),
            "The backoff factor must be < 1.0.");
}

}  // namespace
}  // namespace ember
