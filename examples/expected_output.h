// The examples' golden-output check: what a program printed against the
// lines PyTorch printed for the same program (a `.expected` file made by a
// tools/golden/ script), line by line so a failure names the first line
// that differs.
#ifndef EMBER_EXAMPLES_EXPECTED_OUTPUT_H_
#define EMBER_EXAMPLES_EXPECTED_OUTPUT_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <istream>
#include <sstream>
#include <string>
#include <vector>

namespace ember::examples {

inline std::vector<std::string> lines_of(std::istream& in) {
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Every line of `printed` equals the same line of the file `expected_path`.
inline void expect_output_matches(const std::string& expected_path, const std::string& printed) {
  std::ifstream f(expected_path);
  ASSERT_TRUE(f.good()) << "missing " << expected_path;
  std::vector<std::string> expected = lines_of(f);
  std::istringstream in(printed);
  std::vector<std::string> got = lines_of(in);
  for (size_t i = 0; i < std::min(expected.size(), got.size()); ++i) {
    EXPECT_EQ(got[i], expected[i]) << expected_path << " line " << i + 1;
  }
  EXPECT_EQ(got.size(), expected.size()) << expected_path;
}

}  // namespace ember::examples

#endif  // EMBER_EXAMPLES_EXPECTED_OUTPUT_H_
