// The top-level ATen forms of nn::functional's ops (Note [Top-level nn
// ops]): ember::max_pool1d(x, 2), ember::dropout(x, p, train),
// ember::cross_entropy_loss(...), with PyTorch 1.13's values.

#include "nn/functional/aten.h"

#include <gtest/gtest.h>

#include "nn/functional/functional.h"
#include "tensor/all.h"

namespace ember {
namespace {

Tensor floats(std::initializer_list<float> v) { return tensor(std::vector<float>(v)); }

TEST(AtenNnOpsTest, OneAndThreeDimensionalPooling) {
  const Tensor x = arange(6.0).view({1, 1, 6});
  EXPECT_TRUE(max_pool1d(x, 2).equal(floats({1, 3, 5}).view({1, 1, 3})));
  EXPECT_TRUE(avg_pool1d(x, 3, 1).equal(floats({1, 2, 3, 4}).view({1, 1, 4})));
  // kernel 3, stride 2, padding 1, dilation 2, ceil_mode: [3, 5, 7, 9, 9].
  EXPECT_TRUE(max_pool1d(arange(10.0).view({1, 1, 10}), 3, 2, 1, 2, true)
                  .equal(floats({3, 5, 7, 9, 9}).view({1, 1, 5})));
  EXPECT_TRUE(std::get<1>(max_pool1d_with_indices(x, 2)).equal(
      tensor({1, 3, 5}, kLong).view({1, 1, 3})));

  const Tensor v = arange(27.0).view({1, 1, 3, 3, 3});
  EXPECT_TRUE(max_pool3d(v, 2).equal(floats({13}).view({1, 1, 1, 1, 1})));
  EXPECT_TRUE(max_pool3d(v, {2, 2, 2}).equal(max_pool3d(v, 2)));
  EXPECT_TRUE(avg_pool3d(v, 2, 1).flatten().equal(
      floats({6.5, 7.5, 9.5, 10.5, 15.5, 16.5, 18.5, 19.5})));
  EXPECT_TRUE(std::get<0>(max_pool3d_with_indices(v, 2)).equal(max_pool3d(v, 2)));

  EXPECT_TRUE(adaptive_avg_pool1d(x, 2).equal(floats({1, 4}).view({1, 1, 2})));
  EXPECT_TRUE(adaptive_avg_pool3d(v, 1).flatten().equal(floats({13})));
  auto [values, indices] = adaptive_max_pool2d(arange(16.0).view({1, 1, 4, 4}), 2);
  EXPECT_TRUE(values.flatten().equal(floats({5, 7, 13, 15})));
  EXPECT_TRUE(indices.flatten().equal(tensor({5, 7, 13, 15}, kLong)));
  auto [v1, i1] = adaptive_max_pool1d(x, 2);
  EXPECT_TRUE(v1.flatten().equal(floats({2, 5})));
  EXPECT_TRUE(i1.flatten().equal(tensor({2, 5}, kLong)));
}

TEST(AtenNnOpsTest, PoolingArgumentsAreOneIntOrOnePerDim) {
  const Tensor v = zeros({1, 1, 4, 4, 4});
  try {
    max_pool3d(v, {2, 2});
    FAIL() << "two kernel sizes for three dims";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "max_pool3d: kernel_size must either be a single int, or a tuple of three ints");
  }
  EXPECT_THROW(max_pool1d(zeros({1, 1, 4}), 2, {1, 1}), Error);
}

TEST(AtenNnOpsTest, DropoutDrawsPyTorchsMask) {
  const Tensor x = ones({8});
  EXPECT_TRUE(dropout(x, 0.5, /*train=*/false).is_same(x));
  manual_seed(0);
  // torch.manual_seed(0); torch.dropout(torch.ones(8), 0.5, True)
  EXPECT_TRUE(dropout(x, 0.5, /*train=*/true).equal(floats({0, 0, 2, 0, 0, 0, 2, 2})));
  EXPECT_THROW(dropout(x, 1.5, true), Error);
}

TEST(AtenNnOpsTest, CrossEntropyLossWithAtenDefaults) {
  const Tensor logits = floats({1, 2, 3, 1, 0, -1}).view({2, 3});
  const Tensor target = tensor({2, 0}, kLong);
  EXPECT_NEAR(cross_entropy_loss(logits, target).item<double>(), 0.40760594606399536, 1e-6);
  EXPECT_NEAR(cross_entropy_loss(logits, target, {}, Reduction::Sum, -100, 0.1).item<double>(),
              1.015211820602417, 1e-6);
  EXPECT_TRUE(cross_entropy_loss(logits, target, floats({1, 2, 3}), Reduction::None)
                  .allclose(floats({1.2228178977966309, 0.40760594606399536})));
  EXPECT_THROW(cross_entropy_loss(logits, target, {}, 3), Error);
}

// ATen's spelling and nn::functional's agree.
TEST(AtenNnOpsTest, SameAsFunctional) {
  namespace F = nn::functional;
  manual_seed(1);
  const Tensor x = randn({2, 3, 8});
  EXPECT_TRUE(max_pool1d(x, 3, 2, 1).equal(
      F::max_pool1d(x, F::MaxPool1dFuncOptions(3).stride(2).padding(1))));
  const Tensor lp = log_softmax(randn({4, 5}), 1);
  const Tensor t = tensor({0, 4, 2, 1}, kLong);
  EXPECT_TRUE(nll_loss(lp, t).equal(F::nll_loss(lp, t)));
  EXPECT_TRUE(nll_loss(lp, t, {}, Reduction::Sum)
                  .equal(F::nll_loss(lp, t, F::NLLLossFuncOptions().reduction(kSum))));
}

}  // namespace
}  // namespace ember
