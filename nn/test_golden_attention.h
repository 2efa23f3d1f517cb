#ifndef EMBER_NN_TEST_GOLDEN_ATTENTION_H_
#define EMBER_NN_TEST_GOLDEN_ATTENTION_H_

// Test-only: the tables tools/golden/attention.py writes from PyTorch
// (testdata/attention_*golden.inc) for MultiheadAttention and the
// Transformer layers, and the checks their tests share.

#include <functional>
#include <map>
#include <string>

#include "nn/module.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace nn {
namespace testing {
namespace attention {

const ::ember::testing::GoldenEntry& golden(const std::string& name);
bool has_golden(const std::string& name);
inline Tensor golden_tensor(const std::string& name) {
  return ::ember::testing::golden_tensor(golden(name));
}
std::string golden_string(const std::string& name);
void expect_golden_error(const std::string& name, const std::function<void()>& f);

// The module made under manual_seed(0) holds PyTorch's initial values
// ("<prefix>.init.<key>", exactly), parameter names and shapes, state_dict
// keys and printed form.
void expect_init(const std::string& prefix, const Module& m);

// Gives m PyTorch's initial values, so that forward checks do not depend
// on the init check.
void load_init(const std::string& prefix, Module& m);

// The inputs "<prefix>.input.<name>" as leaves that require grad.
std::map<std::string, Tensor> inputs(const std::string& prefix);

// out against "<prefix>.out"; then backward of sum(out * "<prefix>.w")
// (plus sum(weights * "<prefix>.w2") when weights is defined, checked
// against "<prefix>.weights"), and every parameter's and input's gradient
// against "<prefix>.grad.<key>" / "<prefix>.grad_input.<name>"; within
// rel (float32 with another summation order).
void expect_forward_backward(const std::string& prefix, Module& m,
                             const std::map<std::string, Tensor>& inputs, const Tensor& out,
                             const Tensor& weights = {}, double rel = 2e-5);

}  // namespace attention
}  // namespace testing
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_TEST_GOLDEN_ATTENTION_H_
