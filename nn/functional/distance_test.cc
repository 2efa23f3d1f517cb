// cosine_similarity and pairwise_distance against PyTorch
// (tools/golden/nn_ops_misc.py): values and gradients in float32 and
// float64 (broadcast, non-contiguous, a zero vector), errors, and
// gradients against finite differences in float64.
#include "nn/functional/distance.h"

#include <limits>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_misc_case;
using testing::expect_nn_misc_error;
using V = std::vector<Tensor>;

TEST(Distance, CosineSimilarity) {
  check_misc_case("cosine_similarity", 2, {0, 1},
                   [](const V& x) { return F::cosine_similarity(x[0], x[1]); });
  check_misc_case("cosine_similarity_broadcast_dim", 2, {0, 1}, [](const V& x) {
    return F::cosine_similarity(x[0], x[1].t(), F::CosineSimilarityFuncOptions().dim(-1).eps(1e-3));
  });
  check_misc_case("cosine_similarity_dim0", 2, {0, 1}, [](const V& x) {
    return F::cosine_similarity(x[0], x[1], F::CosineSimilarityFuncOptions().dim(0));
  });
  check_misc_case("cosine_similarity_zero", 2, {0, 1},
                   [](const V& x) { return F::cosine_similarity(x[0], x[1]); });
  expect_nn_misc_error("cosine_similarity_sizes", [] {
    F::cosine_similarity(zeros({2, 3}), zeros({2, 4}));
  });
  EXPECT_THROW(F::cosine_similarity(ones({3}, kLong), ones({3}, kLong),
                                    F::CosineSimilarityFuncOptions().dim(0)),
               Error);
}

TEST(Distance, PairwiseDistance) {
  check_misc_case("pairwise_distance", 2, {0, 1},
                   [](const V& x) { return F::pairwise_distance(x[0], x[1]); });
  check_misc_case("pairwise_distance_p1_keepdim", 2, {0, 1}, [](const V& x) {
    return F::pairwise_distance(x[0].t(), x[1],
                                F::PairwiseDistanceFuncOptions().p(1).keepdim(true));
  });
  check_misc_case("pairwise_distance_p3_eps_broadcast", 2, {0, 1}, [](const V& x) {
    return F::pairwise_distance(x[0], x[1], F::PairwiseDistanceFuncOptions().p(3).eps(1e-2));
  });
  check_misc_case("pairwise_distance_inf", 2, {0, 1}, [](const V& x) {
    return F::pairwise_distance(
        x[0], x[1], F::PairwiseDistanceFuncOptions().p(std::numeric_limits<double>::infinity()));
  });
  check_misc_case("pairwise_distance_1d", 2, {0, 1},
                   [](const V& x) { return F::pairwise_distance(x[0], x[1]); });
  expect_nn_misc_error("pairwise_distance_sizes", [] {
    F::pairwise_distance(zeros({2, 3}), zeros({2, 4}));
  });
}

TEST(Distance, Gradcheck) {
  manual_seed(0);
  auto leaf = [](Tensor t) { return t.to(kDouble).requires_grad_(); };
  autograd::GradcheckOptions o;
  o.check_grad_grad = true;
  EXPECT_EQ(autograd::gradcheck(
                [](const V& x) {
                  return V{F::cosine_similarity(x[0], x[1]),
                           F::cosine_similarity(x[0].t(), x[1].t(),
                                                F::CosineSimilarityFuncOptions().dim(0))};
                },
                {leaf(randn({3, 4})), leaf(randn({3, 4}))}, o),
            "");
  EXPECT_EQ(autograd::gradcheck(
                [](const V& x) {
                  return V{F::pairwise_distance(x[0], x[1]),
                           F::pairwise_distance(
                               x[0], x[1], F::PairwiseDistanceFuncOptions().p(3).keepdim(true))};
                },
                {leaf(randn({3, 4})), leaf(randn({4}))}, o),
            "");
}

}  // namespace
}  // namespace ember
