#include "optim/testing/optim_golden.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "autograd/autograd.h"
#include "optim/fused.h"
#include "tensor/all.h"

namespace ember {
namespace optim {
namespace testing {

using ::ember::testing::find_golden;
using ::ember::testing::make_input;
using ::ember::testing::near_golden;

namespace {
const GoldenEntry kOptimGolden[] = {
#include "optim/testdata/optim_golden.inc"
};
const GoldenError kOptimErrors[] = {
#include "optim/testdata/optim_errors_golden.inc"
};
const GoldenEntry kOptimMoreGolden[] = {
#include "optim/testdata/optim_more_golden.inc"
};
const GoldenError kOptimMoreErrors[] = {
#include "optim/testdata/optim_more_errors_golden.inc"
};
const GoldenEntry kOptimExtraGolden[] = {
#include "optim/testdata/optim_extra_golden.inc"
};
const GoldenError kOptimExtraErrors[] = {
#include "optim/testdata/optim_extra_errors_golden.inc"
};
}  // namespace

const GoldenEntry& GoldenTables::golden(const std::string& name) const {
  return find_golden(golden_, num_golden_, name);
}

void GoldenTables::expect_error(const std::string& name, const std::function<void()>& f) const {
  ::ember::testing::expect_golden_error(errors_, num_errors_, name, f);
}

size_t GoldenTables::count(const std::string& prefix) const {
  size_t n = 0;
  for (size_t i = 0; i < num_golden_; ++i) {
    if (absl::StartsWith(golden_[i].name, prefix)) ++n;
  }
  return n;
}

const GoldenTables& optim_tables() {
  static const auto* t = new GoldenTables(kOptimGolden, kOptimErrors);
  return *t;
}

const GoldenTables& optim_more_tables() {
  static const auto* t = new GoldenTables(kOptimMoreGolden, kOptimMoreErrors);
  return *t;
}

const GoldenTables& optim_extra_tables() {
  static const auto* t = new GoldenTables(kOptimExtraGolden, kOptimExtraErrors);
  return *t;
}

std::vector<Tensor> start(ScalarType dtype) {
  Tensor w = (make_input({3, 4}, kDouble, 0) * 0.5).to(dtype).requires_grad_();
  Tensor b = (make_input({4}, kDouble, 5) * 0.5).to(dtype).requires_grad_();
  return {w, b};
}

Tensor loss_of(const std::vector<Tensor>& params) {
  Tensor total;
  for (const auto& p : params) {
    Tensor l = 0.1 * (p * p * p * p).sum() + ((p - 0.5) * (p - 0.5)).sum();
    total = total.defined() ? total + l : l;
  }
  return total;
}

void train(Optimizer& opt, const std::vector<Tensor>& params, int steps) {
  for (int i = 0; i < steps; ++i) {
    opt.zero_grad();
    loss_of(params).backward();
    opt.step();
  }
}

void expect_golden(const GoldenTables& tables, const std::string& name, Optimizer& opt,
                   const std::vector<Tensor>& params, double rel) {
  EXPECT_TRUE(near_golden(params[0], tables.golden(name + ".w"), kDouble, rel)) << name;
  EXPECT_TRUE(near_golden(params[1], tables.golden(name + ".b"), kDouble, rel)) << name;
  size_t checked = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    ParamState* st = opt.state(params[i]);
    ASSERT_NE(st, nullptr) << name;
    const std::string prefix = absl::StrCat(name, ".state.", i, ".");
    if (st->step || st->device_step.defined()) {
      // A capturable optimizer's count is on the device (Note [Capturable Adam]).
      const Tensor step = st->step ? scalar_tensor(*st->step, kLong)
                                   : st->device_step.reshape({}).to(Device(kCPU)).to(kLong);
      EXPECT_TRUE(near_golden(step, tables.golden(prefix + "step"), kLong)) << name;
      ++checked;
    }
    for (const auto& b : st->buffers) {
      EXPECT_TRUE(near_golden(b.second, tables.golden(prefix + b.first), kDouble, rel))
          << prefix << b.first;
      ++checked;
    }
  }
  EXPECT_EQ(checked, tables.count(name + ".state.")) << name;
}

void expect_cases_match(const GoldenTables& tables, const Cases& cases, double rel) {
  for (const auto& c : cases) {
    std::vector<Tensor> params = start();
    auto opt = c.second(params);
    train(*opt, params, 10);
    expect_golden(tables, c.first, *opt, params, rel);
    EXPECT_EQ(detail::fusable(params[0], params[0].grad(), {}), detail::fused_kernels_enabled())
        << c.first;
  }
}

void FusedOrOpsTest::SetUp() { detail::set_fused_kernels_enabled(GetParam()); }
void FusedOrOpsTest::TearDown() { detail::set_fused_kernels_enabled(true); }

std::string fused_or_ops(const ::testing::TestParamInfo<bool>& info) {
  return info.param ? "fused" : "ops";
}

void expect_fused_float_matches_ops(const Cases& cases) {
  for (const auto& c : cases) {
    std::vector<Tensor> fused = start(kFloat), ops = start(kFloat);
    auto a = c.second(fused);
    train(*a, fused, 10);
    detail::set_fused_kernels_enabled(false);
    auto b = c.second(ops);
    train(*b, ops, 10);
    detail::set_fused_kernels_enabled(true);
    for (size_t i = 0; i < fused.size(); ++i) {
      EXPECT_TRUE(fused[i].allclose(ops[i], 1e-5, 1e-6)) << c.first;
    }
  }
}

void expect_strided_grad_matches_contiguous(const std::string& name, const Factory& make) {
  Tensor a = make_input({3, 4}, kDouble, 1).requires_grad_();
  Tensor b = a.detach().clone().requires_grad_();
  Tensor grad_t = make_input({4, 3}, kDouble, 2);
  auto opt_a = make({a});
  auto opt_b = make({b});
  for (int i = 0; i < 3; ++i) {
    a.mutable_grad() = grad_t.t();  // strided
    b.mutable_grad() = grad_t.t().contiguous();
    ASSERT_FALSE(detail::fusable(a, a.grad(), {}));
    opt_a->step();
    opt_b->step();
  }
  EXPECT_TRUE(a.allclose(b, 1e-12, 1e-12)) << name;
}

void expect_restored_continues_exactly(const GoldenTables& tables, const std::string& name,
                                       const Factory& make) {
  std::vector<Tensor> params = start();
  auto opt = make(params);
  train(*opt, params, 4);
  NamedTensors saved = opt->state_dict().to_named_tensors();

  std::vector<Tensor> copies;
  for (const auto& p : params) copies.push_back(p.detach().clone().requires_grad_());
  auto restored = make(copies);
  // Another lr, to see load_state_dict replace it.
  for (auto& g : restored->param_groups()) g.options().set_lr(123.0);
  restored->load_state_dict(OptimizerStateDict::from_named_tensors(saved));

  train(*opt, params, 6);
  train(*restored, copies, 6);
  for (size_t i = 0; i < params.size(); ++i) {
    EXPECT_TRUE(params[i].equal(copies[i])) << name;
  }
  expect_golden(tables, name, *restored, copies);
}

}  // namespace testing
}  // namespace optim
}  // namespace ember
