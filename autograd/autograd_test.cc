// Core autograd behaviour: the seed tutorials, accumulation, grad mode,
// retain_graph, in-place checks, autograd::grad and double backward, hooks
// and callbacks, and every error message.
#include <cmath>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using autograd::variable_list;

void expect_all(const Tensor& t, double v) {
  ASSERT_TRUE(t.defined());
  Tensor d = t.to(kDouble).contiguous();
  for (int64_t i = 0; i < d.numel(); ++i) EXPECT_DOUBLE_EQ(d.data_ptr<double>()[i], v) << i;
}

void expect_values(const Tensor& t, std::vector<double> v, double tol = 1e-12) {
  ASSERT_TRUE(t.defined());
  Tensor d = t.to(kDouble).contiguous();
  ASSERT_EQ(d.numel(), static_cast<int64_t>(v.size()));
  for (int64_t i = 0; i < d.numel(); ++i) EXPECT_NEAR(d.data_ptr<double>()[i], v[i], tol) << i;
}

using ::ember::testing::error_of;

// Seed 002: out = (3 * (x + 2) * (x + 2)).mean(); x.grad is 4.5 everywhere.
TEST(AutogradSeed, MeanOfSquares) {
  Tensor x = ones({2, 2}, requires_grad());
  Tensor y = x + 2;
  Tensor z = y * y * 3;
  Tensor out = z.mean();
  EXPECT_EQ(y.toString(), "tensor([[3., 3.],\n        [3., 3.]], grad_fn=<AddBackward0>)");
  EXPECT_EQ(z.toString(), "tensor([[27., 27.],\n        [27., 27.]], grad_fn=<MulBackward0>)");
  EXPECT_EQ(out.toString(), "tensor(27., grad_fn=<MeanBackward0>)");
  out.backward();
  expect_all(x.grad(), 4.5);
}

// Seed 000: y = x ** 2, z = y * y * 3, out = z.mean(): grad 3, then
// accumulation with x.sum() (4), then zeroing (1).
TEST(AutogradSeed, AccumulateAndZero) {
  Tensor x = ones({2, 2}, requires_grad());
  EXPECT_EQ(x.toString(), "tensor([[1., 1.],\n        [1., 1.]], requires_grad=True)");
  Tensor y = x.pow(2);
  EXPECT_EQ(y.toString(), "tensor([[1., 1.],\n        [1., 1.]], grad_fn=<PowBackward0>)");
  Tensor z = y * y * 3;
  EXPECT_EQ(z.toString(), "tensor([[3., 3.],\n        [3., 3.]], grad_fn=<MulBackward0>)");
  Tensor out = z.mean();
  out.backward();
  expect_all(x.grad(), 3);
  x.sum().backward();
  expect_all(x.grad(), 4);
  x.mutable_grad().zero_();
  x.sum().backward();
  expect_all(x.grad(), 1);
  x.mutable_grad() = Tensor();  // set to None
  EXPECT_FALSE(x.grad().defined());
  x.sum().backward();
  expect_all(x.grad(), 1);
}

// Seed 002: y = x * 2 doubled until its norm reaches 1000, then a
// vector-Jacobian product.
TEST(AutogradSeed, VectorJacobianProduct) {
  Tensor x = tensor({0.3, -0.7, 1.1}, requires_grad());
  Tensor y = x * 2;
  int k = 1;
  while (y.norm().item<double>() < 1000) {
    y = y * 2;
    ++k;
  }
  std::vector<double> v = {0.1, 1.0, 0.0001};
  y.backward(tensor({0.1, 1.0, 0.0001}));
  const double scale = std::ldexp(1.0, k);
  expect_values(x.grad(), {scale * v[0], scale * v[1], scale * v[2]}, 1e-6 * scale);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(y.is_leaf());
  EXPECT_TRUE(x.is_leaf());
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward0");
  EXPECT_EQ(x.grad_fn(), nullptr);
}

TEST(AutogradSeed, NoGradGuard) {
  Tensor x = randn({3}, requires_grad());
  EXPECT_TRUE(x.pow(2).requires_grad());
  {
    NoGradGuard guard;
    EXPECT_FALSE(x.pow(2).requires_grad());
    {
      EnableGradGuard enable;
      EXPECT_TRUE(x.pow(2).requires_grad());
    }
    EXPECT_FALSE(GradMode::is_enabled());
  }
  EXPECT_TRUE(GradMode::is_enabled());
  Tensor d = x.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_EQ(d.data_ptr(), x.data_ptr());
  Tensor y = x * 2;
  y.detach_();
  EXPECT_FALSE(y.requires_grad());
}

TEST(AutogradErrors, ImplicitGradNeedsScalar) {
  Tensor x = ones({3}, requires_grad());
  Tensor y = x * 2;
  EXPECT_EQ(error_of([&] { y.backward(); }),
            "grad can be implicitly created only for scalar outputs");
}

TEST(AutogradErrors, NoGradFn) {
  Tensor x = ones({3});
  EXPECT_EQ(error_of([&] { x.sum().backward(); }),
            "element 0 of tensors does not require grad and does not have a grad_fn");
}

TEST(AutogradErrors, GradientShapeMismatch) {
  Tensor x = ones({3}, requires_grad());
  Tensor y = x * 2;
  EXPECT_EQ(error_of([&] { y.backward(ones({2})); }),
            "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has "
            "a shape of torch.Size([3]).");
}

TEST(AutogradErrors, BackwardTwiceWithoutRetainGraph) {
  Tensor x = ones({2, 2}, requires_grad());
  Tensor out = (x * x).sum();
  out.backward();
  EXPECT_EQ(error_of([&] { out.backward(); }),
            "Trying to backward through the graph a second time (or directly access saved "
            "tensors after they have already been freed). Saved intermediate values of the graph "
            "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
            "you need to backward through the graph a second time or if you need to access saved "
            "tensors after calling backward.");
}

TEST(Autograd, RetainGraphAllowsSecondBackward) {
  Tensor x = tensor({1.0, 2.0}, requires_grad());
  Tensor out = (x * x).sum();
  out.backward(Tensor(), /*retain_graph=*/true);
  out.backward();
  expect_values(x.grad(), {4.0, 8.0});
}

TEST(AutogradErrors, ModifiedByInplace) {
  Tensor a = ones({2, 2}, requires_grad());
  Tensor b = a * 3;  // MulBackward0, output 0
  Tensor c = b * b;  // saves b
  b.add_(1);
  EXPECT_EQ(error_of([&] { c.sum().backward(); }),
            "one of the variables needed for gradient computation has been modified by an "
            "inplace operation: [torch.FloatTensor [2, 2]], which is output 0 of MulBackward0, is "
            "at version 1; expected version 0 instead. Hint: enable anomaly detection to find the "
            "operation that failed to compute its gradient, with "
            "torch.autograd.set_detect_anomaly(True).");
}

TEST(AutogradErrors, LeafInplace) {
  Tensor a = ones({2}, requires_grad());
  EXPECT_EQ(error_of([&] { a.add_(1); }),
            "a leaf Variable that requires grad is being used in an in-place operation.");
  {
    NoGradGuard g;
    a.add_(1);  // fine without grad mode, as PyTorch's optimizers do
  }
  expect_all(a, 2);
}

TEST(AutogradErrors, RequiresGradOnlyFloat) {
  EXPECT_EQ(error_of([] { arange(3).requires_grad_(); }),
            "only Tensors of floating point dtype can require gradients");
  Tensor x = ones({2}, requires_grad());
  Tensor y = x * 2;
  EXPECT_EQ(error_of([&] { y.requires_grad_(false); }),
            "you can only change requires_grad flags of leaf variables. If you want to use a "
            "computed variable in a subgraph that doesn't require differentiation use "
            "var_no_grad = var.detach().");
}

TEST(Autograd, InplaceOnNonLeafRecords) {
  Tensor x = tensor({1.0, 2.0, 3.0}, requires_grad());
  Tensor y = x * 1;
  y.mul_(y);  // y = (x)^2, needs its old value
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward0");
  EXPECT_EQ(y._version(), 1u);
  y.sum().backward();
  expect_values(x.grad(), {2.0, 4.0, 6.0});
}

TEST(Autograd, BroadcastingReducesGradient) {
  Tensor a = ones({2, 3}, kDouble).requires_grad_();
  Tensor b = tensor({1.0, 2.0, 3.0}, kDouble).requires_grad_();
  Tensor s = tensor(2.0, kFloat).requires_grad_();
  ((a * b) * s).sum().backward();
  expect_values(b.grad(), {4, 4, 4});
  expect_values(a.grad(), {2, 4, 6, 2, 4, 6});
  expect_values(s.grad(), {12});
  EXPECT_EQ(s.grad().dtype(), kFloat);
}

TEST(Autograd, GradFunctionalAndUnused) {
  Tensor x = tensor({1.0, 2.0}, requires_grad());
  Tensor z = tensor({5.0}, requires_grad());
  Tensor y = (x * x * x).sum();
  variable_list g = autograd::grad({y}, {x}, {}, true);
  expect_values(g[0], {3.0, 12.0});
  EXPECT_FALSE(x.grad().defined());  // grad() leaves .grad alone
  EXPECT_EQ(error_of([&] { autograd::grad({y}, {z}, {}, true); }),
            "One of the differentiated Tensors appears to not have been used in the graph. Set "
            "allow_unused=True if this is the desired behavior.");
  variable_list u = autograd::grad({y}, {x, z}, {}, true, false, /*allow_unused=*/true);
  EXPECT_TRUE(u[0].defined());
  EXPECT_FALSE(u[1].defined());
  Tensor c = ones({2});
  EXPECT_EQ(error_of([&] { autograd::grad({y}, {c}); }),
            "One of the differentiated Tensors does not require grad");
}

TEST(Autograd, SecondDerivative) {
  Tensor x = tensor({1.0, 2.0, -1.0}, kDouble).requires_grad_();
  Tensor y = (x.pow(3) + x.sin()).sum();
  variable_list g = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  EXPECT_TRUE(g[0].requires_grad());
  expect_values(g[0], {3 + std::cos(1.0), 12 + std::cos(2.0), 3 + std::cos(-1.0)}, 1e-12);
  variable_list h = autograd::grad({g[0].sum()}, {x});
  expect_values(h[0], {6 - std::sin(1.0), 12 - std::sin(2.0), -6 - std::sin(-1.0)}, 1e-12);
}

TEST(Autograd, SecondDerivativeMatmul) {
  // f = sum((A @ x)^2): grad = 2 A^T A x, Hessian-vector product with ones
  // = 2 A^T A 1.
  Tensor a = tensor({{1.0, 2.0}, {3.0, 4.0}}, kDouble);
  Tensor x = tensor({1.0, -1.0}, kDouble).requires_grad_();
  Tensor f = a.matmul(x).pow(2).sum();
  variable_list g = autograd::grad({f}, {x}, {}, std::nullopt, true);
  // A x = (-1, -1); A^T (-1,-1) = (-4, -6); times 2.
  expect_values(g[0], {-8, -12});
  variable_list h = autograd::grad({g[0].sum()}, {x});
  // 2 A^T A 1 = 2 * A^T (3, 7) = 2 * (24, 34)
  expect_values(h[0], {48, 68});
}

TEST(Autograd, BackwardCreateGraphAccumulatesGraph) {
  Tensor x = tensor({2.0}, kDouble).requires_grad_();
  Tensor y = x.pow(3);
  y.backward(Tensor(), std::nullopt, /*create_graph=*/true);
  expect_values(x.grad(), {12});
  EXPECT_TRUE(x.grad().requires_grad());
  Tensor gx = x.grad();
  x.mutable_grad() = Tensor();
  gx.backward();
  expect_values(x.grad(), {12});  // d(3x^2)/dx = 6x
}

TEST(AutogradHooks, TensorHookReplacesGradient) {
  Tensor x = tensor({1.0, 2.0}, requires_grad());
  Tensor y = x * 3;
  std::vector<double> seen;
  y.register_hook([&](const Tensor& g) { seen.push_back(g.sum().item<double>()); });
  unsigned h = y.register_hook([](const Tensor& g) { return g * 10; });
  x.register_hook([&](const Tensor& g) { return g + 1; });
  y.sum().backward(Tensor(), true);
  EXPECT_EQ(seen, std::vector<double>{2.0});
  expect_values(x.grad(), {31, 31});
  y.remove_hook(h);
  x.mutable_grad() = Tensor();
  y.sum().backward();
  expect_values(x.grad(), {4, 4});
  Tensor c = ones({1});
  EXPECT_EQ(error_of([&] { c.register_hook([](const Tensor&) {}); }),
            "cannot register a hook on a tensor that doesn't require gradient");
}

TEST(AutogradHooks, RetainGrad) {
  Tensor x = tensor({1.0, 2.0}, requires_grad());
  Tensor y = x * x;
  y.retain_grad();
  EXPECT_TRUE(y.retains_grad());
  (y * 2).sum().backward();
  expect_values(y.grad(), {2, 2});
  expect_values(x.grad(), {4, 8});
}

TEST(AutogradHooks, PostAccumulateGradHookAndCallback) {
  Tensor w = tensor({1.0, 2.0}, requires_grad());
  std::vector<std::string> events;
  autograd::register_post_accumulate_grad_hook(w, [&](Tensor& p) {
    events.push_back("acc " + std::to_string(p.grad().sum().item<double>()));
    autograd::queue_callback([&] { events.push_back("end"); });
  });
  (w * w).sum().backward();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0], "acc 6.000000");
  EXPECT_EQ(events[1], "end");
  EXPECT_EQ(error_of([] { autograd::queue_callback([] {}); }),
            "Final callbacks can only be installed during backward pass.");
}

TEST(Autograd, ViewsAndShapes) {
  Tensor x = arange(6, kDouble).reshape({2, 3}).requires_grad_();
  Tensor y = x.t().select(0, 1) * 2 + x.index({indexing::Slice(), indexing::Slice(0, 2)}).sum();
  y.sum().backward();
  // select(0,1) of x^T is column 1 of x: +2; the slice adds 2 (two y
  // elements) to columns 0 and 1.
  expect_values(x.grad(), {2, 4, 0, 2, 4, 0});
}

TEST(Autograd, SoftmaxCrossEntropyLike) {
  Tensor logits = tensor({{1.0, 2.0, 0.5}}, kDouble).requires_grad_();
  Tensor loss = -logits.log_softmax(1).select(1, 1).sum();
  loss.backward();
  Tensor p = logits.detach().softmax(1);
  expect_values(logits.grad(), {p[0][0].item<double>(), p[0][1].item<double>() - 1,
                                p[0][2].item<double>()},
                1e-12);
}

// Every differentiable op records the node PyTorch 1.13 records (names
// taken from torch 1.13 on the same calls), so no gradient is silently lost.
TEST(AutogradRecording, OpsRecordPyTorchNodes) {
  using indexing::Slice;
  Tensor a = randn({3, 4}, kDouble).requires_grad_();
  Tensor b = randn({3, 4}, kDouble).requires_grad_();
  Tensor idx = tensor({0L, 2L});
  Tensor idx2 = tensor({{0L, 1L, 2L, 0L}, {2L, 0L, 1L, 1L}});
  Tensor mask = a.detach() > 0;
  auto c = [&] { return a * 1; };
  std::vector<std::tuple<const char*, std::function<Tensor()>>> ops = {
      {"CatBackward0", [&] { return cat({a, b}, 0); }},
      {"StackBackward0", [&] { return stack({a, b}, 0); }},
      {"IndexBackward0", [&] { return a.index({idx}); }},
      {"IndexBackward0", [&] { return a.index({mask}); }},
      {"GatherBackward0", [&] { return a.gather(0, idx2); }},
      {"ScatterBackward0", [&] { return a.scatter(0, idx2.slice(0, 0, 1), b); }},
      {"ScatterBackward1", [&] { return a.scatter(0, idx2, 1.5); }},
      {"ScatterAddBackward0", [&] { return a.scatter_add(0, idx2, b); }},
      {"IndexSelectBackward0", [&] { return a.index_select(1, idx); }},
      {"MaskedSelectBackward0", [&] { return a.masked_select(mask); }},
      {"SortBackward0", [&] { return std::get<0>(a.sort(1)); }},
      {"TopkBackward0", [&] { return std::get<0>(a.topk(2, 1)); }},
      {"KthvalueBackward0", [&] { return std::get<0>(a.kthvalue(2, 1)); }},
      {"ClampBackward0", [&] { return a.clamp(b, b + 1); }},
      {"ClampBackward0", [&] { return a.clamp(b, Tensor()); }},
      {"LerpBackward0", [&] { return a.lerp(b, 0.3); }},
      {"MaskedFillBackward1", [&] { return a.masked_fill(mask, b.sum()); }},
      {"FillBackward2", [&] { return c().fill_(2.0); }},
      {"FillBackward3", [&] { return c().fill_(b.sum()); }},
      {"ZeroBackward0", [&] { return c().zero_(); }},
      {"RemainderBackward1", [&] { return a.remainder(b); }},
      {"RemainderBackward0", [&] { return a.remainder(0.7); }},
      {"FmodBackward1", [&] { return a.fmod(b); }},
      {"FmodBackward0", [&] { return a.fmod(0.7); }},
      {"torch::autograd::NotImplemented", [&] { return a.floor_divide(b); }},
      {"VarMeanBackward0", [&] { return std::get<1>(var_mean(a, {1})); }},
      {"StdMeanBackward0", [&] { return std::get<0>(std_mean(a, {1})); }},
      {"AsStridedBackward0", [&] { return a.as_strided({2, 2}, {1, 2}); }},
      {"UnfoldBackward0", [&] { return a.unfold(1, 2, 1); }},
      {"RollBackward0", [&] { return a.roll({1}, {1}); }},
      {"RollBackward0", [&] { return a.roll({1}, {}); }},
      {"FlipBackward0", [&] { return a.flip({1}); }},
      {"CumprodBackward0", [&] { return a.cumprod(1); }},
      {"TakeBackward0", [&] { return a.take(idx); }},
      {"TrilBackward0", [&] { return a.tril(); }},
      {"TriuBackward0", [&] { return a.triu(); }},
      {"RepeatBackward0", [&] { return a.repeat({2, 1}); }},
      {"SqueezeBackward2", [&] { return c().unsqueeze(0).squeeze_(); }},
      {"SqueezeBackward3", [&] { return c().unsqueeze(0).squeeze_(0); }},
      {"UnsqueezeBackward1", [&] { return c().unsqueeze_(0); }},
      {"TransposeBackward1", [&] { return c().transpose_(0, 1); }},
      {"TBackward1", [&] { return c().t_(); }},
      {"IndexPutBackward0", [&] { return c().index_put_({idx}, b.index({idx})); }},
      {"IndexAddBackward0", [&] { return c().index_add_(0, idx, b.index({idx})); }},
      {"IndexCopyBackward0", [&] { return c().index_copy_(0, idx, b.index({idx})); }},
      {"IndexFillBackward0", [&] { return c().index_fill_(0, idx, 1.0); }},
      {"MaskedScatterBackward0", [&] { return c().masked_scatter_(mask, b); }},
      {"ScatterBackward0", [&] { return c().scatter_(0, idx2, b); }},
      {"ScatterAddBackward0", [&] { return c().scatter_add_(0, idx2, b); }},
      {"ReshapeAliasBackward0", [&] { return a.reshape({4, 3}); }},
      {"UnsafeViewBackward0", [&] { return a.t().reshape({12}); }},
      {"AliasBackward0", [&] { return a.index({"..."}); }},
      {"AliasBackward0", [&] { return a.sum().movedim(0, 0); }},
      {"TBackward0", [&] { return a.t(); }},
      {"SplitBackward0", [&] { return a.split(2, 1)[1]; }},
      {"SplitBackward0", [&] { return a.chunk(2, 1)[0]; }},
      {"SplitWithSizesBackward0", [&] { return a.split_with_sizes({1, 3}, 1)[1]; }},
      {"UnbindBackward0", [&] { return a.unbind(0)[2]; }},
      {"RsubBackward1", [&] { return 2.0 - a; }},
      {"DivBackward2", [&] { return a.div(b, "floor"); }},
      {"DivBackward2", [&] { return a.div(2.0, "trunc"); }},
      {"RoundBackward1", [&] { return a.round(2); }},
      {"UniformBackward0", [&] { return c().uniform_(); }},
      {"NormalBackward0", [&] { return c().normal_(); }},
      {"BernoulliBackward2", [&] { return c().bernoulli_(0.5); }},
      {"RandomBackward0", [&] { return c().random_(0, 5); }},
      {"ExponentialBackward0", [&] { return c().exponential_(); }},
  };
  for (auto& [name, f] : ops) {
    Tensor t = f();
    ASSERT_TRUE(t.grad_fn() != nullptr) << name;
    EXPECT_EQ(t.grad_fn()->name(), name);
  }
}

// Outputs that are not differentiable do not require grad (PyTorch).
// PyTorch's mm_mat1_backward / mm_mat2_backward: a column-major operand's
// gradient comes back column-major (PyTorch 1.13: linear's weight.t() of a
// [3, 4] weight gets a [4, 3] gradient of strides (1, 4), so w.grad is
// contiguous; a transposed [5, 4] mat1 gets strides (1, 5)), with the same
// values; alpha and beta of 1 cost nothing, others still scale.
TEST(AutogradRecording, MatmulGradientsKeepColumnMajorOperandsLayout) {
  manual_seed(12);
  const Tensor w = randn({3, 4}).requires_grad_(), x = randn({5, 4}).requires_grad_(),
               b = randn({3}).requires_grad_();
  const Tensor wt = w.t();
  std::vector<int64_t> wt_grad_strides;
  wt.register_hook(
      [&](const Tensor& g) { wt_grad_strides.assign(g.strides().begin(), g.strides().end()); });
  const Tensor gy = randn({5, 3});
  (addmm(b, x, wt) * gy).sum().backward();
  EXPECT_EQ(wt_grad_strides, (std::vector<int64_t>{1, 4}));
  EXPECT_TRUE(w.grad().is_contiguous());
  EXPECT_TRUE(w.grad().allclose(gy.t().mm(x), 1e-6, 1e-6));
  EXPECT_TRUE(x.grad().allclose(gy.mm(w), 1e-6, 1e-6));
  EXPECT_TRUE(b.grad().allclose(gy.sum(0), 1e-6, 1e-6));

  const Tensor a = randn({4, 5}).t().requires_grad_(), m = randn({4, 3});
  std::vector<int64_t> a_grad_strides;
  a.register_hook(
      [&](const Tensor& g) { a_grad_strides.assign(g.strides().begin(), g.strides().end()); });
  const Tensor gm = randn({5, 3});
  (a.mm(m) * gm).sum().backward();
  EXPECT_EQ(a_grad_strides, (std::vector<int64_t>{1, 5}));
  EXPECT_TRUE(a.grad().allclose(gm.mm(m.t()), 1e-6, 1e-6));

  // Against finite differences in float64, with column-major and
  // row-major operands, and their second derivatives.
  autograd::GradcheckOptions o;
  o.check_grad_grad = true;
  for (auto [beta, alpha] : {std::pair<double, double>{2, 0.5}, {1, 1}}) {
    const Tensor x2 = randn({4, 5}, TensorOptions(kDouble)).requires_grad_();
    const Tensor w2 = randn({4, 3}, TensorOptions(kDouble)).requires_grad_();
    const Tensor b2 = randn({5, 3}, TensorOptions(kDouble)).requires_grad_();
    const autograd::GradcheckFn f = [beta = beta, alpha = alpha](const variable_list& v) {
      return variable_list{addmm(v[0], v[1].t(), v[2], beta, alpha), v[1].t().mm(v[2].t().t())};
    };
    EXPECT_EQ(autograd::gradcheck(f, {b2, x2, w2}, o), "") << beta << " " << alpha;
  }
}

TEST(AutogradRecording, NonDifferentiableOutputs) {
  Tensor a = randn({3, 4}, kDouble).requires_grad_();
  Tensor b = randn({3, 4}, kDouble).requires_grad_();
  EXPECT_FALSE(a.argmax(1).requires_grad());
  EXPECT_FALSE(a.argmin().requires_grad());
  EXPECT_FALSE(a.nonzero().requires_grad());
  EXPECT_FALSE((a > b).requires_grad());
  EXPECT_FALSE((a == b).requires_grad());
  EXPECT_FALSE(std::get<1>(a.sort(1)).requires_grad());
  EXPECT_FALSE(std::get<1>(a.topk(2)).requires_grad());
  EXPECT_FALSE(std::get<1>(a.max(0)).requires_grad());
  EXPECT_FALSE(a.argsort(1).requires_grad());
  EXPECT_TRUE(std::get<0>(a.sort(1)).requires_grad());
}

// floor_divide has no derivative in PyTorch: backward through it fails
// with PyTorch's message, and only when its gradient is needed.
TEST(AutogradRecording, FloorDivideIsNotDifferentiable) {
  Tensor a = randn({3}, kDouble).requires_grad_();
  Tensor b = tensor({1.0, 2.0, 3.0}, kDouble);
  Tensor y = a.floor_divide(b);
  EXPECT_EQ(error_of([&] { y.sum().backward(); }),
            "derivative for aten::floor_divide is not implemented");
}

// Neither is heaviside (1.13 records a NotImplemented node): before, ember
// differentiated its composition.
TEST(AutogradRecording, HeavisideIsNotDifferentiable) {
  Tensor a = randn({3}, kDouble).requires_grad_();
  Tensor y = a.heaviside(tensor({0.5, 0.5, 0.5}, kDouble));
  EXPECT_TRUE(y.requires_grad());
  EXPECT_EQ(error_of([&] { y.sum().backward(); }),
            "derivative for aten::heaviside is not implemented");
}

// 1.13 has no derivative for aminmax and narrow_copy either (later PyTorch
// adds them): their outputs require grad and backward raises.
TEST(AutogradRecording, AminmaxAndNarrowCopyAreNotDifferentiable) {
  Tensor a = tensor({2.0, -1.0, 4.0, 0.5}, kDouble).view({2, 2}).requires_grad_();
  auto [mn, mx] = a.aminmax();
  EXPECT_TRUE(mn.requires_grad());
  EXPECT_TRUE(mx.requires_grad());
  EXPECT_EQ(error_of([&] { mx.backward(); }), "derivative for aten::aminmax is not implemented");
  auto [mn1, mx1] = a.aminmax(1, true);
  EXPECT_EQ(mn1.sizes().vec(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(error_of([&] { mn1.sum().backward(); }),
            "derivative for aten::aminmax is not implemented");
  Tensor c = a.narrow_copy(1, 1, 1);
  EXPECT_TRUE(c.requires_grad());
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(error_of([&] { c.sum().backward(); }),
            "derivative for aten::narrow_copy is not implemented");
  // Without grad mode nothing is recorded.
  NoGradGuard no_grad;
  EXPECT_FALSE(std::get<0>(a.aminmax()).requires_grad());
  EXPECT_FALSE(a.narrow_copy(0, 0, 1).requires_grad());
}

// The unique family records 1.13's nodes (Unique2Backward0, ...): the
// values require grad, even of an empty input; inverse and counts do not.
TEST(AutogradRecording, UniqueRecordsPyTorchsNode) {
  Tensor a = tensor({2.0, -1.0, 2.0}, kDouble).requires_grad_();
  auto [values, inverse, counts] = unique(a, true, true, true);
  EXPECT_TRUE(values.requires_grad());
  EXPECT_FALSE(inverse.requires_grad());
  EXPECT_FALSE(counts.requires_grad());
  EXPECT_EQ(error_of([&] { values.sum().backward(); }),
            "the derivative for '_unique2' is not implemented.");
  Tensor e = empty({0}, kDouble).requires_grad_();
  EXPECT_TRUE(std::get<0>(unique(e)).requires_grad());
  Tensor v = std::get<0>(unique_consecutive(e));
  EXPECT_TRUE(v.requires_grad());
}

// cat of tensors that require grad used to lose the gradient (the copies
// into the result recorded onto views only).
TEST(AutogradRecording, CatAndStackGradients) {
  Tensor a = tensor({1.0, 2.0}, kDouble).requires_grad_();
  Tensor b = tensor({3.0}, kDouble).requires_grad_();
  (cat({a, b}) * tensor({1.0, 2.0, 3.0}, kDouble)).sum().backward();
  expect_values(a.grad(), {1, 2});
  expect_values(b.grad(), {3});
  Tensor c = tensor({1.0, 2.0}, kDouble).requires_grad_();
  (stack({c, c}, 1) * tensor({{1.0, 2.0}, {3.0, 4.0}}, kDouble)).sum().backward();
  expect_values(c.grad(), {3, 7});
}

// In-place views keep the history: squeeze_ of a non-leaf, then backward.
TEST(AutogradRecording, InplaceViewOnLeafIsRejected) {
  Tensor a = randn({1, 3}, kDouble).requires_grad_();
  EXPECT_EQ(error_of([&] { a.squeeze_(); }),
            "a leaf Variable that requires grad is being used in an in-place operation.");
  Tensor y = a * 2;
  y.squeeze_();
  EXPECT_EQ(y.sizes(), IntArrayRef({3}));
  y.sum().backward();
  expect_values(a.grad(), {2, 2, 2});
}

// prod's gradient with zeros, and its second derivative (the product of
// the other elements, through cumprod/flip/cat which now record).
TEST(AutogradRecording, ProdDoubleBackwardWithZero) {
  Tensor x = tensor({1.0, 0.0, 2.0}, kDouble).requires_grad_();
  Tensor g = autograd::grad({x.prod()}, {x}, {}, true, true)[0];
  expect_values(g, {0, 2, 0});
  // torch 1.13: grad(g.sum(), x) == [2, 3, 1].
  expect_values(autograd::grad({g.sum()}, {x})[0], {2, 3, 1});
}

// CopySlices: an in-place op on a view rewrites the base's history.
TEST(AutogradViews, InplaceOnViewReachesBase) {
  Tensor a = tensor({1.0, 2.0, 3.0}, kDouble).requires_grad_();
  Tensor x = a.clone();
  x[0].mul_(2);
  EXPECT_EQ(x.grad_fn()->name(), "CopySlices");
  expect_values(x, {2, 2, 3});
  x.sum().backward();
  expect_values(a.grad(), {2, 1, 1});
}

TEST(AutogradViews, CopyIntoViewGivesSourceItsGradient) {
  Tensor a = tensor({1.0, 2.0, 3.0}, kDouble).requires_grad_();
  Tensor b = tensor({5.0, 7.0}, kDouble).requires_grad_();
  Tensor w = tensor({10.0, 20.0, 30.0}, kDouble);
  Tensor x = a.clone();
  x.narrow(0, 1, 2).copy_(b);
  (x * w).sum().backward();
  expect_values(a.grad(), {10, 0, 0});
  expect_values(b.grad(), {20, 30});
}

TEST(AutogradViews, IndexPutOnSliceReachesBase) {
  using indexing::Slice;
  Tensor a = tensor({{1.0, 2.0}, {3.0, 4.0}}, kDouble).requires_grad_();
  Tensor b = tensor({5.0, 7.0}, kDouble).requires_grad_();
  Tensor x = a * 1;
  x.index_put_({Slice(), 1}, b * 3);
  x.sum().backward();
  expect_values(a.grad(), {1, 0, 1, 0});
  expect_values(b.grad(), {3, 3});
}

// A view whose base changed in place reads the new values: its grad_fn is
// remade from the base's history (AsStridedBackward0, as PyTorch).
TEST(AutogradViews, ViewSeesInplaceOnBase) {
  Tensor a = tensor({1.0, 2.0, 3.0}, kDouble).requires_grad_();
  Tensor x = a.clone();
  Tensor v = x[0];
  EXPECT_EQ(v.grad_fn()->name(), "SelectBackward0");
  x.mul_(3);
  EXPECT_EQ(v.grad_fn()->name(), "AsStridedBackward0");
  (v * 1).backward();
  expect_values(a.grad(), {3, 0, 0});
}

TEST(AutogradViews, InplaceOnViewOfLeafIsRejected) {
  Tensor a = tensor({1.0, 2.0, 3.0}, kDouble).requires_grad_();
  EXPECT_EQ(error_of([&] { a[0].mul_(2); }),
            "a view of a leaf Variable that requires grad is being used in an in-place "
            "operation.");
  NoGradGuard no_grad;
  a[0].mul_(2);  // allowed without grad mode
  expect_values(a.detach(), {2, 2, 3});
}

// First and second derivatives through CopySlices match finite
// differences (non-contiguous view, a second input, create_graph).
TEST(AutogradViews, InplaceOnViewGradcheck) {
  autograd::GradcheckFn f = [](const variable_list& x) {
    Tensor y = x[0] * x[0];
    Tensor v = y.t().select(0, 1);  // column 1 of y: strided
    v.mul_(x[1]);
    y.narrow(0, 0, 1).add_(x[1].sum());
    return variable_list{y};
  };
  autograd::GradcheckOptions o;
  o.check_grad_grad = true;
  manual_seed(1);
  EXPECT_EQ(autograd::gradcheck(f, {randn({2, 3}, kDouble).requires_grad_(),
                                   randn({2}, kDouble).requires_grad_()},
                                o),
            "");
}

// x[i] = value into a tensor that does not require grad: the tensor
// records the write and the value gets its gradient.
TEST(AutogradViews, SetitemIntoTensorWithoutGrad) {
  using indexing::Slice;
  Tensor a = tensor({1.0, 2.0}, kDouble).requires_grad_();
  Tensor out = zeros({2, 3}, kDouble);
  out.index_put_({Slice(), 1}, a * 2);
  EXPECT_EQ(out.grad_fn()->name(), "CopySlices");
  out.index_put_({0, Slice(0, 1)}, a.sum());
  expect_values(out.detach(), {3, 2, 0, 0, 4, 0});
  (out * tensor({{1.0, 10.0, 100.0}, {1000.0, 10000.0, 100000.0}}, kDouble)).sum().backward();
  // d/da of 2*a[0]*10 + 2*a[1]*10000 + (a0 + a1)*1; column 1 of row 0 is
  // then still 2*a[0].
  expect_values(a.grad(), {21, 20001});
}

// A copy into a view of a buffer that does not require grad gives the
// buffer a history (CopySlices, as PyTorch); views made before stay right.
TEST(AutogradViews, CopyIntoViewOfBufferWithoutGrad) {
  Tensor x = tensor({1.0, 2.0}, kDouble).requires_grad_();
  Tensor buf = zeros({4}, kDouble);
  Tensor head = buf.narrow(0, 0, 2);
  Tensor tail = buf.narrow(0, 2, 2);
  EXPECT_FALSE(head.requires_grad());
  tail.copy_(x * 3);
  EXPECT_TRUE(buf.requires_grad());
  EXPECT_EQ(buf.grad_fn()->name(), "CopySlices");
  // Its base requires grad now, so does it (torch 1.13 alike).
  EXPECT_TRUE(head.requires_grad());
  EXPECT_EQ(head.grad_fn()->name(), "AsStridedBackward0");
  (buf * tensor({1.0, 2.0, 3.0, 4.0}, kDouble)).sum().backward();
  expect_values(x.grad(), {9, 12});
}

// A view made before its base was overwritten in place reads the new
// values, and its gradient reaches what they came from.
TEST(AutogradViews, ViewOfBufferOverwrittenInPlace) {
  Tensor x = tensor({1.0, 2.0}, kDouble).requires_grad_();
  Tensor buf = zeros({4}, kDouble);
  Tensor v = buf.narrow(0, 1, 2);
  buf.copy_(cat({x, x}) * 2);
  EXPECT_TRUE(v.requires_grad());
  (v * tensor({10.0, 100.0}, kDouble)).sum().backward();
  // v = [2 x1, 2 x0].
  expect_values(x.grad(), {200, 20});
}

// to() and copy_ across devices send the gradient back to the source's
// device (only copies run on CUDA here, which is all this needs).
TEST(AutogradDevices, GradientGoesBackToTheSourceDevice) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor c = ones({2}, TensorOptions(kDouble).device(Device(kCUDA))).requires_grad_();
  (c.to(Device(kCPU)) * 3).sum().backward();
  ASSERT_TRUE(c.grad().is_cuda());
  expect_values(c.grad().to(Device(kCPU)), {3, 3});
  Tensor d = ones({2}, TensorOptions(kDouble).device(Device(kCUDA))).requires_grad_();
  Tensor buf = zeros({2}, kDouble);
  buf.copy_(d);
  (buf * 2).sum().backward();
  ASSERT_TRUE(d.grad().is_cuda());
  expect_values(d.grad().to(Device(kCPU)), {2, 2});
}

// resize_ (tensor/more_ops.cc) refuses a tensor autograd tracks, as PyTorch.
TEST(AutogradTest, ResizeRefusesTensorsThatRequireGrad) {
  Tensor x = tensor({1.0f, 2.0f}).requires_grad_();
  EXPECT_EQ(error_of([&] { x.resize_({2}); }), "cannot resize variables that require grad");
}

}  // namespace
}  // namespace ember
