// Custom autograd functions (custom_function.h): libtorch's examples
// (LinearFunction, MulConstant) with values, gradcheck and gradgradcheck,
// and each part of the contract: non-tensor arguments, needs_input_grad,
// non-differentiable outputs, materialized gradients, in-place inputs
// (mark_dirty) and views, inputs returned as-is, saved_data, the checks of
// what backward returns, the saved tensors' version check, grad mode,
// hooks, names, and that the graph frees itself.
#include "autograd/custom_function.h"

#include <cmath>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "autograd/engine.h"
#include "autograd/gradcheck.h"
#include "autograd/grad_mode.h"
#include "gtest/gtest.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using autograd::AutogradContext;
using autograd::Function;
using autograd::Node;
using autograd::variable_list;
using ::ember::testing::error_of;

void expect_values(const Tensor& t, std::vector<double> v, double tol = 1e-12) {
  ASSERT_TRUE(t.defined());
  Tensor d = t.to(kDouble).contiguous();
  ASSERT_EQ(d.numel(), static_cast<int64_t>(v.size()));
  for (int64_t i = 0; i < d.numel(); ++i) EXPECT_NEAR(d.data_ptr<double>()[i], v[i], tol) << i;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

Tensor leaf(std::vector<double> v) { return tensor(v, kDouble).requires_grad_(); }

// --- libtorch's examples ---------------------------------------------------------

struct LinearFunction : public Function<LinearFunction> {
  static Tensor forward(AutogradContext* ctx, Tensor input, Tensor weight, Tensor bias = Tensor()) {
    ctx->save_for_backward({input, weight, bias});
    Tensor output = input.mm(weight.t());
    if (bias.defined()) output += bias.unsqueeze(0).expand_as(output);
    return output;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    variable_list saved = ctx->get_saved_variables();
    const Tensor& input = saved[0];
    const Tensor& weight = saved[1];
    const Tensor& bias = saved[2];
    const Tensor& grad_output = grad_outputs[0];
    Tensor grad_input, grad_weight, grad_bias;
    if (ctx->needs_input_grad(0)) grad_input = grad_output.mm(weight);
    if (ctx->needs_input_grad(1)) grad_weight = grad_output.t().mm(input);
    if (bias.defined() && ctx->needs_input_grad(2)) grad_bias = grad_output.sum({0});
    return {grad_input, grad_weight, grad_bias};
  }
};

struct MulConstant : public Function<MulConstant> {
  static Tensor forward(AutogradContext* ctx, Tensor tensor, double constant) {
    ctx->saved_data["constant"] = constant;
    return tensor * constant;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    return {grad_outputs[0] * ctx->saved_data["constant"].toDouble(), Tensor()};
  }
};

TEST(CustomFunction, LinearFunctionValuesAndGradients) {
  Tensor x = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, requires_grad());
  Tensor w = tensor({{1.0, 0.0, -1.0}, {2.0, 1.0, 0.0}}, requires_grad());
  Tensor b = tensor({0.5, -1.0}, requires_grad());
  Tensor y = LinearFunction::apply(x, w, b);
  expect_values(y, {-1.5, 3.0, -1.5, 12.0});
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(y.is_leaf());
  EXPECT_EQ(y.grad_fn()->name(), "LinearFunctionBackward");
  EXPECT_TRUE(contains(y.toString(), "grad_fn=<LinearFunctionBackward>)")) << y.toString();
  EXPECT_EQ(y.grad_fn()->num_outputs(), 3u);  // one edge per tensor argument
  y.sum().backward();
  expect_values(x.grad(), {3, 1, -1, 3, 1, -1});
  expect_values(w.grad(), {5, 7, 9, 5, 7, 9});
  expect_values(b.grad(), {2, 2});
  EXPECT_EQ(x.grad().dtype(), kFloat);
}

// Without the defaulted bias the forward has two arguments; backward's
// third, undefined entry is allowed.
TEST(CustomFunction, LinearFunctionWithoutBias) {
  Tensor x = tensor({{1.0, 2.0, 3.0}}, requires_grad());
  Tensor w = tensor({{1.0, 1.0, 1.0}, {0.0, 2.0, 0.0}});
  Tensor y = LinearFunction::apply(x, w);
  expect_values(y, {6, 4});
  (y * tensor({{1.0, 10.0}})).sum().backward();
  expect_values(x.grad(), {1, 21, 1});
  EXPECT_FALSE(w.grad().defined());
}

TEST(CustomFunction, MulConstant) {
  Tensor x = tensor({1.0, 2.0, 3.0}, requires_grad());
  Tensor y = MulConstant::apply(x, 5.5);
  expect_values(y, {5.5, 11, 16.5});
  EXPECT_EQ(y.toString(), "tensor([ 5.5000, 11.0000, 16.5000], grad_fn=<MulConstantBackward>)");
  (y * tensor({1.0, 2.0, 3.0})).sum().backward();
  expect_values(x.grad(), {5.5, 11, 16.5});
}

TEST(CustomFunction, Gradcheck) {
  manual_seed(0);
  autograd::GradcheckFn linear = [](const variable_list& v) {
    return variable_list{LinearFunction::apply(v[0], v[1], v[2])};
  };
  variable_list inputs = {randn({4, 3}, kDouble).requires_grad_(),
                          randn({2, 3}, kDouble).requires_grad_(),
                          randn({2}, kDouble).requires_grad_()};
  EXPECT_EQ(autograd::gradcheck(linear, inputs), "");
  EXPECT_EQ(autograd::gradgradcheck(linear, inputs), "");
  // Some inputs not requiring grad (needs_input_grad false for them).
  variable_list partial = {randn({4, 3}, kDouble), randn({2, 3}, kDouble).requires_grad_(),
                           randn({2}, kDouble)};
  EXPECT_EQ(autograd::gradcheck(linear, partial), "");
  EXPECT_EQ(autograd::gradgradcheck(linear, partial), "");

  autograd::GradcheckFn mul = [](const variable_list& v) {
    return variable_list{MulConstant::apply(v[0], -2.5)};
  };
  variable_list x = {randn({2, 3}, kDouble).requires_grad_()};
  EXPECT_EQ(autograd::gradcheck(mul, x), "");
  EXPECT_EQ(autograd::gradgradcheck(mul, x), "");
}

// --- saved outputs, double backward -----------------------------------------------

struct Exp : public Function<Exp> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    Tensor result = x.exp();
    ctx->save_for_backward({result});
    return result;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    return {grad_outputs[0] * ctx->get_saved_variables()[0]};
  }
};

struct Cube : public Function<Cube> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    Tensor x = ctx->get_saved_variables()[0];
    return {grad_outputs[0] * 3 * x * x};
  }
};

TEST(CustomFunction, DoubleBackward) {
  Tensor x = leaf({1.0, 2.0});
  Tensor y = Cube::apply(x);
  variable_list g1 = autograd::grad({y.sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
  expect_values(g1[0], {3, 12});
  EXPECT_TRUE(g1[0].requires_grad());
  variable_list g2 = autograd::grad({g1[0].sum()}, {x});
  expect_values(g2[0], {6, 12});

  manual_seed(1);
  autograd::GradcheckFn f = [](const variable_list& v) {
    return variable_list{Exp::apply(v[0]), Cube::apply(v[0])};
  };
  variable_list in = {randn({3}, kDouble).requires_grad_()};
  EXPECT_EQ(autograd::gradcheck(f, in), "");
  EXPECT_EQ(autograd::gradgradcheck(f, in), "");
}

TEST(CustomFunction, SavedOutputUnderCreateGraph) {
  // Exp saves its output: under create_graph it comes back as the node's
  // output, so d/dx (g * exp(x)) is g * exp(x).
  Tensor x = leaf({0.0, 1.0});
  Tensor y = Exp::apply(x);
  variable_list g1 = autograd::grad({y.sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
  expect_values(g1[0], {1, std::exp(1.0)}, 1e-12);
  variable_list g2 = autograd::grad({g1[0].sum()}, {x});
  expect_values(g2[0], {1, std::exp(1.0)}, 1e-12);
}

// --- arguments ----------------------------------------------------------------------

std::vector<bool> g_needs;
bool g_forward_grad_mode = true;

struct Mixed : public Function<Mixed> {
  // a * x * n + y, with arguments of five kinds.
  static Tensor forward(AutogradContext* ctx, double a, Tensor x, int64_t n, std::string mode,
                        Tensor y) {
    g_forward_grad_mode = GradMode::is_enabled();
    g_needs.clear();
    for (size_t i = 0; i < 5; ++i) g_needs.push_back(ctx->needs_input_grad(i));
    ctx->saved_data["scale"] = a * static_cast<double>(n);
    EXPECT_EQ(mode, "add");
    return x * (a * static_cast<double>(n)) + y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    g_needs.clear();
    for (size_t i = 0; i < 5; ++i) g_needs.push_back(ctx->needs_input_grad(i));
    const Tensor& g = grad_outputs[0];
    Tensor gx = ctx->needs_input_grad(1) ? g * ctx->saved_data["scale"].toDouble() : Tensor();
    Tensor gy = ctx->needs_input_grad(4) ? g : Tensor();
    return {Tensor(), gx, Tensor(), Tensor(), gy};
  }
};

TEST(CustomFunction, NonTensorArgumentsAndNeedsInputGrad) {
  Tensor x = leaf({1.0, 2.0});
  Tensor y = tensor({10.0, 20.0}, kDouble);
  Tensor out = Mixed::apply(2.0, x, int64_t{3}, std::string("add"), y);
  expect_values(out, {16, 32});
  EXPECT_FALSE(g_forward_grad_mode);
  EXPECT_EQ(g_needs, (std::vector<bool>{false, true, false, false, false}));
  EXPECT_EQ(out.grad_fn()->num_outputs(), 2u);  // x and y; no edges for the others
  out.sum().backward();
  EXPECT_EQ(g_needs, (std::vector<bool>{false, true, false, false, false}));
  expect_values(x.grad(), {6, 6});
  EXPECT_FALSE(y.grad().defined());

  y.requires_grad_();
  Mixed::apply(2.0, x, 1, "add", y).sum().backward();  // int and const char* too
  EXPECT_EQ(g_needs, (std::vector<bool>{false, true, false, false, true}));
  expect_values(x.grad(), {8, 8});
  expect_values(y.grad(), {1, 1});
  EXPECT_NE(error_of([&] { AutogradContext().needs_input_grad(0); }).find("out of range"),
            std::string::npos);
}

struct GradForNumber : public Function<GradForNumber> {
  static Tensor forward(AutogradContext*, Tensor x, double c) { return x * c; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0], g[0]}; }
};

TEST(CustomFunction, GradientForANonTensorArgumentIsAnError) {
  Tensor x = leaf({1.0});
  Tensor y = GradForNumber::apply(x, 2.0);
  EXPECT_EQ(error_of([&] { y.backward(); }),
            "function GradForNumberBackward returned a gradient different than None at position "
            "2, but the corresponding forward input was not a Variable");
}

// --- outputs -------------------------------------------------------------------------

struct SortValues : public Function<SortValues> {
  static variable_list forward(AutogradContext* ctx, Tensor x) {
    auto [values, indices] = x.sort();
    ctx->mark_non_differentiable({indices});
    ctx->save_for_backward({indices});
    return {values, indices};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    // The indices' gradient slot: zeros of their shape and dtype.
    EXPECT_TRUE(grad_outputs[1].defined());
    EXPECT_EQ(grad_outputs[1].dtype(), kLong);
    EXPECT_EQ(grad_outputs[1].sizes(), grad_outputs[0].sizes());
    EXPECT_EQ(grad_outputs[1].count_nonzero().item<int64_t>(), 0);
    Tensor indices = ctx->get_saved_variables()[0];
    return {zeros_like(grad_outputs[0]).scatter(0, indices, grad_outputs[0])};
  }
};

TEST(CustomFunction, NonDifferentiableIndices) {
  Tensor x = leaf({3.0, 1.0, 2.0});
  variable_list out = SortValues::apply(x);
  expect_values(out[0], {1, 2, 3});
  expect_values(out[1], {1, 2, 0});
  EXPECT_TRUE(out[0].requires_grad());
  EXPECT_EQ(out[0].grad_fn()->name(), "SortValuesBackward");
  EXPECT_EQ(out[0].output_nr(), 0);
  EXPECT_FALSE(out[1].requires_grad());
  EXPECT_FALSE(out[1].grad_fn());
  (out[0] * tensor({1.0, 10.0, 100.0})).sum().backward();
  expect_values(x.grad(), {100, 1, 10});
}

std::vector<bool> g_grad_defined;
std::vector<Tensor> g_grads_seen;

// (2x, 3x), the second marked non-differentiable when asked; `materialize`
// sets set_materialize_grads.
struct TwoOutputs : public Function<TwoOutputs> {
  static variable_list forward(AutogradContext* ctx, Tensor x, bool materialize,
                               bool second_non_differentiable) {
    ctx->set_materialize_grads(materialize);
    Tensor a = x * 2, b = x * 3;
    if (second_non_differentiable) ctx->mark_non_differentiable({b});
    return {a, b};
  }
  static variable_list backward(AutogradContext*, variable_list grad_outputs) {
    g_grads_seen = grad_outputs;
    Tensor g;
    if (grad_outputs[0].defined()) g = grad_outputs[0] * 2;
    if (grad_outputs[1].defined()) g = g.defined() ? g + grad_outputs[1] * 3 : grad_outputs[1] * 3;
    return {g, Tensor(), Tensor()};
  }
};

TEST(CustomFunction, MaterializeGrads) {
  for (bool materialize : {true, false}) {
    SCOPED_TRACE(materialize);
    Tensor x = leaf({1.0, 2.0, 3.0});
    variable_list out = TwoOutputs::apply(x, materialize, false);
    EXPECT_EQ(out[1].output_nr(), 1);
    EXPECT_EQ(out[1].grad_fn(), out[0].grad_fn());
    out[0].sum().backward();
    ASSERT_EQ(g_grads_seen.size(), 2u);
    expect_values(g_grads_seen[0], {1, 1, 1});
    EXPECT_EQ(g_grads_seen[1].defined(), materialize);
    if (materialize) {
      expect_values(g_grads_seen[1], {0, 0, 0});
      EXPECT_EQ(g_grads_seen[1].dtype(), kDouble);
    }
    expect_values(x.grad(), {2, 2, 2});
  }
  // Only the second output used: the first's slot.
  Tensor x = leaf({1.0, 2.0});
  variable_list out = TwoOutputs::apply(x, false, false);
  out[1].sum().backward();
  EXPECT_FALSE(g_grads_seen[0].defined());
  expect_values(x.grad(), {3, 3});
}

TEST(CustomFunction, NonDifferentiableFloatOutput) {
  for (bool materialize : {true, false}) {
    SCOPED_TRACE(materialize);
    Tensor x = leaf({1.0, 2.0});
    variable_list out = TwoOutputs::apply(x, materialize, true);
    expect_values(out[1], {3, 6});
    EXPECT_FALSE(out[1].requires_grad());
    EXPECT_TRUE(out[1].is_leaf());
    out[0].sum().backward();
    EXPECT_EQ(g_grads_seen[1].defined(), materialize);
    expect_values(x.grad(), {2, 2});
  }
}

struct Identity : public Function<Identity> {
  static Tensor forward(AutogradContext*, Tensor x) { return x; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0]}; }
};

TEST(CustomFunction, InputReturnedAsIsKeepsItsHistory) {
  Tensor a = leaf({1.0, 2.0});
  Tensor x = a * 2;
  Tensor y = Identity::apply(x);
  EXPECT_FALSE(y.is_same(x));
  EXPECT_EQ(y.data_ptr(), x.data_ptr());  // an alias, as libtorch's view
  EXPECT_EQ(x.grad_fn()->name(), "MulBackward0");
  EXPECT_EQ(y.grad_fn()->name(), "IdentityBackward");
  (y * 3 + x).sum().backward();
  expect_values(a.grad(), {8, 8});

  // A leaf stays a leaf.
  Tensor z = Identity::apply(a);
  EXPECT_TRUE(a.is_leaf());
  EXPECT_FALSE(z.is_leaf());
  // Writing into the alias would bypass IdentityBackward.
  EXPECT_EQ(error_of([&] { z.add_(1); }),
            "Output 0 of IdentityBackward is a view and is being modified inplace. This view was "
            "created inside a custom Function (or because an input was returned as-is) and the "
            "autograd logic to handle view+inplace would override the custom backward associated "
            "with the custom Function, leading to incorrect gradients. This behavior is "
            "forbidden. You can fix this by cloning the output of the custom Function.");
  // Without grad, an alias all the same, which requires no grad.
  NoGradGuard no_grad;
  Tensor w = Identity::apply(a);
  EXPECT_FALSE(w.is_same(a));
  EXPECT_FALSE(w.requires_grad());
}

struct ViewOf : public Function<ViewOf> {
  static Tensor forward(AutogradContext*, Tensor x) { return x.view({-1}); }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0].view({2, 2})}; }
};

TEST(CustomFunction, ViewOfAnInputIsProtectedToo) {
  Tensor a = tensor({{1.0, 2.0}, {3.0, 4.0}}, requires_grad());
  Tensor y = ViewOf::apply(a * 1);
  EXPECT_TRUE(contains(error_of([&] { y.mul_(2); }), "Output 0 of ViewOfBackward is a view"));
  Tensor z = ViewOf::apply(a * 1).clone();
  z.mul_(2);
  z.sum().backward();
  expect_values(a.grad(), {2, 2, 2, 2});
}

// --- in-place (mark_dirty) ----------------------------------------------------------

struct MulTwoInplace : public Function<MulTwoInplace> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    x.mul_(2);
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0] * 2}; }
};

TEST(CustomFunction, MarkDirtyRebasesHistory) {
  Tensor a = leaf({1.0, 2.0, 3.0});
  Tensor x = a * 1;
  Tensor y = MulTwoInplace::apply(x);
  EXPECT_TRUE(y.is_same(x));
  expect_values(x, {2, 4, 6});
  EXPECT_EQ(x.grad_fn()->name(), "MulTwoInplaceBackward");
  (y * y).sum().backward();  // d/da (2a)^2 = 8a
  expect_values(a.grad(), {8, 16, 24});
}

TEST(CustomFunction, MarkDirtyInvalidatesSavedValues) {
  Tensor a = leaf({1.0, 2.0, 3.0});
  Tensor x = a * 1;
  Tensor z = x * x;  // saves x
  MulTwoInplace::apply(x);
  EXPECT_TRUE(contains(error_of([&] { z.sum().backward(); }),
                       "one of the variables needed for gradient computation has been modified "
                       "by an inplace operation: [torch.DoubleTensor [3]], which is output 0 of "
                       "MulBackward0, is at version"));
}

TEST(CustomFunction, MarkDirtyOnALeafThatRequiresGrad) {
  Tensor a = leaf({1.0, 2.0});
  EXPECT_EQ(error_of([&] { MulTwoInplace::apply(a); }),
            "a leaf Variable that requires grad is being used in an in-place operation.");
  EXPECT_TRUE(a.is_leaf());
  EXPECT_FALSE(a.grad_fn());
  // Under no_grad it is allowed (as any in-place op on a leaf).
  {
    NoGradGuard no_grad;
    Tensor y = MulTwoInplace::apply(a);
    EXPECT_FALSE(y.requires_grad());
  }
  EXPECT_TRUE(a.is_leaf());
  EXPECT_TRUE(a.requires_grad());
}

TEST(CustomFunction, MarkDirtyOnAView) {
  Tensor a = leaf({1.0, 2.0, 3.0, 4.0});
  Tensor base = a * 1;
  Tensor v = base.narrow(0, 1, 2);
  Tensor y = MulTwoInplace::apply(v);
  EXPECT_TRUE(y.is_same(v));
  expect_values(base, {1, 4, 6, 4});
  EXPECT_EQ(base.grad_fn()->name(), "CopySlices");
  EXPECT_EQ(v.grad_fn()->name(), "AsStridedBackward0");
  (base * tensor({1.0, 2.0, 3.0, 4.0}, kDouble)).sum().backward();
  expect_values(a.grad(), {1, 4, 6, 4});

  // Through the view's own gradient as well.
  Tensor a2 = leaf({1.0, 2.0, 3.0});
  Tensor base2 = a2 * 1;
  Tensor v2 = MulTwoInplace::apply(base2.narrow(0, 0, 2));
  (v2 * 10).sum().backward();
  expect_values(a2.grad(), {20, 20, 0});

  Tensor leaf_view = a.narrow(0, 0, 2);
  EXPECT_EQ(error_of([&] { MulTwoInplace::apply(leaf_view); }),
            "a view of a leaf Variable that requires grad is being used in an in-place "
            "operation.");
}

// Saves the input it modified: saved as its output (after the version
// bump), so that neither the version check nor a reference cycle trips.
struct ExpInplace : public Function<ExpInplace> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    x.exp_();
    ctx->mark_dirty({x});
    ctx->save_for_backward({x});
    return x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    return {g[0] * ctx->get_saved_variables()[0]};
  }
};

TEST(CustomFunction, MarkDirtyAndSaveTheInput) {
  Tensor a = leaf({0.0, 1.0});
  Tensor x = a * 1;
  ExpInplace::apply(x);
  expect_values(x, {1, std::exp(1.0)});
  x.sum().backward();
  expect_values(a.grad(), {1, std::exp(1.0)});

  // Double backward: the saved value is the node's output again.
  Tensor b = leaf({0.0, 1.0});
  Tensor y = ExpInplace::apply(b * 1);
  variable_list g1 = autograd::grad({y.sum()}, {b}, {}, std::nullopt, /*create_graph=*/true);
  variable_list g2 = autograd::grad({g1[0].sum()}, {b});
  expect_values(g2[0], {1, std::exp(1.0)});

  // On a view.
  Tensor c = leaf({0.0, 1.0, 2.0});
  Tensor base = c * 1;
  ExpInplace::apply(base.narrow(0, 1, 2));
  (base * tensor({1.0, 2.0, 3.0}, kDouble)).sum().backward();
  expect_values(c.grad(), {1, 2 * std::exp(1.0), 3 * std::exp(2.0)}, 1e-12);

  manual_seed(2);
  autograd::GradcheckFn f = [](const variable_list& v) {
    Tensor base = v[0] * 1;
    ExpInplace::apply(base.narrow(0, 1, 2));
    return variable_list{base};
  };
  variable_list in = {randn({4}, kDouble).requires_grad_()};
  EXPECT_EQ(autograd::gradcheck(f, in), "");
  EXPECT_EQ(autograd::gradgradcheck(f, in), "");
}

struct InplaceAndCopy : public Function<InplaceAndCopy> {
  static variable_list forward(AutogradContext* ctx, Tensor x) {
    x.mul_(2);
    ctx->mark_dirty({x});
    return {x, x * 1};
  }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0] * 2 + g[1] * 2}; }
};

struct DirtyNotReturned : public Function<DirtyNotReturned> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    x.mul_(2);
    ctx->mark_dirty({x});
    return x * 1;
  }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0] * 2}; }
};

TEST(CustomFunction, MarkDirtyErrors) {
  Tensor a = leaf({1.0, 2.0, 3.0});
  Tensor base = a * 1;
  EXPECT_TRUE(contains(
      error_of([&] { InplaceAndCopy::apply(base.narrow(0, 0, 2)); }),
      "If your Function modifies inplace an input that is a view of another Tensor, your "
      "Function cannot return more than one Tensor."));
  // Not a view: two outputs are fine.
  Tensor x = a * 1;
  variable_list out = InplaceAndCopy::apply(x);
  EXPECT_TRUE(out[0].is_same(x));
  (out[0] + out[1]).sum().backward();
  expect_values(a.grad(), {4, 4, 4});

  EXPECT_EQ(error_of([&] { DirtyNotReturned::apply(a * 1); }),
            "Some elements marked as dirty during the forward method were not returned as "
            "output. The inputs that are modified inplace must all be outputs of the Function.");
}

// --- saved_data ------------------------------------------------------------------------

struct SavedData : public Function<SavedData> {
  static Tensor forward(AutogradContext* ctx, Tensor x, Tensor w) {
    ctx->saved_data["double"] = 2.5;
    ctx->saved_data["int"] = 3;
    ctx->saved_data["int64"] = int64_t{1} << 40;
    ctx->saved_data["bool"] = true;
    ctx->saved_data["string"] = "mul";
    ctx->saved_data["tensor"] = w;
    ctx->saved_data["sizes"] = x.sizes();
    ctx->saved_data["ints"] = std::vector<int64_t>{4, 5};
    ctx->saved_data["doubles"] = std::vector<double>{0.5};
    ctx->saved_data["scalar"] = Scalar(7);
    return x * w * 2.5 * 3;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    auto& d = ctx->saved_data;
    EXPECT_EQ(d["double"].toDouble(), 2.5);
    EXPECT_EQ(d["int"].toInt(), 3);
    EXPECT_EQ(d["int64"].toInt(), int64_t{1} << 40);
    EXPECT_TRUE(d["bool"].toBool());
    EXPECT_EQ(d["string"].toStringRef(), "mul");
    EXPECT_EQ(d["sizes"].toIntVector(), (std::vector<int64_t>{2}));
    EXPECT_EQ(d["ints"].toIntVector(), (std::vector<int64_t>{4, 5}));
    EXPECT_EQ(d["doubles"].toDoubleVector(), (std::vector<double>{0.5}));
    EXPECT_TRUE(d["scalar"].isInt());
    EXPECT_EQ(d["scalar"].toScalar().toLong(), 7);
    const Tensor& w = d["tensor"].toTensor();
    return {g[0] * w * d["double"].toDouble() * static_cast<double>(d["int"].toInt()), Tensor()};
  }
};

TEST(CustomFunction, SavedData) {
  Tensor x = leaf({1.0, 2.0});
  Tensor w = tensor({1.0, -1.0}, kDouble);
  SavedData::apply(x, w).sum().backward();
  expect_values(x.grad(), {7.5, -7.5});
}

TEST(CustomFunction, IValueAccessors) {
  IValue none;
  EXPECT_TRUE(none.isNone());
  EXPECT_EQ(std::string(none.tagKind()), "None");
  EXPECT_TRUE(IValue(1.5f).isDouble());
  EXPECT_TRUE(IValue(size_t{3}).isInt());
  EXPECT_TRUE(IValue(false).isBool());
  EXPECT_TRUE(IValue("s").isString());
  EXPECT_TRUE(IValue(std::vector<Tensor>{ones({1})}).isTensorList());
  EXPECT_TRUE(IValue(Scalar(2.0)).isDouble());
  EXPECT_TRUE(IValue(Scalar(true)).isBool());
  EXPECT_EQ(error_of([] { IValue(5).toDouble(); }), "Expected Double but got Int");
  EXPECT_EQ(error_of([] { IValue(5.0).toInt(); }), "Expected Int but got Double");
  EXPECT_EQ(error_of([] { IValue(1).toBool(); }), "Expected Bool but got Int");
  EXPECT_EQ(error_of([] { IValue(true).toStringRef(); }), "Expected String but got Bool");
  EXPECT_EQ(error_of([] { IValue("a").toTensor(); }), "Expected Tensor but got String");
  EXPECT_EQ(error_of([] { IValue().toIntVector(); }), "Expected IntList but got None");
}

struct WrongAccessor : public Function<WrongAccessor> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->saved_data["mul"] = 2.0;
    return x * 2;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    return {g[0] * ctx->saved_data["mul"].toInt()};
  }
};

TEST(CustomFunction, WrongAccessorInBackward) {
  Tensor y = WrongAccessor::apply(leaf({1.0}));
  EXPECT_EQ(error_of([&] { y.backward(); }), "Expected Int but got Double");
}

// --- what backward returns ---------------------------------------------------------------

struct TooMany : public Function<TooMany> {
  static Tensor forward(AutogradContext*, Tensor x) { return x * 1; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0], g[0]}; }
};
struct TooFew : public Function<TooFew> {
  static Tensor forward(AutogradContext*, Tensor x, Tensor y) { return x * y; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0]}; }
};

TEST(CustomFunction, WrongNumberOfGradients) {
  Tensor x = leaf({1.0, 2.0});
  EXPECT_EQ(error_of([&] { TooMany::apply(x).sum().backward(); }),
            "function TooManyBackward returned an incorrect number of gradients (expected 1, "
            "got 2)");
  EXPECT_EQ(error_of([&] { TooFew::apply(x, x).sum().backward(); }),
            "function TooFewBackward returned an incorrect number of gradients (expected 2, got "
            "1)");
}

Tensor g_grad_to_return;

// Returns g_grad_to_return as x's gradient.
struct ReturnsGiven : public Function<ReturnsGiven> {
  static Tensor forward(AutogradContext*, Tensor x, double c) { return x * c; }
  static variable_list backward(AutogradContext*, variable_list) {
    return {g_grad_to_return, Tensor()};
  }
};

TEST(CustomFunction, GradientShapeAndDtype) {
  Tensor x = leaf({1.0, 2.0, 3.0});
  g_grad_to_return = ones({2}, kDouble);
  EXPECT_EQ(error_of([&] { ReturnsGiven::apply(x, 2.0).sum().backward(); }),
            "Function ReturnsGivenBackward returned an invalid gradient at index 0 - got [2] but "
            "expected shape compatible with [3]");
  g_grad_to_return = ones({2, 1}, kDouble);
  EXPECT_EQ(error_of([&] { ReturnsGiven::apply(x, 2.0).sum().backward(); }),
            "Function ReturnsGivenBackward returned an invalid gradient at index 0 - got [2, 1] "
            "but expected shape compatible with [3]");
  // A broadcast gradient is summed back; another dtype is cast.
  g_grad_to_return = tensor({{1.0, 2.0, 3.0}, {10.0, 20.0, 30.0}}, kFloat);
  ReturnsGiven::apply(x, 2.0).sum().backward();
  EXPECT_EQ(x.grad().dtype(), kDouble);
  expect_values(x.grad(), {11, 22, 33});
  g_grad_to_return = Tensor();
}

// --- saved tensors ----------------------------------------------------------------------

TEST(CustomFunction, SavedInputModifiedInPlace) {
  Tensor a = leaf({1.0, 2.0, 3.0});
  Tensor x = a * 1;
  Tensor y = Cube::apply(x);
  x.add_(1);
  EXPECT_EQ(error_of([&] { y.sum().backward(); }),
            "one of the variables needed for gradient computation has been modified by an "
            "inplace operation: [torch.DoubleTensor [3]], which is output 0 of MulBackward0, is "
            "at version 1; expected version 0 instead. Hint: enable anomaly detection to find "
            "the operation that failed to compute its gradient, with "
            "torch.autograd.set_detect_anomaly(True).");
}

TEST(CustomFunction, SavedOutputModifiedInPlace) {
  Tensor a = leaf({1.0, 2.0, 3.0});
  Tensor y = Exp::apply(a);
  y.add_(1);  // not an alias of an input: allowed, recorded
  EXPECT_EQ(y.grad_fn()->name(), "AddBackward0");
  EXPECT_TRUE(contains(error_of([&] { y.sum().backward(); }),
                       "[torch.DoubleTensor [3]], which is output 0 of ExpBackward, is at version "
                       "1; expected version 0 instead."));
}

TEST(CustomFunction, BackwardTwice) {
  Tensor a = leaf({1.0, 2.0});
  Tensor y = Cube::apply(a).sum();
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward();
  expect_values(a.grad(), {6, 24});
  EXPECT_TRUE(contains(error_of([&] { y.backward(); }),
                       "Trying to backward through the graph a second time"));
}

// --- grad mode, hooks, names ---------------------------------------------------------------

TEST(CustomFunction, NoGrad) {
  Tensor x = tensor({{1.0, 2.0}}, requires_grad());
  Tensor w = tensor({{1.0, 1.0}}, requires_grad());
  Tensor y;
  {
    NoGradGuard no_grad;
    y = LinearFunction::apply(x, w);
  }
  expect_values(y, {3});
  EXPECT_FALSE(y.requires_grad());
  EXPECT_FALSE(y.grad_fn());
  // Nothing requires grad: nothing recorded either.
  Tensor z = MulConstant::apply(tensor({1.0}), 2.0);
  EXPECT_FALSE(z.requires_grad());
  // Inside forward grad mode is off even when it is on outside.
  g_forward_grad_mode = true;
  Mixed::apply(1.0, x, 1, "add", x);
  EXPECT_FALSE(g_forward_grad_mode);
  EXPECT_TRUE(GradMode::is_enabled());
}

TEST(CustomFunction, HooksAndRetainGrad) {
  Tensor x = leaf({1.0, 2.0});
  Tensor y = MulConstant::apply(x, 2.0);
  y.retain_grad();
  (y * 3).sum().backward();
  expect_values(y.grad(), {3, 3});
  expect_values(x.grad(), {6, 6});

  Tensor x2 = leaf({1.0, 2.0});
  Tensor y2 = MulConstant::apply(x2, 2.0);
  std::vector<Tensor> seen;
  y2.register_hook([&](const Tensor& g) {
    seen.push_back(g);
    return g * 10;
  });
  y2.sum().backward();
  ASSERT_EQ(seen.size(), 1u);
  expect_values(seen[0], {1, 1});
  expect_values(x2.grad(), {20, 20});
}

namespace outer {
namespace inner {
struct Scaled : public Function<Scaled> {
  static Tensor forward(AutogradContext*, Tensor x) { return x * 2; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0] * 2}; }
};
}  // namespace inner
}  // namespace outer

template <typename T>
struct Templated : public Function<Templated<T>> {
  static Tensor forward(AutogradContext*, Tensor x) { return x * 2; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0] * 2}; }
};

TEST(CustomFunction, NodeNames) {
  Tensor x = leaf({1.0});
  EXPECT_EQ(outer::inner::Scaled::apply(x).grad_fn()->name(), "ScaledBackward");
  EXPECT_EQ(Templated<outer::inner::Scaled>::apply(x).grad_fn()->name(),
            "Templated<ember::(anonymous namespace)::outer::inner::Scaled>Backward");
  EXPECT_EQ(autograd::custom_function_internal::custom_function_name(typeid(int)), "intBackward");
}

// --- memory ----------------------------------------------------------------------------------

TEST(CustomFunction, GraphIsFreed) {
  std::weak_ptr<Node> linear, exp, identity, dirty_view, dirty_saved_view, dirty_saved, sorted;
  std::weak_ptr<TensorImpl> unsaved_input;
  Tensor x = tensor({{1.0, 2.0}}, requires_grad());
  {
    Tensor w = tensor({{1.0, 1.0}}, requires_grad());
    Tensor y = LinearFunction::apply(x, w);
    linear = y.grad_fn();
    Tensor e = Exp::apply(x);  // saves its output
    exp = e.grad_fn();
    Tensor i = Identity::apply(x);
    identity = i.grad_fn();
    Tensor base = x * 1;
    MulTwoInplace::apply(base.narrow(1, 0, 1));
    dirty_view = base.grad_fn();
    Tensor base2 = x * 1;
    ExpInplace::apply(base2.narrow(1, 0, 1));  // saves the view it modified
    dirty_saved_view = base2.grad_fn();
    Tensor x3 = x * 1;
    ExpInplace::apply(x3);
    dirty_saved = x3.grad_fn();
    variable_list s = SortValues::apply(x.view({-1}));
    sorted = s[0].grad_fn();
    Tensor c = tensor({{5.0, 5.0}});
    Tensor m = Mixed::apply(1.0, x, 1, "add", c);  // saves no tensor
    unsaved_input = c.impl();
    c = Tensor();
    EXPECT_TRUE(unsaved_input.expired());  // the graph does not hold its inputs
    EXPECT_FALSE(linear.expired());
    EXPECT_FALSE(exp.expired());
    (y.sum() + e.sum() + i.sum() + base.sum() + base2.sum() + x3.sum() + s[0].sum() + m.sum())
        .backward(Tensor(), true);
    EXPECT_FALSE(exp.expired());
  }
  EXPECT_TRUE(linear.expired());
  EXPECT_TRUE(exp.expired());
  EXPECT_TRUE(identity.expired());
  EXPECT_TRUE(dirty_view.expired());
  EXPECT_TRUE(dirty_saved_view.expired());
  EXPECT_TRUE(dirty_saved.expired());
  EXPECT_TRUE(sorted.expired());
}

}  // namespace
}  // namespace ember
