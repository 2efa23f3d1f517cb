#include <gtest/gtest.h>

#include <sstream>

#include "examples/expected_output.h"
#include "examples/lenet.h"

namespace {

// Every line equals what PyTorch 1.13 prints for tools/golden/lenet.py:
// the same initial weights and input (manual_seed), the same printed
// values, node names, gradient and state_dict listing.
TEST(LenetTest, MatchesPyTorch) {
  std::stringstream out;
  ember::examples::lenet(out);
  ember::examples::expect_output_matches("examples/lenet.expected", out.str());
}

}  // namespace
