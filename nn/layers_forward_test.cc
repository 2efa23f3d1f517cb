// Forward values of the layers whose parameters PyTorch drew under
// manual_seed(0) (tools/golden/nn_modules.py), train/eval behaviour, and
// gradients reaching the parameters.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "nn/nn.h"
#include "nn/test_golden.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

using ::ember::testing::matches_golden;
using ::ember::testing::near_golden;
using testing::golden;
using testing::golden_tensor;

// Runs the layer on the golden input and compares with PyTorch's output
// (float32 sums in another order: a few ulps of the largest value).
template <typename M>
void expect_forward(const std::string& name, M& module, double tol = 1e-5) {
  SCOPED_TRACE(name);
  Tensor out = module(golden_tensor("forward." + name + ".input"));
  EXPECT_TRUE(near_golden(out, golden("forward." + name + ".output"), kFloat, tol));
}

TEST(LayersForwardTest, LinearAndConvolutions) {
  manual_seed(0);
  Linear linear(3, 2);
  expect_forward("linear", linear);
  manual_seed(0);
  Linear nobias(LinearOptions(4, 5).bias(false));
  expect_forward("linear_nobias", nobias);
  manual_seed(0);
  Conv1d conv1d(Conv1dOptions(2, 4, 3).padding(1));
  expect_forward("conv1d", conv1d);
  manual_seed(0);
  Conv2d conv2d(1, 6, 5);
  expect_forward("conv2d", conv2d);
  manual_seed(0);
  Conv2d groups(Conv2dOptions(4, 6, {3, 2}).stride({2, 1}).padding({1, 0}).groups(2).bias(false));
  expect_forward("conv2d_groups", groups);
  manual_seed(0);
  Conv2d same(Conv2dOptions(2, 3, 3).padding(kSame).dilation(2));
  expect_forward("conv2d_same", same);
}

// padding_mode other than zeros: F::pad, then an unpadded convolution.
TEST(LayersForwardTest, ConvolutionPaddingModes) {
  manual_seed(0);
  Conv2d reflect(Conv2dOptions(2, 3, 3).padding({1, 2}).padding_mode(kReflect));
  expect_forward("conv2d_reflect", reflect);
  manual_seed(0);
  Conv2d circular(Conv2dOptions(2, 3, {2, 3}).padding(kSame).padding_mode(kCircular));
  expect_forward("conv2d_circular_same", circular);
  manual_seed(0);
  Conv1d replicate(Conv1dOptions(2, 3, 3).stride(2).padding(2).padding_mode(kReplicate));
  expect_forward("conv1d_replicate", replicate);
  // The gradient reaches the input through the padding.
  Tensor x = golden_tensor("forward.conv2d_reflect.input").requires_grad_();
  reflect(x).sum().backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_EQ(x.grad().sizes(), x.sizes());
}

TEST(LayersForwardTest, Activations) {
  ReLU relu;
  expect_forward("relu", relu);
  LeakyReLU leaky(LeakyReLUOptions().negative_slope(0.2));
  expect_forward("leakyrelu", leaky);
  Sigmoid sigmoid;
  expect_forward("sigmoid", sigmoid);
  Tanh tanh;
  expect_forward("tanh", tanh);
  Softmax softmax(1);
  expect_forward("softmax", softmax);
  LogSoftmax log_softmax(0);
  expect_forward("logsoftmax", log_softmax);
  Identity identity;
  Tensor x = ember::ones({2});
  EXPECT_TRUE(identity(x).is_same(x));
}

TEST(LayersForwardTest, Flatten) {
  Flatten flatten;
  expect_forward("flatten", flatten, 0);
  Flatten flatten0(FlattenOptions().start_dim(0).end_dim(1));
  expect_forward("flatten_0", flatten0, 0);
}

TEST(LayersForwardTest, DropoutDrawsPyTorchsMaskInTrainingOnly) {
  Dropout dropout(0.3);
  Tensor x = ::ember::testing::make_input({4, 5}) + 1;
  manual_seed(0);
  EXPECT_TRUE(near_golden(dropout(x), golden("forward.dropout.output"), kFloat, 1e-6));
  dropout->eval();
  EXPECT_TRUE(dropout(x).equal(x));
}

TEST(LayersForwardTest, SequentialChainsItsModules) {
  manual_seed(0);
  Sequential seq(Linear(3, 2), ReLU(), Linear(2, 1));
  Tensor x = ::ember::testing::make_input({4, 3});
  Tensor want = seq->at<LinearImpl>(2).forward(seq->at<LinearImpl>(0).forward(x).relu());
  EXPECT_TRUE(seq(x).allclose(want));
}

TEST(LayersForwardTest, SequentialTakesFunctions) {
  Sequential seq(Functional([](const Tensor& x) { return x * 2; }), ReLU());
  EXPECT_TRUE(seq(ember::tensor({-1.0f, 3.0f})).equal(ember::tensor({0.0f, 6.0f})));
  EXPECT_EQ(seq->repr(), "Sequential(\n  (0): Functional()\n  (1): ReLU()\n)");
}

// libtorch's Functional forms: a function, a function with its trailing
// arguments bound (Functional(torch::max_pool2d, 2, 2, 0, 1, false)), and a
// lambda taking its tensor by value.
TEST(LayersForwardTest, FunctionalBindsTrailingArguments) {
  const Tensor p = ember::arange(16.0).view({1, 1, 4, 4});
  Functional relu(ember::relu);
  EXPECT_TRUE(relu(ember::tensor({-1.0f, 2.0f})).equal(ember::tensor({0.0f, 2.0f})));
  Functional pool(ember::max_pool2d, 2, 2, 0, 1, false);
  EXPECT_TRUE(pool(p).flatten().equal(ember::tensor({5.0f, 7.0f, 13.0f, 15.0f})));
  Functional pool3(ember::max_pool2d, /*kernel_size=*/3, /*stride=*/1, /*padding=*/1,
                   /*dilation=*/1, /*ceil_mode=*/false);
  EXPECT_EQ(pool3(p).sizes(), IntArrayRef({1, 1, 4, 4}));
  const std::vector<int64_t> shape = {-1, 8};
  Functional reshape(ember::reshape, shape);
  EXPECT_EQ(reshape(p).sizes(), IntArrayRef({2, 8}));
  Functional by_value([](Tensor x) { return x.sum(); });
  EXPECT_EQ(by_value(p).item<float>(), 120.0f);
  Sequential seq(Functional(ember::relu), Functional(ember::max_pool2d, 2, 2, 0, 1, false));
  EXPECT_TRUE(seq->forward(p - 5).flatten().equal(ember::tensor({0.0f, 2.0f, 8.0f, 10.0f})));
}

TEST(LayersForwardTest, GradientsReachEveryParameter) {
  manual_seed(0);
  Sequential seq(Conv2d(1, 2, 3), ReLU(), Flatten(), Linear(8, 3));
  Tensor x = ::ember::testing::make_input({2, 1, 4, 4});
  seq(x).sum().backward();
  for (const auto& [name, p] : seq->named_parameters()) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(p.grad().defined());
    EXPECT_EQ(p.grad().sizes(), p.sizes());
  }
  // Linear's bias gradient of a sum is the batch size.
  EXPECT_TRUE(seq->at<LinearImpl>(3).bias.grad().equal(ember::full({3}, 2.0)));
  seq->zero_grad();
  for (const Tensor& p : seq->parameters()) EXPECT_FALSE(p.grad().defined());
}

TEST(LayersForwardTest, GradcheckThroughModulesInDouble) {
  manual_seed(0);
  Sequential seq(Linear(3, 4), Tanh(), Conv1d(1, 2, 2), Flatten(), Linear(6, 2));
  seq->to(kDouble);
  Tensor x = ember::randn({2, 3}, kDouble).requires_grad_();
  EXPECT_EQ(autograd::gradcheck(
                [&](const autograd::variable_list& in) -> autograd::variable_list {
                  return {seq(in[0].unsqueeze(1))};
                },
                {x}),
            "");
}

TEST(LayersForwardTest, ToDoubleThenForwardMatchesFloat) {
  manual_seed(0);
  Conv2d conv(1, 6, 5);
  Tensor x = golden_tensor("forward.conv2d.input");
  Tensor want = conv(x).to(kDouble);
  conv->to(kDouble);
  EXPECT_EQ(conv->weight.dtype(), kDouble);
  EXPECT_TRUE(conv(x.to(kDouble)).allclose(want, 1e-5, 1e-6));
}

}  // namespace
}  // namespace nn
}  // namespace ember
