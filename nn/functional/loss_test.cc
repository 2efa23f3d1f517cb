#include "nn/functional/loss.h"

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_case;
using V = std::vector<Tensor>;

struct Red {
  const char* name;
  Reduction r;
};
const Red kReductions[] = {{"none", kNone}, {"mean", kMean}, {"sum", kSum}};

TEST(Loss, MseL1SmoothL1) {
  for (const Red& r : kReductions) {
    const std::string s = r.name;
    check_case("mse_loss_" + s, 2, {0, 1},
               [&](const V& x) { return F::mse_loss(x[0], x[1], r.r); });
    check_case("l1_loss_" + s, 2, {0, 1},
               [&](const V& x) { return F::l1_loss(x[0].t(), x[1], r.r); });
    check_case("smooth_l1_loss_" + s, 2, {0, 1}, [&](const V& x) {
      return F::smooth_l1_loss(x[0], x[1], F::SmoothL1LossFuncOptions(r.r).beta(0.5));
    });
  }
}
TEST(Loss, NllLoss) {
  for (const Red& r : kReductions) {
    const std::string s = r.name;
    check_case("nll_loss_" + s, 3, {0}, [&](const V& x) {
      return F::nll_loss(x[0], x[1],
                         F::NLLLossFuncOptions().weight(x[2]).ignore_index(1).reduction(r.r));
    });
    check_case("nll_loss_2d_" + s, 2, {0}, [&](const V& x) {
      return F::nll_loss(x[0], x[1], F::NLLLossFuncOptions().reduction(r.r));
    });
  }
  check_case("nll_loss_1d", 2, {0}, [](const V& x) { return F::nll_loss(x[0], x[1]); });
}
TEST(Loss, CrossEntropy) {
  for (const Red& r : kReductions) {
    const std::string s = r.name;
    check_case("cross_entropy_" + s, 2, {0}, [&](const V& x) {
      return F::cross_entropy(x[0], x[1], F::CrossEntropyFuncOptions().reduction(r.r));
    });
    check_case("cross_entropy_smooth_" + s, 3, {0}, [&](const V& x) {
      return F::cross_entropy(
          x[0], x[1],
          F::CrossEntropyFuncOptions().weight(x[2]).ignore_index(2).label_smoothing(0.1).reduction(
              r.r));
    });
    check_case("cross_entropy_nd_" + s, 2, {0}, [&](const V& x) {
      return F::cross_entropy(x[0], x[1],
                              F::CrossEntropyFuncOptions().label_smoothing(0.2).reduction(r.r));
    });
    check_case("cross_entropy_probs_" + s, 2, {0}, [&](const V& x) {
      return F::cross_entropy(x[0], x[1],
                              F::CrossEntropyFuncOptions().label_smoothing(0.1).reduction(r.r));
    });
  }
}
TEST(Loss, BinaryCrossEntropy) {
  for (const Red& r : kReductions) {
    const std::string s = r.name;
    check_case("bce_" + s, 3, {0, 1}, [&](const V& x) {
      return F::binary_cross_entropy(
          x[0], x[1], F::BinaryCrossEntropyFuncOptions().weight(x[2]).reduction(r.r));
    });
    check_case("bce_logits_" + s, 4, {0, 1}, [&](const V& x) {
      return F::binary_cross_entropy_with_logits(
          x[0], x[1],
          F::BinaryCrossEntropyWithLogitsFuncOptions().weight(x[2]).pos_weight(x[3]).reduction(
              r.r));
    });
  }
  check_case("bce_logits_plain", 2, {0, 1},
             [](const V& x) { return F::binary_cross_entropy_with_logits(x[0], x[1]); });
}
TEST(Loss, GradNames) {
  Tensor x = randn({3, 4}).requires_grad_(true);
  Tensor t = tensor({0, 1, 3});
  EXPECT_EQ(F::nll_loss(x, t).grad_fn()->name(), "NllLossBackward0");
  EXPECT_EQ(
      F::nll_loss(randn({3, 4, 2}).requires_grad_(true), zeros({3, 2}, kLong)).grad_fn()->name(),
      "NllLoss2DBackward0");
  EXPECT_EQ(F::cross_entropy(x, t).grad_fn()->name(), "NllLossBackward0");
  EXPECT_EQ(F::mse_loss(x, zeros({3, 4})).grad_fn()->name(), "MseLossBackward0");
  EXPECT_EQ(F::smooth_l1_loss(x, zeros({3, 4})).grad_fn()->name(), "SmoothL1LossBackward0");
  EXPECT_EQ(F::binary_cross_entropy(x.sigmoid(), zeros({3, 4})).grad_fn()->name(),
            "BinaryCrossEntropyBackward0");
  EXPECT_EQ(F::binary_cross_entropy_with_logits(x, zeros({3, 4})).grad_fn()->name(),
            "BinaryCrossEntropyWithLogitsBackward0");
}
TEST(Loss, AllIgnoredMeanIsNan) {
  Tensor l = F::nll_loss(randn({2, 3}), tensor({-100, -100}));
  EXPECT_TRUE(std::isnan(l.item<float>()));
}
TEST(Loss, Errors) {
  using testing::expect_nn_error;
  expect_nn_error("nll_loss_batch", [] { F::nll_loss(zeros({3, 4}), tensor({0, 1})); });
  expect_nn_error("nll_loss_target", [] { F::nll_loss(zeros({2, 4}), tensor({0, 5})); });
  expect_nn_error("nll_loss_weight", [] {
    F::nll_loss(zeros({2, 4}), tensor({0, 1}), F::NLLLossFuncOptions().weight(zeros({3})));
  });
  expect_nn_error("nll_loss_nd_target", [] { F::nll_loss(zeros({2, 4, 3}), tensor({0, 1})); });
  expect_nn_error("cross_entropy_target", [] { F::cross_entropy(zeros({2, 4}), tensor({0, 5})); });
  expect_nn_error("bce_size", [] { F::binary_cross_entropy(zeros({2, 3}), zeros({3})); });
  expect_nn_error("bce_range", [] { F::binary_cross_entropy(zeros({2, 3}) + 2, zeros({2, 3})); });
  expect_nn_error("bce_logits_size", [] {
    F::binary_cross_entropy_with_logits(zeros({2, 3}), zeros({3}));
  });
}
TEST(Loss, Gradcheck) {
  TensorOptions d = TensorOptions(kDouble).requires_grad(true);
  Tensor x = randn({4, 3}, d), t = randn({4, 3}, d);
  Tensor p = (rand({4, 3}, kDouble) * 0.8 + 0.1).requires_grad_(true);
  Tensor pt = rand({4, 3}, kDouble).requires_grad_(true);
  Tensor cls = tensor({0, 2, 1, 2});
  Tensor w = rand({3}, kDouble) + 0.5, pw = (rand({3}, kDouble) + 0.5).requires_grad_(true);
  using L = autograd::variable_list;
  for (Reduction r : {kNone, kMean, kSum}) {
    EXPECT_EQ(
        autograd::gradcheck([&](const L& v) { return L{F::mse_loss(v[0], v[1], r)}; }, {x, t}), "");
    EXPECT_EQ(
        autograd::gradcheck(
            [&](const L& v) {
              return L{F::smooth_l1_loss(v[0], v[1], F::SmoothL1LossFuncOptions(r).beta(0.7))};
            },
            {x, t}),
        "");
    EXPECT_EQ(autograd::gradcheck(
                  [&](const L& v) {
                    return L{F::nll_loss(
                        v[0], cls, F::NLLLossFuncOptions().weight(w).ignore_index(1).reduction(r))};
                  },
                  {x}),
              "");
    EXPECT_EQ(autograd::gradcheck(
                  [&](const L& v) {
                    return L{F::binary_cross_entropy(
                        v[0], v[1], F::BinaryCrossEntropyFuncOptions().weight(w).reduction(r))};
                  },
                  {p, pt}),
              "");
    EXPECT_EQ(
        autograd::gradcheck(
            [&](const L& v) {
              return L{F::binary_cross_entropy_with_logits(
                  v[0], v[1],
                  F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(v[2]).reduction(r))};
            },
            {x, pt, pw}),
        "");
  }
  Tensor x3 = randn({2, 3, 2}, d);
  EXPECT_EQ(autograd::gradcheck(
                [&](const L& v) {
                  return L{F::cross_entropy(v[0], tensor({{0, 2}, {1, 1}}),
                                            F::CrossEntropyFuncOptions().label_smoothing(0.3))};
                },
                {x3}),
            "");
}

}  // namespace
}  // namespace ember
