// Note [Fused CPU activation backwards] (tensor/activation_kernels.h): the
// CPU loops that compute the first-order gradients of hardswish,
// hardsigmoid, hardshrink/softshrink, hardtanh and logit give their
// compositions' values bit for bit. The composition is what a backward
// under create_graph runs, so the two backwards are compared: inputs at and
// around every breakpoint (NaN and infinities too) between random ones, in
// float and double, contiguous and transposed.
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "tensor/all.h"

namespace ember {
namespace {

// 12 x 11 values: the breakpoints and their neighbours spread over the
// vector lanes, random values between them.
Tensor probe(ScalarType dtype) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> special = {-3,    3,        -0.5,      0.5,        -1,         2,         0,
                                 1,     0.1,      0.9,       -0.0,       inf,        -inf,      nan,
                                 1e-30, 1 - 1e-7, 2.9999999, -3.0000001, 0.49999999, 0.50000001};
  std::mt19937 rng(5);
  std::normal_distribution<double> normal(0.0, 2.0);
  std::vector<double> v(12 * 11);
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = i % 3 == 1 ? special[(i / 3) % special.size()] : normal(rng);
  }
  return tensor(v, TensorOptions(kDouble)).view({12, 11}).to(dtype);
}

// The same tensor's gradient under create_graph (the composition) and
// without (the loop), for one random grad_output. With `logit_eps` (0 for
// none), logit's two forms differ by design (autograd/derivatives/
// composite.cc): without a graph a NaN x gives NaN, and exactly 0 and 1
// give grad * inf where they are inside [eps, 1 - eps]; with one, the
// differentiable grad / (x (1 - x)) inside and `beyond` for NaN. There the
// loop must give the graph-free values.
void expect_same_gradients(const std::string& name, const std::function<Tensor(const Tensor&)>& f,
                           double logit_eps = -1) {
  for (ScalarType dtype : {kFloat, kDouble}) {
    for (bool transposed : {false, true}) {
      SCOPED_TRACE(name + (dtype == kFloat ? " float" : " double") +
                   (transposed ? " transposed" : ""));
      Tensor x = probe(dtype);
      if (transposed) x = x.t().contiguous().t();
      x.requires_grad_();
      const Tensor go = randn({12, 11}, TensorOptions(dtype));
      const Tensor fused = autograd::grad({f(x)}, {x}, {go})[0];
      const Tensor composed = autograd::grad({f(x)}, {x}, {go}, true, /*create_graph=*/true)[0];
      ASSERT_EQ(fused.sizes(), composed.sizes());
      const Tensor a = fused.detach().to(kDouble).contiguous();
      const Tensor b = composed.detach().to(kDouble).contiguous();
      const Tensor xs = x.detach().to(kDouble).contiguous();
      const Tensor gs = go.to(kDouble).contiguous();
      for (int64_t i = 0; i < a.numel(); ++i) {
        const double p = a.data_ptr<double>()[i];
        double q = b.data_ptr<double>()[i];
        const double xi = xs.data_ptr<double>()[i];
        if (logit_eps >= 0 && std::isnan(xi)) q = xi;
        if (logit_eps == 0 && (xi == 0 || xi == 1)) {
          q = gs.data_ptr<double>()[i] * std::numeric_limits<double>::infinity();
        }
        if (std::isnan(q)) {
          EXPECT_TRUE(std::isnan(p)) << i;
        } else {
          EXPECT_EQ(std::memcmp(&p, &q, sizeof(double)), 0) << i << ": " << p << " vs " << q;
        }
      }
    }
  }
}

TEST(FusedActivationBackward, MatchesTheComposition) {
  expect_same_gradients("hardswish", [](const Tensor& x) { return hardswish(x); });
  expect_same_gradients("hardsigmoid", [](const Tensor& x) { return hardsigmoid(x); });
  expect_same_gradients("hardshrink", [](const Tensor& x) { return hardshrink(x, 0.5); });
  expect_same_gradients("softshrink", [](const Tensor& x) { return softshrink(x, 0.5); });
  expect_same_gradients("hardtanh", [](const Tensor& x) { return hardtanh(x, -1, 2); });
  expect_same_gradients("leaky_relu", [](const Tensor& x) { return leaky_relu(x, 0.2); });
  expect_same_gradients(
      "logit", [](const Tensor& x) { return logit(x); }, 0.0);
  expect_same_gradients(
      "logit eps", [](const Tensor& x) { return logit(x, 0.1); }, 0.1);
}

// The loop's result takes the iterator's layout over (grad, self), as
// PyTorch's kernels: grad's layout decides. Measured in 1.13, for each of
// these ops: x = randn(5, 7).t(); the gradient for grad randn(7, 5) has
// strides (5, 1), for grad randn(5, 7).t() (1, 7). (The compositions let
// self's layout decide.)
TEST(FusedActivationBackward, GradsLayoutDecides) {
  const Tensor x = randn({5, 7}).t().requires_grad_();
  const std::vector<std::function<Tensor(const Tensor&)>> ops = {
      [](const Tensor& t) { return hardswish(t); },
      [](const Tensor& t) { return hardsigmoid(t); },
      [](const Tensor& t) { return hardshrink(t, 0.5); },
      [](const Tensor& t) { return softshrink(t, 0.5); },
      [](const Tensor& t) { return hardtanh(t, -1, 1); },
      [](const Tensor& t) { return logit(t); },
      [](const Tensor& t) { return logit(t, 0.1); }};
  for (const auto& f : ops) {
    EXPECT_EQ(autograd::grad({f(x)}, {x}, {randn({7, 5})})[0].strides(), IntArrayRef({5, 1}));
    EXPECT_EQ(autograd::grad({f(x)}, {x}, {randn({5, 7}).t()})[0].strides(), IntArrayRef({1, 7}));
  }
  // leaky_relu's kernel iterates (self, grad): self's layout decides, (1, 7)
  // for both grads in 1.13.
  const Tensor y = leaky_relu(x, 0.2);
  EXPECT_EQ(autograd::grad({y}, {x}, {randn({7, 5})}, true)[0].strides(), IntArrayRef({1, 7}));
  EXPECT_EQ(autograd::grad({y}, {x}, {randn({5, 7}).t()})[0].strides(), IntArrayRef({1, 7}));
}

}  // namespace
}  // namespace ember
