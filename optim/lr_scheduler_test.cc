// LR schedulers against PyTorch 1.13 (tools/golden/optim.py): get_last_lr()
// of two groups (lr 0.1 and 0.05) over 20 epochs; state dicts.
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "optim/optim.h"
#include "optim/testing/optim_golden.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace optim {
namespace {

using ::ember::testing::near_golden;

// The generator's optimizer: SGD with groups of lr 0.1 and 0.05.
struct TwoGroups {
  Tensor p = zeros({1}, kDouble).requires_grad_();
  Tensor q = zeros({1}, kDouble).requires_grad_();
  std::unique_ptr<SGD> opt;
  explicit TwoGroups(double initial_lr_factor = 0) {
    std::vector<OptimizerParamGroup> groups;
    groups.emplace_back(std::vector<Tensor>{p});
    groups.emplace_back(std::vector<Tensor>{q}, std::make_unique<SGDOptions>(0.05));
    opt = std::make_unique<SGD>(std::move(groups), SGDOptions(0.1));
    if (initial_lr_factor != 0) {
      for (auto& g : opt->param_groups()) g.initial_lr = g.options().get_lr() * initial_lr_factor;
    }
  }
};

// get_last_lr() after construction and after each of 20 steps, as (21, 2).
Tensor run(SGD& opt, LRScheduler& sched) {
  std::vector<double> lrs = sched.get_last_lr();
  for (int i = 0; i < 20; ++i) {
    opt.step();
    sched.step();
    const auto& l = sched.get_last_lr();
    lrs.insert(lrs.end(), l.begin(), l.end());
  }
  return tensor(lrs, kDouble).reshape({21, 2});
}

using Make = std::function<std::unique_ptr<LRScheduler>(SGD&)>;

// sched.<name> of `tables` (tools/golden/optim.py's by default).
void expect_schedule(const std::string& name, const Make& make, double initial_lr_factor = 0,
                     const testing::GoldenTables& tables = testing::optim_tables()) {
  TwoGroups s(initial_lr_factor);
  auto sched = make(*s.opt);
  EXPECT_TRUE(near_golden(run(*s.opt, *sched), tables.golden("sched." + name), kDouble, 1e-12))
      << name;
}

TEST(LRSchedulerTest, StepLR) {
  expect_schedule("step", [](SGD& o) { return std::make_unique<StepLR>(o, 3, 0.5); });
}

TEST(LRSchedulerTest, MultiStepLR) {
  expect_schedule("multistep", [](SGD& o) {
    return std::make_unique<MultiStepLR>(o, std::vector<int64_t>{9, 2, 5, 5}, 0.3);
  });
}

TEST(LRSchedulerTest, ExponentialLR) {
  expect_schedule("exponential", [](SGD& o) { return std::make_unique<ExponentialLR>(o, 0.9); });
}

TEST(LRSchedulerTest, CosineAnnealingLR) {
  expect_schedule("cosine",
                  [](SGD& o) { return std::make_unique<CosineAnnealingLR>(o, 6, 0.001); });
}

TEST(LRSchedulerTest, CosineAnnealingLRResumed) {
  expect_schedule(
      "cosine_resume",
      [](SGD& o) { return std::make_unique<CosineAnnealingLR>(o, 6, 0.001, /*last_epoch=*/3); },
      /*initial_lr_factor=*/2.0);
}

TEST(LRSchedulerTest, LambdaLR) {
  expect_schedule("lambda", [](SGD& o) {
    return std::make_unique<LambdaLR>(
        o, std::vector<LambdaLR::LrLambda>{[](int64_t e) { return std::pow(0.95, e); },
                                           [](int64_t e) { return 1.0 / (e + 1); }});
  });
}

// tools/golden/optim_extra.py: one factor for both groups, then one lambda
// per group.
TEST(LRSchedulerTest, MultiplicativeLR) {
  const auto& extra = testing::optim_extra_tables();
  expect_schedule(
      "multiplicative",
      [](SGD& o) { return std::make_unique<MultiplicativeLR>(o, [](int64_t) { return 0.9; }); },
      0, extra);
  expect_schedule(
      "multiplicative_lists",
      [](SGD& o) {
        return std::make_unique<MultiplicativeLR>(
            o, std::vector<MultiplicativeLR::LrLambda>{
                   [](int64_t e) { return std::pow(0.95, e); },
                   [](int64_t e) { return 1.0 - 0.01 * static_cast<double>(e); }});
      },
      0, extra);
}

// step(epoch) has no closed form to take: each jump multiplies the current
// lr by lr_lambda(epoch) once, as PyTorch's.
TEST(LRSchedulerTest, MultiplicativeLRStepToEpoch) {
  TwoGroups s;
  MultiplicativeLR sched(*s.opt, [](int64_t e) { return 1.0 - 0.05 * static_cast<double>(e); });
  std::vector<double> lrs;
  for (int64_t e : {5, 2, 9, 0, 14, 7}) {
    sched.step(static_cast<double>(e));
    lrs.insert(lrs.end(), sched.get_last_lr().begin(), sched.get_last_lr().end());
  }
  EXPECT_TRUE(near_golden(tensor(lrs, kDouble).reshape({6, 2}),
                          testing::optim_extra_tables().golden("sched.multiplicative_epochs"),
                          kDouble, 1e-12));
}

// Only the epoch counters are saved (lambdas are not, as in PyTorch): a
// restored scheduler with the same lambda continues as the original.
TEST(LRSchedulerTest, MultiplicativeLRStateDictRoundTrip) {
  TwoGroups a, b;
  auto factor = [](int64_t e) { return 1.0 - 0.02 * static_cast<double>(e); };
  MultiplicativeLR sa(*a.opt, factor);
  for (int i = 0; i < 3; ++i) sa.step();
  b.opt->load_state_dict(a.opt->state_dict());
  MultiplicativeLR sb(*b.opt, factor);
  sb.load_state_dict(sa.state_dict());
  EXPECT_EQ(sb.last_epoch(), 3);
  for (int i = 0; i < 5; ++i) {
    sa.step();
    sb.step();
    EXPECT_EQ(sa.get_last_lr(), sb.get_last_lr()) << i;
  }
}

TEST(LRSchedulerTest, SetsOptimizerLrAndInitialLr) {
  TwoGroups s;
  StepLR sched(*s.opt, 1, 0.5);
  sched.step();
  EXPECT_EQ(s.opt->param_groups()[0].options().get_lr(), 0.05);
  EXPECT_EQ(sched.last_epoch(), 1);
  // initial_lr travels with the optimizer's state dict, as in PyTorch.
  const auto& options = s.opt->state_dict().param_groups[1].options;
  ASSERT_EQ(options.back().first, "initial_lr");
  EXPECT_EQ(std::get<double>(options.back().second), 0.05);
}

// A scheduler restored from state_dict() continues as the original.
TEST(LRSchedulerTest, StateDictRoundTrip) {
  TwoGroups a, b;
  CosineAnnealingLR sa(*a.opt, 6, 0.001);
  for (int i = 0; i < 4; ++i) sa.step();
  NamedTensors saved = sa.state_dict();
  std::vector<std::string> keys;
  for (const auto& kv : saved) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"T_max", "eta_min", "base_lrs", "last_epoch",
                                            "_step_count", "_last_lr"}));

  b.opt->load_state_dict(a.opt->state_dict());
  CosineAnnealingLR sb(*b.opt, 100, 0.5);  // other settings, replaced by the load
  sb.load_state_dict(saved);
  EXPECT_EQ(sb.last_epoch(), 4);
  for (int i = 0; i < 10; ++i) {
    sa.step();
    sb.step();
    EXPECT_EQ(sa.get_last_lr(), sb.get_last_lr()) << i;
  }
}

TEST(LRSchedulerTest, LoadRejectsUnknownKeys) {
  TwoGroups s;
  StepLR sched(*s.opt, 2);
  NamedTensors bad = sched.state_dict();
  bad.emplace_back("T_max", scalar_tensor(3, kLong));
  ::ember::testing::expect_error<ValueError>([&] { sched.load_state_dict(bad); },
                                             "unexpected key 'T_max' in a scheduler state dict");
}

TEST(LRSchedulerTest, Errors) {
  TwoGroups s;
  ::ember::testing::expect_error<ValueError>(
      [&] {
        LambdaLR(*s.opt, std::vector<LambdaLR::LrLambda>{[](int64_t) { return 1.0; }});
      },
      "Expected 2 lr_lambdas, but got 1");
  // Checked before the optimizer is touched, as in PyTorch.
  TwoGroups counted;
  testing::optim_extra_tables().expect_error("multiplicative_count", [&] {
    MultiplicativeLR(*counted.opt,
                     std::vector<MultiplicativeLR::LrLambda>(3, [](int64_t) { return 1.0; }));
  });
  EXPECT_FALSE(counted.opt->param_groups()[0].initial_lr.has_value());
  TwoGroups fresh;
  ::ember::testing::expect_error(
      [&] { StepLR(*fresh.opt, 2, 0.1, /*last_epoch=*/5); },
      "param 'initial_lr' is not specified in param_groups[0] when resuming an optimizer");
  // PyTorch raises ZeroDivisionError at the first step that divides.
  TwoGroups zero;
  StepLR sched(*zero.opt, 0);
  ::ember::testing::expect_error([&] { sched.step(); }, "integer division or modulo by zero");
}

}  // namespace
}  // namespace optim
}  // namespace ember
