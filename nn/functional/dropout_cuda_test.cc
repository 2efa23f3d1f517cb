// dropout on a CUDA tensor runs on the device (native_dropout's fused pass:
// Note [Fused dropout] in tensor/native_dropout.cc), reproducibly under
// manual_seed, and its gradient is the same mask. native_dropout's mask is
// the one bernoulli_(1 - p) draws from the same state, in every floating
// dtype and layout. Needs a GPU; skips without one.

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

  EXPECT_EQ(y.grad_fn()->name(), "NativeDropoutBackward0");
  // The gradient of sum(y) is the mask, scaled.
  y.sum().backward();
  ASSERT_TRUE(x.grad().is_cuda());
  EXPECT_TRUE(x.grad().to(Device(kCPU)).equal(host));
}

void expect_native_dropout_matches_bernoulli(const Tensor& x_cpu, double p) {
  SCOPED_TRACE(::testing::Message()
               << x_cpu.dtype() << " p=" << p << " strides " << x_cpu.strides());
  const Device dev(kCUDA, 0);
  Tensor x = x_cpu.to(dev);
  manual_seed(11);
  auto [out, mask] = native_dropout(x, p, true);
  // The same draw as a bernoulli_ fill of a bool tensor laid out as x.
  manual_seed(11);
  Tensor want_mask = empty_like(x, TensorOptions(kBool)).bernoulli_(1 - p);
  ASSERT_EQ(mask.dtype(), kBool);
  EXPECT_EQ(out.strides(), x.strides());
  EXPECT_EQ(mask.strides(), x.strides());
  Tensor m = mask.to(Device(kCPU));
  EXPECT_TRUE(m.equal(want_mask.to(Device(kCPU))));
  // out = x * mask * scale, as the CPU computes it from that mask.
  const double scale = p == 1 ? 0. : 1. / (1. - p);
  EXPECT_TRUE(out.to(Device(kCPU)).equal(x_cpu.mul(m).mul_(scale)));
  // The fused backward: grad * mask * scale.
  Tensor g_cpu = randn(x_cpu.sizes()).to(x_cpu.dtype());
  EXPECT_TRUE(native_dropout_backward(g_cpu.to(dev), mask, scale)
                  .to(Device(kCPU))
                  .equal(native_dropout_backward(g_cpu, m, scale)));
}

TEST(DropoutCudaTest, NativeDropoutMaskIsBernoullis) {
  if (!cuda::is_available()) GTEST_SKIP() << "no usable CUDA device on this machine";
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    expect_native_dropout_matches_bernoulli(randn({1000, 37}).to(dt), 0.3);
  }
  expect_native_dropout_matches_bernoulli(randn({37, 1000}).t(), 0.5);  // transposed
  expect_native_dropout_matches_bernoulli(randn({8, 3, 5, 7}).permute({0, 2, 3, 1}), 0.2);
  expect_native_dropout_matches_bernoulli(randn({5, 7}), 1.0);  // all dropped
  // Not training: a copy and a mask of ones.
  const Device dev(kCUDA, 0);
  Tensor x = randn({4, 5}).to(dev);
  auto [out, mask] = native_dropout(x, 0.3, false);
  EXPECT_TRUE(out.to(Device(kCPU)).equal(x.to(Device(kCPU))));
  EXPECT_TRUE(mask.to(Device(kCPU)).all().item<bool>());
}

}  // namespace
}  // namespace ember
