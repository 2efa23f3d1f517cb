// The margin losses against PyTorch 1.13 (tools/golden/margin_losses.py):
// outputs and input gradients in float32 and float64 for each reduction,
// the weighted and 1-D forms, a custom distance; the modules; the errors.

#include <gtest/gtest.h>

#include <limits>

#include "autograd/autograd.h"
#include "nn/functional/distance.h"
#include "nn/functional/loss.h"
#include "nn/functional/testing/nn_golden.h"
#include "nn/loss.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_case_in;

const testing::GoldenEntry kGolden[] = {
#include "nn/functional/testdata/margin_losses_golden.inc"
};

Reduction reduction(const std::string& r) {
  return r == "none" ? kNone : r == "sum" ? kSum : kMean;
}

TEST(MarginLossTest, EveryReductionMatchesPyTorch) {
  for (const std::string r : {"none", "mean", "sum"}) {
    SCOPED_TRACE(r);
    const Reduction red = reduction(r);
    check_case_in(kGolden, "hinge_" + r, 2, {0}, [&](const std::vector<Tensor>& in) {
      return F::hinge_embedding_loss(in[0], in[1],
                                     F::HingeEmbeddingLossFuncOptions().margin(0.7).reduction(red));
    });
    check_case_in(kGolden, "soft_margin_" + r, 2, {0}, [&](const std::vector<Tensor>& in) {
      return F::soft_margin_loss(in[0], in[1], red);
    });
    check_case_in(kGolden, "multilabel_soft_margin_" + r, 2, {0},
                  [&](const std::vector<Tensor>& in) {
                    return F::multilabel_soft_margin_loss(
                        in[0], in[1], F::MultilabelSoftMarginLossFuncOptions().reduction(red));
                  });
    check_case_in(kGolden, "multi_margin_" + r, 2, {0}, [&](const std::vector<Tensor>& in) {
      return F::multi_margin_loss(in[0], in[1], F::MultiMarginLossFuncOptions().reduction(red));
    });
    check_case_in(kGolden, "multilabel_margin_" + r, 2, {0}, [&](const std::vector<Tensor>& in) {
      return F::multilabel_margin_loss(in[0], in[1], red);
    });
    check_case_in(kGolden, "triplet_distance_" + r, 3, {0, 1, 2},
                  [&](const std::vector<Tensor>& in) {
                    return F::triplet_margin_with_distance_loss(
                        in[0], in[1], in[2],
                        F::TripletMarginWithDistanceLossFuncOptions().reduction(red));
                  });
  }
}

TEST(MarginLossTest, WeightsOneDimensionalInputsAndCustomDistances) {
  check_case_in(kGolden, "multilabel_soft_margin_weight", 3, {0},
                [](const std::vector<Tensor>& in) {
                  return F::multilabel_soft_margin_loss(
                      in[0], in[1], F::MultilabelSoftMarginLossFuncOptions().weight(in[2]));
                });
  check_case_in(kGolden, "multi_margin_p2_weight", 3, {0}, [](const std::vector<Tensor>& in) {
    return F::multi_margin_loss(in[0], in[1],
                                F::MultiMarginLossFuncOptions().p(2).margin(0.6).weight(in[2]));
  });
  check_case_in(kGolden, "multi_margin_1d", 2, {0}, [](const std::vector<Tensor>& in) {
    return F::multi_margin_loss(in[0], in[1], F::MultiMarginLossFuncOptions().reduction(kNone));
  });
  check_case_in(kGolden, "multilabel_margin_1d", 2, {0}, [](const std::vector<Tensor>& in) {
    return F::multilabel_margin_loss(in[0], in[1], kNone);
  });
  check_case_in(kGolden, "triplet_distance_cosine_swap", 3, {0, 1, 2},
                [](const std::vector<Tensor>& in) {
                  return F::triplet_margin_with_distance_loss(
                      in[0], in[1], in[2],
                      F::TripletMarginWithDistanceLossFuncOptions()
                          .distance_function([](const Tensor& u, const Tensor& v) {
                            return 1 - F::cosine_similarity(u, v);
                          })
                          .margin(0.5)
                          .swap(true));
                });
}

// 1.13's multi_margin_loss_backward and multilabel_margin_loss_backward
// have no derivative: their node is NotImplemented, and backward raises.
TEST(MarginLossTest, DoubleBackwardIsRefusedAs113) {
  const Tensor x = randn({2, 4}).requires_grad_();
  const std::vector<std::pair<std::string, Tensor>> losses = {
      {"multi_margin_loss_backward", F::multi_margin_loss(x, tensor({int64_t{0}, 1}))},
      {"multilabel_margin_loss_backward",
       F::multilabel_margin_loss(x, tensor({int64_t{0}, -1, 1, 2, 1, 0, -1, 2}).view({2, 4}))}};
  for (const auto& [op, y] : losses) {
    const Tensor gx = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
    ASSERT_NE(gx.grad_fn(), nullptr) << op;
    EXPECT_EQ(gx.grad_fn()->name(), "torch::autograd::NotImplemented") << op;
    EXPECT_EQ(testing::error_of([&] { gx.sum().backward(); }),
              "derivative for aten::" + op + " is not implemented");
  }
}

TEST(MarginLossTest, ModulesCallTheirFunctionals) {
  Tensor x = arange(20, kDouble).reshape({4, 5}) * 0.1 - 0.8;
  Tensor cls = tensor({2, 0, 4, 1}, kLong);
  Tensor w = tensor({0.5, 1.0, 2.0, 1.5, 0.25}, kDouble);
  nn::MultiMarginLoss mm(nn::MultiMarginLossOptions().p(2).weight(w));
  EXPECT_TRUE(mm->forward(x, cls).allclose(
      F::multi_margin_loss(x, cls, F::MultiMarginLossFuncOptions().p(2).weight(w))));
  EXPECT_EQ(mm->named_buffers().size(), 1u);  // the class weights, as PyTorch's
  nn::SoftMarginLoss sm(kSum);
  Tensor sign = ones({4, 5}, kDouble);
  EXPECT_TRUE(sm->forward(x, sign).allclose(F::soft_margin_loss(x, sign, kSum)));
  nn::HingeEmbeddingLoss he;
  EXPECT_TRUE(he->forward(x, sign).allclose(F::hinge_embedding_loss(x, sign)));
  nn::TripletMarginWithDistanceLoss tl;
  EXPECT_TRUE(tl->forward(x, x + 1, x - 1).allclose(F::triplet_margin_with_distance_loss(x, x + 1, x - 1)));
  EXPECT_THROW(nn::MultiMarginLoss(nn::MultiMarginLossOptions().p(3)), Error);
}

// multi_margin_loss counts a term where margin - x[y] + x[j] > 0, so a NaN
// term counts for nothing (1.13's kernel; 1.13 prints [0.6667, 0] for p = 1
// and [1.3333, 0] for p = 2 in float64).
TEST(MarginLossTest, MultiMarginSkipsNaNTerms) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = tensor({nan, 1.0, 0.0, 0.5, nan, 2.0}).view({2, 3});
  const Tensor y = tensor({int64_t{2}, 1});
  for (ScalarType t : {kFloat, kDouble}) {
    const Tensor l1 =
        F::multi_margin_loss(x.to(t), y, F::MultiMarginLossFuncOptions().reduction(kNone));
    EXPECT_NEAR(l1[0].item<double>(), 2.0 / 3, 1e-6);
    EXPECT_EQ(l1[1].item<double>(), 0);
    const Tensor l2 =
        F::multi_margin_loss(x.to(t), y, F::MultiMarginLossFuncOptions().p(2).reduction(kNone));
    EXPECT_NEAR(l2[0].item<double>(), 4.0 / 3, 1e-6);
    EXPECT_EQ(l2[1].item<double>(), 0);
  }
}

// multilabel_margin_loss's CPU loop (nn/functional/loss.cc) as 1.13's
// kernel: a NaN term counts for nothing, a class listed twice counts twice,
// a sample's classes end at its first -1, every class of a sample gives 0;
// the sums reduce in double. 1.13 prints these (float64).
TEST(MarginLossTest, MultilabelMarginAs113sKernel) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x =
      tensor({0.1, nan, 0.3, 0.5, -0.2, 0.7, 0.2, -1.0, 0.4, 0.9, 0.3, 0.8, 0.1, -0.5, 0.6},
             kDouble)
          .view({3, 5});
  const Tensor y = tensor({int64_t{2}, 0, -1, 1, 4, 3, 3, 1, -1, -1, 4, 0, 1, 2, 3}).view({3, 5});
  for (ScalarType t : {kFloat, kDouble}) {
    const double tol = t == kFloat ? 1e-6 : 1e-15;
    // Transposed twice: a non-contiguous input of the same values.
    for (const Tensor& in : {x.to(t), x.to(t).t().contiguous().t()}) {
      const Tensor none = F::multilabel_margin_loss(in, y, kNone);
      ASSERT_EQ(none.sizes(), IntArrayRef({3}));
      EXPECT_NEAR(none[0].item<double>(), 0.76, tol);
      EXPECT_NEAR(none[1].item<double>(), 1.76, tol);
      EXPECT_EQ(none[2].item<double>(), 0);
      EXPECT_NEAR(F::multilabel_margin_loss(in, y, kSum).item<double>(), 2.52, 2 * tol);
      EXPECT_NEAR(F::multilabel_margin_loss(in, y, kMean).item<double>(), 0.84, tol);
    }
    // 1-D: one sample, a 0-dim loss even without a reduction.
    const Tensor l = F::multilabel_margin_loss(tensor({0.5, 0.25, 2.0}, kDouble).to(t),
                                               tensor({int64_t{1}, -1, 0}), kNone);
    EXPECT_EQ(l.dim(), 0);
    EXPECT_NEAR(l.item<double>(), 4.0 / 3, tol);
  }
}

TEST(MarginLossTest, BadInputsSayWhatIsWrong) {
  Tensor x = zeros({4, 5});
  auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] { F::multi_margin_loss(x, tensor({0, 1, 5, 2}, kLong)); })
                .find("target out of range"),
            std::string::npos);
  EXPECT_NE(message([&] { F::multi_margin_loss(x, tensor({0, 1}, kLong)); })
                .find("inconsistent target size, expected 4 but got torch.Size([2])"),
            std::string::npos);
  EXPECT_NE(message([&] {
              F::multi_margin_loss(x, tensor({0, 1, 2, 3}, kLong),
                                   F::MultiMarginLossFuncOptions().p(3));
            }).find("only p == 1 and p == 2 supported"),
            std::string::npos);
  EXPECT_NE(message([&] { F::multilabel_margin_loss(x, zeros({4, 3}, kLong)); })
                .find("inconsistent size torch.Size([4, 3]) for target"),
            std::string::npos);
  EXPECT_NE(message([&] { F::multi_margin_loss(zeros({4, 0}), zeros({4}, kLong)); })
                .find("Expected non-empty vector or matrix"),
            std::string::npos);
  EXPECT_NE(message([&] {
              F::triplet_margin_with_distance_loss(
                  x, x, x, F::TripletMarginWithDistanceLossFuncOptions().margin(0));
            }).find("expected margin to be greater than 0"),
            std::string::npos);
  EXPECT_NE(message([&] { F::triplet_margin_with_distance_loss(x, x, zeros({5})); })
                .find("expected to have the same number of dimensions"),
            std::string::npos);
}

}  // namespace
}  // namespace ember
