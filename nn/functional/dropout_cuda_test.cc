// dropout on a CUDA tensor runs on the device (bernoulli_, div_ and mul
// there: Note [Device random numbers] in tensor/random.cc), reproducibly
// under manual_seed, and its gradient is the same mask. Needs a GPU; skips
// without one.

#include <gtest/gtest.h>

#include <string>

#include "autograd/autograd.h"
#include "nn/functional/dropout.h"
#include "tensor/all.h"

namespace ember {
namespace {

TEST(DropoutCudaTest, DropsAboutPAndScalesTheRestOnTheDevice) {
  if (!cuda::is_available()) GTEST_SKIP() << "no usable CUDA device on this machine";
  const Device dev(kCUDA, 0);
  const int64_t n = int64_t{1} << 20;
  const double p = 0.25;
  Tensor x = ones({n}, TensorOptions(kFloat).device(dev)).requires_grad_();
  ::testing::internal::CaptureStderr();
  manual_seed(9);
  Tensor y = nn::functional::dropout(x, nn::functional::DropoutFuncOptions().p(p).training(true));
  cuda::synchronize();
  // A host fallback would have warned (Note [CPU fallback]).
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  ASSERT_TRUE(y.is_cuda());
  Tensor host = y.detach().to(Device(kCPU));
  const double kept = host.ne(0).to(kDouble).mean().item<double>();
  EXPECT_NEAR(kept, 1 - p, 2.5e-3);  // standard error 0.43 / 1024
  const float scale = static_cast<float>(1 / (1 - p));
  EXPECT_TRUE(host.eq(0).logical_or(host.eq(scale)).all().item<bool>());

  // The same seed drops the same elements.
  manual_seed(9);
  Tensor again =
      nn::functional::dropout(x.detach(), nn::functional::DropoutFuncOptions().p(p).training(true));
  EXPECT_TRUE(again.to(Device(kCPU)).equal(host));

  // The gradient of sum(y) is the mask, scaled.
  y.sum().backward();
  ASSERT_TRUE(x.grad().is_cuda());
  EXPECT_TRUE(x.grad().to(Device(kCPU)).equal(host));
}

}  // namespace
}  // namespace ember
