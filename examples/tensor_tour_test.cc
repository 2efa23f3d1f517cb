#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "examples/tensor_tour.h"

namespace {

std::vector<std::string> lines_of(std::istream& in) {
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Every line the tour prints equals what PyTorch 1.13 prints for the same
// program (tools/golden/tensor_tour.py), random values included: ember's
// generator reproduces PyTorch's under manual_seed.
TEST(TensorTourTest, MatchesPyTorch) {
  std::ifstream f("examples/tensor_tour.expected");
  ASSERT_TRUE(f.good()) << "missing examples/tensor_tour.expected";
  std::vector<std::string> expected = lines_of(f);
  std::stringstream out;
  ember::examples::tensor_tour(out);
  std::vector<std::string> got = lines_of(out);
  for (size_t i = 0; i < std::min(expected.size(), got.size()); ++i) {
    EXPECT_EQ(got[i], expected[i]) << "line " << i + 1;
  }
  EXPECT_EQ(got.size(), expected.size());
}

}  // namespace
