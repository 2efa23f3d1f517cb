// LinearLR, ConstantLR, PolynomialLR, CosineAnnealingWarmRestarts,
// OneCycleLR, CyclicLR, ReduceLROnPlateau, SequentialLR, ChainedScheduler
// and the closed forms of step(epoch), against PyTorch 1.13
// (tools/golden/optim_more.py): get_last_lr() (and the momentum or beta1 a
// cycle sets) of two groups, lr 0.1 and 0.05, over every phase; state dicts
// that resume identically; PyTorch's errors.
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

const testing::GoldenTables& tables() { return testing::optim_more_tables(); }

constexpr double kTol = 1e-12;

// The generator's optimizers: groups of lr 0.1 and 0.05.
struct TwoGroups {
  Tensor p = zeros({1}, kDouble).requires_grad_();
  Tensor q = zeros({1}, kDouble).requires_grad_();
  std::unique_ptr<Optimizer> opt;

  explicit TwoGroups(const std::string& kind = "sgd") {
    std::vector<OptimizerParamGroup> groups;
    groups.emplace_back(std::vector<Tensor>{p});
    if (kind == "sgd") {
      groups.emplace_back(std::vector<Tensor>{q},
                          std::make_unique<SGDOptions>(SGDOptions(0.05).momentum(0.9)));
      opt = std::make_unique<SGD>(std::move(groups), SGDOptions(0.1).momentum(0.9));
    } else if (kind == "adam") {
      groups.emplace_back(std::vector<Tensor>{q}, std::make_unique<AdamOptions>(0.05));
      opt = std::make_unique<Adam>(std::move(groups), AdamOptions(0.1));
    } else {
      groups.emplace_back(std::vector<Tensor>{q}, std::make_unique<AdagradOptions>(0.05));
      opt = std::make_unique<Adagrad>(std::move(groups), AdagradOptions(0.1));
    }
  }

  // Each group's momentum, or beta1 for Adam.
  std::vector<double> momentum() const {
    std::vector<double> m;
    for (const auto& g : opt->param_groups()) {
      if (const auto* sgd = dynamic_cast<const SGDOptions*>(&g.options())) {
        m.push_back(sgd->momentum());
      } else {
        m.push_back(std::get<0>(static_cast<const AdamOptions&>(g.options()).betas()));
      }
    }
    return m;
  }
};

Tensor rows(const std::vector<std::vector<double>>& r) {
  std::vector<double> flat;
  for (const auto& x : r) flat.insert(flat.end(), x.begin(), x.end());
  return tensor(flat, kDouble).reshape({static_cast<int64_t>(r.size()), -1});
}

// get_last_lr() (and momentum) after construction and after each step,
// against sched.<name> (and sched.<name>.momentum).
template <typename Make>
void expect_schedule(const std::string& name, const Make& make, int steps = 20,
                     const std::string& kind = "sgd", bool track_momentum = false) {
  TwoGroups s(kind);
  auto sched = make(*s.opt);
  std::vector<std::vector<double>> lrs{sched->get_last_lr()}, momentum{s.momentum()};
  for (int i = 0; i < steps; ++i) {
    s.opt->step();
    sched->step();
    lrs.push_back(sched->get_last_lr());
    momentum.push_back(s.momentum());
  }
  EXPECT_TRUE(near_golden(rows(lrs), tables().golden("sched." + name), kDouble, kTol))
      << name;
  if (track_momentum) {
    EXPECT_TRUE(near_golden(rows(momentum), tables().golden("sched." + name + ".momentum"),
                            kDouble, kTol))
        << name;
  }
}

TEST(SchedulersTest, LinearLR) {
  expect_schedule("linear", [](Optimizer& o) { return std::make_unique<LinearLR>(o, 0.25, 1.0, 6); });
  expect_schedule("linear_down",
                  [](Optimizer& o) { return std::make_unique<LinearLR>(o, 1.0, 0.1, 8); });
}

TEST(SchedulersTest, ConstantLR) {
  expect_schedule("constant", [](Optimizer& o) { return std::make_unique<ConstantLR>(o, 0.5, 4); });
}

TEST(SchedulersTest, PolynomialLR) {
  expect_schedule("polynomial",
                  [](Optimizer& o) { return std::make_unique<PolynomialLR>(o, 8, 2.0); });
}

TEST(SchedulersTest, CosineAnnealingWarmRestarts) {
  expect_schedule(
      "warm_restarts",
      [](Optimizer& o) { return std::make_unique<CosineAnnealingWarmRestarts>(o, 3, 2, 0.001); },
      25);
  expect_schedule("warm_restarts_t1", [](Optimizer& o) {
    return std::make_unique<CosineAnnealingWarmRestarts>(o, 4);
  });
}

// Fractional epochs, then an explicit epoch, then plain steps from there.
TEST(SchedulersTest, CosineAnnealingWarmRestartsFractionalEpochs) {
  TwoGroups s;
  CosineAnnealingWarmRestarts sched(*s.opt, 2, 2, 0.01);
  std::vector<std::vector<double>> lrs{sched.get_last_lr()};
  for (int epoch = 0; epoch < 7; ++epoch) {
    for (int i = 0; i < 3; ++i) {
      sched.step(epoch + i / 3.0);
      lrs.push_back(sched.get_last_lr());
    }
  }
  sched.step(26);
  lrs.push_back(sched.get_last_lr());
  for (int i = 0; i < 3; ++i) {
    sched.step();
    lrs.push_back(sched.get_last_lr());
  }
  EXPECT_TRUE(near_golden(rows(lrs), tables().golden("sched.warm_restarts_fractional"),
                          kDouble, kTol));
}

TEST(SchedulersTest, OneCycleLRCosTwoPhases) {
  expect_schedule(
      "onecycle_cos",
      [](Optimizer& o) {
        return std::make_unique<OneCycleLR>(o, OneCycleLROptions({1.0, 0.5}).total_steps(20));
      },
      20, "sgd", /*track_momentum=*/true);
}

// Linear annealing, three phases, Adam's beta1 cycled.
TEST(SchedulersTest, OneCycleLRLinearThreePhasesOnBetas) {
  expect_schedule(
      "onecycle_linear_three_phase",
      [](Optimizer& o) {
        return std::make_unique<OneCycleLR>(o, OneCycleLROptions(0.4)
                                                   .epochs(4)
                                                   .steps_per_epoch(5)
                                                   .pct_start(0.25)
                                                   .anneal_strategy("linear")
                                                   .three_phase(true)
                                                   .div_factor(10.0)
                                                   .final_div_factor(100.0)
                                                   .base_momentum(0.8)
                                                   .max_momentum(0.9));
      },
      20, "adam", /*track_momentum=*/true);
}

TEST(SchedulersTest, OneCycleLRWithoutMomentum) {
  expect_schedule(
      "onecycle_no_momentum",
      [](Optimizer& o) {
        return std::make_unique<OneCycleLR>(
            o, OneCycleLROptions(0.3).total_steps(12).pct_start(0.5).cycle_momentum(false));
      },
      12);
}

TEST(SchedulersTest, CyclicLRTriangular) {
  expect_schedule(
      "cyclic_triangular",
      [](Optimizer& o) {
        return std::make_unique<CyclicLR>(
            o, CyclicLROptions(0.01, 0.1).step_size_up(3).step_size_down(2));
      },
      20, "sgd", /*track_momentum=*/true);
}

TEST(SchedulersTest, CyclicLRTriangular2) {
  expect_schedule("cyclic_triangular2", [](Optimizer& o) {
    return std::make_unique<CyclicLR>(o, CyclicLROptions({0.01, 0.02}, {0.1, 0.2})
                                             .step_size_up(2)
                                             .mode("triangular2")
                                             .cycle_momentum(false));
  });
}

TEST(SchedulersTest, CyclicLRExpRange) {
  expect_schedule(
      "cyclic_exp_range",
      [](Optimizer& o) {
        return std::make_unique<CyclicLR>(o, CyclicLROptions(0.01, 0.1)
                                                 .step_size_up(4)
                                                 .mode("exp_range")
                                                 .gamma(0.9)
                                                 .base_momentum({0.7, 0.75})
                                                 .max_momentum(0.95));
      },
      20, "sgd", /*track_momentum=*/true);
}

TEST(SchedulersTest, CyclicLRCustomScaleFn) {
  expect_schedule("cyclic_scale_fn", [](Optimizer& o) {
    return std::make_unique<CyclicLR>(o, CyclicLROptions(0.01, 0.1)
                                             .step_size_up(3)
                                             .scale_fn([](double x) { return std::pow(0.5, x); })
                                             .scale_mode("iterations")
                                             .cycle_momentum(false));
  });
}

TEST(SchedulersTest, SequentialLR) {
  expect_schedule("sequential", [](Optimizer& o) {
    auto warm = std::make_shared<LinearLR>(o, 0.1, 1.0, 4);
    auto cos = std::make_shared<CosineAnnealingLR>(o, 8, 0.001);
    return std::make_unique<SequentialLR>(
        o, std::vector<std::shared_ptr<LRScheduler>>{warm, cos}, std::vector<int64_t>{4});
  });
  expect_schedule("sequential3", [](Optimizer& o) {
    auto c = std::make_shared<ConstantLR>(o, 0.5, 2);
    auto e = std::make_shared<ExponentialLR>(o, 0.8);
    auto s = std::make_shared<StepLR>(o, 3, 0.5);
    return std::make_unique<SequentialLR>(
        o, std::vector<std::shared_ptr<LRScheduler>>{c, e, s}, std::vector<int64_t>{3, 8});
  });
}

TEST(SchedulersTest, ChainedScheduler) {
  expect_schedule("chained", [](Optimizer& o) {
    return std::make_unique<ChainedScheduler>(std::vector<std::shared_ptr<LRScheduler>>{
        std::make_shared<ConstantLR>(o, 0.1, 3), std::make_shared<ExponentialLR>(o, 0.9)});
  });
  expect_schedule("chained_cyclic_step", [](Optimizer& o) {
    return std::make_unique<ChainedScheduler>(std::vector<std::shared_ptr<LRScheduler>>{
        std::make_shared<StepLR>(o, 4, 0.5),
        std::make_shared<MultiStepLR>(o, std::vector<int64_t>{3, 9}, 0.2)});
  });
}

// step(epoch) at epochs out of order takes each scheduler's closed form.
TEST(SchedulersTest, ClosedForms) {
  using Make = std::function<std::unique_ptr<LRScheduler>(Optimizer&)>;
  const std::vector<std::pair<std::string, Make>> cases = {
      {"step", [](Optimizer& o) { return std::make_unique<StepLR>(o, 3, 0.5); }},
      {"multistep",
       [](Optimizer& o) {
         return std::make_unique<MultiStepLR>(o, std::vector<int64_t>{9, 2, 5, 5}, 0.3);
       }},
      {"exponential", [](Optimizer& o) { return std::make_unique<ExponentialLR>(o, 0.9); }},
      {"cosine", [](Optimizer& o) { return std::make_unique<CosineAnnealingLR>(o, 6, 0.001); }},
      {"linear", [](Optimizer& o) { return std::make_unique<LinearLR>(o, 0.25, 1.0, 6); }},
      {"constant", [](Optimizer& o) { return std::make_unique<ConstantLR>(o, 0.5, 4); }},
      {"polynomial", [](Optimizer& o) { return std::make_unique<PolynomialLR>(o, 8, 2.0); }},
      // No closed form: get_lr() at the epoch.
      {"lambda",
       [](Optimizer& o) {
         return std::make_unique<LambdaLR>(o, [](int64_t e) { return std::pow(0.95, e); });
       }},
  };
  for (const auto& c : cases) {
    TwoGroups s;
    auto sched = c.second(*s.opt);
    std::vector<std::vector<double>> lrs;
    for (int e : {5, 2, 9, 0, 14, 7}) {
      sched->step(e);
      lrs.push_back(sched->get_last_lr());
    }
    EXPECT_TRUE(
        near_golden(rows(lrs), tables().golden("sched.closed_" + c.first), kDouble, kTol))
        << c.first;
  }
}

const std::vector<double> kMetrics = {1.0,  0.9,  0.95, 0.95,    0.95,    0.8,     0.85,
                                      0.85, 0.85, 0.85, 0.85,    0.7,     0.79995, 0.79995,
                                      0.79995, 0.79995, 0.6, 0.6, 0.6, 0.6};

void expect_plateau(const std::string& name, const ReduceLROnPlateauOptions& options,
                    double sign = 1) {
  TwoGroups s;
  ReduceLROnPlateau sched(*s.opt, options);
  std::vector<std::vector<double>> lrs;
  for (double m : kMetrics) {
    sched.step(sign * m);
    lrs.push_back(sched.get_last_lr());
  }
  EXPECT_TRUE(
      near_golden(rows(lrs), tables().golden("sched.plateau_" + name), kDouble, kTol))
      << name;
}

TEST(SchedulersTest, ReduceLROnPlateau) {
  expect_plateau("min_rel",
                 ReduceLROnPlateauOptions().factor(0.5).patience(2).cooldown(1).min_lr(
                     {0.01, 0.02}));
  expect_plateau("min_abs", ReduceLROnPlateauOptions().patience(1).threshold(0.02).threshold_mode(
                                "abs").min_lr(0.004));
  expect_plateau("max_rel",
                 ReduceLROnPlateauOptions().mode("max").factor(0.3).patience(1).threshold(0.1),
                 -1);
  expect_plateau("max_abs_eps",
                 ReduceLROnPlateauOptions()
                     .mode("max")
                     .factor(0.9)
                     .patience(0)
                     .threshold_mode("abs")
                     .min_lr(0.04)
                     .eps(0.006),
                 -1);
}

// --- state dicts ------------------------------------------------------------------

// Runs `steps` steps, saves optimizer and scheduler, restores both into a
// fresh pair built with `make_other` (other settings), and checks the two
// continue identically (lrs and momentum).
template <typename Make, typename MakeOther>
void expect_resumes(const std::string& kind, const Make& make, const MakeOther& make_other,
                    int steps = 7) {
  TwoGroups a(kind), b(kind);
  auto sa = make(*a.opt);
  for (int i = 0; i < steps; ++i) sa->step();
  NamedTensors saved = sa->state_dict();
  auto sb = make_other(*b.opt);
  b.opt->load_state_dict(a.opt->state_dict());
  sb->load_state_dict(saved);
  EXPECT_EQ(sa->get_last_lr(), sb->get_last_lr());
  for (int i = 0; i < 10; ++i) {
    sa->step();
    sb->step();
    EXPECT_EQ(sa->get_last_lr(), sb->get_last_lr()) << i;
    EXPECT_EQ(a.momentum(), b.momentum()) << i;
  }
}

TEST(SchedulersTest, StateDictsResume) {
  expect_resumes(
      "sgd", [](Optimizer& o) { return std::make_unique<LinearLR>(o, 0.25, 1.0, 12); },
      [](Optimizer& o) { return std::make_unique<LinearLR>(o, 0.5, 0.9, 3); });
  expect_resumes(
      "sgd", [](Optimizer& o) { return std::make_unique<PolynomialLR>(o, 12, 2.0); },
      [](Optimizer& o) { return std::make_unique<PolynomialLR>(o, 3); });
  expect_resumes(
      "sgd",
      [](Optimizer& o) { return std::make_unique<CosineAnnealingWarmRestarts>(o, 3, 2, 0.001); },
      [](Optimizer& o) { return std::make_unique<CosineAnnealingWarmRestarts>(o, 5); });
  expect_resumes(
      "adam",
      [](Optimizer& o) {
        return std::make_unique<OneCycleLR>(o, OneCycleLROptions(0.4).total_steps(20).three_phase(
                                                   true));
      },
      [](Optimizer& o) {
        return std::make_unique<OneCycleLR>(o, OneCycleLROptions(1.0).total_steps(50));
      });
  expect_resumes(
      "sgd",
      [](Optimizer& o) {
        return std::make_unique<CyclicLR>(
            o, CyclicLROptions(0.01, 0.1).step_size_up(3).mode("triangular2"));
      },
      [](Optimizer& o) {
        return std::make_unique<CyclicLR>(o, CyclicLROptions(0.02, 0.3).step_size_up(5));
      });
  auto sequential = [](double gamma) {
    return [gamma](Optimizer& o) {
      auto warm = std::make_shared<LinearLR>(o, 0.1, 1.0, 4);
      auto decay = std::make_shared<ExponentialLR>(o, gamma);
      return std::make_unique<SequentialLR>(
          o, std::vector<std::shared_ptr<LRScheduler>>{warm, decay}, std::vector<int64_t>{4});
    };
  };
  expect_resumes("sgd", sequential(0.8), sequential(0.5), 3);
  expect_resumes("sgd", sequential(0.8), sequential(0.5), 6);
}

TEST(SchedulersTest, CompositeStateDictKeys) {
  TwoGroups s;
  auto warm = std::make_shared<ConstantLR>(*s.opt, 0.5, 2);
  auto decay = std::make_shared<ExponentialLR>(*s.opt, 0.9);
  ChainedScheduler chained({warm, decay});
  std::vector<std::string> keys;
  for (const auto& kv : chained.state_dict()) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "_last_lr", "_schedulers.0.factor", "_schedulers.0.total_iters",
                      "_schedulers.0.base_lrs", "_schedulers.0.last_epoch",
                      "_schedulers.0._step_count", "_schedulers.0._last_lr",
                      "_schedulers.1.gamma", "_schedulers.1.base_lrs",
                      "_schedulers.1.last_epoch", "_schedulers.1._step_count",
                      "_schedulers.1._last_lr"}));
  NamedTensors bad = chained.state_dict();
  bad.emplace_back("_schedulers.2.gamma", scalar_tensor(0.5, kDouble));
  ::ember::testing::expect_error<ValueError>(
      [&] { chained.load_state_dict(bad); },
      "unexpected key '_schedulers.2.gamma' in a scheduler state dict");
}

TEST(SchedulersTest, ReduceLROnPlateauStateDictResumes) {
  TwoGroups a, b;
  ReduceLROnPlateau sa(*a.opt, ReduceLROnPlateauOptions().mode("max").patience(1).cooldown(2));
  for (int i = 0; i < 6; ++i) sa.step(-kMetrics[i]);
  NamedTensors saved = sa.state_dict();
  ReduceLROnPlateau sb(*b.opt);  // min mode, other patience: replaced by the load
  b.opt->load_state_dict(a.opt->state_dict());
  sb.load_state_dict(saved);
  EXPECT_EQ(sb.best(), sa.best());
  EXPECT_EQ(sb.last_epoch(), 6);
  for (size_t i = 6; i < kMetrics.size(); ++i) {
    sa.step(-kMetrics[i]);
    sb.step(-kMetrics[i]);
    EXPECT_EQ(sa.get_last_lr(), sb.get_last_lr()) << i;
    EXPECT_EQ(sa.num_bad_epochs(), sb.num_bad_epochs()) << i;
  }
  // A state dict with an unknown mode is refused and changes nothing.
  NamedTensors bad = sa.state_dict();
  for (auto& kv : bad) {
    if (kv.first == "mode") kv.second = tensor({'a', 'v', 'g'}, kByte);
  }
  ::ember::testing::expect_error<ValueError>([&] { sb.load_state_dict(bad); },
                                             "mode avg is unknown!");
  EXPECT_EQ(sb.best(), sa.best());
}

// --- errors -------------------------------------------------------------------------

TEST(SchedulersTest, PyTorchErrors) {
  auto err = [&](const char* name, const std::function<void()>& f) {
    tables().expect_error(name, f);
  };
  TwoGroups s;
  Optimizer& o = *s.opt;
  err("linear_start", [&] { LinearLR(o, 1.5); });
  err("linear_end", [&] { LinearLR(o, 1.0 / 3, -0.5); });
  err("constant_factor", [&] { ConstantLR(o, 2.0); });
  err("warm_t0", [&] { CosineAnnealingWarmRestarts(o, 0); });
  err("warm_tmult", [&] { CosineAnnealingWarmRestarts(o, 2, 0); });
  err("warm_negative_epoch", [&] { CosineAnnealingWarmRestarts(o, 2).step(-1); });
  err("onecycle_no_steps", [&] { OneCycleLR(o, OneCycleLROptions(0.1)); });
  err("onecycle_total_steps", [&] { OneCycleLR(o, OneCycleLROptions(0.1).total_steps(0)); });
  err("onecycle_epochs",
      [&] { OneCycleLR(o, OneCycleLROptions(0.1).epochs(-2).steps_per_epoch(3)); });
  err("onecycle_steps_per_epoch",
      [&] { OneCycleLR(o, OneCycleLROptions(0.1).epochs(2).steps_per_epoch(0)); });
  err("onecycle_pct_start",
      [&] { OneCycleLR(o, OneCycleLROptions(0.1).total_steps(10).pct_start(1.5)); });
  err("onecycle_anneal",
      [&] { OneCycleLR(o, OneCycleLROptions(0.1).total_steps(10).anneal_strategy("exp")); });
  err("onecycle_max_lr_count",
      [&] { OneCycleLR(o, OneCycleLROptions({0.1, 0.2, 0.3}).total_steps(10)); });
  err("onecycle_momentum", [&] {
    TwoGroups adagrad("adagrad");
    OneCycleLR(*adagrad.opt, OneCycleLROptions(0.1).total_steps(10));
  });
  err("onecycle_past_end", [&] {
    OneCycleLR sched(o, OneCycleLROptions(0.1).total_steps(4));
    for (int i = 0; i < 5; ++i) sched.step();
  });
  err("cyclic_mode", [&] { CyclicLR(o, CyclicLROptions(0.01, 0.1).mode("cosine")); });
  err("cyclic_momentum", [&] {
    TwoGroups adam("adam");
    CyclicLR(*adam.opt, CyclicLROptions(0.01, 0.1));
  });
  err("cyclic_base_lr_count", [&] { CyclicLR(o, CyclicLROptions({0.01}, 0.1)); });
  err("plateau_factor", [&] { ReduceLROnPlateau(o, ReduceLROnPlateauOptions().factor(1.0)); });
  err("plateau_mode", [&] { ReduceLROnPlateau(o, ReduceLROnPlateauOptions().mode("average")); });
  err("plateau_threshold_mode",
      [&] { ReduceLROnPlateau(o, ReduceLROnPlateauOptions().threshold_mode("pct")); });
  err("plateau_min_lr_count",
      [&] { ReduceLROnPlateau(o, ReduceLROnPlateauOptions().min_lr({0.1, 0.2, 0.3})); });
  err("sequential_milestones", [&] {
    SequentialLR(o,
                 {std::make_shared<ConstantLR>(o), std::make_shared<ExponentialLR>(o, 0.9)},
                 {2, 4});
  });
  err("sequential_optimizer", [&] {
    TwoGroups other;
    SequentialLR(o,
                 {std::make_shared<ConstantLR>(o),
                  std::make_shared<ExponentialLR>(*other.opt, 0.9)},
                 {2});
  });
  err("chained_optimizer", [&] {
    TwoGroups other;
    ChainedScheduler({std::make_shared<ConstantLR>(o),
                      std::make_shared<ExponentialLR>(*other.opt, 0.9)});
  });
}

// A bad argument leaves the optimizer as it was: the checks run before the
// scheduler touches the groups.
TEST(SchedulersTest, FailedConstructionLeavesOptimizerAlone) {
  TwoGroups s;
  EXPECT_THROW(LinearLR(*s.opt, 1.5), ValueError);
  EXPECT_THROW(CyclicLR(*s.opt, CyclicLROptions(0.01, 0.1).mode("cosine")), ValueError);
  EXPECT_THROW(OneCycleLR(*s.opt, OneCycleLROptions(0.1).total_steps(10).pct_start(2.0)),
               ValueError);
  for (const auto& g : s.opt->param_groups()) EXPECT_FALSE(g.initial_lr.has_value());
  EXPECT_EQ(s.opt->param_groups()[0].options().get_lr(), 0.1);
  EXPECT_EQ(s.momentum(), (std::vector<double>{0.9, 0.9}));
}

}  // namespace
}  // namespace optim
}  // namespace ember
