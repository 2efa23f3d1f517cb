// Pooling, GELU, BatchNorm, LayerNorm and Embedding layers against
// PyTorch's forward values, and BatchNorm's running statistics through
// train and eval.

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "autograd/autograd.h"
#include "nn/nn.h"
#include "nn/test_golden.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

using ::ember::testing::make_input;
using ::ember::testing::matches_golden;
using ::ember::testing::near_golden;
using testing::golden;
using testing::golden_tensor;

template <typename M>
void expect_forward(const std::string& name, M& module, double tol = 1e-5) {
  SCOPED_TRACE(name);
  Tensor out = module(golden_tensor("forward." + name + ".input"));
  EXPECT_TRUE(near_golden(out, golden("forward." + name + ".output"), kFloat, tol));
}

TEST(NormPoolTest, Pools) {
  MaxPool2d max(2);
  expect_forward("maxpool2d", max, 0);
  MaxPool2d max_pad(MaxPool2dOptions(3).stride(2).padding(1).ceil_mode(true));
  expect_forward("maxpool2d_pad", max_pad, 0);
  AvgPool2d avg(AvgPool2dOptions(3).stride(2).padding(1));
  expect_forward("avgpool2d", avg);
  AvgPool2d avg_nopad(AvgPool2dOptions({2, 3}).padding(1).count_include_pad(false));
  expect_forward("avgpool2d_nopad", avg_nopad);
  AdaptiveAvgPool2d adaptive(AdaptiveAvgPool2dOptions({2, 3}));
  expect_forward("adaptiveavgpool2d", adaptive);
}

TEST(NormPoolTest, Gelu) {
  GELU gelu;
  expect_forward("gelu", gelu);
  GELU gelu_tanh(GELUOptions().approximate("tanh"));
  expect_forward("gelu_tanh", gelu_tanh);
}

// Seed 003's LeNet and its forward.
struct NetImpl : Module {
  NetImpl()
      : conv1(register_module("conv1", Conv2d(1, 6, 5))),
        conv2(register_module("conv2", Conv2d(6, 16, 5))),
        fc1(register_module("fc1", Linear(16 * 5 * 5, 120))),
        fc2(register_module("fc2", Linear(120, 84))),
        fc3(register_module("fc3", Linear(84, 10))) {}
  Tensor forward(const Tensor& input) {
    namespace F = functional;
    Tensor x = F::max_pool2d(F::relu(conv1(input)), F::MaxPool2dFuncOptions({2, 2}));
    x = F::max_pool2d(F::relu(conv2(x)), F::MaxPool2dFuncOptions(2));
    x = x.view({-1, 16 * 5 * 5});
    x = F::relu(fc1(x));
    x = F::relu(fc2(x));
    return fc3(x);
  }
  Conv2d conv1, conv2;
  Linear fc1, fc2, fc3;
};
EMBER_MODULE(Net);

TEST(NormPoolTest, LeNetForward) {
  manual_seed(0);
  Net net;
  expect_forward("net", net);
}

// Seed 003: conv1.bias.grad is None before backward and PyTorch's after
// backward of an MSE loss.
TEST(NormPoolTest, LeNetBackwardOfMseLoss) {
  manual_seed(0);
  Net net;
  EXPECT_FALSE(net->conv1->bias.grad().defined());
  MSELoss mse;
  mse(net(golden_tensor("forward.net.input")), golden_tensor("backward.net.target")).backward();
  EXPECT_TRUE(near_golden(net->conv1->bias.grad(), golden("backward.net.conv1.bias.grad"), kFloat,
                          1e-6));
  EXPECT_TRUE(near_golden(net->fc3->weight.grad(), golden("backward.net.fc3.weight.grad"), kFloat,
                          1e-6));
}

TEST(NormPoolTest, LayerNormAndEmbedding) {
  manual_seed(0);
  LayerNorm layer_norm(LayerNormOptions({2, 3}));
  expect_forward("layernorm", layer_norm);
  manual_seed(0);
  Embedding embedding(10, 3);
  expect_forward("embedding", embedding, 0);
  manual_seed(0);
  Embedding padded(EmbeddingOptions(6, 4).padding_idx(-2));
  EXPECT_EQ(padded->options.padding_idx(), std::optional<int64_t>(4));
  expect_forward("embedding_pad", padded, 0);
}

// Two training steps (running statistics move), then eval (they are used).
template <typename BN>
void expect_batch_norm(const std::string& name, BN& bn, const Tensor& x) {
  SCOPED_TRACE(name);
  const std::string p = "bn." + name + ".";
  EXPECT_TRUE(near_golden(bn(x), golden(p + "train1"), kFloat, 1e-5));
  EXPECT_TRUE(near_golden(bn(x * 2 + 1), golden(p + "train2"), kFloat, 1e-5));
  EXPECT_TRUE(near_golden(bn->running_mean, golden(p + "running_mean"), kFloat, 1e-6));
  EXPECT_TRUE(near_golden(bn->running_var, golden(p + "running_var"), kFloat, 1e-6));
  EXPECT_TRUE(matches_golden(bn->num_batches_tracked, golden(p + "num_batches_tracked")));
  bn->eval();
  Tensor mean_before = bn->running_mean.clone();
  EXPECT_TRUE(near_golden(bn(x), golden(p + "eval"), kFloat, 1e-5));
  EXPECT_TRUE(bn->running_mean.equal(mean_before));  // eval leaves them
  EXPECT_TRUE(matches_golden(bn->num_batches_tracked, golden(p + "num_batches_tracked")));
}

TEST(NormPoolTest, BatchNormRunningStatistics) {
  BatchNorm1d bn1(4);
  expect_batch_norm("batchnorm1d", bn1, make_input({5, 4}));
  // momentum=None: the cumulative average.
  BatchNorm2d bn2(BatchNormOptions(3).momentum(std::nullopt));
  expect_batch_norm("batchnorm2d", bn2, make_input({2, 3, 2, 2}));
  BatchNorm1d untracked(BatchNormOptions(2).affine(false).track_running_stats(false));
  EXPECT_TRUE(near_golden(untracked(make_input({3, 2, 4})), golden("bn.untracked.train"), kFloat,
                          1e-5));
  EXPECT_TRUE(untracked->buffers().empty());
}

TEST(NormPoolTest, BatchNormInputDimErrors) {
  using ::ember::testing::expect_error;
  expect_error<ValueError>([] { BatchNorm2d(3)(ember::ones({2, 3})); },
                           "expected 4D input (got 2D input)");
  expect_error<ValueError>([] { BatchNorm1d(3)(ember::ones({2, 3, 1, 1})); },
                           "expected 2D or 3D input (got 4D input)");
}

TEST(NormPoolTest, BatchNormGradientsReachWeightAndBias) {
  BatchNorm2d bn(2);
  Tensor x = make_input({2, 2, 3, 1}).requires_grad_();
  (bn(x) * make_input({2, 2, 3, 1}, kFloat, 3)).sum().backward();
  EXPECT_TRUE(bn->weight.grad().defined());
  EXPECT_TRUE(bn->bias.grad().defined());
  EXPECT_TRUE(x.grad().defined());
  EXPECT_FALSE(bn->running_mean.requires_grad());
}

}  // namespace
}  // namespace nn
}  // namespace ember
