#ifndef EMBER_OPTIM_TESTING_OPTIM_GOLDEN_H_
#define EMBER_OPTIM_TESTING_OPTIM_GOLDEN_H_

// Test-only: //optim's golden tables, each compiled once for all its tests
// (tools/golden/optim.py, optim_more.py, optim_extra.py write them from
// PyTorch 1.13), and the optimizer checks those tests share: the cases of
// tools/golden/optim_cases.py (one start, one loss, 10 steps) against the
// tables, through the fused loops and the tensor-op path (Note [Fused
// updates]), in float32, with strided grads, and restored from a state dict.

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "optim/optimizer.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace optim {
namespace testing {

using ::ember::testing::GoldenEntry;
using ::ember::testing::GoldenError;

// One generator's tables: named tensors and PyTorch's errors.
class GoldenTables {
 public:
  template <size_t NG, size_t NE>
  GoldenTables(const GoldenEntry (&golden)[NG], const GoldenError (&errors)[NE])
      : golden_(golden), num_golden_(NG), errors_(errors), num_errors_(NE) {}

  // The named tensor; fails the test when missing.
  const GoldenEntry& golden(const std::string& name) const;
  // Runs f, which must throw PyTorch's error `name`.
  void expect_error(const std::string& name, const std::function<void()>& f) const;
  // How many tensors have a name that starts with `prefix`.
  size_t count(const std::string& prefix) const;

 private:
  const GoldenEntry* golden_;
  size_t num_golden_;
  const GoldenError* errors_;
  size_t num_errors_;
};

const GoldenTables& optim_tables();        // tools/golden/optim.py
const GoldenTables& optim_more_tables();   // tools/golden/optim_more.py
const GoldenTables& optim_extra_tables();  // tools/golden/optim_extra.py

// --- the optimizer cases (tools/golden/optim_cases.py) ------------------------

// The start: w = mk((3, 4), float64, 0) / 2, b = mk((4,), float64, 5) / 2,
// in `dtype`, requiring grad.
std::vector<Tensor> start(ScalarType dtype = kDouble);
// sum over params of 0.1 * sum(p**4) + sum((p - 0.5)**2).
Tensor loss_of(const std::vector<Tensor>& params);
// `steps` times: zero_grad(); loss_of(params).backward(); step().
void train(Optimizer& opt, const std::vector<Tensor>& params, int steps);

using Factory = std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>)>;
// A generator's cases by name, each building its optimizer.
using Cases = std::map<std::string, Factory>;

template <typename Opt, typename Options>
Factory make(Options options) {
  return [options](std::vector<Tensor> p) { return std::make_unique<Opt>(p, options); };
}

// After 10 steps of case `name`: the parameters against <name>.w and
// <name>.b, and every state entry against <name>.state.<i>.<key>, within
// rel; the table has no state entry the optimizer lacks.
void expect_golden(const GoldenTables& tables, const std::string& name, Optimizer& opt,
                   const std::vector<Tensor>& params, double rel = 1e-6);

// Every case trained 10 steps from start() matches expect_golden; the
// float64 parameters take the fused loop exactly when it is enabled.
void expect_cases_match(const GoldenTables& tables, const Cases& cases, double rel = 1e-6);

// Parameterized by whether the fused loops run (else the tensor-op path).
class FusedOrOpsTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override;
  void TearDown() override;
};
// The instantiation's names: "fused" and "ops".
std::string fused_or_ops(const ::testing::TestParamInfo<bool>& info);

// float32 runs the float instantiation of the fused loops: 10 steps of each
// case, fused and through tensor ops, agree within float32 rounding.
void expect_fused_float_matches_ops(const Cases& cases);

// A strided grad takes the tensor-op path by itself, to the same values as
// its contiguous copy (3 steps on one parameter).
void expect_strided_grad_matches_contiguous(const std::string& name, const Factory& make);

// An optimizer restored from the flat state dict taken after 4 steps, over
// copies of the parameters and with another lr before the load, continues
// exactly as the original and ends on the golden values after 10 steps.
void expect_restored_continues_exactly(const GoldenTables& tables, const std::string& name,
                                       const Factory& make);

}  // namespace testing
}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_TESTING_OPTIM_GOLDEN_H_
