// Gradients of the ops 1.13 records as one node where ember composes them
// (autograd/derivatives/nn_composite.cc), against 1.13's values
// (tools/golden/nn_composite_grads.py).
#include <limits>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "gtest/gtest.h"
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

}  // namespace
}  // namespace ember
