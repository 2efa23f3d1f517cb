#ifndef EMBER_NN_TEST_GOLDEN_MORE_H_
#define EMBER_NN_TEST_GOLDEN_MORE_H_

// Test-only: the tables tools/golden/nn_modules_more.py writes from PyTorch
// (testdata/nn_modules_more_*golden.inc), the same lookups as
// test_golden.h's for the modules added after nn_modules.py.

#include <functional>
#include <sstream>
#include <string>

#include "nn/module.h"
#include "nn/test_golden.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace nn {
namespace testing {
namespace more {

// This generator's tables (for expect_layer_in).
const GoldenTables& tables();
const ::ember::testing::GoldenEntry& golden(const std::string& name);
inline Tensor golden_tensor(const std::string& name) {
  return ::ember::testing::golden_tensor(golden(name));
}
std::string golden_string(const std::string& name);
void expect_golden_error(const std::string& name, const std::function<void()>& f);

// "name [sizes]" per parameter, one a line, as the generator prints them.
std::string params_string(const Module& m);
// The state_dict's keys, one a line.
std::string state_dict_keys(const Module& m);
std::string repr(const Module& m);

// What every layer case of a module generator checks: the initial
// parameters ("init.<name>.<key>"), their names and shapes, the
// state_dict's keys, and the output for "forward.<name>.input". m is a
// module holder (ConvTranspose1d, InstanceNorm2d...).
template <typename M>
void expect_layer_in(const GoldenTables& t, const std::string& name, M& m) {
  SCOPED_TRACE(name);
  for (const auto& [key, p] : m->named_parameters()) {
    EXPECT_TRUE(::ember::testing::matches_golden(p, t.golden("init." + name + "." + key))) << key;
  }
  EXPECT_EQ(params_string(*m), t.golden_string("params." + name));
  EXPECT_EQ(state_dict_keys(*m), t.golden_string("state_dict." + name));
  Tensor out = m(::ember::testing::golden_tensor(t.golden("forward." + name + ".input")));
  EXPECT_TRUE(
      ::ember::testing::near_golden(out, t.golden("forward." + name + ".output"), kFloat, 1e-5));
}
// The same for nn_modules_more.py's tables.
template <typename M>
void expect_layer(const std::string& name, M& m) {
  expect_layer_in(tables(), name, m);
}

}  // namespace more
}  // namespace testing
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_TEST_GOLDEN_MORE_H_
