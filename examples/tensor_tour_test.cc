#include <gtest/gtest.h>

#include <sstream>

#include "examples/expected_output.h"
#include "examples/tensor_tour.h"

namespace {

// Every line the tour prints equals what PyTorch 1.13 prints for the same
// program (tools/golden/tensor_tour.py), random values included: ember's
// generator reproduces PyTorch's under manual_seed.
TEST(TensorTourTest, MatchesPyTorch) {
  std::stringstream out;
  ember::examples::tensor_tour(out);
  ember::examples::expect_output_matches("examples/tensor_tour.expected", out.str());
}

}  // namespace
