// Matrix products against PyTorch 1.13 (values from tools/golden/linalg.py).

#include "tensor/linalg.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tensor/empty.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::error_of;
using testing::GoldenEntry;
using testing::make_input;  // mk() in tools/golden/golden_util.py

const GoldenEntry kGolden[] = {
#include "tensor/testdata/linalg_golden.inc"
};

// Sizes, dtype and values; floating values within `rel` of PyTorch's
// float64 result (relative to max(1, |value|)); integers exact.
::testing::AssertionResult Near(const Tensor& t, const std::string& name, ScalarType dtype,
                                double rel = 0) {
  return testing::near_golden(t, testing::find_golden(kGolden, name), dtype, rel);
}

constexpr double kF = 1e-6;

TEST(MmTest, FloatLayouts) {
  Tensor a = make_input({3, 4});
  Tensor b = make_input({4, 5}, kFloat, 1);
  EXPECT_TRUE(Near(a.mm(b), "mm", kFloat, kF));
  EXPECT_TRUE(Near(make_input({4, 3}).t().mm(b), "mm_transposed_a", kFloat, kF));
  EXPECT_TRUE(Near(a.mm(make_input({5, 4}, kFloat, 1).t()), "mm_transposed_b", kFloat, kF));
  EXPECT_TRUE(Near(make_input({6, 4}).slice(0, 0, 6, 2).mm(make_input({4, 10}, kFloat, 1).slice(1, 1, 10, 2)),
                   "mm_sliced", kFloat, kF));
  EXPECT_TRUE(Near(make_input({1, 4}).expand({3, 4}).mm(b), "mm_expanded", kFloat, kF));
  EXPECT_TRUE(Near(make_input({3, 4}, kDouble).mm(make_input({4, 5}, kDouble, 1)), "mm", kDouble));
}

TEST(MmTest, LargerThanOneBlasBlock) {
  Tensor a = empty({64, 48}, kFloat), b = empty({48, 80}, kFloat);
  for (int64_t i = 0; i < a.numel(); ++i) a.data_ptr<float>()[i] = (i % 13) * 0.125f;
  for (int64_t i = 0; i < b.numel(); ++i) b.data_ptr<float>()[i] = (i % 7) * 0.5f;
  EXPECT_TRUE(Near(a.mm(b), "mm_big", kFloat, kF));
  EXPECT_TRUE(Near(a.t().contiguous().t().mm(b.t().contiguous().t()), "mm_big", kFloat, kF));
}

TEST(MmTest, IntegerAndReducedFloat) {
  EXPECT_TRUE(Near(make_input({3, 4}, kInt).mm(make_input({4, 5}, kInt, 1)), "mm_int32", kInt));
  EXPECT_TRUE(Near(make_input({3, 4}, kLong).t().contiguous().t().mm(make_input({4, 5}, kLong, 1)),
                   "mm_int64", kLong));
  EXPECT_TRUE(Near(make_input({3, 4}, kBFloat16).mm(make_input({4, 5}, kBFloat16, 1)),
                   "mm_bfloat16", kBFloat16));
  EXPECT_TRUE(Near(empty({2, 0}).mm(empty({0, 3})), "mm_empty_k", kFloat));
}

TEST(MmTest, Errors) {
  EXPECT_EQ(error_of([] { empty({2, 3}).mm(empty({4, 5})); }),
            "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  EXPECT_EQ(error_of([] { empty({2, 3}).mm(empty({3, 5}, kDouble)); }),
            "expected scalar type Float but found Double");
  EXPECT_EQ(error_of([] { empty({3}).mm(empty({3, 5})); }), "self must be a matrix");
  EXPECT_EQ(error_of([] { empty({2, 3}).mm(empty({3})); }), "mat2 must be a matrix");
  EXPECT_EQ(error_of([] { empty({2, 3}, kInt).mm(empty({3, 2}, kLong)); }),
            "expected scalar type Int but found Long");
  EXPECT_EQ(error_of([] { empty({3, 3}, kBool).mm(empty({3, 3}, kBool)); }),
            "\"addmm_impl_cpu_\" not implemented for 'Bool'");
}

TEST(MvDotTest, Values) {
  EXPECT_TRUE(Near(make_input({3, 4}).mv(make_input({4}, kFloat, 2)), "mv", kFloat, kF));
  EXPECT_TRUE(Near(make_input({4, 3}).t().mv(make_input({8}, kFloat, 2).slice(0, 0, 8, 2)),
                   "mv_transposed", kFloat, kF));
  EXPECT_TRUE(Near(make_input({3, 4}, kLong).mv(make_input({4}, kLong, 2)), "mv_int", kLong));
  EXPECT_TRUE(Near(make_input({7}).dot(make_input({7}, kFloat, 3)), "dot", kFloat, kF));
  EXPECT_TRUE(Near(make_input({14}, kDouble).slice(0, 0, 14, 2).dot(make_input({7}, kDouble, 3)),
                   "dot_strided", kDouble));
  EXPECT_TRUE(Near(make_input({7}, kInt).dot(make_input({7}, kInt, 3)), "dot_int", kInt));
}

TEST(MvDotTest, Errors) {
  EXPECT_EQ(error_of([] { empty({2, 3}).mv(empty({4})); }), "size mismatch, got 2, 2x3,4");
  EXPECT_EQ(error_of([] { empty({2, 3}).mv(empty({3, 1})); }),
            "vector + matrix @ vector expected, got 1, 2, 2");
  EXPECT_EQ(error_of([] { empty({2, 3}).mv(empty({3}, kDouble)); }),
            "expected scalar type Float but found Double");
  EXPECT_EQ(error_of([] { empty({2, 3}).dot(empty({2, 3})); }),
            "1D tensors expected, but got 2D and 2D tensors");
  EXPECT_EQ(error_of([] { empty({3}).dot(empty({4})); }),
            "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of "
            "elements, but got 3 and 4 elements respectively");
  EXPECT_EQ(error_of([] { empty({3}).dot(empty({3}, kDouble)); }),
            "dot : expected both vectors to have same dtype, but found Float and Double");
  EXPECT_EQ(error_of([] { empty({3}, kBool).dot(empty({3}, kBool)); }),
            "\"dot\" not implemented for 'Bool'");
}

TEST(BmmTest, ValuesAndErrors) {
  EXPECT_TRUE(Near(make_input({2, 3, 4}).bmm(make_input({2, 4, 5}, kFloat, 1)), "bmm", kFloat, kF));
  EXPECT_TRUE(Near(make_input({2, 4, 3}).transpose(1, 2).bmm(
                       make_input({5, 4, 2}, kFloat, 1).permute({2, 1, 0})),
                   "bmm_transposed", kFloat, kF));
  EXPECT_EQ(error_of([] { empty({2, 3}).bmm(empty({2, 3})); }), "batch1 must be a 3D tensor");
  EXPECT_EQ(error_of([] { empty({2, 2, 3}).bmm(empty({2, 3})); }), "batch2 must be a 3D tensor");
  EXPECT_EQ(error_of([] { empty({2, 2, 3}).bmm(empty({3, 3, 4})); }),
            "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3].");
  EXPECT_EQ(error_of([] { empty({2, 2, 3}).bmm(empty({2, 3, 4}, kDouble)); }),
            "expected scalar type Float but found Double");
}

TEST(MatmulTest, EveryRankCase) {
  Tensor a = make_input({3, 4});
  Tensor b = make_input({4, 5}, kFloat, 1);
  EXPECT_TRUE(Near(a.matmul(b), "mm", kFloat, kF));
  EXPECT_TRUE(Near(a.matmul(make_input({4}, kFloat, 2)), "mv", kFloat, kF));
  EXPECT_TRUE(Near(make_input({7}).matmul(make_input({7}, kFloat, 3)), "dot", kFloat, kF));
  EXPECT_TRUE(Near(make_input({4}, kFloat, 2).matmul(b), "vec_mat", kFloat, kF));
  EXPECT_TRUE(Near(make_input({2, 3, 4}).matmul(b), "matmul_3d_2d", kFloat, kF));
  EXPECT_TRUE(Near(make_input({2, 3, 4}).matmul(make_input({4}, kFloat, 2)), "matmul_3d_1d", kFloat,
                   kF));
  EXPECT_TRUE(Near(make_input({4}, kFloat, 2).matmul(make_input({2, 4, 5}, kFloat, 1)),
                   "matmul_1d_3d", kFloat, kF));
  EXPECT_TRUE(Near(a.matmul(make_input({2, 4, 5}, kFloat, 1)), "matmul_2d_3d", kFloat, kF));
}

TEST(MatmulTest, BroadcastAndNonContiguousBatches) {
  EXPECT_TRUE(Near(make_input({2, 1, 3, 4}).matmul(make_input({3, 4, 5}, kFloat, 1)),
                   "matmul_broadcast", kFloat, kF));
  EXPECT_TRUE(Near(make_input({2, 3, 3, 4}).transpose(-1, -2).matmul(make_input({2, 3, 3, 2}, kFloat, 1)),
                   "matmul_4d_transposed", kFloat, kF));
  EXPECT_TRUE(Near(make_input({3, 2, 4}).transpose(0, 1).matmul(make_input({4, 5}, kFloat, 1)),
                   "matmul_3d_2d_noncontig", kFloat, kF));
  EXPECT_TRUE(Near(make_input({2, 3, 4}, kLong).matmul(make_input({2, 4, 2}, kLong, 1)),
                   "matmul_int_batched", kLong));
}

TEST(MatmulTest, Errors) {
  EXPECT_EQ(error_of([] { empty({}).matmul(empty({2, 2})); }),
            "both arguments to matmul need to be at least 1D, but they are 0D and 2D");
  EXPECT_EQ(error_of([] { empty({2, 3}).matmul(empty({4})); }), "size mismatch, got 2, 2x3,4");
  EXPECT_EQ(error_of([] { empty({4}).matmul(empty({3, 2})); }),
            "mat1 and mat2 shapes cannot be multiplied (1x4 and 3x2)");
  EXPECT_EQ(error_of([] { empty({2, 2, 3}).matmul(empty({2, 4, 4})); }),
            "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].");
  EXPECT_EQ(error_of([] { empty({2, 2, 3}).matmul(empty({3, 3, 4})); }),
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
            "dimension 0");
  EXPECT_EQ(error_of([] { empty({2, 2, 3}).matmul(empty({4})); }), "size mismatch, got 4, 4x3,4");
  EXPECT_EQ(error_of([] { empty({2, 2, 3}).matmul(empty({4, 5})); }),
            "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x5)");
  EXPECT_EQ(error_of([] { empty({2, 3}).matmul(empty({2, 4, 5})); }),
            "mat1 and mat2 shapes cannot be multiplied (10x4 and 3x2)");
  EXPECT_EQ(error_of([] { empty({3}).matmul(empty({2, 4, 5})); }), "size mismatch, got 10, 10x4,3");
  EXPECT_EQ(error_of([] { empty({2, 2, 3}).matmul(empty({2, 3, 2}, kDouble)); }),
            "expected scalar type Float but found Double");
}

TEST(OuterTest, ValuesPromotionErrors) {
  EXPECT_TRUE(Near(make_input({3}).outer(make_input({4}, kFloat, 1)), "outer", kFloat, kF));
  EXPECT_TRUE(Near(make_input({3}, kInt).outer(make_input({4}, kDouble, 1)), "outer_promote",
                   kDouble));
  EXPECT_TRUE(Near(make_input({3}, kLong).outer(make_input({4}, kLong, 1)), "outer_int", kLong));
  EXPECT_EQ(error_of([] { empty({2, 3}).outer(empty({3})); }),
            "outer: Expected 1-D argument self, but got 2-D");
  EXPECT_EQ(error_of([] { empty({3}).outer(empty({2, 2})); }),
            "outer: Expected 1-D argument vec2, but got 2-D");
}

TEST(AddmmTest, BetaAlphaAndBroadcast) {
  Tensor a = make_input({3, 4});
  Tensor b = make_input({4, 5}, kFloat, 1);
  EXPECT_TRUE(Near(make_input({3, 5}, kFloat, 4).addmm(a, b, 0.5, 2), "addmm", kFloat, kF));
  EXPECT_TRUE(Near(make_input({5}, kFloat, 4).addmm(a, b), "addmm_broadcast", kFloat, kF));
  Tensor nan = empty({3, 5}, kFloat);
  for (int64_t i = 0; i < 15; ++i) nan.data_ptr<float>()[i] = NAN;
  EXPECT_TRUE(Near(nan.addmm(a, b, 0), "addmm_beta0", kFloat, kF));
  EXPECT_TRUE(Near(make_input({3, 5}, kLong, 4).addmm(make_input({3, 4}, kLong),
                                                     make_input({4, 5}, kLong, 1), 2, 3),
                   "addmm_int", kLong));
}

TEST(AddmmTest, Errors) {
  EXPECT_EQ(error_of([] { empty({2, 2}).addmm(empty({2, 3}), empty({4, 2})); }),
            "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)");
  EXPECT_EQ(error_of([] { empty({3, 2}).addmm(empty({2, 3}), empty({3, 2})); }),
            "The expanded size of the tensor (2) must match the existing size (3) at "
            "non-singleton dimension 0.  Target sizes: [2, 2].  Tensor sizes: [3, 2]");
  EXPECT_EQ(error_of([] { empty({2}).addmm(empty({2, 3}), empty({3, 2}, kDouble)); }),
            "self and mat2 must have the same dtype");
  EXPECT_EQ(error_of([] { empty({2}).addmm(empty({2, 3}, kDouble), empty({3, 2})); }),
            "mat1 and mat2 must have the same dtype");
  EXPECT_EQ(error_of([] { empty({2}).addmm(empty({3}), empty({3, 2})); }),
            "mat1 must be a matrix, got 1-D tensor");
}

}  // namespace
}  // namespace ember
