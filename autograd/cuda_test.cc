// Backward through ops on CUDA tensors: the derivatives are the same ops,
// so they run on the device; the gradients must equal the CPU's. Skips
// without a GPU.

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "tensor/all.h"

namespace ember {
namespace {

TEST(AutogradCudaTest, GradientsEqualTheCpus) {
  if (!cuda::is_available()) GTEST_SKIP() << "no usable CUDA device on this machine";
  const Device dev(kCUDA, 0);
  manual_seed(3);
  Tensor a = randn({4, 3}, TensorOptions(kDouble)), b = randn({3, 2}, TensorOptions(kDouble));
  Tensor ca = a.clone().requires_grad_(), cb = b.clone().requires_grad_();
  Tensor ga = a.to(dev).requires_grad_(), gb = b.to(dev).requires_grad_();
  ((ca.mm(cb).tanh() * 3).sum() + (ca * ca).mean()).backward();
  ((ga.mm(gb).tanh() * 3).sum() + (ga * ga).mean()).backward();
  ASSERT_TRUE(ga.grad().is_cuda());
  EXPECT_TRUE(ga.grad().to(Device(kCPU)).allclose(ca.grad(), 1e-12, 1e-12));
  EXPECT_TRUE(gb.grad().to(Device(kCPU)).allclose(cb.grad(), 1e-12, 1e-12));
}

// A classifier's loss: log_softmax + nll_loss (cross_entropy's pieces).
TEST(AutogradCudaTest, CrossEntropyGradientEqualsTheCpus) {
  if (!cuda::is_available()) GTEST_SKIP() << "no usable CUDA device on this machine";
  const Device dev(kCUDA, 0);
  manual_seed(5);
  Tensor logits = randn({8, 4}, TensorOptions(kDouble));
  Tensor target = tensor({0, 1, 2, 3, 3, 2, 1, 0}).to(kLong);
  Tensor c = logits.clone().requires_grad_(), g = logits.to(dev).requires_grad_();
  std::get<0>(nll_loss_forward(log_softmax(c, 1), target, Tensor(), loss_reduction::kMean, -100))
      .backward();
  std::get<0>(nll_loss_forward(log_softmax(g, 1), target.to(dev), Tensor(), loss_reduction::kMean,
                               -100))
      .backward();
  EXPECT_TRUE(g.grad().to(Device(kCPU)).allclose(c.grad(), 1e-12, 1e-12));
}

}  // namespace
}  // namespace ember
