// Every derivative of autograd/derivatives/nn.cc against finite differences
// at the op level (tensor/nn_ops.h), first and second order (gradcheck and
// gradgradcheck, autograd/gradcheck.h), in the shape of autograd's registry
// test (gradcheck_test.cc). The *_backward ops (Note [Differentiable
// backward kernels] in tensor/nn_ops.h) have cases of their own: their
// first order checks the forward op's double backward, their second the
// triple. Then double backward through nn::functional (cross_entropy), and
// a gradient penalty and a Hessian-vector product on a small conv net
// against PyTorch (tools/golden/double_backward.py).
#include <set>

#include "autograd/autograd.h"
#include "autograd/derivatives.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/functional.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

namespace F = nn::functional;
using V = autograd::variable_list;

struct Case {
  const char* op;
  std::function<V(const V&)> fn;
  std::function<V()> inputs;
};

Tensor leaf(Tensor t) { return t.to(kDouble).requires_grad_(); }
Tensor r(IntArrayRef s) { return randn(s, kDouble); }
Tensor rt(int64_t m, int64_t n) { return leaf(r({n, m})).t(); }
Tensor prob(IntArrayRef s) { return leaf(rand(s, kDouble) * 0.8 + 0.1); }
Tensor longs(std::vector<int64_t> v) { return tensor(v); }

// The max pools of the cases, on an input that is the case's last one
// (fixed: the indices come from it).
std::tuple<Tensor, Tensor> max_pool_a(const Tensor& x) {
  return max_pool2d_with_indices(x, {3, 2}, {2, 1}, {1, 1}, {1, 1}, true);
}
std::tuple<Tensor, Tensor> max_pool_b(const Tensor& x) {
  return max_pool2d_with_indices(x, {2, 2}, {1, 2}, {0, 1}, {2, 1}, false);
}

std::vector<Case> cases() {
  using std::get;
  return {
      {"convolution",
       [](const V& x) {
         return V{convolution(x[0], x[1], x[2], {1, 2}, {1, 0}, {1, 1}, 1),
                  convolution(x[0].select(3, 0), x[3], Tensor(), {2}, {1}, {2}, 2)};
       },
       [] {
         return V{leaf(r({2, 2, 3, 2})).transpose(0, 1), leaf(r({3, 2, 2, 2})), leaf(r({3})),
                  leaf(r({4, 1, 2}))};
       }},
      // Convolution by taps (tensor/conv_taps.cc): 32 channels each side
      // and a 3x1 kernel over 2x1 planes (4/6 of im2col's products read
      // the input), row-major and channels-last.
      {"convolution",
       [](const V& x) {
         return V{convolution(x[0], x[1], x[2], {1, 1}, {1, 0}, {1, 1}, 1),
                  convolution(x[0].contiguous(MemoryFormat::ChannelsLast), x[1], Tensor(), {1, 1},
                              {1, 0}, {1, 1}, 1)};
       },
       [] {
         return V{leaf(r({1, 32, 2, 1})), leaf(r({32, 32, 3, 1})), leaf(r({32}))};
       }},
      // conv2d strided, padded, dilated and grouped at once; conv1d too.
      {"convolution",
       [](const V& x) {
         return V{convolution(x[0], x[1], x[2], {2, 1}, {1, 2}, {2, 1}, 2),
                  convolution(x[3], x[4], x[5], {2}, {2}, {2}, 3)};
       },
       [] {
         return V{leaf(r({2, 4, 5, 4})), leaf(r({4, 2, 2, 3})), leaf(r({4})),
                  leaf(r({2, 3, 7})),    leaf(r({6, 1, 3})),    leaf(r({6}))};
       }},
      {"convolution_backward",
       [](const V& x) {
         auto [gi, gw, gb] = convolution_backward(x[0], x[1], x[2], {2, 1}, {1, 1}, {1, 2}, 2,
                                                  {true, true, true});
         // 1-D, without grad_weight: the op's results may be left out.
         auto [gi1, gw1, gb1] = convolution_backward(x[3], x[1].select(2, 0), x[4], {2}, {1}, {2},
                                                     1, {true, false, true});
         return V{gi, gw, gb, gi1, gb1};
       },
       [] {
         return V{leaf(r({2, 4, 3, 4})), leaf(r({2, 4, 5, 4})), leaf(r({4, 2, 3, 2})),
                  leaf(r({2, 3, 2})), leaf(r({3, 4, 2}))};
       }},
      {"max_pool2d_with_indices",
       [](const V& x) {
         return V{get<0>(max_pool_a(x[0])), get<0>(max_pool_b(x[0])),
                  get<0>(max_pool_a(x[0].select(0, 1)))};  // unbatched
       },
       [] {
         return V{leaf(r({2, 2, 5, 6})).transpose(2, 3)};
       }},
      {"max_pool2d_with_indices_backward",
       [](const V& x) {
         return V{max_pool2d_with_indices_backward(x[0], x[2].sizes(), get<1>(max_pool_a(x[2]))),
                  max_pool2d_with_indices_backward(x[1], x[2].sizes(), get<1>(max_pool_b(x[2])))};
       },
       [] {
         Tensor x = r({2, 2, 6, 5});
         return V{leaf(r(get<0>(max_pool_a(x)).sizes())), leaf(r(get<0>(max_pool_b(x)).sizes())),
                  x};
       }},
      {"avg_pool2d",
       [](const V& x) {
         return V{avg_pool2d(x[0], {3, 2}, {2, 1}, {1, 0}, true, false, std::nullopt),
                  avg_pool2d(x[0], {2}, {}, {0}, false, true, 3),
                  avg_pool2d(x[0], {2, 3}, {1, 2}, {1, 1}, false, true, std::nullopt)};
       },
       [] {
         return V{leaf(r({2, 2, 5, 6})).transpose(2, 3)};
       }},
      {"avg_pool2d_backward",
       [](const V& x) {
         return V{avg_pool2d_backward(x[0], {2, 2, 6, 5}, {3, 2}, {2, 1}, {1, 0}, true, false,
                                      std::nullopt),
                  avg_pool2d_backward(x[1], {2, 6, 5}, {2}, {}, {0}, false, true, 3),
                  avg_pool2d_backward(x[2], {1, 2, 6, 5}, {2, 3}, {1, 2}, {1, 1}, false, true,
                                      std::nullopt)};
       },
       [] {
         return V{leaf(r({2, 2, 4, 4})), leaf(r({2, 2, 3})).transpose(1, 2),
                  leaf(r({1, 2, 7, 3}))};
       }},
      {"adaptive_avg_pool2d",
       [](const V& x) {
         return V{adaptive_avg_pool2d(x[0], {3, 4}), adaptive_avg_pool2d(x[1], {2, 3})};
       },
       [] {
         return V{leaf(r({2, 7, 5})), leaf(r({1, 2, 4, 5})).transpose(2, 3)};
       }},
      {"adaptive_avg_pool2d_backward",
       [](const V& x) {
         return V{adaptive_avg_pool2d_backward(x[0], {2, 7, 5}),
                  adaptive_avg_pool2d_backward(x[1], {1, 2, 5, 4})};
       },
       [] {
         return V{leaf(r({2, 3, 4})), leaf(r({1, 2, 2, 3}))};
       }},
      {"gelu",
       [](const V& x) {
         return V{gelu(x[0]), gelu(x[0], "tanh")};
       },
       [] { return V{rt(3, 4)}; }},
      {"leaky_relu", [](const V& x) { return V{leaky_relu(x[0], 0.2)}; },
       [] { return V{rt(3, 4)}; }},
      {"conv_transpose",
       [](const V& x) {
         return V{conv_transpose(x[0], x[1], x[2], {2, 1}, {1, 0}, {1, 0}, {1, 2}, 2),
                  conv_transpose(x[3], x[4], Tensor(), {1}, {1}, {1}, {2}, 1)};
       },
       [] {
         return V{leaf(r({2, 4, 3, 2})), leaf(r({4, 1, 2, 2})), leaf(r({2})), leaf(r({2, 2, 4})),
                  leaf(r({2, 3, 2}))};
       }},
      {"elu", [](const V& x) { return V{elu(x[0], 0.7, 1.2, 0.8)}; },
       [] {
         return V{leaf(tensor({{0.3, -1.6, 2.2}, {-0.4, 4.1, -3.7}}, kDouble)).t()};
       }},
      {"celu", [](const V& x) { return V{celu(x[0], 1.5)}; },
       [] {
         return V{leaf(tensor({{0.3, -1.6, 2.2}, {-0.4, 4.1, -3.7}}, kDouble)).t()};
       }},
      {"silu", [](const V& x) { return V{silu(x[0])}; },
       [] {
         return V{leaf(tensor({{0.3, -1.6, 2.2}, {-0.4, 4.1, -3.7}}, kDouble)).t()};
       }},
      {"mish", [](const V& x) { return V{mish(x[0])}; },
       [] {
         return V{leaf(tensor({{0.3, -1.6, 2.2}, {-0.4, 4.1, -3.7}}, kDouble)).t()};
       }},
      {"softplus", [](const V& x) { return V{softplus(x[0], 2, 3)}; },
       [] {
         return V{leaf(tensor({{0.3, -1.6, 2.2}, {-0.4, 4.1, -3.7}}, kDouble)).t()};
       }},
      {"log_sigmoid", [](const V& x) { return V{log_sigmoid(x[0])}; },
       [] {
         return V{leaf(tensor({{0.3, -1.6, 2.2}, {-0.4, 4.1, -3.7}}, kDouble)).t()};
       }},
      {"hardtanh", [](const V& x) { return V{hardtanh(x[0], -2, 2.5)}; },
       [] {
         return V{leaf(tensor({{0.3, -1.6, 2.2}, {-0.4, 4.1, -3.7}}, kDouble)).t()};
       }},
      {"hardsigmoid", [](const V& x) { return V{hardsigmoid(x[0])}; },
       [] {
         return V{leaf(tensor({{0.3, -1.6, 2.2}, {-0.4, 4.1, -3.7}}, kDouble)).t()};
       }},
      {"hardswish", [](const V& x) { return V{hardswish(x[0])}; },
       [] {
         return V{leaf(tensor({{0.3, -1.6, 2.2}, {-0.4, 4.1, -3.7}}, kDouble)).t()};
       }},
      {"softshrink", [](const V& x) { return V{softshrink(x[0], 0.5)}; },
       [] {
         return V{leaf(tensor({{0.3, -1.6, 2.2}, {-0.4, 4.1, -3.7}}, kDouble)).t()};
       }},
      {"hardshrink", [](const V& x) { return V{hardshrink(x[0], 0.5)}; },
       [] {
         return V{leaf(tensor({{0.3, -1.6, 2.2}, {-0.4, 4.1, -3.7}}, kDouble)).t()};
       }},
      {"threshold", [](const V& x) { return V{threshold(x[0], 0.5, -2)}; },
       [] {
         return V{leaf(tensor({{0.3, -1.6, 2.2}, {-0.4, 4.1, -3.7}}, kDouble)).t()};
       }},
      {"prelu", [](const V& x) { return V{prelu(x[0].transpose(1, 2), x[1])}; },
       [] {
         return V{leaf(r({2, 2, 3})), leaf(rand({3}, kDouble))};
       }},
      {"native_batch_norm",
       [](const V& x) {
         Tensor train =
             get<0>(native_batch_norm(x[0], x[1], x[2], Tensor(), Tensor(), true, 0.1, 1e-5));
         Tensor eval = get<0>(native_batch_norm(x[0], x[1], x[2], x[3], x[4], false, 0.1, 1e-5));
         return V{train, eval};
       },
       [] {
         return V{leaf(r({4, 3, 2}))
                      .transpose(0, 2)
                      .transpose(1, 2)
                      .contiguous()
                      .transpose(1, 2)
                      .transpose(0, 2),
                  leaf(r({3})), leaf(r({3})), r({3}), rand({3}, kDouble) + 0.5};
       }},
      {"native_layer_norm",
       [](const V& x) {
         return V{get<0>(native_layer_norm(x[0], {4}, x[1], x[2], 1e-5)),
                  get<0>(native_layer_norm(x[0], {3, 4}, Tensor(), Tensor(), 1e-5))};
       },
       [] {
         return V{rt(3, 4).unsqueeze(0), leaf(r({4})), leaf(r({4}))};
       }},
      {"embedding",
       [](const V& x) {
         return V{embedding(x[0], longs({1, 3, 1, 0}).view({2, 2}), -1)};
       },
       [] { return V{rt(4, 3)}; }},
      // Each reduction, with and without class weights and ignore_index.
      {"nll_loss",
       [](const V& x) {
         Tensor t = longs({0, 2, 1, 2});
         return V{get<0>(nll_loss_forward(x[0], t, x[1], loss_reduction::kMean, 1)),
                  get<0>(nll_loss_forward(x[0], t, Tensor(), loss_reduction::kNone, -100)),
                  get<0>(nll_loss_forward(x[0], t, x[1], loss_reduction::kSum, 2)),
                  get<0>(nll_loss_forward(x[0].select(0, 1), t.select(0, 1), x[1], loss_reduction::kMean,
                                          -100))};
       },
       [] {
         return V{rt(4, 3), rand({3}, kDouble) + 0.5};
       }},
      {"nll_loss2d",
       [](const V& x) {
         Tensor t = longs({0, 2, 1, 2}).view({2, 2});
         return V{get<0>(nll_loss_forward(x[0], t, Tensor(), loss_reduction::kSum, 1)),
                  get<0>(nll_loss_forward(x[0], t, x[1], loss_reduction::kMean, 0)),
                  get<0>(nll_loss_forward(x[0], t, x[1], loss_reduction::kNone, -100))};
       },
       [] {
         return V{leaf(r({2, 3, 2})), rand({3}, kDouble) + 0.5};
       }},
      {"nll_loss_backward",
       [](const V& x) {
         Tensor t = longs({0, 2, 1, 2});
         V out;
         for (int64_t red : {loss_reduction::kNone, loss_reduction::kMean, loss_reduction::kSum}) {
           Tensor total = get<1>(nll_loss_forward(x[1].detach(), t, x[2], red, 1));
           const Tensor& go = red == loss_reduction::kNone ? x[0] : x[3];
           out.push_back(nll_loss_backward(go, x[1], t, x[2], red, 1, total));
         }
         return out;
       },
       [] {
         return V{leaf(r({4})), rt(4, 3), rand({3}, kDouble) + 0.5, leaf(r({}))};
       }},
      {"nll_loss2d_backward",
       [](const V& x) {
         Tensor t = longs({0, 2, 1, 2}).view({2, 2});
         Tensor total = get<1>(nll_loss_forward(x[1].detach(), t, x[2], loss_reduction::kMean, 0));
         return V{nll_loss_backward(x[0], x[1], t, x[2], loss_reduction::kMean, 0, total)};
       },
       [] {
         return V{leaf(r({})), leaf(r({2, 3, 2})), rand({3}, kDouble) + 0.5};
       }},
      {"mse_loss",
       [](const V& x) {
         return V{mse_loss(x[0], x[1], 1), mse_loss(x[0], x[1], 0)};
       },
       [] {
         return V{rt(3, 4), leaf(r({4}))};
       }},
      {"smooth_l1_loss",
       [](const V& x) {
         return V{smooth_l1_loss(x[0], x[1], 2, 0.7), smooth_l1_loss(x[0], x[1], 1, 0)};
       },
       [] {
         return V{rt(3, 4), leaf(r({3, 4}))};
       }},
      {"binary_cross_entropy",
       [](const V& x) { return V{binary_cross_entropy(x[0], x[1], x[2].detach(), 1)}; },
       [] {
         return V{prob({3, 4}), prob({3, 4}), rand({4}, kDouble)};
       }},  // weight: fixed
      {"binary_cross_entropy_with_logits",
       [](const V& x) {
         return V{binary_cross_entropy_with_logits(x[0], x[1], Tensor(), x[2], 0),
                  binary_cross_entropy_with_logits(x[0], x[1], x[3], Tensor(), 2)};
       },
       [] {
         return V{rt(3, 4), prob({3, 4}), leaf(rand({4}, kDouble) + 0.5), rand({3, 1}, kDouble)};
       }},
  };
}

// First and second order for every case.
TEST(NnOpsGradcheck, EveryCase) {
  manual_seed(0);
  for (const Case& c : cases()) {
    autograd::GradcheckOptions o;
    o.check_grad_grad = true;
    std::string result;
    try {
      result = autograd::gradcheck(c.fn, c.inputs(), o);
    } catch (const std::exception& e) {
      result = std::string("threw: ") + e.what();
    }
    EXPECT_EQ(result, "") << c.op;
  }
}

// Each nn derivative of the table has a case here.
TEST(NnOpsGradcheck, CoversTheNnDerivatives) {
  std::set<std::string> covered;
  for (const Case& c : cases()) covered.insert(c.op);
  for (const char* op :
       {"convolution", "convolution_backward", "max_pool2d_with_indices",
        "max_pool2d_with_indices_backward", "avg_pool2d", "avg_pool2d_backward",
        "adaptive_avg_pool2d", "adaptive_avg_pool2d_backward", "gelu", "leaky_relu",
        "conv_transpose", "elu", "celu", "silu", "mish", "softplus", "log_sigmoid", "hardtanh",
        "hardsigmoid", "hardswish", "softshrink", "hardshrink", "threshold", "prelu",
        "native_batch_norm", "native_layer_norm", "embedding", "nll_loss", "nll_loss2d",
        "nll_loss_backward", "nll_loss2d_backward", "mse_loss", "smooth_l1_loss",
        "binary_cross_entropy", "binary_cross_entropy_with_logits"}) {
    EXPECT_NE(autograd::find_derivative(op), nullptr) << op;
    EXPECT_TRUE(covered.count(op)) << op;
  }
}

// The gradient of a gradient is recorded under PyTorch's node names.
TEST(NnOpsDoubleBackward, NodeNames) {
  manual_seed(0);
  Tensor x = randn({1, 2, 4, 4}, kDouble).requires_grad_();
  Tensor w = randn({2, 2, 3, 3}, kDouble).requires_grad_();
  auto grad_fn_of = [&](const Tensor& y) {
    V g = autograd::grad({(y * y).sum()}, {x}, {}, true, true);
    return g[0].grad_fn() ? g[0].grad_fn()->name() : std::string("none");
  };
  EXPECT_EQ(grad_fn_of(convolution(x, w, Tensor(), {1, 1}, {1, 1}, {1, 1}, 1)),
            "ConvolutionBackwardBackward0");
  EXPECT_EQ(grad_fn_of(std::get<0>(max_pool2d_with_indices(x, {2}, {}, {0}, {1}, false))),
            "MaxPool2DWithIndicesBackwardBackward0");
  EXPECT_EQ(grad_fn_of(avg_pool2d(x, {2}, {}, {0}, false, true, std::nullopt)),
            "AvgPool2DBackwardBackward0");
  EXPECT_EQ(grad_fn_of(adaptive_avg_pool2d(x, {3, 2})), "AdaptiveAvgPool2DBackwardBackward0");
  Tensor logp = x.flatten(1).log_softmax(1);
  V g = autograd::grad({F::nll_loss(logp, tensor({3}))}, {logp}, {}, true, true);
  EXPECT_EQ(g[0].grad_fn()->name(), "NllLossBackwardBackward0");
  Tensor t2 = longs({0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0}).view({1, 4, 4});
  g = autograd::grad({F::nll_loss(x, t2)}, {x}, {}, true, true);
  EXPECT_EQ(g[0].grad_fn()->name(), "NllLoss2DBackwardBackward0");
}

// A gradient penalty: before the backward kernels were recorded, the
// gradient came back without history, and a penalty on it was silently
// constant (or, alone, not differentiable at all).
TEST(NnOpsDoubleBackward, PenaltyReachesTheWeights) {
  manual_seed(0);
  Tensor x = randn({1, 1, 3, 3}, kDouble).requires_grad_();
  Tensor w = randn({1, 1, 2, 2}, kDouble).requires_grad_();
  Tensor loss = convolution(x, w, Tensor(), {1, 1}, {0, 0}, {1, 1}, 1).pow(2).sum();
  V g = autograd::grad({loss}, {x}, {}, true, true);
  ASSERT_TRUE(g[0].requires_grad());
  V gg = autograd::grad({(g[0] * g[0]).sum()}, {x, w});
  // d/dw of |dL/dx|^2 with dL/dx = 2 conv_transpose(conv(x, w), w): both
  // are nonzero for random data; the values are checked by the cases above
  // and against PyTorch below.
  EXPECT_GT(gg[0].abs().sum().item<double>(), 0);
  EXPECT_GT(gg[1].abs().sum().item<double>(), 0);
}

// cross_entropy (log_softmax + nll_loss) to second order, through
// nn::functional: each reduction, class weights, ignore_index, 1-D and
// 2-D targets, label smoothing.
TEST(NnOpsDoubleBackward, CrossEntropyGradgradcheck) {
  manual_seed(0);
  Tensor w = rand({3}, kDouble) + 0.5;
  Tensor t = tensor({0, 2, 1, 2});
  Tensor t2 = tensor({{0, 2}, {1, 1}});
  for (Reduction red : {kNone, kMean, kSum}) {
    SCOPED_TRACE(static_cast<int>(red));
    Tensor x = rt(4, 3);
    EXPECT_EQ(autograd::gradgradcheck(
                  [&](const V& v) {
                    return V{F::cross_entropy(
                                 v[0], t,
                                 F::CrossEntropyFuncOptions().weight(w).ignore_index(1).reduction(
                                     red)),
                             F::nll_loss(v[0].log_softmax(1), t,
                                         F::NLLLossFuncOptions().reduction(red))};
                  },
                  {x}),
              "");
    Tensor x3 = leaf(r({2, 3, 2}));
    EXPECT_EQ(autograd::gradgradcheck(
                  [&](const V& v) {
                    return V{F::cross_entropy(
                        v[0], t2,
                        F::CrossEntropyFuncOptions().weight(w).ignore_index(2).reduction(red))};
                  },
                  {x3}),
              "");
    EXPECT_EQ(autograd::gradgradcheck(
                  [&](const V& v) {
                    return V{F::cross_entropy(
                        v[0], t2,
                        F::CrossEntropyFuncOptions().label_smoothing(0.3).reduction(red))};
                  },
                  {x3}),
              "");
  }
}

// Through the functional layers, with the penalty's typical use: the
// gradient with respect to the input, differentiated with respect to the
// parameters.
TEST(NnOpsDoubleBackward, FunctionalLayersGradgradcheck) {
  manual_seed(0);
  auto fn = [](const V& v) {
    Tensor h = F::conv2d(v[0], v[1],
                         F::Conv2dFuncOptions().bias(v[2]).stride({1, 2}).padding(1).groups(2));
    h = F::max_pool2d(h.tanh(), F::MaxPool2dFuncOptions(2).stride(1).padding(1));
    h = F::avg_pool2d(h, F::AvgPool2dFuncOptions(2).ceil_mode(true).count_include_pad(false));
    h = F::adaptive_avg_pool2d(h, {2, 1}).flatten(2);
    h = F::conv1d(h, v[3], F::Conv1dFuncOptions().dilation(1));
    return V{F::cross_entropy(h.flatten(1), tensor({1, 0}))};
  };
  EXPECT_EQ(autograd::gradgradcheck(fn, {leaf(r({2, 2, 4, 5})), leaf(r({4, 1, 2, 2})),
                                         leaf(r({4})), leaf(r({3, 4, 2}))}),
            "");
}

// --- against PyTorch ------------------------------------------------------------------

const testing::GoldenEntry kGolden[] = {
#include "nn/functional/testdata/double_backward_golden.inc"
};

Tensor golden(const std::string& name) {
  return testing::golden_tensor(testing::find_golden(kGolden, name));
}
::testing::AssertionResult near(const Tensor& t, const std::string& name) {
  return testing::near_golden(t, testing::find_golden(kGolden, name), kDouble, 1e-10);
}

const char* const kParams[] = {"w1", "b1", "w2", "b2", "w3", "b3"};

// tools/golden/double_backward.py's net.
Tensor golden_net(const Tensor& x, const V& p) {
  Tensor h = F::conv2d(x, p[0], F::Conv2dFuncOptions().bias(p[1]).stride({1, 2}).padding(1));
  h = F::max_pool2d(h.tanh(),
                    F::MaxPool2dFuncOptions({3, 2}).stride({2, 1}).padding(1).ceil_mode(true));
  h = F::conv2d(h, p[2],
                F::Conv2dFuncOptions().bias(p[3]).padding({1, 0}).dilation({2, 1}).groups(2));
  Tensor h2 = h = h.tanh();
  h = F::avg_pool2d(
      h, F::AvgPool2dFuncOptions({2, 1}).stride(1).padding({1, 0}).count_include_pad(false));
  h = F::adaptive_avg_pool2d(h, {2, 1}).flatten(2);
  Tensor logits = F::conv1d(h, p[4], F::Conv1dFuncOptions().bias(p[5])).flatten(1);
  Tensor loss = F::cross_entropy(logits, golden("t"),
                                 F::CrossEntropyFuncOptions().weight(golden("cw")).ignore_index(1));
  Tensor loss2 = F::cross_entropy(F::adaptive_avg_pool2d(h2, {3, 3}), golden("t2"),
                                  F::CrossEntropyFuncOptions().reduction(kSum));
  return loss + 0.1 * loss2;
}

V golden_params() {
  V p;
  for (const char* n : kParams) p.push_back(golden(std::string("p/") + n).requires_grad_());
  return p;
}

TEST(NnOpsDoubleBackward, GradientPenaltyMatchesPyTorch) {
  Tensor x = golden("x").requires_grad_();
  V p = golden_params();
  Tensor loss = golden_net(x, p);
  Tensor gx = autograd::grad({loss}, {x}, {}, true, true)[0];
  Tensor penalty = (gx.pow(2).sum({1, 2, 3}).sqrt() - 1).pow(2).mean();
  V wrt{x};
  wrt.insert(wrt.end(), p.begin(), p.end());
  V g = autograd::grad({loss + 10 * penalty}, wrt);
  EXPECT_TRUE(near(loss, "loss"));
  EXPECT_TRUE(near(penalty, "penalty"));
  EXPECT_TRUE(near(g[0], "gp/x"));
  for (size_t i = 0; i < p.size(); ++i) {
    EXPECT_TRUE(near(g[i + 1], std::string("gp/") + kParams[i])) << kParams[i];
  }
}

TEST(NnOpsDoubleBackward, HessianVectorProductMatchesPyTorch) {
  V p = golden_params();
  Tensor loss = golden_net(golden("x"), p);
  V g = autograd::grad({loss}, p, {}, true, true);
  Tensor dot;
  for (size_t i = 0; i < p.size(); ++i) {
    Tensor d = (g[i] * golden(std::string("v/") + kParams[i])).sum();
    dot = dot.defined() ? dot + d : d;
  }
  V hv = autograd::grad({dot}, p);
  for (size_t i = 0; i < p.size(); ++i) {
    EXPECT_TRUE(near(hv[i], std::string("hvp/") + kParams[i])) << kParams[i];
  }
}

}  // namespace
}  // namespace ember
