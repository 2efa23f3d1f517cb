#ifndef EMBER_TENSOR_TESTDATA_GOLDEN_ENTRY_H_
#define EMBER_TENSOR_TESTDATA_GOLDEN_ENTRY_H_

// One tensor computed by PyTorch, as written by tools/golden/golden_util.py,
// and the check that an ember tensor equals it.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace ember {
namespace testing {

struct GoldenEntry {
  const char* name;
  std::vector<int64_t> sizes;
  ScalarType dtype;
  std::vector<double> values;  // row-major
};

// Looks `name` up in `table`; fails the test when it is missing.
template <size_t N>
const GoldenEntry& find_golden(const GoldenEntry (&table)[N], const std::string& name) {
  for (const GoldenEntry& e : table) {
    if (name == e.name) return e;
  }
  ADD_FAILURE() << "no golden entry " << name;
  static const GoldenEntry kMissing{"missing", {}, kFloat, {}};
  return kMissing;
}

// Same sizes, dtype and values. max_ulps > 0 allows that many units in the
// last place of the dtype (for results PyTorch computes with SIMD math
// functions whose rounding libm does not share).
inline ::testing::AssertionResult matches_golden(const Tensor& t, const GoldenEntry& g,
                                                  double rel_tol = 0) {
  if (t.dtype() != g.dtype) {
    return ::testing::AssertionFailure()
           << g.name << ": dtype " << t.dtype() << ", expected " << g.dtype;
  }
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  if (sizes != g.sizes) return ::testing::AssertionFailure() << g.name << ": sizes differ";
  Tensor d = t.to(kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  for (size_t i = 0; i < g.values.size(); ++i) {
    const double want = g.values[i];
    const bool same = (std::isnan(want) && std::isnan(p[i])) || p[i] == want ||
                      (rel_tol > 0 && std::fabs(p[i] - want) <= rel_tol * std::fabs(want));
    if (!same) {
      return ::testing::AssertionFailure()
             << g.name << ": element " << i << " is " << p[i] << ", PyTorch gives " << want;
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace testing
}  // namespace ember

#endif  // EMBER_TENSOR_TESTDATA_GOLDEN_ENTRY_H_
