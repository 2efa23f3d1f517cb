// scaled_dot_product_attention against PyTorch 2.x's math formula
// (tools/golden/attention.py writes testdata/sdpa_golden.inc), its
// gradients against finite differences, reduced precision and errors.

#include "nn/functional/attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace nn {
namespace functional {
namespace {

using ::ember::testing::find_golden;
using ::ember::testing::GoldenEntry;
using ::ember::testing::near_golden;

const GoldenEntry kGolden[] = {
#include "nn/functional/testdata/sdpa_golden.inc"
};

bool has_golden(const std::string& name) {
  for (const GoldenEntry& e : kGolden) {
    if (name == e.name) return true;
  }
  return false;
}

Tensor input(const std::string& name, ScalarType dtype) {
  return ::ember::testing::golden_tensor(find_golden(kGolden, name)).to(dtype);
}

struct Case {
  const char* name;
  bool is_causal = false;
  std::optional<double> scale;
  bool gqa = false;
};

const Case kCases[] = {
    {"basic"},          {"three_d"},
    {"two_d"},          {"broadcast_batch"},
    {"bool_mask"},      {"float_mask"},
    {"masked_row"},     {"causal_square", true},
    {"causal_wide", true}, {"scale", false, 0.3},
    {"negative_scale", false, -0.7}, {"gqa", false, std::nullopt, true},
};

// Output and the gradients of sum(out * w) in `dtype`, within `tol`.
void check_case(const Case& c, ScalarType dtype, double tol) {
  SCOPED_TRACE(std::string(c.name) + " " + dtype_name(dtype));
  const std::string p = std::string("sdpa.") + c.name + ".";
  Tensor q = input(p + "q", dtype).requires_grad_();
  Tensor k = input(p + "k", dtype).requires_grad_();
  Tensor v = input(p + "v", dtype).requires_grad_();
  Tensor mask;
  if (has_golden(p + "mask")) {
    mask = ::ember::testing::golden_tensor(find_golden(kGolden, p + "mask"));
    if (mask.dtype() != kBool) mask = mask.to(dtype);
  }
  Tensor out = scaled_dot_product_attention(q, k, v, mask, 0.0, c.is_causal, c.scale, c.gqa);
  EXPECT_TRUE(near_golden(out, find_golden(kGolden, p + "out"), dtype, tol));
  (out * input(p + "w", dtype)).sum().backward();
  EXPECT_TRUE(near_golden(q.grad(), find_golden(kGolden, p + "gq"), dtype, tol));
  EXPECT_TRUE(near_golden(k.grad(), find_golden(kGolden, p + "gk"), dtype, tol));
  EXPECT_TRUE(near_golden(v.grad(), find_golden(kGolden, p + "gv"), dtype, tol));
}

TEST(ScaledDotProductAttentionTest, MatchesPyTorchInDouble) {
  for (const Case& c : kCases) check_case(c, kDouble, 1e-12);
}

TEST(ScaledDotProductAttentionTest, MatchesPyTorchInFloat) {
  for (const Case& c : kCases) check_case(c, kFloat, 1e-5);
}

// A query whose keys are all masked gets zeros and passes zero gradient,
// never NaN (PyTorch >= 2.5's _safe_softmax).
TEST(ScaledDotProductAttentionTest, FullyMaskedRowIsZeroWithFiniteGradients) {
  Tensor q = randn({1, 3, 4}, kDouble).requires_grad_();
  Tensor k = randn({1, 5, 4}, kDouble).requires_grad_();
  Tensor v = randn({1, 5, 4}, kDouble).requires_grad_();
  Tensor mask = ones({3, 5}, kBool);
  mask.select(0, 1).fill_(false);
  Tensor out = scaled_dot_product_attention(q, k, v, mask);
  EXPECT_TRUE(out.select(1, 1).eq(0).all().item<bool>());
  out.sum().backward();
  EXPECT_FALSE(q.grad().isnan().any().item<bool>());
  EXPECT_TRUE(q.grad().select(1, 1).eq(0).all().item<bool>());
  EXPECT_FALSE(k.grad().isnan().any().item<bool>());
}

TEST(ScaledDotProductAttentionTest, GradcheckAndGradgradcheck) {
  manual_seed(3);
  Tensor q = randn({2, 3, 4}, kDouble).requires_grad_();
  Tensor k = randn({2, 5, 4}, kDouble).requires_grad_();
  Tensor v = randn({2, 5, 3}, kDouble).requires_grad_();
  Tensor fmask = randn({3, 5}, kDouble);
  autograd::GradcheckOptions opts;
  opts.check_grad_grad = true;
  EXPECT_EQ(autograd::gradcheck(
                [&](const autograd::variable_list& in) -> autograd::variable_list {
                  return {scaled_dot_product_attention(in[0], in[1], in[2], fmask)};
                },
                {q, k, v}, opts),
            "");
  EXPECT_EQ(autograd::gradcheck(
                [&](const autograd::variable_list& in) -> autograd::variable_list {
                  return {scaled_dot_product_attention(in[0], in[1], in[2], {}, 0.0,
                                                       /*is_causal=*/true)};
                },
                {q, k.narrow(1, 0, 3).detach().requires_grad_(),
                 v.narrow(1, 0, 3).detach().requires_grad_()},
                opts),
            "");
}

// Reduced precision runs in float32 inside and comes back in its dtype,
// within its rounding of the float32 result.
TEST(ScaledDotProductAttentionTest, HalfAndBFloat16FollowFloat) {
  manual_seed(4);
  Tensor q = randn({2, 2, 6, 8}), k = randn({2, 2, 7, 8}), v = randn({2, 2, 7, 8});
  Tensor want = scaled_dot_product_attention(q, k, v, {}, 0.0, true);
  for (ScalarType t : {kHalf, kBFloat16}) {
    Tensor got = scaled_dot_product_attention(q.to(t), k.to(t), v.to(t), {}, 0.0, true);
    EXPECT_EQ(got.dtype(), t);
    const double tol = t == kHalf ? 5e-3 : 3e-2;
    EXPECT_TRUE(allclose(got.to(kFloat), want, tol, tol)) << dtype_name(t);
  }
}

// Dropout scales the kept weights by 1 / (1 - p) and draws its mask from
// the default generator: the same seed gives the same result.
TEST(ScaledDotProductAttentionTest, DropoutIsSeededAndUnbiasedInExpectation) {
  Tensor q = randn({1, 4, 8}), k = randn({1, 6, 8}), v = ones({1, 6, 1});
  manual_seed(5);
  Tensor a = scaled_dot_product_attention(q, k, v, {}, 0.5);
  manual_seed(5);
  Tensor b = scaled_dot_product_attention(q, k, v, {}, 0.5);
  EXPECT_TRUE(equal(a, b));
  // With v all ones each output is sum(kept weights) / (1 - p): its mean
  // over many draws approaches 1.
  Tensor many = scaled_dot_product_attention(q.expand({4000, 4, 8}), k.expand({4000, 6, 8}),
                                             v.expand({4000, 6, 1}), {}, 0.5);
  EXPECT_NEAR(many.mean().item<double>(), 1.0, 0.03);
}

TEST(ScaledDotProductAttentionTest, Errors) {
  Tensor q = randn({2, 3, 4}), k = randn({2, 5, 4}), v = randn({2, 5, 4});
  EXPECT_THROW(
      {
        try {
          scaled_dot_product_attention(q, k.to(kDouble), v);
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("Expected query, key, and value to have the same "
                                               "dtype, but got query.dtype: Float key.dtype: "
                                               "Double and value.dtype: Float instead."),
                    std::string::npos)
              << e.what();
          throw;
        }
      },
      Error);
  EXPECT_THROW(scaled_dot_product_attention(q, k, v, ones({3, 5}, kBool), 0.0, true), Error);
  EXPECT_THROW(scaled_dot_product_attention(randn({4}), k, v), Error);
  EXPECT_THROW(scaled_dot_product_attention(q, k, v, ones({3, 5}, kLong)), Error);
  EXPECT_THROW(scaled_dot_product_attention(q, k, v, {}, 1.5), ValueError);
  EXPECT_THROW(scaled_dot_product_attention(randn({2, 3, 3, 4}), randn({2, 2, 5, 4}),
                                            randn({2, 2, 5, 4}), {}, 0.0, false, std::nullopt,
                                            /*enable_gqa=*/true),
               Error);
  // Without enable_gqa, head counts must broadcast.
  EXPECT_THROW(scaled_dot_product_attention(randn({2, 4, 3, 4}), randn({2, 2, 5, 4}),
                                            randn({2, 2, 5, 4})),
               Error);
}

}  // namespace
}  // namespace functional
}  // namespace nn
}  // namespace ember
