// clip_grad_norm_ and clip_grad_value_ against PyTorch 1.13
// (tools/golden/optim_more.py): the total norm and the clipped float32
// grads for norms 2, 1, 3 and infinity; parameters without a grad; errors.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "optim/optim.h"
#include "optim/testing/optim_golden.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace nn {
namespace utils {
namespace {

using ::ember::testing::make_input;
using ::ember::testing::near_golden;

const ::ember::optim::testing::GoldenTables& tables() {
  return ::ember::optim::testing::optim_more_tables();
}

// The generator's parameters: w and b with float32 grads, and one without.
struct ClipParams {
  Tensor w = zeros({3, 4}, kFloat).requires_grad_();
  Tensor b = zeros({4}, kFloat).requires_grad_();
  Tensor frozen = zeros({2}, kFloat).requires_grad_();
  ClipParams() {
    w.mutable_grad() = make_input({3, 4}, kFloat, 1);
    b.mutable_grad() = make_input({4}, kFloat, 7) * 3;
  }
  std::vector<Tensor> all() const { return {w, b, frozen}; }
};

TEST(ClipGradTest, ClipGradNormMatchesPyTorch) {
  const double inf = std::numeric_limits<double>::infinity();
  const struct {
    const char* name;
    double max_norm, norm_type;
  } cases[] = {{"l2", 1.0, 2.0}, {"l1", 2.5, 1.0}, {"inf", 0.5, inf}, {"p3", 1.5, 3.0},
               {"no_clip", 100.0, 2.0}};
  for (const auto& c : cases) {
    ClipParams p;
    Tensor total = clip_grad_norm_(p.all(), c.max_norm, c.norm_type);
    const std::string prefix = std::string("clip_norm_") + c.name;
    EXPECT_TRUE(near_golden(total, tables().golden(prefix + ".total"), kFloat, 1e-6)) << c.name;
    EXPECT_TRUE(near_golden(p.w.grad(), tables().golden(prefix + ".w"), kFloat, 1e-6)) << c.name;
    EXPECT_TRUE(near_golden(p.b.grad(), tables().golden(prefix + ".b"), kFloat, 1e-6)) << c.name;
    EXPECT_FALSE(p.frozen.grad().defined());
  }
}

// The grads are scaled in place: the tensors a caller holds see it.
TEST(ClipGradTest, ClipGradNormScalesInPlace) {
  ClipParams p;
  Tensor held = p.w.grad();
  clip_grad_norm_(p.all(), 1.0);
  EXPECT_TRUE(held.is_same(p.w.grad()));
  EXPECT_NEAR(norm(stack({norm(p.w.grad()), norm(p.b.grad())})).item<double>(), 1.0, 1e-5);
}

TEST(ClipGradTest, ClipGradNormWithoutGrads) {
  Tensor p = zeros({2}, kFloat).requires_grad_();
  Tensor total = clip_grad_norm_(p, 1.0);
  EXPECT_EQ(total.dim(), 0);
  EXPECT_EQ(total.item<double>(), 0.0);
}

TEST(ClipGradTest, ClipGradNormNonFinite) {
  ClipParams p;
  p.b.mutable_grad().index_put_({1}, std::numeric_limits<double>::infinity());
  Tensor before = p.w.grad().clone();
  tables().expect_error("clip_nonfinite", [&] {
    clip_grad_norm_({p.w, p.b}, 1.0, 2.0, /*error_if_nonfinite=*/true);
  });
  EXPECT_TRUE(p.w.grad().equal(before));
  // Without the check, PyTorch scales by the infinite norm: the finite
  // grads become zeros.
  clip_grad_norm_({p.w, p.b}, 1.0);
  EXPECT_TRUE(p.w.grad().equal(zeros({3, 4}, kFloat)));
}

TEST(ClipGradTest, ClipGradValueMatchesPyTorch) {
  ClipParams p;
  clip_grad_value_(p.all(), 0.6);
  EXPECT_TRUE(near_golden(p.w.grad(), tables().golden("clip_value.w"), kFloat));
  EXPECT_TRUE(near_golden(p.b.grad(), tables().golden("clip_value.b"), kFloat));
  EXPECT_FALSE(p.frozen.grad().defined());
}

}  // namespace
}  // namespace utils
}  // namespace nn
}  // namespace ember
