// multinomial against PyTorch 1.13's CPU draws (tools/golden/multinomial.py:
// each case is manual_seed(seed) then one call) and its errors.
#include <string>

#include <gtest/gtest.h>

#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::GoldenEntry;
using testing::GoldenError;

const GoldenEntry kGolden[] = {
#include "tensor/testdata/multinomial_golden.inc"
};
const GoldenError kErrors[] = {
#include "tensor/testdata/multinomial_errors_golden.inc"
};

const GoldenEntry& G(const std::string& name) { return testing::find_golden(kGolden, name); }

Tensor P() { return tensor({0.1f, 0.2f, 0.3f, 0.4f}); }
Tensor Rows() {
  return tensor({{1.0f, 2.0f, 3.0f, 4.0f, 0.0f},
                 {0.0f, 0.0f, 5.0f, 1.0f, 1.0f},
                 {3.0f, 3.0f, 3.0f, 3.0f, 3.0f}});
}
Tensor Wide() { return arange(1.0, 101.0); }

// Seeds as the generator script did, then compares with its draw.
void expect_draw(int seed, const std::string& name, const std::function<Tensor()>& draw) {
  manual_seed(seed);
  const std::string key = name + "_seed" + std::to_string(seed);
  EXPECT_TRUE(testing::matches_golden(draw(), G(key))) << key;
}

TEST(MultinomialTest, GumbelMaxPathDrawsPyTorchsIndices) {
  expect_draw(100, "p_1", [] { return multinomial(P(), 1); });
  expect_draw(101, "p_3", [] { return P().multinomial(3); });
  expect_draw(102, "p_4", [] { return multinomial(P(), 4); });
  expect_draw(105, "rows_2", [] { return multinomial(Rows(), 2); });
  expect_draw(108, "rows_transposed_3", [] { return multinomial(Rows().t().contiguous().t(), 3); });
  expect_draw(110, "rows_double_2", [] { return multinomial(Rows().to(kDouble), 2); });
  expect_draw(112, "wide_20", [] { return multinomial(Wide(), 20); });
  expect_draw(114, "wide_bf16_5", [] { return multinomial(Wide().to(kBFloat16), 5); });
  expect_draw(115, "one_hot_1", [] { return multinomial(tensor({0.0f, 0.0f, 1.0f}), 1); });
}

TEST(MultinomialTest, WithReplacementDrawsPyTorchsIndices) {
  expect_draw(103, "p_10_replacement", [] { return multinomial(P(), 10, true); });
  expect_draw(104, "p_1_replacement", [] { return P().multinomial(1, true); });
  expect_draw(106, "rows_7_replacement", [] { return multinomial(Rows(), 7, true); });
  expect_draw(107, "rows_transposed_replacement",
              [] { return multinomial(Rows().t().contiguous().t(), 6, true); });
  expect_draw(109, "rows_double_4_replacement",
              [] { return multinomial(Rows().to(kDouble), 4, true); });
  expect_draw(111, "wide_50_replacement", [] { return multinomial(Wide(), 50, true); });
  // bfloat16 sums and normalizes in float, as 1.13's kernel.
  expect_draw(113, "wide_bf16_30_replacement",
              [] { return multinomial(Wide().to(kBFloat16), 30, true); });
  expect_draw(116, "one_hot_5_replacement", [] {
    return multinomial(tensor({0.0f, 0.0f, 1.0f}), 5, true);
  });
  expect_draw(117, "empty_rows", [] { return multinomial(zeros({0, 3}), 2); });
}

TEST(MultinomialTest, GeneratorArgumentDrawsFromItsOwnState) {
  Generator g(7);
  manual_seed(0);  // the default generator's state must not matter
  EXPECT_TRUE(
      testing::matches_golden(multinomial(Rows(), 5, true, g), G("generator_seed7_replacement")));
  EXPECT_TRUE(testing::matches_golden(Rows().multinomial(3, false, g), G("generator_seed7_then")));
}

// float16 is refused by 1.13 on the CPU; ember draws it (as PyTorch 2.x),
// each index a category with nonzero weight, distinct without replacement.
TEST(MultinomialTest, HalfDrawsValidIndices) {
  const Tensor w = tensor({0.0f, 1.0f, 0.0f, 2.0f, 3.0f}).to(kHalf);
  const Tensor without = multinomial(w, 3);
  testing::expect_values(std::get<0>(without.sort(0)), tensor({1, 3, 4}, kLong));
  const Tensor with = multinomial(w, 200, true);
  EXPECT_EQ(with.dtype(), kLong);
  EXPECT_TRUE(((with == 1) | (with == 3) | (with == 4)).all().item<bool>());
}

// With replacement, the frequencies follow the weights.
TEST(MultinomialTest, FrequenciesFollowTheWeights) {
  manual_seed(1);
  const Tensor draws = multinomial(tensor({1.0, 3.0, 6.0}, kDouble), 20000, true);
  const Tensor freq = bincount(draws).to(kDouble) / 20000.0;
  EXPECT_NEAR(freq[0].item<double>(), 0.1, 0.01);
  EXPECT_NEAR(freq[1].item<double>(), 0.3, 0.015);
  EXPECT_NEAR(freq[2].item<double>(), 0.6, 0.015);
}

TEST(MultinomialTest, BadInputsRaisePyTorchsErrors) {
  using testing::expect_golden_error;
  expect_golden_error(kErrors, "dims_3", [] { multinomial(ones({2, 2, 2}), 1); });
  expect_golden_error(kErrors, "dims_0", [] { multinomial(tensor(1.0f), 1); });
  expect_golden_error(kErrors, "long", [] { multinomial(tensor({1, 2}, kLong), 1); });
  expect_golden_error(kErrors, "zero_samples", [] { multinomial(P(), 0); });
  expect_golden_error(kErrors, "too_many", [] { multinomial(P(), 5); });
  expect_golden_error(kErrors, "no_categories", [] { multinomial(zeros({2, 0}), 1); });
  expect_golden_error(kErrors, "negative", [] { multinomial(tensor({-1.0f, 2.0f}), 1); });
  expect_golden_error(kErrors, "inf", [] { multinomial(tensor({INFINITY, 1.0f}), 2); });
  expect_golden_error(kErrors, "nan", [] { multinomial(tensor({NAN, 1.0f}), 1); });
  expect_golden_error(kErrors, "zero_sum", [] {
    multinomial(tensor({{1.0f, 0.0f}, {0.0f, 0.0f}}), 1);
  });
  expect_golden_error(kErrors, "negative_replacement", [] {
    multinomial(tensor({1.0f, -1.0f}), 2, true);
  });
  expect_golden_error(kErrors, "inf_replacement", [] {
    multinomial(tensor({INFINITY, 0.0f}), 2, true);
  });
  expect_golden_error(kErrors, "zero_sum_replacement", [] {
    multinomial(tensor({0.0f, 0.0f}), 2, true);
  });
}

}  // namespace
}  // namespace ember
