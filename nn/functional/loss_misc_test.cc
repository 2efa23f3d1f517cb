// The losses of issue 19 (kl_div, huber, cosine_embedding, margin_ranking,
// triplet_margin, poisson_nll, gaussian_nll, ctc) against PyTorch
// (tools/golden/nn_ops_misc.py): values and gradients in float32 and
// float64, errors, and gradients against finite differences in float64.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/activation.h"
#include "nn/functional/loss.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_misc_case;
using testing::expect_nn_misc_error;
using V = std::vector<Tensor>;

TEST(LossExtra, KlDiv) {
  const std::pair<const char*, KLDivReduction> reds[] = {
      {"mean", kMean}, {"batchmean", kBatchMean}, {"sum", kSum}, {"none", kNone}};
  for (const auto& [name, red] : reds) {
    check_misc_case(std::string("kl_div_") + name, 2, {0, 1}, [red = red](const V& x) {
      return F::kl_div(x[0], x[1], F::KLDivFuncOptions().reduction(red));
    });
  }
  check_misc_case("kl_div_log_target", 2, {0, 1}, [](const V& x) {
    return F::kl_div(x[0].t(), x[1].t(),
                     F::KLDivFuncOptions().reduction(kBatchMean).log_target(true));
  });
  check_misc_case("kl_div_zero_target", 2, {0}, [](const V& x) {
    return F::kl_div(x[0], x[1], F::KLDivFuncOptions().reduction(kSum));
  });
  // A zero target's own gradient is NaN, as 1.13's (xlogy(t, t): 0 / 0);
  // the others are log(t) + 1 - input.
  const Tensor t = tensor({0.0, 0.5, 2.0}, kDouble).requires_grad_();
  F::kl_div(zeros({3}, kDouble), t, F::KLDivFuncOptions().reduction(kSum)).backward();
  EXPECT_TRUE(std::isnan(t.grad()[0].item<double>()));
  EXPECT_NEAR(t.grad()[1].item<double>(), std::log(0.5) + 1, 1e-12);
  EXPECT_NEAR(t.grad()[2].item<double>(), std::log(2.0) + 1, 1e-12);
  check_misc_case("kl_div_batchmean_1d", 2, {0, 1}, [](const V& x) {
    return F::kl_div(x[0], x[1], F::KLDivFuncOptions().reduction(kBatchMean));
  });
}

TEST(LossExtra, Huber) {
  check_misc_case("huber", 2, {0, 1}, [](const V& x) { return F::huber_loss(x[0], x[1]); });
  check_misc_case("huber_delta_sum", 2, {0, 1}, [](const V& x) {
    return F::huber_loss(x[0].t(), x[1], F::HuberLossFuncOptions(kSum).delta(0.5));
  });
  check_misc_case("huber_none_broadcast", 2, {0, 1}, [](const V& x) {
    return F::huber_loss(x[0], x[1], F::HuberLossFuncOptions(kNone).delta(1.5));
  });
  check_misc_case("huber_edges", 2, {0, 1}, [](const V& x) {
    return F::huber_loss(x[0], x[1], F::HuberLossFuncOptions(kNone).delta(0.5));
  });
  expect_nn_misc_error("huber_delta", [] {
    F::huber_loss(zeros({3}), zeros({3}), F::HuberLossFuncOptions().delta(0));
  });
}

TEST(LossExtra, CosineEmbedding) {
  check_misc_case("cosine_embedding", 3, {0, 1},
                   [](const V& x) { return F::cosine_embedding_loss(x[0], x[1], x[2]); });
  check_misc_case("cosine_embedding_margin_none", 3, {0, 1}, [](const V& x) {
    return F::cosine_embedding_loss(
        x[0].t(), x[1], x[2], F::CosineEmbeddingLossFuncOptions().margin(-0.2).reduction(kNone));
  });
  check_misc_case("cosine_embedding_1d", 3, {0, 1}, [](const V& x) {
    return F::cosine_embedding_loss(
        x[0], x[1], x[2], F::CosineEmbeddingLossFuncOptions().margin(0.1).reduction(kSum));
  });
  expect_nn_misc_error("cosine_embedding_target_dims", [] {
    F::cosine_embedding_loss(zeros({2, 3}), zeros({2, 3}), zeros({2, 1}));
  });
  expect_nn_misc_error("cosine_embedding_1d_target",
                        [] { F::cosine_embedding_loss(zeros({3}), zeros({3}), zeros({2})); });
  expect_nn_misc_error("cosine_embedding_0d_target", [] {
    F::cosine_embedding_loss(zeros({2, 3}), zeros({2, 3}), zeros({}));
  });
}

TEST(LossExtra, MarginRanking) {
  check_misc_case("margin_ranking", 3, {0, 1, 2},
                   [](const V& x) { return F::margin_ranking_loss(x[0], x[1], x[2]); });
  check_misc_case("margin_ranking_margin_none", 3, {0, 1, 2}, [](const V& x) {
    return F::margin_ranking_loss(x[0], x[1], x[2],
                                  F::MarginRankingLossFuncOptions().margin(0.5).reduction(kNone));
  });
  expect_nn_misc_error("margin_ranking_dims", [] {
    F::margin_ranking_loss(zeros({3}), zeros({3, 1}), zeros({3}));
  });
}

TEST(LossExtra, TripletMargin) {
  check_misc_case("triplet_margin", 3, {0, 1, 2},
                   [](const V& x) { return F::triplet_margin_loss(x[0], x[1], x[2]); });
  check_misc_case("triplet_margin_p1_swap_none", 3, {0, 1, 2}, [](const V& x) {
    return F::triplet_margin_loss(
        x[0], x[1].t(), x[2],
        F::TripletMarginLossFuncOptions().margin(2).p(1).swap(true).reduction(kNone));
  });
  check_misc_case("triplet_margin_p3_eps_sum", 3, {0, 1, 2}, [](const V& x) {
    return F::triplet_margin_loss(
        x[0], x[1], x[2],
        F::TripletMarginLossFuncOptions().margin(0.5).p(3).eps(1e-3).reduction(kSum));
  });
  check_misc_case("triplet_margin_1d", 3, {0, 1, 2}, [](const V& x) {
    return F::triplet_margin_loss(x[0], x[1], x[2], F::TripletMarginLossFuncOptions().margin(3));
  });
  expect_nn_misc_error("triplet_margin_dims", [] {
    F::triplet_margin_loss(zeros({3}), zeros({2, 3}), zeros({2, 3}));
  });
}

TEST(LossExtra, PoissonNll) {
  check_misc_case("poisson_nll", 2, {0, 1},
                   [](const V& x) { return F::poisson_nll_loss(x[0], x[1]); });
  check_misc_case("poisson_nll_rate_sum", 2, {0, 1}, [](const V& x) {
    return F::poisson_nll_loss(x[0], x[1],
                               F::PoissonNLLLossFuncOptions().log_input(false).reduction(kSum));
  });
  check_misc_case("poisson_nll_full_none", 2, {0}, [](const V& x) {
    return F::poisson_nll_loss(x[0], x[1],
                               F::PoissonNLLLossFuncOptions().full(true).reduction(kNone));
  });
  check_misc_case("poisson_nll_rate_eps_full", 2, {0}, [](const V& x) {
    return F::poisson_nll_loss(x[0], x[1],
                               F::PoissonNLLLossFuncOptions().log_input(false).full(true).eps(0.1));
  });
}

TEST(LossExtra, GaussianNll) {
  check_misc_case("gaussian_nll", 3, {0, 1, 2},
                   [](const V& x) { return F::gaussian_nll_loss(x[0], x[1], x[2]); });
  check_misc_case("gaussian_nll_var_short_full_sum", 3, {0, 1, 2}, [](const V& x) {
    return F::gaussian_nll_loss(x[0], x[1], x[2],
                                F::GaussianNLLLossFuncOptions().full(true).reduction(kSum));
  });
  check_misc_case("gaussian_nll_var_one_eps_none", 3, {0, 1, 2}, [](const V& x) {
    return F::gaussian_nll_loss(x[0], x[1], x[2],
                                F::GaussianNLLLossFuncOptions().eps(1e-2).reduction(kNone));
  });
  expect_nn_misc_error("gaussian_nll_var_size", [] {
    F::gaussian_nll_loss(zeros({2, 3}), zeros({2, 3}), ones({3}));
  });
  expect_nn_misc_error("gaussian_nll_var_negative", [] {
    F::gaussian_nll_loss(zeros({2, 3}), zeros({2, 3}), -ones({2, 3}));
  });
}

TEST(LossExtra, Ctc) {
  const std::pair<const char*, Reduction> reds[] = {
      {"mean", kMean}, {"sum", kSum}, {"none", kNone}};
  for (const auto& [name, red] : reds) {
    check_misc_case(std::string("ctc_") + name, 4, {0}, [red = red](const V& x) {
      return F::ctc_loss(x[0], x[1], x[2], x[3], F::CTCLossFuncOptions().reduction(red));
    });
  }
  check_misc_case("ctc_concatenated_blank", 4, {0}, [](const V& x) {
    return F::ctc_loss(x[0], x[1], x[2], x[3], F::CTCLossFuncOptions().blank(3).reduction(kSum));
  });
  check_misc_case("ctc_impossible_none", 4, {}, [](const V& x) {
    return F::ctc_loss(x[0], x[1], x[2], x[3], F::CTCLossFuncOptions().reduction(kNone));
  });
  check_misc_case("ctc_zero_infinity", 4, {0}, [](const V& x) {
    return F::ctc_loss(x[0], x[1], x[2], x[3], F::CTCLossFuncOptions().zero_infinity(true));
  });
  check_misc_case("ctc_unbatched", 4, {0}, [](const V& x) {
    return F::ctc_loss(x[0], x[1], x[2], x[3], F::CTCLossFuncOptions().reduction(kNone));
  });
}

// A zero-length input can only produce the empty target (PyTorch 1.13
// reads out of bounds here; 2.x gives these values).
TEST(LossExtra, CtcEmptyInput) {
  const Tensor lp = log_softmax(randn({3, 2, 4}), 2).requires_grad_(true);
  const Tensor loss = F::ctc_loss(lp, tensor({{1}, {1}}), tensor({0, 0}), tensor({0, 1}),
                                  F::CTCLossFuncOptions().reduction(kNone));
  EXPECT_EQ(loss[0].item<float>(), 0.0f);
  EXPECT_EQ(loss[1].item<float>(), std::numeric_limits<float>::infinity());
  loss[0].backward();
  EXPECT_TRUE(lp.grad().equal(zeros({3, 2, 4})));
}

TEST(LossExtra, CtcInt32TargetsAndLengths) {
  // int32 targets (non-contiguous too) and lengths give the int64 result.
  const Tensor lp = testing::misc_case_input("ctc_sum", "f64", 0);
  const Tensor t = testing::misc_case_input("ctc_sum", "f64", 1);
  const Tensor il = testing::misc_case_input("ctc_sum", "f64", 2);
  const Tensor tl = testing::misc_case_input("ctc_sum", "f64", 3);
  const auto o = F::CTCLossFuncOptions().reduction(kSum);
  const Tensor want = F::ctc_loss(lp, t, il, tl, o);
  const Tensor t32 = t.to(kInt).t().contiguous().t();
  EXPECT_FALSE(t32.is_contiguous());
  EXPECT_TRUE(F::ctc_loss(lp, t32, il.to(kInt), tl.to(kInt), o).equal(want));
}

TEST(LossExtra, CtcErrors) {
  auto in = [](int i) { return testing::misc_case_input("ctc_mean", "f32", i); };
  const Tensor lp = in(0), padded = in(1), il = in(2), tl = in(3);
  auto longs = [](std::vector<int64_t> v) { return tensor(v); };
  expect_nn_misc_error("ctc_blank",
                        [&] { F::ctc_loss(lp, padded, il, tl, F::CTCLossFuncOptions().blank(4)); });
  expect_nn_misc_error("ctc_input_length", [&] { F::ctc_loss(lp, padded, longs({7, 5, 4}), tl); });
  expect_nn_misc_error("ctc_targets_short", [&] {
    F::ctc_loss(lp, padded, il, longs({4, 0, 3}));
  });
  expect_nn_misc_error("ctc_concatenated_size", [&] {
    F::ctc_loss(lp, longs({1, 2, 3}), il, longs({1, 1, 2}));
  });
  expect_nn_misc_error("ctc_lengths_size", [&] { F::ctc_loss(lp, padded, longs({6, 5}), tl); });
  // Where PyTorch reads out of bounds, ember refuses.
  EXPECT_THROW(F::ctc_loss(lp, longs({1, 9, 2}), il, longs({1, 1, 1})), IndexError);
  EXPECT_THROW(F::ctc_loss(lp, padded, longs({6, -1, 4}), tl), Error);
  EXPECT_THROW(F::ctc_loss(lp, padded, il.to(kFloat), tl), Error);
}

// PyTorch has no double backward for CTC; ember says so with its message.
TEST(LossExtra, CtcDoubleBackwardNotImplemented) {
  const Tensor x = testing::misc_case_input("ctc_sum", "f64", 0).requires_grad_(true);
  auto in = [](int i) { return testing::misc_case_input("ctc_sum", "f64", i); };
  const Tensor loss = F::ctc_loss(x, in(1), in(2), in(3), F::CTCLossFuncOptions().reduction(kSum));
  const Tensor g = autograd::grad({loss}, {x}, {}, true, true)[0];
  try {
    g.sum().backward();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "derivative for aten::_ctc_loss_backward is not implemented");
  }
}

// The composites' gradients against finite differences in float64, second
// order where PyTorch has it.
TEST(LossExtra, Gradcheck) {
  manual_seed(0);
  auto leaf = [](Tensor t) { return t.to(kDouble).requires_grad_(); };
  const Tensor pm1 = tensor({1.0, -1.0, -1.0, 1.0}, kDouble);
  autograd::GradcheckOptions o;
  o.check_grad_grad = true;
  EXPECT_EQ(autograd::gradcheck(
                [](const V& x) {
                  return V{F::kl_div(x[0], x[1], F::KLDivFuncOptions().reduction(kBatchMean)),
                           F::kl_div(x[0], x[1], F::KLDivFuncOptions().log_target(true))};
                },
                {leaf(randn({3, 4})), leaf(rand({3, 4}) + 0.1)}, o),
            "");
  EXPECT_EQ(autograd::gradcheck(
                [](const V& x) {
                  return V{F::huber_loss(x[0], x[1], F::HuberLossFuncOptions(kNone).delta(0.7))};
                },
                {leaf(randn({3, 4}) * 2), leaf(randn({3, 4}))}, o),
            "");
  EXPECT_EQ(autograd::gradcheck(
                [&](const V& x) {
                  return V{F::cosine_embedding_loss(
                      x[0], x[1], pm1, F::CosineEmbeddingLossFuncOptions().margin(-0.5))};
                },
                {leaf(randn({4, 3})), leaf(randn({4, 3}))}, o),
            "");
  EXPECT_EQ(
      autograd::gradcheck([&](const V& x) { return V{F::margin_ranking_loss(x[0], x[1], x[2])}; },
                          {leaf(randn({4})), leaf(randn({4})), leaf(pm1)}, o),
      "");
  EXPECT_EQ(autograd::gradcheck(
                [](const V& x) {
                  return V{F::triplet_margin_loss(
                      x[0], x[1], x[2], F::TripletMarginLossFuncOptions().margin(5).swap(true))};
                },
                {leaf(randn({3, 4})), leaf(randn({3, 4})), leaf(randn({3, 4}))}, o),
            "");
  EXPECT_EQ(autograd::gradcheck(
                [](const V& x) {
                  return V{F::poisson_nll_loss(x[0], x[1]),
                           F::poisson_nll_loss(
                               x[0].abs() + 0.1, x[1],
                               F::PoissonNLLLossFuncOptions().log_input(false).full(true))};
                },
                {leaf(randn({3, 4})), leaf(rand({3, 4}) * 4 + 0.5)}, o),
            "");
  EXPECT_EQ(autograd::gradcheck(
                [](const V& x) {
                  return V{F::gaussian_nll_loss(x[0], x[1], x[2],
                                                F::GaussianNLLLossFuncOptions().full(true))};
                },
                {leaf(randn({3, 4})), leaf(randn({3, 4})), leaf(rand({3}) + 0.2)}, o),
            "");
  // CTC through log_softmax (Note [CTC gradient] in tensor/ctc_loss.cc),
  // first order only.
  const Tensor targets = tensor({{1, 1, 2}, {2, 0, 0}});
  EXPECT_EQ(autograd::gradcheck(
                [&](const V& x) {
                  const Tensor lp = F::log_softmax(x[0], 2);
                  return V{F::ctc_loss(lp, targets, tensor({5, 4}), tensor({3, 1})),
                           F::ctc_loss(lp, targets, tensor({3, 4}), tensor({3, 1}),
                                       F::CTCLossFuncOptions().zero_infinity(true))};
                },
                {leaf(randn({5, 2, 3}))}),
            "");
}

}  // namespace
}  // namespace ember
