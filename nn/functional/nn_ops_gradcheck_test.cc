// Every derivative of autograd/derivatives/nn.cc against finite differences
// at the op level (tensor/nn_ops.h), in the shape of autograd's registry
// test (gradcheck_test.cc), whose cases these are meant to become.
#include <set>

#include "autograd/autograd.h"
#include "autograd/derivatives.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "tensor/all.h"

namespace ember {
namespace {

using V = autograd::variable_list;

struct Case {
  const char* op;
  std::function<V(const V&)> fn;
  std::function<V()> inputs;
  // Formulas written with public ops are twice differentiable; those that
  // call a *_backward kernel (convolution, pooling, nll) or read the saved
  // mean/invstd (batch and layer norm) are first order only.
  bool second_order = false;
};

Tensor leaf(Tensor t) { return t.to(kDouble).requires_grad_(); }
Tensor r(IntArrayRef s) { return randn(s, kDouble); }
Tensor rt(int64_t m, int64_t n) { return leaf(r({n, m})).t(); }
Tensor prob(IntArrayRef s) { return leaf(rand(s, kDouble) * 0.8 + 0.1); }
Tensor longs(std::vector<int64_t> v) { return tensor(v); }

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
      {"max_pool2d_with_indices",
       [](const V& x) {
         return V{get<0>(max_pool2d_with_indices(x[0], {3, 2}, {2, 1}, {1, 1}, {1, 1}, true))};
       },
       [] {
         return V{leaf(r({2, 2, 5, 6})).transpose(2, 3)};
       }},
      {"avg_pool2d",
       [](const V& x) {
         return V{avg_pool2d(x[0], {3, 2}, {2, 1}, {1, 0}, true, false, std::nullopt),
                  avg_pool2d(x[0], {2}, {}, {0}, false, true, 3)};
       },
       [] {
         return V{leaf(r({2, 2, 5, 6})).transpose(2, 3)};
       }},
      {"adaptive_avg_pool2d",
       [](const V& x) {
         return V{adaptive_avg_pool2d(x[0], {3, 4})};
       },
       [] {
         return V{leaf(r({2, 7, 5}))};
       }},
      {"gelu",
       [](const V& x) {
         return V{gelu(x[0]), gelu(x[0], "tanh")};
       },
       [] { return V{rt(3, 4)}; }, true},
      {"leaky_relu", [](const V& x) { return V{leaky_relu(x[0], 0.2)}; },
       [] { return V{rt(3, 4)}; }, true},
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
       [] { return V{rt(4, 3)}; }, true},
      {"nll_loss",
       [](const V& x) {
         return V{get<0>(nll_loss_forward(x[0], longs({0, 2, 1, 2}), x[1], 1, 1)),
                  get<0>(nll_loss_forward(x[0], longs({0, 2, 1, 2}), Tensor(), 0, -100))};
       },
       [] {
         return V{rt(4, 3), rand({3}, kDouble) + 0.5};
       }},
      {"nll_loss2d",
       [](const V& x) {
         return V{get<0>(nll_loss_forward(x[0], longs({0, 2, 1, 2}).view({2, 2}), Tensor(), 2, 1))};
       },
       [] {
         return V{leaf(r({2, 3, 2}))};
       }},
      {"mse_loss",
       [](const V& x) {
         return V{mse_loss(x[0], x[1], 1), mse_loss(x[0], x[1], 0)};
       },
       [] {
         return V{rt(3, 4), leaf(r({4}))};
       },
       true},
      {"smooth_l1_loss",
       [](const V& x) {
         return V{smooth_l1_loss(x[0], x[1], 2, 0.7), smooth_l1_loss(x[0], x[1], 1, 0)};
       },
       [] {
         return V{rt(3, 4), leaf(r({3, 4}))};
       },
       true},
      {"binary_cross_entropy",
       [](const V& x) { return V{binary_cross_entropy(x[0], x[1], x[2].detach(), 1)}; },
       [] {
         return V{prob({3, 4}), prob({3, 4}), rand({4}, kDouble)};
       },
       true},  // weight: fixed
      {"binary_cross_entropy_with_logits",
       [](const V& x) {
         return V{binary_cross_entropy_with_logits(x[0], x[1], Tensor(), x[2], 0),
                  binary_cross_entropy_with_logits(x[0], x[1], x[3], Tensor(), 2)};
       },
       [] {
         return V{rt(3, 4), prob({3, 4}), leaf(rand({4}, kDouble) + 0.5), rand({3, 1}, kDouble)};
       },
       true},
  };
}

TEST(NnOpsGradcheck, EveryCase) {
  manual_seed(0);
  for (const Case& c : cases()) {
    autograd::GradcheckOptions o;
    o.check_grad_grad = c.second_order;
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
       {"convolution", "max_pool2d_with_indices", "avg_pool2d", "adaptive_avg_pool2d", "gelu",
        "leaky_relu", "native_batch_norm", "native_layer_norm", "embedding", "nll_loss",
        "nll_loss2d", "mse_loss", "smooth_l1_loss", "binary_cross_entropy",
        "binary_cross_entropy_with_logits"}) {
    EXPECT_NE(autograd::find_derivative(op), nullptr) << op;
    EXPECT_TRUE(covered.count(op)) << op;
  }
}

}  // namespace
}  // namespace ember
