// Adagrad, Adadelta, Adamax, NAdam, RAdam and ASGD (and AdamW's maximize)
// against PyTorch 1.13 (tools/golden/optim_more.py): parameters and state
// after 10 steps, through the fused loops and the tensor-op path (Note
// [Fused updates]); state dicts that resume exactly; PyTorch's errors.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
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

// The cases of tools/golden/optim_more.py, same names, same options.
const testing::Cases& cases() {
  static const auto* m = new testing::Cases{
      {"adagrad", make<Adagrad>(AdagradOptions(0.1))},
      {"adagrad_options", make<Adagrad>(AdagradOptions(0.1)
                                            .lr_decay(0.05)
                                            .weight_decay(0.1)
                                            .initial_accumulator_value(0.5)
                                            .eps(1e-3))},
      {"adagrad_maximize", make<Adagrad>(AdagradOptions(0.05).maximize(true))},
      {"adadelta", make<Adadelta>(AdadeltaOptions())},
      {"adadelta_options",
       make<Adadelta>(AdadeltaOptions(0.5).rho(0.8).eps(1e-4).weight_decay(0.1))},
      {"adadelta_maximize", make<Adadelta>(AdadeltaOptions(1.0).maximize(true))},
      {"adamax", make<Adamax>(AdamaxOptions(0.05))},
      {"adamax_options",
       make<Adamax>(AdamaxOptions(0.05).betas({0.8, 0.9}).eps(1e-3).weight_decay(0.1))},
      {"adamax_maximize", make<Adamax>(AdamaxOptions(0.01).maximize(true))},
      {"nadam", make<NAdam>(NAdamOptions(0.05))},
      {"nadam_options", make<NAdam>(NAdamOptions(0.05)
                                        .betas({0.8, 0.9})
                                        .eps(1e-3)
                                        .weight_decay(0.1)
                                        .momentum_decay(0.01))},
      {"radam", make<RAdam>(RAdamOptions(0.05))},
      {"radam_options",
       make<RAdam>(RAdamOptions(0.05).betas({0.8, 0.9}).eps(1e-3).weight_decay(0.1))},
      {"asgd", make<ASGD>(ASGDOptions(0.05).lambd(0.01).alpha(0.5).t0(3))},
      {"asgd_options", make<ASGD>(ASGDOptions(0.05).lambd(0.1).t0(5).weight_decay(0.1))},
      {"asgd_maximize", make<ASGD>(ASGDOptions(0.01).maximize(true))},
      {"adamw_maximize", make<AdamW>(AdamWOptions(0.05).maximize(true))},
      {"adagrad_groups",
       [](std::vector<Tensor> p) {
         std::vector<OptimizerParamGroup> groups;
         groups.emplace_back(std::vector<Tensor>{p[0]});
         groups.emplace_back(
             std::vector<Tensor>{p[1]},
             std::make_unique<AdagradOptions>(AdagradOptions(0.3).initial_accumulator_value(1)));
         return std::make_unique<Adagrad>(std::move(groups), AdagradOptions(0.1));
       }},
  };
  return *m;
}

using GoldenTest = testing::FusedOrOpsTest;

TEST_P(GoldenTest, TenStepsMatchPyTorch) {
  testing::expect_cases_match(testing::optim_more_tables(), cases());
}

INSTANTIATE_TEST_SUITE_P(FusedAndOps, GoldenTest, ::testing::Bool(), testing::fused_or_ops);

TEST(OptimizersTest, FusedFloatMatchesOps) { testing::expect_fused_float_matches_ops(cases()); }

TEST(OptimizersTest, StridedGradMatchesContiguous) {
  for (const auto& c : cases()) {
    if (absl::EndsWith(c.first, "_groups")) continue;  // needs two parameters
    testing::expect_strided_grad_matches_contiguous(c.first, c.second);
  }
}

// PyTorch's Adagrad creates its state with the optimizer: a state dict
// taken before any step already holds step 0 and the filled accumulator.
TEST(OptimizersTest, AdagradStateExistsBeforeTheFirstStep) {
  std::vector<Tensor> params = start();
  Adagrad opt(params, AdagradOptions().initial_accumulator_value(0.25));
  OptimizerStateDict sd = opt.state_dict();
  ASSERT_EQ(sd.state.size(), 2u);
  const auto& entry = sd.state.at(0);
  ASSERT_EQ(entry.size(), 2u);
  EXPECT_EQ(entry[0].first, "step");
  EXPECT_EQ(entry[0].second.item<int64_t>(), 0);
  EXPECT_EQ(entry[1].first, "sum");
  EXPECT_TRUE(entry[1].second.equal(full({3, 4}, 0.25, kDouble)));
}

TEST(OptimizersTest, OptionKeysFollowPyTorch) {
  std::vector<Tensor> params = start();
  auto keys = [](Optimizer& opt) {
    std::vector<std::string> k;
    const OptimizerStateDict sd = opt.state_dict();
    for (const auto& kv : sd.param_groups[0].options) k.push_back(kv.first);
    return k;
  };
  Adagrad adagrad(params);
  EXPECT_EQ(keys(adagrad), (std::vector<std::string>{"lr", "lr_decay", "eps", "weight_decay",
                                                     "initial_accumulator_value", "maximize"}));
  NAdam nadam(params);
  EXPECT_EQ(keys(nadam),
            (std::vector<std::string>{"lr", "betas", "eps", "weight_decay", "momentum_decay"}));
  ASGD asgd(params);
  EXPECT_EQ(keys(asgd), (std::vector<std::string>{"lr", "lambd", "alpha", "t0", "weight_decay",
                                                  "maximize"}));
}

// The defaults are PyTorch's.
TEST(OptimizersTest, Defaults) {
  EXPECT_EQ(AdagradOptions().lr(), 1e-2);
  EXPECT_EQ(AdagradOptions().eps(), 1e-10);
  EXPECT_EQ(AdadeltaOptions().lr(), 1.0);
  EXPECT_EQ(AdadeltaOptions().rho(), 0.9);
  EXPECT_EQ(AdadeltaOptions().eps(), 1e-6);
  EXPECT_EQ(AdamaxOptions().lr(), 2e-3);
  EXPECT_EQ(NAdamOptions().lr(), 2e-3);
  EXPECT_EQ(NAdamOptions().momentum_decay(), 4e-3);
  EXPECT_EQ(RAdamOptions().lr(), 1e-3);
  EXPECT_EQ(ASGDOptions().lr(), 1e-2);
  EXPECT_EQ(ASGDOptions().lambd(), 1e-4);
  EXPECT_EQ(ASGDOptions().alpha(), 0.75);
  EXPECT_EQ(ASGDOptions().t0(), 1e6);
}

// NAdam's mu_product and ASGD's eta and mu are 0-dim float64 entries of the
// flat state dict, as PyTorch's 0-dim tensors.
TEST(OptimizersTest, NumbersInTheFlatStateDict) {
  std::vector<Tensor> params = start(kFloat);
  NAdam opt(params, NAdamOptions(0.05));
  train(opt, params, 2);
  NamedTensors named = opt.state_dict().to_named_tensors();
  ASSERT_EQ(named[1].first, "state.0.mu_product");
  EXPECT_EQ(named[1].second.dim(), 0);
  EXPECT_EQ(named[1].second.dtype(), kDouble);
  EXPECT_EQ(named[2].first, "state.0.exp_avg");
  EXPECT_EQ(named[2].second.dtype(), kFloat);
}

TEST(OptimizersTest, RestoredOptimizerContinuesExactly) {
  for (const auto& c : cases()) {
    testing::expect_restored_continues_exactly(testing::optim_more_tables(), c.first, c.second);
  }
}

// PyTorch saves mu_product as a float32 0-dim tensor (its default dtype);
// it loads as a float64 number.
TEST(OptimizersTest, LoadsFloat32Numbers) {
  std::vector<Tensor> params = start();
  NAdam opt(params, NAdamOptions(0.05));
  train(opt, params, 3);
  OptimizerStateDict sd = opt.state_dict();
  for (auto& kv : sd.state) {
    for (auto& b : kv.second) {
      if (b.first == "mu_product") b.second = b.second.to(kFloat);
    }
  }
  NAdam other(params, NAdamOptions(0.05));
  other.load_state_dict(sd);
  const Tensor* mu = other.state(params[0])->find("mu_product");
  ASSERT_NE(mu, nullptr);
  EXPECT_EQ(mu->dtype(), kDouble);
  EXPECT_EQ(mu->item<double>(),
            static_cast<double>(opt.state(params[0])->find("mu_product")->item<float>()));
}

TEST(OptimizersTest, PyTorchErrors) {
  auto p = [] { return std::vector<Tensor>{zeros({2}, kDouble).requires_grad_()}; };
  auto err = [&](const char* name, const std::function<void()>& f) {
    testing::optim_more_tables().expect_error(name, f);
  };
  err("adagrad_lr", [&] { Adagrad(p(), AdagradOptions(-0.5)); });
  err("adagrad_lr_decay", [&] { Adagrad(p(), AdagradOptions().lr_decay(-0.1)); });
  err("adagrad_weight_decay", [&] { Adagrad(p(), AdagradOptions().weight_decay(-0.25)); });
  err("adagrad_initial_accumulator_value",
      [&] { Adagrad(p(), AdagradOptions().initial_accumulator_value(-1.0)); });
  err("adagrad_eps", [&] { Adagrad(p(), AdagradOptions().eps(-1e-10)); });
  err("adadelta_lr", [&] { Adadelta(p(), AdadeltaOptions(-1.0)); });
  err("adadelta_rho", [&] { Adadelta(p(), AdadeltaOptions().rho(1.5)); });
  err("adadelta_eps", [&] { Adadelta(p(), AdadeltaOptions().eps(-1e-06)); });
  err("adadelta_weight_decay", [&] { Adadelta(p(), AdadeltaOptions().weight_decay(-0.1)); });
  err("adamax_beta0", [&] { Adamax(p(), AdamaxOptions().betas({-0.1, 0.999})); });
  err("adamax_beta1", [&] { Adamax(p(), AdamaxOptions().betas({0.9, 1.0})); });
  err("nadam_momentum_decay", [&] { NAdam(p(), NAdamOptions().momentum_decay(-0.004)); });
  err("nadam_lr", [&] { NAdam(p(), NAdamOptions(-0.002)); });
  err("radam_eps", [&] { RAdam(p(), RAdamOptions().eps(-1e-08)); });
  err("radam_weight_decay", [&] { RAdam(p(), RAdamOptions().weight_decay(-0.5)); });
  err("asgd_lr", [&] { ASGD(p(), ASGDOptions(-0.01)); });
  err("asgd_weight_decay", [&] { ASGD(p(), ASGDOptions().weight_decay(-0.001)); });
}

}  // namespace
}  // namespace optim
}  // namespace ember
