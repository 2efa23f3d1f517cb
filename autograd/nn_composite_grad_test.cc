// Gradients of the ops 1.13 records as one node where ember composes them
// (autograd/derivatives/nn_composite.cc: cdist, pdist, embedding_bag), against 1.13's values
// (tools/golden/nn_composite_grads.py).
#include <limits>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "nn/functional/embedding.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

const testing::GoldenEntry kGolden[] = {
#include "autograd/testdata/nn_composite_grads_golden.inc"
};

Tensor G(const std::string& name) {
  return testing::golden_tensor(testing::find_golden(kGolden, name));
}

using Ts = std::vector<Tensor>;

// Runs fn on the case's inputs (floating ones as leaves), back-propagates
// the case's gout and checks each leaf's gradient (the kernels' rounding
// may differ from the formulas' in the last bits).
template <typename Fn>
void check(const std::string& name, int inputs, Fn fn) {
  SCOPED_TRACE(name);
  Ts xs;
  for (int i = 0; i < inputs; ++i) {
    Tensor x = G(name + "/in" + std::to_string(i));
    if (is_floating_point(x.scalar_type())) x.requires_grad_();
    xs.push_back(x);
  }
  Tensor out = fn(xs);
  ASSERT_TRUE(out.requires_grad());
  out.backward(G(name + "/gout"));
  for (int i = 0; i < inputs; ++i) {
    if (!xs[i].requires_grad()) continue;
    const std::string g = name + "/grad" + std::to_string(i);
    EXPECT_TRUE(testing::matches_golden(xs[i].grad(), testing::find_golden(kGolden, g), 1e-12))
        << g;
  }
}

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(NnCompositeGrad, CdistPdistEachP) {
  const std::vector<std::pair<const char*, double>> ps = {
      {"0", 0}, {"0_5", 0.5}, {"1", 1}, {"1_5", 1.5}, {"2", 2}, {"3", 3}, {"inf", kInf}};
  for (const auto& [tag, p] : ps) {
    const double q = p;
    check(std::string("cdist_p") + tag, 2, [q](const Ts& x) { return cdist(x[0], x[1], q); });
    check(std::string("pdist_p") + tag, 1, [q](const Ts& x) { return pdist(x[0], q); });
  }
}

TEST(NnCompositeGrad, CdistMatmulFormBroadcastAndEmpty) {
  check("cdist_mm_coincident", 2, [](const Ts& x) { return cdist(x[0], x[1], 2, 1); });
  check("cdist_batch_broadcast", 2, [](const Ts& x) { return cdist(x[0], x[1], 1.5); });
  check("cdist_empty_rows", 2, [](const Ts& x) { return cdist(x[0], x[1]); });
  check("cdist_no_columns", 2, [](const Ts& x) { return cdist(x[0], x[1], 3); });
  check("pdist_one_row", 1, [](const Ts& x) { return pdist(x[0]); });
  check("pdist_f32_inf", 1, [](const Ts& x) { return pdist(x[0], kInf); });
}

namespace F = nn::functional;
using EB = F::EmbeddingBagFuncOptions;

TEST(NnCompositeGrad, EmbeddingBagTiesPaddingAndEmptyBags) {
  check("embedding_bag_max_ties", 3,
        [](const Ts& x) { return F::embedding_bag(x[1], x[0], EB().offsets(x[2]).mode(kMax)); });
  check("embedding_bag_max_padding", 3, [](const Ts& x) {
    return F::embedding_bag(x[1], x[0], EB().offsets(x[2]).mode(kMax).padding_idx(4));
  });
  check("embedding_bag_mean_padding", 3, [](const Ts& x) {
    return F::embedding_bag(x[1], x[0], EB().offsets(x[2]).mode(kMean).padding_idx(4));
  });
  check("embedding_bag_psw_padding", 4, [](const Ts& x) {
    return F::embedding_bag(x[1], x[0],
                            EB().offsets(x[2]).mode(kSum).padding_idx(1).per_sample_weights(x[3]));
  });
  check("embedding_bag_empty_input", 3,
        [](const Ts& x) { return F::embedding_bag(x[1], x[0], EB().offsets(x[2]).mode(kMax)); });
}

// As 1.13's node, the weight is kept only for per_sample_weights' gradient:
// without them it may change in place before the backward.
TEST(NnCompositeGrad, EmbeddingBagKeepsTheWeightOnlyForPerSampleWeights) {
  Tensor w = ones({4, 2}).requires_grad_();
  Tensor y = F::embedding_bag(tensor(std::vector<int64_t>{0, 1, 1}), w,
                              EB().offsets(tensor(std::vector<int64_t>{0, 2})).mode(kSum));
  {
    NoGradGuard guard;
    w.mul_(2);
  }
  y.sum().backward();
  EXPECT_TRUE(w.grad().equal(tensor({{1.0f, 1.0f}, {2.0f, 2.0f}, {0.0f, 0.0f}, {0.0f, 0.0f}})));
}

}  // namespace
}  // namespace ember
