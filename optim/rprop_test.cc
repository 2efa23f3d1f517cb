// Rprop against PyTorch 1.13 (tools/golden/optim_extra.py): parameters and
// state after 10 steps, through the fused loop and the tensor-op path (Note
// [Fused updates]); state dicts that resume exactly; PyTorch's errors.
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "optim/fused.h"
#include "optim/optim.h"
#include "optim/testing/optim_golden.h"
#include "tensor/all.h"

namespace ember {
namespace optim {
namespace {

using testing::make;
using testing::start;
using testing::train;

const testing::GoldenTables& tables() { return testing::optim_extra_tables(); }

// The Rprop cases of tools/golden/optim_extra.py, same names, same options.
const testing::Cases& cases() {
  static const auto* m = new testing::Cases{
      {"rprop", make<Rprop>(RpropOptions(0.05))},
      {"rprop_options", make<Rprop>(RpropOptions(0.1).etas({0.3, 1.5}).step_sizes({0.02, 0.2}))},
      {"rprop_maximize", make<Rprop>(RpropOptions(0.01).maximize(true))},
      {"rprop_groups",
       [](std::vector<Tensor> p) {
         std::vector<OptimizerParamGroup> groups;
         groups.emplace_back(std::vector<Tensor>{p[0]});
         groups.emplace_back(std::vector<Tensor>{p[1]},
                             std::make_unique<RpropOptions>(RpropOptions(0.2).etas({0.4, 1.1})));
         return std::make_unique<Rprop>(std::move(groups), RpropOptions(0.05));
       }},
  };
  return *m;
}

using GoldenTest = testing::FusedOrOpsTest;

// Step sizes are products of etas and clamps: the parameters agree to the
// last bits.
TEST_P(GoldenTest, TenStepsMatchPyTorch) { testing::expect_cases_match(tables(), cases(), 1e-12); }

INSTANTIATE_TEST_SUITE_P(FusedAndOps, GoldenTest, ::testing::Bool(), testing::fused_or_ops);

TEST(RpropTest, FusedFloatMatchesOps) { testing::expect_fused_float_matches_ops(cases()); }

TEST(RpropTest, StridedGradMatchesContiguous) {
  testing::expect_strided_grad_matches_contiguous("rprop_options", cases().at("rprop_options"));
}

TEST(RpropTest, RestoredOptimizerContinuesExactly) {
  for (const auto& c : cases()) {
    testing::expect_restored_continues_exactly(tables(), c.first, c.second);
  }
}

TEST(RpropTest, Defaults) {
  RpropOptions o;
  EXPECT_EQ(o.lr(), 1e-2);
  EXPECT_EQ(o.etas(), std::make_tuple(0.5, 1.2));
  EXPECT_EQ(o.step_sizes(), std::make_tuple(1e-6, 50.0));
  EXPECT_FALSE(o.maximize());
}

TEST(RpropTest, OptionAndStateKeysFollowPyTorch) {
  std::vector<Tensor> params = start();
  Rprop opt(params);
  train(opt, params, 1);
  const OptimizerStateDict sd = opt.state_dict();
  std::vector<std::string> keys;
  for (const auto& kv : sd.param_groups[0].options) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"lr", "etas", "step_sizes", "maximize"}));
  keys.clear();
  for (const auto& kv : sd.state.at(0)) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"step", "prev", "step_size"}));
}

// A NaN gradient: PyTorch's sign() of NaN is 0, so the step size is kept
// (times 1) and the parameter does not move, but prev takes the NaN; both
// paths agree with PyTorch 1.13.
TEST(RpropTest, NaNGradientFollowsPyTorchSign) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (bool fused : {true, false}) {
    detail::set_fused_kernels_enabled(fused);
    Tensor p = zeros({3}, kDouble).requires_grad_();
    Rprop opt({p}, RpropOptions(0.1));
    p.mutable_grad() = tensor({1.0, -1.0, 1.0}, kDouble);
    opt.step();
    p.mutable_grad() = tensor({nan, 1.0, 1.0}, kDouble);
    opt.step();
    detail::set_fused_kernels_enabled(true);
    EXPECT_TRUE(p.detach().allclose(tensor({-0.1, 0.1, -0.22}, kDouble), 1e-15, 0)) << fused;
    EXPECT_TRUE(
        opt.state(p)->find("step_size")->allclose(tensor({0.1, 0.05, 0.12}, kDouble), 1e-15, 0))
        << fused;
    // Where the sign flipped prev is 0; the NaN is kept.
    const Tensor& prev = *opt.state(p)->find("prev");
    EXPECT_TRUE(std::isnan(prev[0].item<double>())) << fused;
    EXPECT_EQ(prev[1].item<double>(), 0.0) << fused;
    EXPECT_EQ(prev[2].item<double>(), 1.0) << fused;
  }
}

TEST(RpropTest, PyTorchErrors) {
  auto p = [] { return std::vector<Tensor>{zeros({2}, kDouble).requires_grad_()}; };
  auto err = [&](const char* name, const std::function<void()>& f) {
    tables().expect_error(name, f);
  };
  err("rprop_lr", [&] { Rprop(p(), RpropOptions(-0.01)); });
  err("rprop_etaminus", [&] { Rprop(p(), RpropOptions().etas({1.5, 2.0})); });
  err("rprop_etaplus", [&] { Rprop(p(), RpropOptions().etas({0.5, 0.9})); });
  err("rprop_etas_zero", [&] { Rprop(p(), RpropOptions().etas({0.0, 1.2})); });
}

}  // namespace
}  // namespace optim
}  // namespace ember
