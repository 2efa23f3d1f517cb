// nn::EmbeddingBag against PyTorch (tools/golden/embedding_bag.py): the
// table drawn under manual_seed(0), names, forward with 2-D bags, offsets and
// per_sample_weights, from_pretrained, the printed form and errors. The op
// itself is checked in nn/functional/embedding_bag_test.cc.

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "nn/container.h"
#include "nn/embedding.h"
#include "nn/test_golden.h"
#include "nn/test_golden_more.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

using ::ember::testing::expect_error;
using ::ember::testing::golden_tensor;
using ::ember::testing::near_golden;

const ::ember::testing::GoldenEntry kGolden[] = {
#include "nn/testdata/embedding_bag_golden.inc"
};
const ::ember::testing::GoldenError kErrors[] = {
#include "nn/testdata/embedding_bag_errors_golden.inc"
};
const testing::GoldenString kStrings[] = {
#include "nn/testdata/embedding_bag_strings_golden.inc"
};
constexpr testing::GoldenTables kTables(kGolden, kErrors, kStrings);

TEST(EmbeddingBagModuleTest, InitAndForwardMatchPyTorch) {
  manual_seed(0);
  EmbeddingBag mean(10, 3);
  testing::more::expect_layer_in(kTables, "default", mean);
  manual_seed(0);
  EmbeddingBag sum(EmbeddingBagOptions(6, 4).mode(kSum).padding_idx(-2));
  EXPECT_EQ(sum->options.padding_idx(), 4);
  testing::more::expect_layer_in(kTables, "sum_padding", sum);
  manual_seed(0);
  EmbeddingBag max(EmbeddingBagOptions(7, 2).mode(kMax).max_norm(1.0));
  testing::more::expect_layer_in(kTables, "max", max);
}

TEST(EmbeddingBagModuleTest, OffsetsAndPerSampleWeightsMatchPyTorch) {
  manual_seed(0);
  EmbeddingBag bag(EmbeddingBagOptions(10, 3).mode(kSum).include_last_offset(true));
  Tensor out = bag(tensor({1, 2, 4, 5, 4, 3, 2, 9}, kLong), tensor({0, 2, 2, 5, 8}, kLong),
                   golden_tensor(kTables.golden("offsets.psw")));
  EXPECT_TRUE(near_golden(out, kTables.golden("offsets.output"), kFloat, 1e-6));
}

TEST(EmbeddingBagModuleTest, FromPretrainedSharesTheTableAndFreezes) {
  Tensor w = golden_tensor(kTables.golden("pretrained.weight"));
  EmbeddingBag bag = EmbeddingBag::from_pretrained(
      w, EmbeddingBagFromPretrainedOptions().mode(kMax).padding_idx(1));
  EXPECT_FALSE(bag->weight.requires_grad());
  EXPECT_EQ(bag->weight.data_ptr(), w.data_ptr());
  Tensor out = bag(tensor({0, 1, 2, 3, 4, 1}, kLong), tensor({0, 2, 4}, kLong));
  EXPECT_TRUE(near_golden(out, kTables.golden("pretrained.output"), kFloat));
  EXPECT_TRUE(EmbeddingBag::from_pretrained(w, EmbeddingBagFromPretrainedOptions().freeze(false))
                  ->weight.requires_grad());
}

TEST(EmbeddingBagModuleTest, GradientReachesTheTable) {
  manual_seed(0);
  EmbeddingBag bag(EmbeddingBagOptions(5, 2).mode(kSum));
  bag(tensor({{1, 1}, {3, 0}}, kLong)).sum().backward();
  EXPECT_TRUE(bag->weight.grad().equal(tensor({{1., 1.}, {2., 2.}, {0., 0.}, {1., 1.}, {0., 0.}})));
}

TEST(EmbeddingBagModuleTest, PrintsAsPyTorch) {
  ModuleList list;
  list->push_back(EmbeddingBag(5, 3));
  list->push_back(EmbeddingBag(EmbeddingBagOptions(5, 3).mode(kSum).padding_idx(-2)));
  list->push_back(EmbeddingBag(EmbeddingBagOptions(5, 3)
                                   .max_norm(1.0)
                                   .norm_type(3.0)
                                   .scale_grad_by_freq(true)
                                   .mode(kMax)
                                   .include_last_offset(true)
                                   .padding_idx(0)));
  list->push_back(EmbeddingBag(EmbeddingBagOptions(5, 3).max_norm(2.5).sparse(true)));
  EXPECT_EQ(testing::more::repr(*list), kTables.golden_string("repr"));
}

TEST(EmbeddingBagModuleTest, Errors) {
  kTables.expect_golden_error("forward_offsets_none", [] {
    EmbeddingBag(5, 3)(tensor({1, 2}, kLong));
  });
  kTables.expect_golden_error("forward_mode",
                              [] { EmbeddingBag(EmbeddingBagOptions(5, 3).mode(kNone)); });
  // PyTorch's AssertionErrors, as ValueErrors.
  expect_error<ValueError>([] { EmbeddingBag(EmbeddingBagOptions(5, 3).padding_idx(5)); },
                           "padding_idx must be within num_embeddings");
  expect_error<ValueError>([] { EmbeddingBag::from_pretrained(zeros({3})); },
                           "Embeddings parameter is expected to be 2-dimensional");
  expect_error<ValueError>(
      [] {
        EmbeddingBag(EmbeddingBagOptions(5, 3)._weight(zeros({5, 2})));
      },
      "Shape of weight does not match num_embeddings and embedding_dim");
}

}  // namespace
}  // namespace nn
}  // namespace ember
