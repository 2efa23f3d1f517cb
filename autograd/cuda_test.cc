// Backward through ops on CUDA tensors: the derivatives are the same ops,
// so they run on the device; the gradients must equal the CPU's. Skips
// without a GPU.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

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

// The backwards that write a gradient into zeros (views that pick part of
// their input, indexing, gather, sort values, max(dim)) make those zeros on
// the gradient's device: they once made them on the CPU, so a CUDA model's
// gradient silently moved to the host and the next op refused the mix.
TEST(AutogradCudaTest, PickingBackwardsStayOnTheDevice) {
  if (!cuda::is_available()) GTEST_SKIP() << "no usable CUDA device on this machine";
  const Device dev(kCUDA, 0);
  manual_seed(7);
  const Tensor x = randn({4, 5}, TensorOptions(kDouble));
  const Tensor idx = tensor({3, 0, 3}).to(kLong);
  const Tensor gidx = tensor({0, 4, 1, 1, 2, 3, 0, 0}).to(kLong).view({4, 2});
  const Tensor mask = x.gt(0);
  using Fn = std::function<Tensor(const Tensor&, Device)>;
  const std::vector<std::pair<std::string, Fn>> cases = {
      {"slice", [](const Tensor& t, Device) { return t.slice(1, 1, 4); }},
      {"select", [](const Tensor& t, Device) { return t.select(0, 2); }},
      {"narrow", [](const Tensor& t, Device) { return t.narrow(1, 2, 2); }},
      {"diagonal", [](const Tensor& t, Device) { return t.diagonal(1); }},
      {"index", [&](const Tensor& t, Device d) { return index(t, {idx.to(d)}); }},
      {"index_select", [&](const Tensor& t, Device d) { return t.index_select(0, idx.to(d)); }},
      {"masked_select", [&](const Tensor& t, Device d) { return t.masked_select(mask.to(d)); }},
      {"gather", [&](const Tensor& t, Device d) { return t.gather(1, gidx.to(d)); }},
      {"take", [&](const Tensor& t, Device d) { return t.take(idx.to(d)); }},
      {"as_strided", [](const Tensor& t, Device) { return t.as_strided({3, 3}, {2, 1}, 1); }},
      {"unfold", [](const Tensor& t, Device) { return t.unfold(1, 2, 1); }},
      {"sort", [](const Tensor& t, Device) { return std::get<0>(t.sort(1)); }},
      {"max_dim", [](const Tensor& t, Device) { return std::get<0>(t.max(1)); }},
  };
  for (const auto& [name, f] : cases) {
    Tensor c = x.clone().requires_grad_(), g = x.to(dev).requires_grad_();
    Tensor yc = f(c, Device(kCPU));
    Tensor w = randn(yc.sizes(), TensorOptions(kDouble));
    (yc * w).sum().backward();
    (f(g, dev) * w.to(dev)).sum().backward();
    ASSERT_TRUE(g.grad().defined()) << name;
    EXPECT_TRUE(g.grad().is_cuda()) << name;
    EXPECT_TRUE(g.grad().cpu().allclose(c.grad(), 1e-12, 1e-12)) << name;
  }
}

}  // namespace
}  // namespace ember
