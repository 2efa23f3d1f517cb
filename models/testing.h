#ifndef EMBER_MODELS_TESTING_H_
#define EMBER_MODELS_TESTING_H_

// Test-only checks that the //models tests share, against the tables of
// tools/golden/resnet.py and tools/golden/gpt2.py.

#include <string>

#include "nn/module.h"
#include "nn/test_golden.h"

namespace ember {
namespace models {
namespace testing {

// One line per state_dict entry, "name [d0, d1]", as the generators print
// their PyTorch twin's state_dict ("names.*" strings).
std::string state_dict_shapes(const nn::Module& module);

// Each parameter's gradient (after backward) against the goldens
// "<prefix>grad_norm.<name>" (its norm) and "<prefix>grad_dot.<name>" (its
// dot product with the parameter): within tol of the norm, and of the
// norm times the parameter's norm.
void expect_gradient_summaries(const nn::Module& module, const nn::testing::GoldenTables& tables,
                               const std::string& prefix, double tol);

}  // namespace testing
}  // namespace models
}  // namespace ember

#endif  // EMBER_MODELS_TESTING_H_
