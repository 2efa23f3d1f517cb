#ifndef EMBER_DATA_TEST_GOLDEN_H_
#define EMBER_DATA_TEST_GOLDEN_H_

// The //data tests' golden tables (tools/golden/data.py writes
// data/testdata/*_golden.inc as `{"name", {values...}},` rows).

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ember::data::testing {

template <typename T>
struct Golden {
  const char* name;
  std::vector<T> values;
};

// The values of the row called `name`; a test failure (and no values) when
// the table has none.
template <typename T, size_t N>
const std::vector<T>& find_golden(const Golden<T> (&table)[N], const std::string& name) {
  for (const Golden<T>& g : table) {
    if (name == g.name) return g.values;
  }
  ADD_FAILURE() << "no golden entry " << name;
  static const std::vector<T> empty;
  return empty;
}

}  // namespace ember::data::testing

#endif  // EMBER_DATA_TEST_GOLDEN_H_
