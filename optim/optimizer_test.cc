// Optimizers against PyTorch 1.13 (tools/golden/optim.py): parameters and
// state after 10 steps, through the fused loops and the tensor-op path
// (Note [Fused updates]); state dicts; zero_grad; errors.
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "optim/optim.h"
#include "optim/testing/optim_golden.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace optim {
namespace {

using testing::loss_of;
using testing::start;
using testing::train;

// The cases of tools/golden/optim.py, same names, same options.
const testing::Cases& cases() {
  static const auto* m = new testing::Cases{
      {"sgd", [](std::vector<Tensor> p) { return std::make_unique<SGD>(p, SGDOptions(0.1)); }},
      {"sgd_momentum",
       [](std::vector<Tensor> p) {
         return std::make_unique<SGD>(p, SGDOptions(0.05).momentum(0.9));
       }},
      {"sgd_dampening",
       [](std::vector<Tensor> p) {
         return std::make_unique<SGD>(
             p, SGDOptions(0.05).momentum(0.9).dampening(0.3).weight_decay(0.1));
       }},
      {"sgd_nesterov",
       [](std::vector<Tensor> p) {
         return std::make_unique<SGD>(
             p, SGDOptions(0.05).momentum(0.9).nesterov(true).weight_decay(0.01));
       }},
      {"sgd_maximize",
       [](std::vector<Tensor> p) {
         return std::make_unique<SGD>(p, SGDOptions(0.01).momentum(0.5).maximize(true));
       }},
      {"adam", [](std::vector<Tensor> p) { return std::make_unique<Adam>(p, AdamOptions(0.05)); }},
      {"adam_wd_amsgrad",
       [](std::vector<Tensor> p) {
         return std::make_unique<Adam>(
             p, AdamOptions(0.05).betas({0.8, 0.9}).weight_decay(0.1).amsgrad(true));
       }},
      {"adam_maximize",
       [](std::vector<Tensor> p) {
         return std::make_unique<Adam>(p, AdamOptions(0.01).eps(1e-3).maximize(true));
       }},
      {"adamw",
       [](std::vector<Tensor> p) { return std::make_unique<AdamW>(p, AdamWOptions(0.05)); }},
      {"adamw_amsgrad",
       [](std::vector<Tensor> p) {
         return std::make_unique<AdamW>(p, AdamWOptions(0.05).weight_decay(0.1).amsgrad(true));
       }},
      {"rmsprop",
       [](std::vector<Tensor> p) { return std::make_unique<RMSprop>(p, RMSpropOptions(0.01)); }},
      {"rmsprop_momentum",
       [](std::vector<Tensor> p) {
         return std::make_unique<RMSprop>(p, RMSpropOptions(0.01).momentum(0.9));
       }},
      {"rmsprop_centered",
       [](std::vector<Tensor> p) {
         return std::make_unique<RMSprop>(
             p, RMSpropOptions(0.01).alpha(0.9).momentum(0.5).centered(true).weight_decay(0.1));
       }},
      {"sgd_groups",
       [](std::vector<Tensor> p) {
         std::vector<OptimizerParamGroup> groups;
         groups.emplace_back(std::vector<Tensor>{p[0]});
         groups.emplace_back(std::vector<Tensor>{p[1]},
                             std::make_unique<SGDOptions>(SGDOptions(0.01).momentum(0.5)));
         return std::make_unique<SGD>(std::move(groups), SGDOptions(0.1).momentum(0.9));
       }},
      {"adam_groups",
       [](std::vector<Tensor> p) {
         std::vector<OptimizerParamGroup> groups;
         groups.emplace_back(std::vector<Tensor>{p[0]});
         groups.emplace_back(std::vector<Tensor>{p[1]}, std::make_unique<AdamOptions>(0.2));
         return std::make_unique<Adam>(std::move(groups), AdamOptions(0.05));
       }},
  };
  return *m;
}

using GoldenTest = testing::FusedOrOpsTest;

TEST_P(GoldenTest, TenStepsMatchPyTorch) {
  testing::expect_cases_match(testing::optim_tables(), cases());
}

INSTANTIATE_TEST_SUITE_P(FusedAndOps, GoldenTest, ::testing::Bool(), testing::fused_or_ops);

TEST(OptimizerTest, FusedFloatMatchesOps) { testing::expect_fused_float_matches_ops(cases()); }

TEST(OptimizerTest, StridedGradMatchesContiguous) {
  testing::expect_strided_grad_matches_contiguous(
      "adam_amsgrad", testing::make<Adam>(AdamOptions(0.1).amsgrad(true)));
}

TEST(OptimizerTest, ParamsWithoutGradAreSkipped) {
  std::vector<Tensor> params = start();
  Tensor frozen = ones({3}, kDouble).requires_grad_();
  SGD opt({params[0], params[1], frozen}, SGDOptions(0.1).momentum(0.9));
  train(opt, params, 3);
  EXPECT_TRUE(frozen.equal(ones({3}, kDouble)));
  EXPECT_EQ(opt.state(frozen), nullptr);
  EXPECT_NE(opt.state(params[0]), nullptr);
}

TEST(OptimizerTest, StepBumpsVersion) {
  std::vector<Tensor> params = start();
  Adam opt(params, AdamOptions(0.1));
  loss_of(params).backward();
  const uint32_t before = params[0]._version();
  opt.step();
  EXPECT_GT(params[0]._version(), before);
}

TEST(OptimizerTest, ZeroGradSetsToNoneByDefault) {
  std::vector<Tensor> params = start();
  SGD opt(params, SGDOptions(0.1));
  loss_of(params).backward();
  ASSERT_TRUE(params[0].grad().defined());
  opt.zero_grad();
  EXPECT_FALSE(params[0].grad().defined());
  EXPECT_FALSE(params[1].grad().defined());
}

TEST(OptimizerTest, ZeroGradToZeros) {
  std::vector<Tensor> params = start();
  SGD opt(params, SGDOptions(0.1));
  loss_of(params).backward();
  Tensor grad = params[0].grad();
  opt.zero_grad(/*set_to_none=*/false);
  ASSERT_TRUE(params[0].grad().defined());
  EXPECT_TRUE(params[0].grad().is_same(grad));  // zeroed in place, as PyTorch
  EXPECT_TRUE(params[0].grad().equal(zeros({3, 4}, kDouble)));
}

TEST(OptimizerTest, StepRunsClosureWithGradAndReturnsLoss) {
  std::vector<Tensor> params = start();
  SGD opt(params, SGDOptions(0.1));
  NoGradGuard no_grad;  // the closure still records: step enables grad
  Tensor loss = opt.step([&] {
    opt.zero_grad();
    Tensor l = loss_of(params);
    l.backward();
    return l;
  });
  EXPECT_NEAR(loss.item<double>(), loss_of(start()).item<double>(), 1e-12);
  EXPECT_FALSE(opt.step().defined());  // no closure, no loss
}

TEST(OptimizerTest, AddParamGroupTakesDefaultsForMissingOptions) {
  std::vector<Tensor> params = start();
  SGD opt({params[0]}, SGDOptions(0.1).momentum(0.9));
  opt.add_param_group(OptimizerParamGroup({params[1]}));
  Tensor extra = ones({2}, kDouble).requires_grad_();
  opt.add_param_group(OptimizerParamGroup({extra}, std::make_unique<SGDOptions>(0.5)));
  ASSERT_EQ(opt.param_groups().size(), 3u);
  const auto& g1 = static_cast<const SGDOptions&>(opt.param_groups()[1].options());
  EXPECT_EQ(g1.lr(), 0.1);
  EXPECT_EQ(g1.momentum(), 0.9);
  const auto& g2 = static_cast<const SGDOptions&>(opt.param_groups()[2].options());
  EXPECT_EQ(g2.lr(), 0.5);
  EXPECT_EQ(g2.momentum(), 0.0);
  EXPECT_EQ(opt.parameters().size(), 3u);
}

TEST(OptimizerTest, StateDictHasPyTorchStructure) {
  std::vector<Tensor> params = start();
  auto opt = cases().at("adam_groups")(params);
  train(*opt, params, 2);
  OptimizerStateDict sd = opt->state_dict();
  ASSERT_EQ(sd.param_groups.size(), 2u);
  EXPECT_EQ(sd.param_groups[0].params, std::vector<int64_t>{0});
  EXPECT_EQ(sd.param_groups[1].params, std::vector<int64_t>{1});
  ASSERT_EQ(sd.state.size(), 2u);
  std::vector<std::string> keys;
  for (const auto& kv : sd.state.at(1)) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"step", "exp_avg", "exp_avg_sq"}));
  keys.clear();
  for (const auto& kv : sd.param_groups[1].options) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"lr", "betas", "eps", "weight_decay", "amsgrad",
                                            "maximize", "capturable"}));
  EXPECT_EQ(std::get<double>(sd.param_groups[1].options[0].second), 0.2);
}

TEST(OptimizerTest, NamedTensorKeys) {
  std::vector<Tensor> params = start();
  SGD opt(params, SGDOptions(0.1).momentum(0.9));
  train(opt, params, 1);
  std::vector<std::string> keys;
  NamedTensors named = opt.state_dict().to_named_tensors();
  for (const auto& kv : named) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "state.0.momentum_buffer", "state.1.momentum_buffer",
                      "param_groups.0.lr", "param_groups.0.momentum", "param_groups.0.dampening",
                      "param_groups.0.weight_decay", "param_groups.0.nesterov",
                      "param_groups.0.maximize", "param_groups.0.params"}));
  EXPECT_EQ(named[2].second.dim(), 0);
  EXPECT_EQ(named[2].second.dtype(), kDouble);
  EXPECT_EQ(named[6].second.dtype(), kBool);
  EXPECT_TRUE(named[8].second.equal(tensor({0, 1}, kLong)));
}

TEST(OptimizerTest, RestoredOptimizerContinuesExactly) {
  for (const char* name : {"sgd_groups", "adam_wd_amsgrad", "adamw", "rmsprop_centered"}) {
    testing::expect_restored_continues_exactly(testing::optim_tables(), name, cases().at(name));
  }
}

TEST(OptimizerTest, LoadStateDictCastsBuffersToParamDtype) {
  std::vector<Tensor> params = start();
  SGD opt(params, SGDOptions(0.1).momentum(0.9));
  train(opt, params, 1);
  std::vector<Tensor> floats = start(kFloat);
  SGD other(floats, SGDOptions(0.1).momentum(0.9));
  other.load_state_dict(opt.state_dict());
  ASSERT_NE(other.state(floats[0]), nullptr);
  EXPECT_EQ(other.state(floats[0])->find("momentum_buffer")->dtype(), kFloat);
}

// Note [Option checks]: a loaded dict is held to the rules the constructor
// applies, and a bad one leaves the optimizer as it was.
TEST(OptimizerTest, LoadStateDictRefusesOptionsTheConstructorRefuses) {
  std::vector<Tensor> params = start();
  SGD opt(params, SGDOptions(0.1).momentum(0.9));
  train(opt, params, 1);
  for (double lr : {std::nan(""), -0.5}) {
    NamedTensors named = opt.state_dict().to_named_tensors();
    for (auto& kv : named) {
      if (kv.first == "param_groups.0.lr") kv.second = scalar_tensor(lr, kDouble);
    }
    std::vector<Tensor> fresh = start();
    SGD other(fresh, SGDOptions(0.3).momentum(0.9));
    ember::testing::expect_error<ValueError>(
        [&] { other.load_state_dict(OptimizerStateDict::from_named_tensors(named)); },
        std::string("loaded state dict has invalid options in param_groups.0: Invalid learning "
                    "rate: ") +
            (std::isnan(lr) ? "nan" : "-0.5"));
    EXPECT_EQ(other.param_groups()[0].options().get_lr(), 0.3);
    EXPECT_EQ(other.state(fresh[0]), nullptr);
  }
  // Adam's betas, through its own rule.
  Tensor w = zeros({2}, kDouble).requires_grad_();
  Adam adam({w}, AdamOptions(0.1));
  NamedTensors named = adam.state_dict().to_named_tensors();
  for (auto& kv : named) {
    if (kv.first == "param_groups.0.betas") kv.second = tensor({0.9, 1.5}, kDouble);
  }
  ember::testing::expect_error<ValueError>(
      [&] { adam.load_state_dict(OptimizerStateDict::from_named_tensors(named)); },
      "loaded state dict has invalid options in param_groups.0: Invalid beta parameter at index "
      "1: 1.5");
}

TEST(OptimizerTest, LoadStateDictChecksBufferShapeDtypeAndStepNamingTheKey) {
  std::vector<Tensor> params = start();
  SGD opt(params, SGDOptions(0.1).momentum(0.9));
  train(opt, params, 1);
  auto with = [&](const std::string& key, const Tensor& value) {
    NamedTensors named = opt.state_dict().to_named_tensors();
    bool found = false;
    for (auto& kv : named) {
      if (kv.first == key) kv.second = value, found = true;
    }
    if (!found) named.emplace_back(key, value);
    return OptimizerStateDict::from_named_tensors(named);
  };
  const std::string shape = size_repr(params[0].sizes());
  ember::testing::expect_error<ValueError>(
      [&] { opt.load_state_dict(with("state.0.momentum_buffer", scalar_tensor(1.0, kDouble))); },
      "loaded state dict has a 'momentum_buffer' of shape torch.Size([]) for parameter 0 of "
      "shape " +
          shape + " (key state.0.momentum_buffer)");
  ember::testing::expect_error<ValueError>(
      [&] {
        opt.load_state_dict(with("state.0.momentum_buffer", zeros(params[0].sizes(), kLong)));
      },
      "loaded state dict has a 'momentum_buffer' of dtype Long for parameter 0 of dtype Double "
      "(key state.0.momentum_buffer): optimizer buffers of a floating-point parameter must be "
      "floating point");
  ember::testing::expect_error<ValueError>(
      [&] { opt.load_state_dict(with("state.1.step", scalar_tensor(-4.0, kDouble))); },
      "loaded state dict has a 'step' of -4.0 for parameter 1 (key state.1.step): a step count "
      "must be a non-negative integer");
}

// What PyTorch 1.13's Adam.state_dict() holds, flattened by the same
// scheme: a float32 step, options ember lacks (capturable, fused...).
TEST(OptimizerTest, LoadsPyTorchAdamStateFlattened) {
  Tensor w = zeros({2}, kDouble).requires_grad_();
  NamedTensors named = {
      {"state.0.step", scalar_tensor(3.0, kFloat)},
      {"state.0.exp_avg", full({2}, 0.5, kDouble)},
      {"state.0.exp_avg_sq", full({2}, 0.25, kDouble)},
      {"param_groups.0.lr", scalar_tensor(0.01, kDouble)},
      {"param_groups.0.betas", tensor({0.8, 0.9}, kDouble)},
      {"param_groups.0.eps", scalar_tensor(1e-8, kDouble)},
      {"param_groups.0.weight_decay", scalar_tensor(0.0, kDouble)},
      {"param_groups.0.amsgrad", scalar_tensor(false, kBool)},
      {"param_groups.0.maximize", scalar_tensor(false, kBool)},
      {"param_groups.0.capturable", scalar_tensor(false, kBool)},
      {"param_groups.0.fused", scalar_tensor(false, kBool)},
      {"param_groups.0.params", tensor({0}, kLong)},
  };
  Adam opt({w}, AdamOptions(0.1));
  opt.load_state_dict(OptimizerStateDict::from_named_tensors(named));
  const auto& o = static_cast<const AdamOptions&>(opt.param_groups()[0].options());
  EXPECT_EQ(o.lr(), 0.01);
  EXPECT_EQ(std::get<0>(o.betas()), 0.8);
  ASSERT_NE(opt.state(w), nullptr);
  EXPECT_EQ(*opt.state(w)->step, 3);
  EXPECT_TRUE(opt.state(w)->find("exp_avg")->equal(full({2}, 0.5, kDouble)));
}

// PyTorch keeps lr=1 as a Python int: flattened, a 0-dim int64 fills a
// float option; a fractional number does not fill an integer one.
TEST(OptimizerTest, IntegerAndNumberOptionsFillEachOther) {
  Tensor w = zeros({2}, kDouble).requires_grad_();
  SGD opt({w}, SGDOptions(0.1));
  NamedTensors named = opt.state_dict().to_named_tensors();
  for (auto& kv : named) {
    if (kv.first == "param_groups.0.lr") kv.second = scalar_tensor(1, kLong);
  }
  opt.load_state_dict(OptimizerStateDict::from_named_tensors(named));
  EXPECT_EQ(opt.param_groups()[0].options().get_lr(), 1.0);

  LBFGS lbfgs({w});
  OptimizerStateDict sd = lbfgs.state_dict();
  for (auto& kv : sd.param_groups[0].options) {
    if (kv.first == "max_iter") kv.second = 2.5;
  }
  ::ember::testing::expect_error<ValueError>(
      [&] { lbfgs.load_state_dict(sd); },
      "loaded state dict has a value of the wrong kind for option 'max_iter'");
}

TEST(OptimizerTest, FromNamedTensorsRejectsUnknownKeys) {
  NamedTensors bad = {{"states.0.step", scalar_tensor(1, kLong)}};
  ::ember::testing::expect_error<ValueError>(
      [&] { OptimizerStateDict::from_named_tensors(bad); },
      "unexpected key 'states.0.step' in an optimizer state dict");
}

TEST(OptimizerTest, PyTorchErrors) {
  auto p = [] { return std::vector<Tensor>{zeros({2}, kDouble).requires_grad_()}; };
  auto err = [&](const char* name, const std::function<void()>& f) {
    testing::optim_tables().expect_error(name, f);
  };
  err("sgd_lr", [&] { SGD(p(), SGDOptions(-0.1)); });
  err("sgd_momentum", [&] { SGD(p(), SGDOptions(0.1).momentum(-0.5)); });
  err("sgd_weight_decay", [&] { SGD(p(), SGDOptions(0.1).weight_decay(-1e-05)); });
  err("sgd_nesterov", [&] { SGD(p(), SGDOptions(0.1).nesterov(true)); });
  err("sgd_nesterov_dampening",
      [&] { SGD(p(), SGDOptions(0.1).momentum(0.9).dampening(0.1).nesterov(true)); });
  err("adam_lr", [&] { Adam(p(), AdamOptions(-0.001)); });
  err("adam_eps", [&] { Adam(p(), AdamOptions().eps(-1e-08)); });
  err("adam_beta0", [&] { Adam(p(), AdamOptions().betas({1.0, 0.999})); });
  err("adam_beta1", [&] { Adam(p(), AdamOptions().betas({0.9, -0.5})); });
  err("adam_weight_decay", [&] { Adam(p(), AdamOptions().weight_decay(-0.1)); });
  err("adamw_weight_decay", [&] { AdamW(p(), AdamWOptions().weight_decay(-0.01)); });
  err("rmsprop_alpha", [&] { RMSprop(p(), RMSpropOptions().alpha(-0.99)); });
  err("rmsprop_momentum", [&] { RMSprop(p(), RMSpropOptions().momentum(-0.9)); });
  err("rmsprop_eps", [&] { RMSprop(p(), RMSpropOptions().eps(-1e-08)); });
  err("empty", [&] { SGD(std::vector<Tensor>{}, SGDOptions(0.1)); });
  err("non_leaf", [&] { SGD({p()[0] * 2}, SGDOptions(0.1)); });
  err("duplicate", [&] {
    auto a = p();
    SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(a), OptimizerParamGroup(a)},
        SGDOptions(0.1));
  });
  err("load_groups", [&] {
    auto a = p(), b = p();
    SGD two(std::vector<OptimizerParamGroup>{OptimizerParamGroup(a), OptimizerParamGroup(b)},
            SGDOptions(0.1));
    SGD({a[0], b[0]}, SGDOptions(0.1)).load_state_dict(two.state_dict());
  });
  err("load_sizes", [&] {
    auto a = p(), b = p();
    SGD({a[0]}, SGDOptions(0.1)).load_state_dict(SGD({a[0], b[0]}, SGDOptions(0.1)).state_dict());
  });
}

}  // namespace
}  // namespace optim
}  // namespace ember
