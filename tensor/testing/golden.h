#ifndef EMBER_TENSOR_TESTING_GOLDEN_H_
#define EMBER_TENSOR_TESTING_GOLDEN_H_

// Test-only helpers shared by the //tensor tests: the golden tables that
// tools/golden/*.py write from PyTorch 1.13 (testdata/*_golden.inc), the
// inputs those generators build, and the checks of ember's results and
// errors against them.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace ember {
namespace testing {

// --- Named tensors: {name, sizes, dtype, values} ------------------------------
// One tensor computed by PyTorch, as GoldenWriter in
// tools/golden/golden_util.py writes it. A test holds its table as
//   const GoldenEntry kGolden[] = {
//   #include "tensor/testdata/<family>_golden.inc"
//   };

struct GoldenEntry {
  const char* name;
  std::vector<int64_t> sizes;
  ScalarType dtype;
  std::vector<double> values;  // row-major
};

// Looks `name` up in `table`; fails the test (and returns an empty entry)
// when it is missing.
const GoldenEntry& find_golden(const GoldenEntry* table, size_t n, const std::string& name);
template <size_t N>
const GoldenEntry& find_golden(const GoldenEntry (&table)[N], const std::string& name) {
  return find_golden(table, N, name);
}

// A contiguous tensor of `dtype` holding `values` (row-major).
Tensor from_values(IntArrayRef sizes, const std::vector<double>& values, ScalarType dtype);
// The entry as a tensor of its own dtype (an input stored in the table).
inline Tensor golden_tensor(const GoldenEntry& g) {
  return from_values(g.sizes, g.values, g.dtype);
}

// Same dtype, sizes and values as `g` (NaN matches NaN). rel_tol > 0 allows
// |got - want| <= rel_tol * |want| (for results PyTorch computes with SIMD
// math functions whose rounding libm does not share).
::testing::AssertionResult matches_golden(const Tensor& t, const GoldenEntry& g,
                                          double rel_tol = 0);

// For goldens PyTorch computed in float64 from the same inputs: t has dtype
// `dtype`, g's sizes, and values within rel * max(1, |want|) of g's (NaN
// matches NaN). rel = 0 wants them exact (integer and bool results).
::testing::AssertionResult near_golden(const Tensor& t, const GoldenEntry& g, ScalarType dtype,
                                       double rel = 0);

// --- PyTorch's errors: {name, Python exception class, message} ----------------
// As ErrorWriter in golden_util.py writes them (testdata/*_errors_golden.inc).

struct GoldenError {
  const char* name;
  const char* type;  // Python's exception class: IndexError, ValueError...
  const char* message;
};

// Runs f, which must throw PyTorch's message for `name`, as IndexError,
// TypeError or ValueError exactly where Python raises that class.
void expect_golden_error(const GoldenError* table, size_t n, const std::string& name,
                         const std::function<void()>& f);
template <size_t N>
void expect_golden_error(const GoldenError (&table)[N], const std::string& name,
                         const std::function<void()>& f) {
  expect_golden_error(table, N, name, f);
}

// --- Errors spelled in the test -----------------------------------------------

// The message of the ember::Error that f throws, or "(no error)".
std::string error_of(const std::function<void()>& f);

// t has want's sizes and dtype, and every value equals want's, is NaN where
// want's is, or lies within tol * (1 + |want|); with check_zero_sign a zero
// must also carry want's sign. Reports the first differing places.
void expect_values(const Tensor& t, const Tensor& want, double tol = 0,
                   bool check_zero_sign = false);

// Expects f to throw E (ember::Error or a subclass) with exactly `message`.
template <typename E = Error>
void expect_error(const std::function<void()>& f, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected: " << message;
  } catch (const E& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

// --- Inputs and inspection ----------------------------------------------------

// Deterministic, dtype-exact values with ties: mk() in golden_util.py.
// Element i is ((i + seed) * 7) % 11, minus 3 (except for uint8), times 0.25
// for floating dtypes; bool takes it modulo 2 instead.
Tensor make_input(IntArrayRef shape, ScalarType dtype = kFloat, int64_t seed = 0);

// A view of t's storage with other sizes, strides and storage offset (a
// transposed, expanded or sliced input without depending on //tensor:shape).
Tensor strided_view(const Tensor& t, IntArrayRef sizes, IntArrayRef strides, int64_t offset = 0);

// The values of t in row-major order, as doubles.
std::vector<double> values_of(const Tensor& t);

// True when a and b alias the same storage (a view and its base).
bool shares_storage(const Tensor& a, const Tensor& b);

// --- Elementwise math cases (tools/golden/math.py) -----------------------------
// Each names an expression the test runs on the same inputs (views
// included) and PyTorch's result or error message.

// A tensor as PyTorch held it: the view's geometry over its whole storage.
struct GoldenTensor {
  ScalarType dtype = ScalarType::Undefined;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset = 0;
  std::vector<double> storage;
};

struct GoldenCase {
  const char* name;
  std::vector<GoldenTensor> inputs;
  GoldenTensor result;  // undefined dtype when PyTorch raised
  const char* error;
};

// The view with the recorded geometry over a fresh storage holding the
// recorded values.
Tensor make_tensor(const GoldenTensor& g);

// The case `name` of testdata/math_golden.inc; fails the test when missing.
const GoldenCase& math_case(const std::string& name);

// Relative tolerance per dtype: a few ulps, since libm and PyTorch's SLEEF
// may round transcendental functions differently.
double tolerance(ScalarType t);

// Same dtype, sizes and values (within tolerance(dtype)) as `want`.
void expect_tensor(const Tensor& actual, const GoldenTensor& want, const std::string& name);

// Runs fn on the case's inputs and compares with PyTorch's result.
void check(const std::string& name, const std::function<Tensor(std::vector<Tensor>&)>& fn);

// For ops returning bool (allclose, equal).
void check_bool(const std::string& name, const std::function<bool(std::vector<Tensor>&)>& fn);

// Runs fn on the case's inputs and expects PyTorch's error message.
void check_error(const std::string& name, const std::function<void(std::vector<Tensor>&)>& fn);

}  // namespace testing
}  // namespace ember

#endif  // EMBER_TENSOR_TESTING_GOLDEN_H_
