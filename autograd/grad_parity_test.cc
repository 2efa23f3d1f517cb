// Gradients where ember's derivative formulas differed from PyTorch 1.13's,
// found by `sweep --grad` (tools/parity/sweep.cc), against 1.13's values
// (tools/golden/grad_parity.py), bit for bit: NaN operands of
// maximum/minimum (both sides get the gradient), max()/min() (shared among
// the NaNs) and amax/amin (a NaN slice's gradient is NaN); clamp with
// tensor bounds (min gets nothing where min >= max); prod of a 0-dim input
// (the gradient passes), of several zeros (zeros, whatever else is there)
// and along a dim with zeros; masked_select with a mask that broadcasts
// self (summed back); cumprod through zeros, infinities and NaN (1.13's
// first-zero algorithm); hardsigmoid's float 1/6 in float64 too; addcdiv's
// grouping in float32.
#include <cmath>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "nn/functional/activation.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

const testing::GoldenEntry kGolden[] = {
#include "autograd/testdata/grad_parity_golden.inc"
};

Tensor G(const std::string& name) {
  return testing::golden_tensor(testing::find_golden(kGolden, name));
}

bool has(const std::string& name) {
  for (const testing::GoldenEntry& e : kGolden) {
    if (name == e.name) return true;
  }
  return false;
}

// Runs fn on the case's inputs (floating ones as leaves), back-propagates
// the case's gout from the first output and checks each leaf's gradient.
template <typename Fn>
void check(const std::string& name, int inputs, Fn fn) {
  std::vector<Tensor> xs;
  for (int i = 0; i < inputs; ++i) {
    Tensor x = G(name + "/in" + std::to_string(i));
    if (is_floating_point(x.scalar_type())) x.requires_grad_();
    xs.push_back(x);
  }
  fn(xs).backward(G(name + "/gout"));
  for (int i = 0; i < inputs; ++i) {
    if (!xs[i].requires_grad()) continue;
    if (has(name + "/nograd" + std::to_string(i))) {  // no gradient reaches it in 1.13
      EXPECT_FALSE(xs[i].grad().defined()) << name << " input " << i;
      continue;
    }
    const std::string g = name + "/grad" + std::to_string(i);
    EXPECT_TRUE(testing::matches_golden(xs[i].grad(), testing::find_golden(kGolden, g))) << g;
  }
}

using Ts = std::vector<Tensor>;

TEST(GradParity, MaximumMinimumWithNaN) {
  check("maximum_nan", 2, [](const Ts& x) { return maximum(x[0], x[1]); });
  check("minimum_nan", 2, [](const Ts& x) { return minimum(x[0], x[1]); });
}

TEST(GradParity, ClampTensorBoundsWhereMinIsNotBelowMax) {
  check("clamp_tensor_bounds", 3, [](const Ts& x) { return x[0].clamp(x[1], x[2]); });
}

TEST(GradParity, AmaxAminOfNaNSlices) {
  check("amax_nan", 1, [](const Ts& x) { return x[0].amax({1}); });
  check("amin_nan", 1, [](const Ts& x) { return x[0].amin({0}); });
  check("amax_all_nan", 1, [](const Ts& x) { return x[0].amax(); });
}

TEST(GradParity, MaxMinOverEverythingShareAmongNaNs) {
  check("max_all_nan", 1, [](const Ts& x) { return x[0].max(); });
  check("min_all_nan", 1, [](const Ts& x) { return x[0].min(); });
}

TEST(GradParity, ProdZeroDimAndZeros) {
  check("prod_0dim_nan", 1, [](const Ts& x) { return x[0].prod(); });
  check("prod_0dim_inf_dim", 1, [](const Ts& x) { return x[0].prod(0); });
  check("prod_two_zeros_nan", 1, [](const Ts& x) { return x[0].prod(); });
  check("prod_one_zero_inf", 1, [](const Ts& x) { return x[0].prod(); });
  check("prod_dim_zeros", 1, [](const Ts& x) { return x[0].prod(1); });
}

TEST(GradParity, MaskedSelectWithABroadcastingMask) {
  check("masked_select_broadcast", 2, [](const Ts& x) { return x[0].masked_select(x[1]); });
}

TEST(GradParity, CumprodThroughZeros) {
  check("cumprod_zeros", 1, [](const Ts& x) { return x[0].cumprod(0); });
  check("cumprod_first_zero", 1, [](const Ts& x) { return x[0].cumprod(1); });
  check("cumprod_zeros_f32", 1, [](const Ts& x) { return x[0].cumprod(0); });
}

TEST(GradParity, HardsigmoidMultipliesByFloatSixth) {
  check("hardsigmoid_f64", 1, [](const Ts& x) { return nn::functional::hardsigmoid(x[0]); });
  check("hardsigmoid_f32", 1, [](const Ts& x) { return nn::functional::hardsigmoid(x[0]); });
}

TEST(GradParity, AddcdivGroupsAsPyTorch) {
  check("addcdiv_f32", 3, [](const Ts& x) { return x[0].addcdiv(x[1], x[2], 0.7); });
}

// Ops 1.13 records as one node, where the composition's chain rule differed
// (autograd/derivatives/composite.cc).
TEST(GradParity, NansumNanmeanNanToNum) {
  check("nanmean_all_nan_slice", 1, [](const Ts& x) { return x[0].nanmean({1}); });
  check("nansum_inf_grad", 1, [](const Ts& x) { return x[0].nansum(); });
  check("nan_to_num_infinities", 1, [](const Ts& x) { return x[0].nan_to_num(); });
}

TEST(GradParity, SgnOfRealsIsZero) {
  check("sgn_nan_zero_inf", 1, [](const Ts& x) { return x[0].sgn(); });
}

TEST(GradParity, LogitAtAndBeyondItsBounds) {
  check("logit_bounds", 1, [](const Ts& x) { return x[0].logit(); });
  check("logit_eps_bounds", 1, [](const Ts& x) { return x[0].logit(0.25); });
}

TEST(GradParity, XlogyAtZero) {
  check("xlogy_zero_self", 2, [](const Ts& x) { return x[0].xlogy(x[1]); });
  check("xlogy_scalar_other_zero", 1, [](const Ts& x) { return x[0].xlogy(0.0); });
  check("xlogy_scalar_self", 1, [](const Ts& x) { return xlogy(0.0, x[0]); });
}

TEST(GradParity, LogaddexpLerpBaddbmm) {
  check("logaddexp_infinities", 2, [](const Ts& x) { return x[0].logaddexp(x[1]); });
  check("logaddexp2_values", 2, [](const Ts& x) { return x[0].logaddexp2(x[1]); });
  check("lerp_tensor", 3, [](const Ts& x) { return x[0].lerp(x[1], x[2]); });
  check("baddbmm_beta", 3, [](const Ts& x) { return x[0].baddbmm(x[1], x[2], 0.5, 2.0); });
}

TEST(GradParity, DistAndNormAsNormBackward) {
  const Tensor other = tensor({1.0, 3.0}, kDouble);
  check("dist_p0", 1, [&](const Ts& x) { return x[0].dist(other, 0); });
  check("dist_inf_nan", 2, [](const Ts& x) { return x[0].dist(x[1], INFINITY); });
  check("dist_p_half_zero", 2, [](const Ts& x) { return x[0].dist(x[1], 0.5); });
  check("dist_p3_equal", 2, [](const Ts& x) { return x[0].dist(x[1], 3); });
  check("norm_p0", 1, [](const Ts& x) { return x[0].norm(0); });
  check("norm_inf_ties_nan", 1, [](const Ts& x) { return x[0].norm(INFINITY, {1}); });
  check("norm_p1_5", 1, [](const Ts& x) { return x[0].norm(1.5); });
  check("norm_p2_zero", 1, [](const Ts& x) { return x[0].norm(2, {0}); });
}

TEST(GradParity, VarStdWithoutDegreesOfFreedom) {
  check("var_one_element", 1, [](const Ts& x) { return x[0].var(); });
  check("var_one_element_nan", 1, [](const Ts& x) { return x[0].var(); });
  check("var_dof_negative", 1, [](const Ts& x) { return var(x[0], std::nullopt, int64_t{3}); });
  check("var_dim_dof_zero", 1, [](const Ts& x) {
    return var(x[0], std::optional<IntArrayRef>(IntArrayRef{0}), int64_t{3});
  });
  check("std_one_element", 1, [](const Ts& x) { return x[0].std(); });
}

TEST(GradParity, PowExponentGradientAtZeroBase) {
  check("pow_exponent_nan_at_zero_base", 2, [](const Ts& x) { return x[0].pow(x[1]); });
}

TEST(GradParity, SlogdetOfSingularMatricesSolvesWithTheForwardsLU) {
  const auto logabsdet = [](const Tensor& a) { return std::get<1>(linalg_slogdet(a)); };
  check("slogdet_singular", 1, [&](const Ts& x) { return logabsdet(x[0]); });
  check("slogdet_singular_t", 1, [&](const Ts& x) { return logabsdet(x[0].t()); });
  check("slogdet_zero", 1, [&](const Ts& x) { return logabsdet(x[0]); });
  check("slogdet_regular_t", 1, [&](const Ts& x) { return logabsdet(x[0].t()); });
  check("logdet_singular", 1, [](const Ts& x) { return logdet(x[0]); });
}

TEST(GradParity, SlogdetUnderCreateGraphRaisesForSingularMatrices) {
  // 1.13: "torch.linalg.solve: The solver failed because the input matrix is singular."
  const Tensor a = tensor({1.0, 2.0, 2.0, 4.0}, kDouble).view({2, 2}).requires_grad_();
  const Tensor l = std::get<1>(linalg_slogdet(a));
  EXPECT_THROW(autograd::grad({l}, {a}, {}, std::nullopt, /*create_graph=*/true), Error);
}

TEST(GradParity, MatrixPowerZeroAndEmptyPinvStayInTheGraph) {
  check("matrix_power_zero", 1, [](const Ts& x) { return x[0].matrix_power(0); });
  check("pinv_empty", 1, [](const Ts& x) {
    const Tensor p = linalg_pinv(x[0]);
    EXPECT_TRUE(p.requires_grad());
    EXPECT_EQ(p.sizes(), IntArrayRef({3, 0}));
    return p;
  });
}

TEST(GradParity, SortAndQuantileOfLongRowsWithTies) {
  check("sort_long_ties", 1, [](const Ts& x) { return std::get<0>(x[0].sort()); });
  check("sort_long_ties_desc", 1, [](const Ts& x) { return std::get<0>(x[0].sort(-1, true)); });
  check("quantile_long_ties", 1, [](const Ts& x) { return x[0].quantile(0.3); });
  check("quantile_long_ties_nan", 1, [](const Ts& x) { return x[0].quantile(0.3); });
}

}  // namespace
}  // namespace ember
