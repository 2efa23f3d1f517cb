// Issue 19's layers against PyTorch (tools/golden/nn_modules_misc.py):
// GLU, CosineSimilarity, PairwiseDistance, the padding layers, Unflatten,
// PixelShuffle / PixelUnshuffle and the loss modules beyond the basics:
// forward values with their options, printed forms, errors. (The
// functional ops' gradients are nn/functional's tests.)

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "nn/activation.h"
#include "nn/container.h"
#include "nn/distance.h"
#include "nn/linear.h"
#include "nn/loss.h"
#include "nn/padding.h"
#include "nn/pixelshuffle.h"
#include "nn/test_golden_misc.h"
#include "nn/test_golden_more.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

using ::ember::testing::near_golden;
namespace g = testing::misc;
using V = std::vector<Tensor>;

// The module `fn` applied to the case's inputs "<name>.input<i>" gives
// "<name>.output".
void expect_case(const std::string& name, int num_inputs,
                 const std::function<Tensor(const V&)>& fn) {
  SCOPED_TRACE(name);
  V xs;
  for (int i = 0; i < num_inputs; ++i)
    xs.push_back(g::golden_tensor(name + ".input" + std::to_string(i)));
  EXPECT_TRUE(near_golden(fn(xs), g::tables().golden(name + ".output"), kFloat, 1e-6));
}

template <typename M>
std::function<Tensor(const V&)> one(M m) {
  return [m](const V& x) mutable { return m(x[0]); };
}
template <typename M>
std::function<Tensor(const V&)> two(M m) {
  return [m](const V& x) mutable { return m(x[0], x[1]); };
}
template <typename M>
std::function<Tensor(const V&)> three(M m) {
  return [m](const V& x) mutable { return m(x[0], x[1], x[2]); };
}

TEST(MiscLayers, GluAndDistances) {
  expect_case("glu", 1, one(GLU()));
  expect_case("glu_dim1", 1, one(GLU(1)));
  expect_case("cosine_similarity", 2, two(CosineSimilarity()));
  expect_case("cosine_similarity_dim0", 2,
              two(CosineSimilarity(CosineSimilarityOptions().dim(0).eps(1e-3))));
  expect_case("pairwise_distance", 2, two(PairwiseDistance()));
  expect_case("pairwise_distance_p1_keepdim", 2,
              two(PairwiseDistance(PairwiseDistanceOptions().p(1).eps(1e-3).keepdim(true))));
}

TEST(MiscLayers, Padding) {
  expect_case("zeropad2d", 1, one(ZeroPad2d(ZeroPad2dOptions({1, 0, 2, 1}))));
  expect_case("zeropad2d_crop", 1, one(ZeroPad2d(ZeroPad2dOptions({-1, 1, 0, -1}))));
  expect_case("constantpad1d", 1, one(ConstantPad1d(2, 3.5)));
  expect_case("constantpad2d", 1, one(ConstantPad2d(ConstantPad2dOptions({1, 2, 0, 1}, -1.0))));
  expect_case("constantpad3d", 1, one(ConstantPad3d(1, 0.5)));
  expect_case("reflectionpad1d", 1, one(ReflectionPad1d(ReflectionPad1dOptions({2, 1}))));
  expect_case("reflectionpad2d", 1, one(ReflectionPad2d(1)));
  expect_case("reflectionpad3d", 1,
              one(ReflectionPad3d(ReflectionPad3dOptions({1, 0, 0, 1, 1, 1}))));
  expect_case("replicationpad1d", 1, one(ReplicationPad1d(2)));
  expect_case("replicationpad2d", 1, one(ReplicationPad2d(ReplicationPad2dOptions({0, 1, 2, 0}))));
  expect_case("replicationpad3d", 1, one(ReplicationPad3d(1)));
}

TEST(MiscLayers, UnflattenPixelShuffle) {
  expect_case("unflatten", 1, one(Unflatten(UnflattenOptions(1, {2, 3}))));
  expect_case("unflatten_infer", 1, one(Unflatten(UnflattenOptions(-1, {2, -1, 2}))));
  expect_case("pixelshuffle", 1, one(PixelShuffle(2)));
  expect_case("pixelunshuffle", 1, one(PixelUnshuffle(2)));
}

TEST(MiscLayers, Losses) {
  expect_case("kldiv_batchmean", 2, two(KLDivLoss(KLDivLossOptions().reduction(kBatchMean))));
  expect_case("kldiv_log_target_none", 2,
              two(KLDivLoss(KLDivLossOptions().reduction(kNone).log_target(true))));
  expect_case("huber_delta_sum", 2, two(HuberLoss(HuberLossOptions(kSum).delta(0.3))));
  expect_case("cosine_embedding_margin", 3,
              three(CosineEmbeddingLoss(CosineEmbeddingLossOptions().margin(0.25))));
  expect_case("margin_ranking_none", 3,
              three(MarginRankingLoss(MarginRankingLossOptions().margin(0.5).reduction(kNone))));
  expect_case(
      "triplet_margin_swap", 3,
      three(TripletMarginLoss(TripletMarginLossOptions().margin(0.75).p(1).eps(1e-3).swap(true))));
  expect_case("poisson_nll_full", 2,
              two(PoissonNLLLoss(PoissonNLLLossOptions().log_input(false).full(true).eps(1e-3))));
  expect_case(
      "gaussian_nll_full_sum", 3,
      three(GaussianNLLLoss(GaussianNLLLossOptions().full(true).eps(1e-3).reduction(kSum))));
  CTCLoss ctc(CTCLossOptions().blank(2).reduction(kSum).zero_infinity(true));
  expect_case("ctc_blank_zero_inf_sum", 4, [&](const V& x) { return ctc(x[0], x[1], x[2], x[3]); });
}

TEST(MiscLayers, PrintedForms) {
  ModuleList layers;
  layers->push_back(GLU());
  layers->push_back(GLU(1));
  layers->push_back(CosineSimilarity());
  layers->push_back(CosineSimilarity(CosineSimilarityOptions().dim(0).eps(1e-3)));
  layers->push_back(PairwiseDistance());
  layers->push_back(PairwiseDistance(PairwiseDistanceOptions().p(1).eps(1e-3).keepdim(true)));
  layers->push_back(Unflatten(UnflattenOptions(1, {2, 3})));
  layers->push_back(Unflatten(UnflattenOptions(-1, {2, -1, 2})));
  layers->push_back(PixelShuffle(2));
  layers->push_back(PixelUnshuffle(3));
  EXPECT_EQ(testing::more::repr(*layers), g::tables().golden_string("repr.layers"));

  ModuleList padding;
  padding->push_back(ZeroPad2d(1));
  padding->push_back(ZeroPad2d(ZeroPad2dOptions({1, 0, 2, 1})));
  padding->push_back(ConstantPad1d(2, 3.5));
  padding->push_back(ConstantPad2d(ConstantPad2dOptions({1, 2, 0, 1}, -1)));
  padding->push_back(ConstantPad3d(1, 0.5));
  padding->push_back(ConstantPad1d(ConstantPad1dOptions({1, 2}, 0)));
  padding->push_back(ReflectionPad1d(ReflectionPad1dOptions({2, 1})));
  padding->push_back(ReflectionPad2d(1));
  padding->push_back(ReflectionPad3d(ReflectionPad3dOptions({1, 0, 0, 1, 1, 1})));
  padding->push_back(ReplicationPad1d(2));
  padding->push_back(ReplicationPad2d(ReplicationPad2dOptions({0, 1, 2, 0})));
  padding->push_back(ReplicationPad3d(1));
  EXPECT_EQ(testing::more::repr(*padding), g::tables().golden_string("repr.padding"));

  ModuleList losses;
  losses->push_back(KLDivLoss());
  losses->push_back(HuberLoss(HuberLossOptions().delta(0.5)));
  losses->push_back(CosineEmbeddingLoss(CosineEmbeddingLossOptions().margin(0.2)));
  losses->push_back(MarginRankingLoss(MarginRankingLossOptions().margin(0.5)));
  losses->push_back(TripletMarginLoss());
  losses->push_back(PoissonNLLLoss());
  losses->push_back(GaussianNLLLoss());
  losses->push_back(CTCLoss(CTCLossOptions().blank(1)));
  EXPECT_EQ(testing::more::repr(*losses), g::tables().golden_string("repr.losses"));
}

TEST(MiscLayers, Errors) {
  g::tables().expect_golden_error("unflatten.sizes", [] {
    Unflatten(UnflattenOptions(1, {2, 2}))(zeros({2, 3}));
  });
  g::tables().expect_golden_error("unflatten.two_inferred", [] {
    Unflatten(UnflattenOptions(1, {2, -1, -1}))(zeros({2, 4}));
  });
  g::tables().expect_golden_error("reflectionpad1d.too_large", [] {
    ReflectionPad1d(3)(zeros({1, 2, 2}));
  });
  g::tables().expect_golden_error("glu.odd", [] { GLU()(zeros({2, 3})); });
  g::tables().expect_golden_error("pixelshuffle.channels", [] {
    PixelShuffle(2)(zeros({1, 3, 2, 2}));
  });
}

TEST(MiscLayers, PaddingGradients) {
  // The layers are differentiable through F::pad.
  Tensor x = randn({1, 2, 3, 3}, TensorOptions().requires_grad(true));
  ReflectionPad2d(1)(x).sum().backward();
  // A reflection of 1 on each side reads the centre of a 3x3 map 9 times
  // and a corner once (the edge itself is not repeated).
  EXPECT_EQ(x.grad().index({0, 0, 1, 1}).item<float>(), 9.0f);
  EXPECT_EQ(x.grad().index({0, 0, 0, 0}).item<float>(), 1.0f);
}

}  // namespace
}  // namespace nn
}  // namespace ember
