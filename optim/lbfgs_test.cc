// LBFGS against PyTorch 1.13 (tools/golden/optim_extra.py): four calls of
// step(closure) on the Rosenbrock chain and a small linear regression, with
// a fixed step and with the strong Wolfe line search; the loss each step
// returns, the parameters after it and the whole state after the last; state
// dicts that resume exactly; PyTorch's errors.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "optim/optim.h"
#include "optim/testing/optim_golden.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace optim {
namespace {

using ::ember::testing::make_input;
using ::ember::testing::near_golden;

const testing::GoldenTables& tables() { return testing::optim_extra_tables(); }

// The trajectories agree to rounding: L-BFGS's scalars are dot products,
// which BLAS may sum in another order than PyTorch's.
constexpr double kRel = 1e-10;
constexpr int kSteps = 4;

// The generator's problems: parameters and the loss of their current values.
struct Problem {
  std::vector<Tensor> params;
  std::function<Tensor()> loss;
};

// x (2, 2); the Rosenbrock chain over its 4 elements.
Problem rosen(ScalarType dtype = kDouble) {
  Tensor x = tensor({-1.2, 1.0, -0.5, 0.8}, kDouble).reshape({2, 2}).to(dtype).requires_grad_();
  return {{x}, [x] {
            Tensor v = x.reshape({-1});
            Tensor a = v.slice(0, 0, 3), b = v.slice(0, 1, 4);
            Tensor r = b - a * a;
            Tensor s = 1 - a;
            return (100 * (r * r) + s * s).sum();
          }};
}

// w (3, 2), b (2,) and frozen (2,), which takes no part: mean((X w + b - Y)^2).
Problem linreg(ScalarType dtype = kDouble) {
  Tensor w = zeros({3, 2}, dtype).requires_grad_();
  Tensor b = zeros({2}, dtype).requires_grad_();
  Tensor frozen = zeros({2}, dtype).requires_grad_();
  Tensor X = make_input({8, 3}, kDouble, 1).to(dtype);
  Tensor Y = make_input({8, 2}, kDouble, 3).to(dtype);
  return {{w, b, frozen}, [=] {
            Tensor r = X.mm(w) + b - Y;
            return (r * r).mean();
          }};
}

struct Case {
  const char* name;
  Problem (*problem)(ScalarType);
  LBFGSOptions options;
};

// The LBFGS cases of tools/golden/optim_extra.py, same names, same options.
const std::vector<Case>& cases() {
  static const auto* c = new std::vector<Case>{
      {"lbfgs_rosen", rosen, LBFGSOptions().max_iter(3)},
      {"lbfgs_rosen_wolfe", rosen,
       LBFGSOptions().line_search_fn("strong_wolfe").max_iter(6).history_size(3)},
      {"lbfgs_linreg", linreg, LBFGSOptions(0.5).max_iter(5)},
      {"lbfgs_linreg_wolfe", linreg, LBFGSOptions().line_search_fn("strong_wolfe")},
      {"lbfgs_max_eval", rosen, LBFGSOptions(0.1).max_iter(10).max_eval(4)},
      {"lbfgs_tolerances", linreg,
       LBFGSOptions().line_search_fn("strong_wolfe").tolerance_grad(1e-3).tolerance_change(1e-4)},
  };
  return *c;
}

// opt.step with the generator's closure: zero_grad, loss, backward.
Tensor step(LBFGS& opt, const Problem& problem) {
  return opt.step([&] {
    opt.zero_grad();
    Tensor loss = problem.loss();
    loss.backward();
    return loss;
  });
}

// Steps [from, to) of case `name`: each step's loss and the parameters after it.
void expect_steps(const std::string& name, LBFGS& opt, const Problem& problem, int from, int to) {
  for (int k = from; k < to; ++k) {
    const std::string prefix = absl::StrCat(name, ".step", k, ".");
    EXPECT_TRUE(near_golden(step(opt, problem), tables().golden(prefix + "loss"), kDouble, kRel))
        << prefix;
    for (size_t i = 0; i < problem.params.size(); ++i) {
      EXPECT_TRUE(near_golden(problem.params[i], tables().golden(absl::StrCat(prefix, "p", i)),
                              kDouble, kRel))
          << prefix << i;
    }
  }
}

// The state after the last step: every entry, and no entry the table has
// that the optimizer lacks.
void expect_state(const std::string& name, LBFGS& opt, const Problem& problem) {
  ParamState* st = opt.state(problem.params[0]);
  ASSERT_NE(st, nullptr) << name;
  EXPECT_FALSE(st->step.has_value());
  const std::string prefix = name + ".state.";
  for (const auto& b : st->buffers) {
    const bool counter = b.first == "func_evals" || b.first == "n_iter";
    EXPECT_TRUE(near_golden(b.second, tables().golden(prefix + b.first), counter ? kLong : kDouble,
                            counter ? 0 : kRel))
        << prefix << b.first;
  }
  EXPECT_EQ(st->buffers.size(), tables().count(prefix)) << name;
  // Only the first parameter holds state.
  for (size_t i = 1; i < problem.params.size(); ++i) {
    EXPECT_EQ(opt.state(problem.params[i]), nullptr) << name;
  }
}

TEST(LBFGSTest, TrajectoriesMatchPyTorch) {
  for (const auto& c : cases()) {
    Problem problem = c.problem(kDouble);
    LBFGS opt(problem.params, c.options);
    expect_steps(c.name, opt, problem, 0, kSteps);
    expect_state(c.name, opt, problem);
  }
}

// An LBFGS restored from the flat state dict taken after two steps, over
// copies of the parameters and with another lr before the load, continues
// exactly as the original and ends on PyTorch's values.
TEST(LBFGSTest, RestoredOptimizerContinuesExactly) {
  for (const auto& c : cases()) {
    Problem problem = c.problem(kDouble);
    LBFGS opt(problem.params, c.options);
    for (int k = 0; k < 2; ++k) step(opt, problem);
    NamedTensors saved = opt.state_dict().to_named_tensors();

    Problem copy = c.problem(kDouble);
    for (size_t i = 0; i < copy.params.size(); ++i) {
      NoGradGuard no_grad;
      copy.params[i].copy_(problem.params[i]);
    }
    LBFGS restored(copy.params, LBFGSOptions(123.0));
    restored.load_state_dict(OptimizerStateDict::from_named_tensors(saved));
    const auto& o = static_cast<const LBFGSOptions&>(restored.param_groups()[0].options());
    EXPECT_EQ(o.lr(), c.options.lr()) << c.name;
    EXPECT_EQ(o.line_search_fn(), c.options.line_search_fn()) << c.name;

    for (int k = 2; k < kSteps; ++k) {
      Tensor a = step(opt, problem), b = step(restored, copy);
      EXPECT_TRUE(a.equal(b)) << c.name << " step " << k;
    }
    for (size_t i = 0; i < copy.params.size(); ++i) {
      EXPECT_TRUE(problem.params[i].equal(copy.params[i])) << c.name;
    }
    expect_state(c.name, restored, copy);
  }
}

TEST(LBFGSTest, StateDictKeys) {
  Problem problem = rosen();
  // Three updates of the history (4 iterations, max_eval 5), two kept.
  LBFGS opt(problem.params, LBFGSOptions().max_iter(4).history_size(2));
  step(opt, problem);
  std::vector<std::string> keys;
  NamedTensors named = opt.state_dict().to_named_tensors();
  for (const auto& kv : named) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "state.0.func_evals", "state.0.n_iter", "state.0.d", "state.0.t",
                      "state.0.old_dirs.0", "state.0.old_dirs.1", "state.0.old_stps.0",
                      "state.0.old_stps.1", "state.0.ro.0", "state.0.ro.1", "state.0.H_diag",
                      "state.0.prev_flat_grad", "state.0.prev_loss", "param_groups.0.lr",
                      "param_groups.0.max_iter", "param_groups.0.max_eval",
                      "param_groups.0.tolerance_grad", "param_groups.0.tolerance_change",
                      "param_groups.0.history_size", "param_groups.0.params"}));
  EXPECT_EQ(named[0].second.dtype(), kLong);
  EXPECT_EQ(named[2].second.sizes(), IntArrayRef({4}));
  EXPECT_EQ(named[3].second.dtype(), kDouble);
  EXPECT_EQ(named[14].second.dtype(), kLong);  // max_iter
  EXPECT_EQ(named[15].second.item<int64_t>(), 4 * 5 / 4);
  EXPECT_EQ(opt.state(problem.params[0])->find("n_iter")->item<int64_t>(), 4);

  // line_search_fn, when set, is saved as its UTF-8 bytes and read back.
  LBFGS wolfe(problem.params, LBFGSOptions().line_search_fn("strong_wolfe"));
  OptimizerStateDict sd =
      OptimizerStateDict::from_named_tensors(wolfe.state_dict().to_named_tensors());
  const auto& options = sd.param_groups[0].options;
  ASSERT_EQ(options[6].first, "line_search_fn");
  EXPECT_EQ(std::get<std::string>(options[6].second), "strong_wolfe");
  // Loading a dict without it (PyTorch's None) clears it.
  wolfe.load_state_dict(opt.state_dict());
  EXPECT_FALSE(
      static_cast<const LBFGSOptions&>(wolfe.param_groups()[0].options()).line_search_fn());
}

// PyTorch 1.13's defaults; max_eval is filled in from max_iter when built.
TEST(LBFGSTest, Defaults) {
  LBFGSOptions o;
  EXPECT_EQ(o.lr(), 1.0);
  EXPECT_EQ(o.max_iter(), 20);
  EXPECT_FALSE(o.max_eval().has_value());
  EXPECT_EQ(o.tolerance_grad(), 1e-7);
  EXPECT_EQ(o.tolerance_change(), 1e-9);
  EXPECT_EQ(o.history_size(), 100);
  EXPECT_FALSE(o.line_search_fn().has_value());
  Problem problem = rosen();
  LBFGS opt(problem.params, LBFGSOptions().max_iter(7));
  EXPECT_EQ(static_cast<const LBFGSOptions&>(opt.param_groups()[0].options()).max_eval(), 8);
  LBFGS given(problem.params, LBFGSOptions().max_eval(3));
  EXPECT_EQ(static_cast<const LBFGSOptions&>(given.param_groups()[0].options()).max_eval(), 3);
}

// What PyTorch's state dict holds, flattened as Note [Optimizer state keys]
// says: float32 tensors, counters and numbers of other types, its scratch
// list "al". They load as LBFGS keeps them.
TEST(LBFGSTest, LoadsOtherDtypes) {
  Problem problem = rosen();
  LBFGS opt(problem.params, LBFGSOptions().max_iter(2));
  step(opt, problem);
  OptimizerStateDict sd = opt.state_dict();
  for (auto& kv : sd.state.at(0)) {
    if (kv.second.is_floating_point()) kv.second = kv.second.to(kFloat);
    if (kv.first == "n_iter") kv.second = kv.second.to(kDouble);
  }
  sd.state.at(0).emplace_back("al.0", scalar_tensor(0.5, kFloat));
  LBFGS other(rosen().params, LBFGSOptions().max_iter(2));
  other.load_state_dict(sd);
  ParamState* st = other.state(other.param_groups()[0].params()[0]);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->find("n_iter")->dtype(), kLong);
  EXPECT_EQ(st->find("n_iter")->item<int64_t>(),
            opt.state(problem.params[0])->find("n_iter")->item<int64_t>());
  EXPECT_EQ(st->find("d")->dtype(), kDouble);
  EXPECT_EQ(st->find("t")->dtype(), kDouble);
  EXPECT_EQ(st->find("t")->device(), Device(kCPU));
}

TEST(LBFGSTest, LoadRejectsBadEntries) {
  Problem problem = rosen();
  LBFGS opt(problem.params);
  step(opt, problem);
  OptimizerStateDict wrong_size = opt.state_dict();
  for (auto& kv : wrong_size.state.at(0)) {
    if (kv.first == "d") kv.second = zeros({3}, kDouble);
  }
  ::ember::testing::expect_error<ValueError>(
      [&] { opt.load_state_dict(wrong_size); },
      "loaded state dict has a 'd' of the wrong shape: LBFGS wants 1-D of the 4 elements of all "
      "its parameters");
  OptimizerStateDict unknown = opt.state_dict();
  unknown.state.at(0).emplace_back("exp_avg", zeros({2, 2}, kDouble));
  ::ember::testing::expect_error<ValueError>(
      [&] { opt.load_state_dict(unknown); },
      "loaded state dict has an entry 'exp_avg' that LBFGS does not keep, for parameter 0");
  // A history with a gap is refused by the next step, which leaves the state.
  OptimizerStateDict gap = opt.state_dict();
  auto& entries = gap.state.at(0);
  for (auto it = entries.begin(); it != entries.end(); ++it) {
    if (it->first == "old_dirs.0") {
      entries.erase(it);
      break;
    }
  }
  opt.load_state_dict(gap);
  ::ember::testing::expect_error<ValueError>([&] { step(opt, problem); },
                                             "LBFGS state lacks the history entry 'old_dirs.0'");
}

// float32 parameters follow the float64 trajectory closely (the scalars are
// doubles either way, see lbfgs.h).
TEST(LBFGSTest, Float32FollowsFloat64) {
  Problem problem = linreg(kFloat);
  LBFGS opt(problem.params, LBFGSOptions().line_search_fn("strong_wolfe"));
  step(opt, problem);
  EXPECT_EQ(problem.params[0].dtype(), kFloat);
  EXPECT_TRUE(near_golden(problem.params[0].to(kDouble),
                          tables().golden("lbfgs_linreg_wolfe.step0.p0"), kDouble, 1e-4));
}

// The first evaluation's gradient already below tolerance_grad: PyTorch
// returns after that one evaluation.
TEST(LBFGSTest, StopsAtAnOptimum) {
  Tensor x = ones({3}, kDouble).requires_grad_();
  LBFGS opt({x});
  int evaluations = 0;
  Tensor loss = opt.step([&] {
    ++evaluations;
    opt.zero_grad();
    Tensor l = ((x - 1) * (x - 1)).sum();
    l.backward();
    return l;
  });
  EXPECT_EQ(evaluations, 1);
  EXPECT_EQ(loss.item<double>(), 0.0);
  EXPECT_EQ(opt.state(x)->find("func_evals")->item<int64_t>(), 1);
  EXPECT_EQ(opt.state(x)->find("n_iter")->item<int64_t>(), 0);
}

TEST(LBFGSTest, PyTorchErrors) {
  auto p = [] { return std::vector<Tensor>{zeros({2}, kDouble).requires_grad_()}; };
  tables().expect_error("lbfgs_groups", [&] {
    LBFGS(std::vector<OptimizerParamGroup>{OptimizerParamGroup(p()), OptimizerParamGroup(p())});
  });
  tables().expect_error("lbfgs_no_closure", [&] {
    LBFGS opt(p());
    static_cast<Optimizer&>(opt).step();
  });
  tables().expect_error("lbfgs_line_search_fn", [&] {
    Tensor x = p()[0];
    LBFGS opt({x}, LBFGSOptions().line_search_fn("backtracking"));
    opt.step([&] {
      opt.zero_grad();
      Tensor l = ((x - 1) * (x - 1)).sum();
      l.backward();
      return l;
    });
  });
  // PyTorch asserts one group in step(); ember says why.
  LBFGS opt(p());
  opt.add_param_group(OptimizerParamGroup(p()));
  tables().expect_error("lbfgs_groups", [&] { opt.step([] { return zeros({}, kDouble); }); });
}

}  // namespace
}  // namespace optim
}  // namespace ember
