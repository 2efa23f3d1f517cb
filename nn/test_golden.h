#ifndef EMBER_NN_TEST_GOLDEN_H_
#define EMBER_NN_TEST_GOLDEN_H_

// Test-only: the tables tools/golden/nn_modules.py writes from PyTorch
// (testdata/nn_modules_*golden.inc), compiled once for all //nn tests, and
// GoldenTables, the lookups every //nn generator's tables share
// (test_golden_more.h, rnn_test_golden.h).

#include <cstddef>
#include <functional>
#include <string>

#include "tensor/testing/golden.h"

namespace ember {
namespace nn {
namespace testing {

// A printed tree, key list or warning, as write_inc in
// tools/golden/golden_util.py writes it (testdata/*_strings_golden.inc).
struct GoldenString {
  const char* name;
  const char* text;
};

// One generator's three tables: named tensors, PyTorch's errors and printed
// strings. Each table is defined (and compiled) in one .cc, which binds it
// here and forwards its namespace's golden() / golden_string() /
// expect_golden_error() to these.
class GoldenTables {
 public:
  template <size_t NG, size_t NE, size_t NS>
  constexpr GoldenTables(const ::ember::testing::GoldenEntry (&golden)[NG],
                         const ::ember::testing::GoldenError (&errors)[NE],
                         const GoldenString (&strings)[NS])
      : golden_(golden),
        num_golden_(NG),
        errors_(errors),
        num_errors_(NE),
        strings_(strings),
        num_strings_(NS) {}

  // The named tensor; fails the test when missing.
  const ::ember::testing::GoldenEntry& golden(const std::string& name) const;
  // The named string; fails the test (and returns "") when missing.
  std::string golden_string(const std::string& name) const;
  // Runs f, which must throw PyTorch's error `name`.
  void expect_golden_error(const std::string& name, const std::function<void()>& f) const;

 private:
  const ::ember::testing::GoldenEntry* golden_;
  size_t num_golden_;
  const ::ember::testing::GoldenError* errors_;
  size_t num_errors_;
  const GoldenString* strings_;
  size_t num_strings_;
};

// --- tools/golden/nn_modules.py's tables --------------------------------------

// The named tensor; fails the test when missing.
const ::ember::testing::GoldenEntry& golden(const std::string& name);
inline Tensor golden_tensor(const std::string& name) {
  return ::ember::testing::golden_tensor(golden(name));
}
// A printed tree or key list ("repr.net", "state_dict.small").
std::string golden_string(const std::string& name);
// Runs f, which must throw PyTorch's error `name`.
void expect_golden_error(const std::string& name, const std::function<void()>& f);

}  // namespace testing
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_TEST_GOLDEN_H_
