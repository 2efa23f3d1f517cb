// Optimizers updating CUDA parameters (the tensor-op path of Note [Fused
// updates]) reach the values the CPU's fused loops reach. Skips without a
// GPU.

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

#include "optim/optim.h"
#include "tensor/all.h"

namespace ember {
namespace optim {
namespace {

// Runs `steps` updates with fixed gradients on a CPU copy and a CUDA copy
// of the same parameters and compares them.
void expect_same_trajectory(
    const std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>)>& make, int steps = 4) {
  manual_seed(11);
  Tensor w = randn({7, 5}, TensorOptions(kDouble)), b = randn({5}, TensorOptions(kDouble));
  std::vector<Tensor> grads = {randn({7, 5}, TensorOptions(kDouble)),
                               randn({5}, TensorOptions(kDouble))};
  const Device dev(kCUDA, 0);
  std::vector<Tensor> cpu = {w.clone().requires_grad_(), b.clone().requires_grad_()};
  std::vector<Tensor> gpu = {w.to(dev).requires_grad_(), b.to(dev).requires_grad_()};
  auto cpu_opt = make(cpu), gpu_opt = make(gpu);
  for (int s = 0; s < steps; ++s) {
    for (size_t i = 0; i < cpu.size(); ++i) {
      cpu[i].mutable_grad() = grads[i] * (s + 1);
      gpu[i].mutable_grad() = (grads[i] * (s + 1)).to(dev);
    }
    cpu_opt->step();
    gpu_opt->step();
  }
  for (size_t i = 0; i < cpu.size(); ++i) {
    ASSERT_TRUE(gpu[i].is_cuda());
    EXPECT_TRUE(gpu[i].detach().to(Device(kCPU)).allclose(cpu[i].detach(), 1e-10, 1e-12)) << i;
  }
}

#define SKIP_WITHOUT_CUDA_DEVICE() \
  if (!cuda::is_available()) GTEST_SKIP() << "no usable CUDA device on this machine"

TEST(OptimCudaTest, SgdWithMomentumAndWeightDecay) {
  SKIP_WITHOUT_CUDA_DEVICE();
  expect_same_trajectory([](std::vector<Tensor> p) {
    return std::make_unique<SGD>(p, SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.01));
  });
}

TEST(OptimCudaTest, AdamAndAdamW) {
  SKIP_WITHOUT_CUDA_DEVICE();
  expect_same_trajectory([](std::vector<Tensor> p) {
    return std::make_unique<Adam>(p, AdamOptions(0.01).amsgrad(true).weight_decay(0.1));
  });
  expect_same_trajectory([](std::vector<Tensor> p) {
    return std::make_unique<AdamW>(p, AdamWOptions(0.01));
  });
}

TEST(OptimCudaTest, RMSprop) {
  SKIP_WITHOUT_CUDA_DEVICE();
  expect_same_trajectory([](std::vector<Tensor> p) {
    return std::make_unique<RMSprop>(p, RMSpropOptions(0.01).momentum(0.5).centered(true));
  });
}

}  // namespace
}  // namespace optim
}  // namespace ember
