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

// Note [Capturable Adam]: the step count on the device, through the
// multi-tensor kernels (the CUDA default) and the per-parameter tensor ops
// (foreach false), against the CPU's capturable (fused) loops.
TEST(OptimCudaTest, CapturableAdamAndAdamW) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (bool foreach : {true, false}) {
    expect_same_trajectory([&](std::vector<Tensor> p) {
      return std::make_unique<Adam>(
          p, AdamOptions(0.01).amsgrad(true).weight_decay(0.1).capturable(true).foreach (foreach));
    });
    expect_same_trajectory([&](std::vector<Tensor> p) {
      return std::make_unique<AdamW>(
          p, AdamWOptions(0.01).maximize(true).capturable(true).foreach (foreach));
    });
    Tensor w = ones({3}, TensorOptions(kFloat).device(Device(kCUDA, 0))).requires_grad_();
    Adam opt({w}, AdamOptions(0.01).capturable(true).foreach (foreach));
    for (int i = 0; i < 3; ++i) {
      w.mutable_grad() = full_like(w, 0.5);
      opt.step();
    }
    const Tensor& step = opt.state(w)->device_step;
    ASSERT_TRUE(step.defined());
    EXPECT_TRUE(step.is_cuda());
    EXPECT_EQ(step.dtype(), kFloat);
    EXPECT_EQ(step.item<double>(), 3.0);
    EXPECT_FALSE(opt.state(w)->step.has_value());
  }
}

TEST(OptimCudaTest, RMSprop) {
  SKIP_WITHOUT_CUDA_DEVICE();
  expect_same_trajectory([](std::vector<Tensor> p) {
    return std::make_unique<RMSprop>(p, RMSpropOptions(0.01).momentum(0.5).centered(true));
  });
}

// Note [Multi-tensor updates]: the multi-tensor kernels (foreach, the CUDA
// default) against the per-parameter tensor ops (foreach(false)) on the
// same GPU: 31 parameters (past one launch's 24 tensors), one of 21M
// elements (past one launch's 320 chunks of 64K) and empty ones. For
// float16/bfloat16 the reference is the per-parameter path in float32 from
// the same values, rounded at the end: the kernels compute in float32 as
// PyTorch's do, where the per-op path rounds after every op.
void expect_foreach_matches_single(
    ScalarType dtype,
    const std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>, bool foreach)>& make,
    double tol) {
  manual_seed(5);
  const Device dev(kCUDA, 0);
  std::vector<std::vector<int64_t>> shapes = {{21000000}, {0}, {3, 0}, {65536 * 2 + 7}};
  for (int i = 0; i < 27; ++i) shapes.push_back({i + 1, 3});
  std::vector<Tensor> init, grads;
  for (const auto& s : shapes) {
    init.push_back(randn(s, TensorOptions(kFloat).device(dev)).to(dtype));
    // |g| in [0.5, 1.5): float16's exp_avg_sq stays out of its subnormal
    // range, where stored moments lose their bits (any fp16 Adam state does).
    Tensor mag = rand(s, TensorOptions(kFloat).device(dev)) + 0.5;
    grads.push_back((mag * randn(s, TensorOptions(kFloat).device(dev)).sign()).to(dtype));
  }
  const ScalarType ref_dtype = dtype == kDouble ? kDouble : kFloat;
  std::vector<Tensor> a, b;
  for (const Tensor& t : init) {
    a.push_back(t.clone().requires_grad_());
    b.push_back(t.to(ref_dtype).clone().requires_grad_());
  }
  auto multi = make(a, true), single = make(b, false);
  for (int s = 0; s < 3; ++s) {
    for (size_t i = 0; i < init.size(); ++i) {
      a[i].mutable_grad() = grads[i] * (s + 1);
      b[i].mutable_grad() = (grads[i] * (s + 1)).to(ref_dtype);
    }
    multi->step();
    single->step();
  }
  for (size_t i = 0; i < init.size(); ++i) {
    EXPECT_TRUE(a[i].detach().to(kDouble).allclose(b[i].detach().to(dtype).to(kDouble), tol, tol))
        << "parameter " << i << " in " << scalar_type_name(dtype) << ": max difference "
        << (a[i].detach().to(kDouble) - b[i].detach().to(dtype).to(kDouble)).abs().max();
  }
}

TEST(OptimCudaTest, MultiTensorAdamMatchesPerParameterOps) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kFloat, kHalf, kBFloat16}) {
    // The stored moments round each step: within a few units in the last
    // place of the dtype. eps 1e-3: float16's smallest numbers are ~6e-8,
    // so exp_avg_sq underflows where eps 1e-8 would then divide.
    const double tol = t == kFloat ? 1e-6 : (t == kHalf ? 1e-2 : 4e-2);
    expect_foreach_matches_single(t, [](std::vector<Tensor> p, bool foreach) {
      return std::make_unique<Adam>(
          p, AdamOptions(0.01).eps(1e-3).weight_decay(0.1).foreach(foreach));
    }, tol);
    expect_foreach_matches_single(t, [](std::vector<Tensor> p, bool foreach) {
      return std::make_unique<Adam>(
          p, AdamOptions(0.01).eps(1e-3).amsgrad(true).maximize(true).foreach(foreach));
    }, tol);
    expect_foreach_matches_single(t, [](std::vector<Tensor> p, bool foreach) {
      return std::make_unique<AdamW>(p, AdamWOptions(0.01).eps(1e-3).foreach(foreach));
    }, tol);
    // capturable: the kernels read the steps from device memory.
    expect_foreach_matches_single(
        t,
        [](std::vector<Tensor> p, bool foreach) {
          return std::make_unique<Adam>(
              p,
              AdamOptions(0.01).eps(1e-3).weight_decay(0.1).amsgrad(true).capturable(true).foreach (
                  foreach));
        },
        tol);
    expect_foreach_matches_single(
        t,
        [](std::vector<Tensor> p, bool foreach) {
          return std::make_unique<AdamW>(
              p, AdamWOptions(0.01).eps(1e-3).capturable(true).foreach (foreach));
        },
        tol);
    expect_foreach_matches_single(t, [](std::vector<Tensor> p, bool foreach) {
      // fused: the same kernels, asked for by PyTorch's other switch.
      AdamWOptions o(0.01);
      o.eps(1e-3);
      if (foreach) o.fused(true); else o.foreach(false);
      return std::make_unique<AdamW>(p, o);
    }, tol);
  }
}

TEST(OptimCudaTest, MultiTensorSgdMatchesPerParameterOps) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (ScalarType t : {kFloat, kHalf, kBFloat16}) {
    const double tol = t == kFloat ? 1e-6 : (t == kHalf ? 1e-2 : 4e-2);
    expect_foreach_matches_single(t, [](std::vector<Tensor> p, bool foreach) {
      return std::make_unique<SGD>(p, SGDOptions(0.1).foreach(foreach));
    }, tol);
    expect_foreach_matches_single(t, [](std::vector<Tensor> p, bool foreach) {
      return std::make_unique<SGD>(p, SGDOptions(0.1).momentum(0.9).dampening(0.1).weight_decay(0.01)
                                          .maximize(true).foreach(foreach));
    }, tol);
    expect_foreach_matches_single(t, [](std::vector<Tensor> p, bool foreach) {
      return std::make_unique<SGD>(p, SGDOptions(0.1).momentum(0.9).nesterov(true)
                                          .foreach(foreach));
    }, tol);
  }
}

// As PyTorch 2.x, on every device.
TEST(OptimCudaTest, FusedAndForeachTogetherIsAnError) {
  Tensor w = zeros({2}).requires_grad_();
  w.mutable_grad() = ones({2});
  AdamW opt({w}, AdamWOptions(0.1).fused(true).foreach(true));
  try {
    opt.step();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "`fused` and `foreach` cannot be `True` together.");
  }
}

}  // namespace
}  // namespace optim
}  // namespace ember
