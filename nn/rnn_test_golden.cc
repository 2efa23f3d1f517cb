#include "nn/rnn_test_golden.h"

#include <gtest/gtest.h>

#include <cstddef>

#include "nn/test_golden.h"

namespace ember {
namespace nn {
namespace rnn_testing {
namespace {

using ::ember::nn::testing::GoldenString;
using ::ember::nn::testing::GoldenTables;
using ::ember::testing::GoldenEntry;
using ::ember::testing::GoldenError;
using ::ember::testing::near_golden;

const GoldenEntry kGolden[] = {
#include "nn/testdata/rnn_golden.inc"
};

const GoldenError kErrors[] = {
#include "nn/testdata/rnn_errors_golden.inc"
};

const GoldenString kStrings[] = {
#include "nn/testdata/rnn_strings_golden.inc"
};

constexpr GoldenTables kTables(kGolden, kErrors, kStrings);

// PyTorch sums the gates in float32 in another order (MKL's GEMM, its
// fused bias add): a few ulps of the largest value, carried through the steps.
constexpr double kForwardTol = 2e-5;
constexpr double kGradTol = 5e-5;

}  // namespace

const GoldenTables& tables() { return kTables; }

const GoldenEntry& golden(const std::string& name) { return kTables.golden(name); }

std::string golden_string(const std::string& name) { return kTables.golden_string(name); }

void expect_golden_error(const std::string& name, const std::function<void()>& f) {
  kTables.expect_golden_error(name, f);
}

void load_case_parameters(Module& module, const std::string& name, const GoldenTables& t) {
  NamedTensors state;
  for (const auto& [key, p] : module.named_parameters()) {
    state.emplace_back(key, ::ember::testing::golden_tensor(t.golden(name + ".param." + key)));
  }
  module.load_state_dict(state);
}

CaseInputs case_inputs(const std::string& name, int num_states, const GoldenTables& t) {
  using ::ember::testing::golden_tensor;
  CaseInputs in;
  in.input = golden_tensor(t.golden(name + ".input")).requires_grad_();
  for (int i = 0; i < num_states; ++i) {
    in.hx.push_back(golden_tensor(t.golden(name + ".hx" + std::to_string(i))).requires_grad_());
  }
  return in;
}

void expect_case(const std::string& name, Module& module, const CaseInputs& inputs,
                 const std::vector<Tensor>& results, const GoldenTables& t) {
  auto golden = [&t](const std::string& key) -> const GoldenEntry& { return t.golden(key); };
  SCOPED_TRACE(name);
  Tensor loss;
  for (size_t i = 0; i < results.size(); ++i) {
    const std::string out = name + ".out" + std::to_string(i);
    EXPECT_TRUE(near_golden(results[i], golden(out), kFloat, kForwardTol));
    Tensor term =
        (results[i] * ::ember::testing::make_input(results[i].sizes(), kFloat, 5 + i)).sum();
    loss = loss.defined() ? loss + term : term;
  }
  loss.backward();
  EXPECT_TRUE(near_golden(inputs.input.grad(), golden(name + ".grad.input"), kFloat, kGradTol));
  for (size_t i = 0; i < inputs.hx.size(); ++i) {
    EXPECT_TRUE(near_golden(inputs.hx[i].grad(), golden(name + ".grad.hx" + std::to_string(i)),
                            kFloat, kGradTol));
  }
  for (const auto& [key, p] : module.named_parameters()) {
    if (!p.grad().defined()) {
      ADD_FAILURE() << key << " has no gradient";
      continue;
    }
    EXPECT_TRUE(near_golden(p.grad(), golden(name + ".grad." + key), kFloat, kGradTol)) << key;
  }
}

void expect_initial_parameters(const std::string& name, const Module& module) {
  SCOPED_TRACE(name);
  for (const auto& [key, p] : module.named_parameters()) {
    EXPECT_TRUE(::ember::testing::matches_golden(p, golden(name + ".param." + key))) << key;
  }
}

autograd::variable_list with_parameters(autograd::variable_list inputs, const Module& module) {
  for (const Tensor& p : module.parameters()) inputs.push_back(p);
  return inputs;
}

}  // namespace rnn_testing
}  // namespace nn
}  // namespace ember
