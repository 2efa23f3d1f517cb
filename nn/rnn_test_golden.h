#ifndef EMBER_NN_RNN_TEST_GOLDEN_H_
#define EMBER_NN_RNN_TEST_GOLDEN_H_

// Test-only: the tables tools/golden/rnn.py writes from PyTorch
// (testdata/rnn_*golden.inc), compiled once for rnn_test and rnn_cell_test,
// and the check every recorded case runs.

#include <functional>
#include <string>
#include <vector>

#include "autograd/node.h"
#include "nn/module.h"
#include "nn/test_golden.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace nn {
namespace rnn_testing {

// rnn.py's tables. The case helpers below read them unless given another
// generator's tables in rnn.py's naming (rnn_packing.py's).
const testing::GoldenTables& tables();
const ::ember::testing::GoldenEntry& golden(const std::string& name);
inline Tensor golden_tensor(const std::string& name) {
  return ::ember::testing::golden_tensor(golden(name));
}
// A printed module, key list or warning ("repr.lstm", "state_dict.lstmcell").
std::string golden_string(const std::string& name);
// Runs f, which must throw PyTorch's error `name`.
void expect_golden_error(const std::string& name, const std::function<void()>& f);

// Loads the parameters PyTorch drew for case `name` ("<name>.param.<key>"),
// as a state_dict saved by PyTorch would be: every key of the module must be
// in the table.
void load_case_parameters(Module& module, const std::string& name,
                          const testing::GoldenTables& t = tables());

// A recorded case's inputs, as leaves that require grad: "<name>.input",
// and "<name>.hx<i>" for the initial states PyTorch was given.
struct CaseInputs {
  Tensor input;
  std::vector<Tensor> hx;
};
CaseInputs case_inputs(const std::string& name, int num_states,
                       const testing::GoldenTables& t = tables());

// Compares results[i] with PyTorch's "<name>.out<i>", backpropagates the
// generator's loss sum_i sum(results[i] * make_input(shape, seed 5 + i)), and
// compares the gradients of the inputs and of every parameter of `module`.
void expect_case(const std::string& name, Module& module, const CaseInputs& inputs,
                 const std::vector<Tensor>& results, const testing::GoldenTables& t = tables());

// Every parameter of `module` is exactly PyTorch's draw for case `name`
// ("<name>.param.<key>"), as after manual_seed(0).
void expect_initial_parameters(const std::string& name, const Module& module);

// gradcheck's inputs: `inputs`, then every parameter of `module` (which
// gradcheck perturbs in place).
autograd::variable_list with_parameters(autograd::variable_list inputs, const Module& module);

}  // namespace rnn_testing
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_RNN_TEST_GOLDEN_H_
