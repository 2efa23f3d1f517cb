#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "examples/lenet.h"

namespace {

std::vector<std::string> lines_of(std::istream& in) {
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Every line equals what PyTorch 1.13 prints for tools/golden/lenet.py:
// the same initial weights and input (manual_seed), the same printed
// values, node names, gradient and state_dict listing.
TEST(LenetTest, MatchesPyTorch) {
  std::ifstream f("examples/lenet.expected");
  ASSERT_TRUE(f.good()) << "missing examples/lenet.expected";
  std::vector<std::string> expected = lines_of(f);
  std::stringstream out;
  ember::examples::lenet(out);
  std::vector<std::string> got = lines_of(out);
  for (size_t i = 0; i < std::min(expected.size(), got.size()); ++i) {
    EXPECT_EQ(got[i], expected[i]) << "line " << i + 1;
  }
  EXPECT_EQ(got.size(), expected.size());
}

}  // namespace
