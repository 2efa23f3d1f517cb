// pytorch/examples' autograd.cpp spellings: custom Functions written as
// libtorch writes them (tensor_list, a defaulted trailing Tensor argument,
// saved_data, get_saved_variables), in-place updates of a leaf's gradient
// through the const Tensor& that grad() returns, and data(). Expected values
// are PyTorch 1.13's (the example's own printed gradients).

#include <type_traits>

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "tensor/all.h"

namespace ember {
namespace {

using namespace ember::autograd;  // NOLINT: as the example writes it

static_assert(std::is_same<tensor_list, std::vector<Tensor>>::value, "");
static_assert(std::is_same<tensor_list, variable_list>::value, "");

class LinearFunction : public Function<LinearFunction> {
 public:
  // bias is optional: apply(x, weight) leaves it undefined.
  static Tensor forward(AutogradContext* ctx, Tensor input, Tensor weight,
                        Tensor bias = Tensor()) {
    ctx->save_for_backward({input, weight, bias});
    auto output = input.mm(weight.t());
    if (bias.defined()) {
      output += bias.unsqueeze(0).expand_as(output);
    }
    return output;
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    auto saved = ctx->get_saved_variables();
    auto input = saved[0];
    auto weight = saved[1];
    auto bias = saved[2];
    auto grad_output = grad_outputs[0];
    auto grad_input = grad_output.mm(weight);
    auto grad_weight = grad_output.t().mm(input);
    auto grad_bias = Tensor();
    if (bias.defined()) grad_bias = grad_output.sum(0);
    return {grad_input, grad_weight, grad_bias};
  }
};

class MulConstant : public Function<MulConstant> {
 public:
  static Tensor forward(AutogradContext* ctx, Tensor tensor, double constant) {
    ctx->saved_data["constant"] = constant;
    return tensor * constant;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    return {grad_outputs[0] * ctx->saved_data["constant"].toDouble(), Tensor()};
  }
};

TEST(LibtorchSpellingsTest, CustomFunctionWithADefaultedBias) {
  auto x = randn({2, 3}).requires_grad_();
  auto weight = randn({4, 3}).requires_grad_();
  auto y = LinearFunction::apply(x, weight);
  EXPECT_TRUE(y.allclose(x.mm(weight.t())));
  y.sum().backward();
  // d(sum(x W^T))/dx = ones(2, 4) W; /dW = ones(4, 2) x.
  EXPECT_TRUE(x.grad().allclose(ones({2, 4}).mm(weight.detach())));
  EXPECT_TRUE(weight.grad().allclose(ones({4, 2}).mm(x.detach())));

  auto bias = randn({4}).requires_grad_();
  auto y2 = LinearFunction::apply(x, weight, bias);
  y2.sum().backward();
  EXPECT_TRUE(bias.grad().allclose(full({4}, 2.0)));
}

TEST(LibtorchSpellingsTest, CustomFunctionWithSavedData) {
  auto x = randn({2}).requires_grad_();
  auto y = MulConstant::apply(x, 5.5);
  y.sum().backward();
  EXPECT_TRUE(x.grad().equal(full({2}, 5.5)));
}

TEST(LibtorchSpellingsTest, BasicAutogradExampleGradient) {
  auto x = ones({2, 2}, requires_grad());
  auto y = x + 2;
  auto z = y * y * 3;
  auto out = z.mean();
  out.backward();
  EXPECT_TRUE(x.grad().equal(full({2, 2}, 4.5)));  // the example prints 4.5
  // randn(3, requires_grad()): one integer as the size.
  auto v = randn(3, requires_grad());
  EXPECT_EQ(v.sizes(), IntArrayRef({3}));
  EXPECT_TRUE(v.requires_grad());
}

TEST(LibtorchSpellingsTest, GradientOfANormOverOneDim) {
  // The example's gradient penalty: (gradient.norm(2, /*dim=*/1) - 1)^2.
  auto g = tensor({{3.0f, 4.0f}, {0.0f, 2.0f}}).requires_grad_();
  auto penalty = pow(g.norm(2, 1) - 1, 2).mean();
  penalty.backward();
  // d/dg of mean((|g_i| - 1)^2) = (|g_i| - 1) * g_i / |g_i|: rows 4/5*[3,4], 1/2*[0,2].
  EXPECT_TRUE(g.grad().allclose(tensor({{2.4f, 3.2f}, {0.0f, 1.0f}})));
}

TEST(LibtorchSpellingsTest, GradUpdatesThroughItsConstReference) {
  auto p = ones({3}, requires_grad());
  (p * 4).sum().backward();
  const Tensor& grad = p.grad();
  grad.div_(2);  // libtorch: p.grad().div_(n)
  EXPECT_TRUE(p.grad().equal(full({3}, 2.0)));
  p.grad().zero_();
  EXPECT_TRUE(p.grad().equal(zeros({3})));
}

TEST(LibtorchSpellingsTest, DataIsALeafThatDoesNotRequireGrad) {
  auto p = ones({2}, requires_grad());
  Tensor d = p.data();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_leaf());
  EXPECT_EQ(d.grad_fn(), nullptr);
  {
    // An update autograd does not record, as a hand-written SGD step does.
    d.sub_(0.5);
  }
  EXPECT_TRUE(p.equal(full({2}, 0.5)));
  EXPECT_TRUE(p.requires_grad());
  EXPECT_TRUE(p.is_leaf());
}

}  // namespace
}  // namespace ember
