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

}  // namespace
}  // namespace ember
