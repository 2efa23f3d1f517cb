#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <vector>

#include "examples/expected_output.h"
#include "autograd/grad_mode.h"
#include "examples/lenet.h"
#include "serialize/module.h"
#include "tensor/all.h"

namespace {

// kLenetLogits: tools/golden/lenet.py's Net, seed 0, on lenet_input() of
// tools/pt_interop.py (which torch.save'd its state dict).
#include "examples/testdata/lenet_pt_golden.inc"

// Every line equals what PyTorch 1.13 prints for tools/golden/lenet.py:
// the same initial weights and input (manual_seed), the same printed
// values, node names, gradient and state_dict listing.
TEST(LenetTest, MatchesPyTorch) {
  std::stringstream out;
  ember::examples::lenet(out);
  ember::examples::expect_output_matches("examples/lenet.expected", out.str());
}

// The network loads the state dict PyTorch saved for its twin (a .pt file,
// PyTorch's parameter names) and gives PyTorch's logits.
TEST(LenetTest, LoadsPyTorchsStateDict) {
  ember::examples::Net net;
  EXPECT_TRUE(ember::load(net, "examples/testdata/torch_lenet.pt").empty());
  ember::NoGradGuard no_grad;
  const ember::Tensor x =
      ember::arange(1024, ember::TensorOptions(ember::kFloat)).reshape({1, 1, 32, 32}) / 1024 - 0.5;
  const ember::Tensor logits = net->forward(x)[0].to(ember::kDouble).contiguous();
  ASSERT_EQ(logits.numel(), static_cast<int64_t>(kLenetLogits.size()));
  for (size_t i = 0; i < kLenetLogits.size(); ++i) {
    EXPECT_NEAR(logits.data_ptr<double>()[i], kLenetLogits[i], 1e-6) << i;
  }
}

}  // namespace
