// Gradients where the derivative is a convention, against PyTorch 1.13
// (tools/golden/breakpoints.py): ties of max/min (whole-tensor reductions
// and amax/amin share the gradient evenly, max(dim) gives it to the index it
// returns, maximum/minimum split it in half, fmax gives it to the first,
// max pooling to the first maximum of each window), abs and sign at 0,
// clamp at its bounds (they pass the gradient, equal bounds too), where,
// norms and prod at zero, relu6 at 0 and 6, relu and threshold at their
// threshold and at NaN.
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "nn/functional/activation.h"
#include "nn/functional/pooling.h"
#include "tensor/activation_kernels.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;

struct Case {
  const char* name;
  std::vector<double> in0, in1, grad0, grad1;
};

const Case kCases[] = {
#include "nn/functional/testdata/breakpoints_golden.inc"
};

using Fn = std::function<Tensor(const Tensor&, const Tensor&)>;

const std::map<std::string, Fn>& fns() {
  static const auto* m = new std::map<std::string, Fn>{
      {"max_all", [](const Tensor& x, const Tensor&) { return x.max(); }},
      {"min_all", [](const Tensor& x, const Tensor&) { return x.min(); }},
      {"max_dim", [](const Tensor& x, const Tensor&) { return std::get<0>(x.max(0)); }},
      {"min_dim", [](const Tensor& x, const Tensor&) { return std::get<0>(x.min(0)); }},
      {"amax", [](const Tensor& x, const Tensor&) { return x.amax({0}); }},
      {"amin", [](const Tensor& x, const Tensor&) { return x.amin({0}); }},
      {"maximum", [](const Tensor& x, const Tensor& y) { return maximum(x, y); }},
      {"minimum", [](const Tensor& x, const Tensor& y) { return minimum(x, y); }},
      {"fmax", [](const Tensor& x, const Tensor& y) { return fmax(x, y); }},
      {"max_pool2d_ties",
       [](const Tensor& x, const Tensor&) {
         return F::max_pool2d(x.view({1, 1, 2, 3}), F::MaxPool2dFuncOptions(2).stride(1));
       }},
      {"abs", [](const Tensor& x, const Tensor&) { return x.abs(); }},
      {"clamp_equal_bounds", [](const Tensor& x, const Tensor&) { return x.clamp(1.0, 1.0); }},
      {"clamp_at_bounds", [](const Tensor& x, const Tensor&) { return x.clamp(-1.0, 1.0); }},
      {"clamp_min_at_bound", [](const Tensor& x, const Tensor&) { return x.clamp_min(0.0); }},
      {"clamp_max_at_bound", [](const Tensor& x, const Tensor&) { return x.clamp_max(0.0); }},
      {"where", [](const Tensor& x, const Tensor& y) { return where(x > 0, x, y); }},
      {"norm_at_zero", [](const Tensor& x, const Tensor&) { return x.norm(); }},
      {"norm1_at_zero", [](const Tensor& x, const Tensor&) { return x.norm(1); }},
      {"prod_one_zero", [](const Tensor& x, const Tensor&) { return x.prod(); }},
      {"prod_two_zeros", [](const Tensor& x, const Tensor&) { return x.prod(); }},
      {"relu6_bounds", [](const Tensor& x, const Tensor&) { return F::relu6(x); }},
      {"sign_at_zero", [](const Tensor& x, const Tensor&) { return x.sign(); }},
      {"relu_at_zero_and_nan", [](const Tensor& x, const Tensor&) { return F::relu(x); }},
      {"threshold_at_bound_and_nan",
       [](const Tensor& x, const Tensor&) {
         return F::threshold(x, F::ThresholdFuncOptions(0.5, -3.0));
       }},
  };
  return *m;
}

Tensor leaf(const std::vector<double>& v) {
  return tensor(v, kDouble).requires_grad_(true);
}

TEST(BreakpointGradients, MatchPyTorch) {
  EXPECT_EQ(std::size(kCases), fns().size());
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    auto it = fns().find(c.name);
    ASSERT_NE(it, fns().end());
    Tensor a = leaf(c.in0);
    Tensor b = c.in1.empty() ? Tensor() : leaf(c.in1);
    it->second(a, b).sum().backward();
    EXPECT_TRUE(a.grad().equal(tensor(c.grad0, kDouble))) << a.grad();
    if (b.defined()) {
      EXPECT_TRUE(b.grad().equal(tensor(c.grad1, kDouble))) << b.grad();
    }
  }
}

// With create_graph the gradient is built from recorded ops (differentiable
// again) instead of the fused threshold_backward kernel: both give
// PyTorch's values.
TEST(BreakpointGradients, ReluAndThresholdComposedPathMatches) {
  for (const char* name : {"relu_at_zero_and_nan", "threshold_at_bound_and_nan"}) {
    SCOPED_TRACE(name);
    const Case* c = nullptr;
    for (const Case& k : kCases) {
      if (std::string(k.name) == name) c = &k;
    }
    ASSERT_NE(c, nullptr);
    Tensor a = leaf(c->in0);
    Tensor y = fns().at(name)(a, Tensor()).sum();
    Tensor g = autograd::grad({y}, {a}, {}, /*retain_graph=*/true, /*create_graph=*/true)[0];
    EXPECT_TRUE(g.equal(tensor(c->grad0, kDouble))) << g;
  }
}

TEST(BreakpointGradients, ThresholdBackwardKernel) {
  const Tensor g = tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f});
  const Tensor s = tensor({0.0f, -1.0f, 2.0f, 0.0f, NAN, 0.5f});
  // torch.ops.aten.threshold_backward(g, s, 0) and (g, s, 0.5)
  EXPECT_TRUE(threshold_backward(g, s, 0).equal(tensor({0.0f, 0.0f, 3.0f, 0.0f, 5.0f, 6.0f})));
  EXPECT_TRUE(threshold_backward(g, s, 0.5).equal(tensor({0.0f, 0.0f, 3.0f, 0.0f, 5.0f, 0.0f})));
  // Integers, and non-contiguous operands (a transposed self).
  EXPECT_TRUE(
      threshold_backward(tensor({1, 2, 3}), tensor({0, -1, 2}), 0).equal(tensor({0, 0, 3})));
  const Tensor s2 = tensor({{1.0, -1.0}, {0.0, 2.0}});
  const Tensor g2 = tensor({{1.0, 2.0}, {3.0, 4.0}});
  EXPECT_TRUE(threshold_backward(g2, s2.t(), 0).equal(tensor({{1.0, 0.0}, {0.0, 4.0}})));
}

}  // namespace
}  // namespace ember
