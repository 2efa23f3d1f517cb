#include "tensor/creation.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::find_golden;
using testing::GoldenEntry;
using testing::matches_golden;
using testing::strided_view;

const GoldenEntry kGolden[] = {
#include "tensor/testdata/creation_golden.inc"
};

const GoldenEntry& G(const std::string& name) { return find_golden(kGolden, name); }

TEST(TensorFromDataTest, InfersDtypeLikePython) {
  EXPECT_TRUE(matches_golden(tensor({{1, 2}, {3, 4}}), G("tensor_int_nested")));
  EXPECT_TRUE(matches_golden(tensor({1, 2.5}), G("tensor_mixed_int_float")));
  EXPECT_TRUE(matches_golden(tensor({true, 2}), G("tensor_mixed_bool_int")));
  EXPECT_TRUE(matches_golden(tensor({{true, false, true}}), G("tensor_bool")));
  EXPECT_TRUE(matches_golden(tensor(3.5), G("tensor_scalar")));
  EXPECT_TRUE(matches_golden(tensor({{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}, {{9, 10}, {11, 12}}}),
                             G("tensor_3d")));
}

TEST(TensorFromDataTest, EmptyLists) {
  EXPECT_TRUE(matches_golden(tensor({}), G("tensor_empty")));
  EXPECT_TRUE(matches_golden(tensor({std::initializer_list<TensorDataContainer>{}}), G("tensor_empty_nested")));
}

TEST(TensorFromDataTest, ExplicitDtypeConverts) {
  EXPECT_TRUE(matches_golden(tensor({1.5, -2.7}, kLong), G("tensor_float_to_long")));
  EXPECT_TRUE(matches_golden(tensor({{1, 2}, {3, 4}}, kFloat), G("tensor_int_to_float")));
  EXPECT_TRUE(matches_golden(tensor({0.1, 0.2, 65504.0}, kHalf), G("tensor_half")));
  EXPECT_TRUE(matches_golden(tensor({0.1, 3.14159}, kBFloat16), G("tensor_bfloat16")));
}

TEST(TensorFromDataTest, DefaultDtypeFollowsSetting) {
  set_default_dtype(kDouble);
  Tensor t = tensor({1.0, 2.0});
  set_default_dtype(kFloat);
  EXPECT_EQ(t.dtype(), kDouble);
  EXPECT_EQ(tensor({1.0f, 2.0f}).dtype(), kFloat);
}

TEST(TensorFromDataTest, FromVector) {
  Tensor f = tensor(std::vector<float>{1.5f, 2.5f});
  EXPECT_EQ(f.dtype(), kFloat);
  EXPECT_EQ(f.sizes(), IntArrayRef({2}));
  EXPECT_EQ(f.data_ptr<float>()[1], 2.5f);
  EXPECT_EQ(tensor(std::vector<int>{1, 2, 3}).dtype(), kLong);
  EXPECT_EQ(tensor(std::vector<uint8_t>{1, 2}).dtype(), kByte);
  EXPECT_EQ(tensor(std::vector<bool>{true}).dtype(), kBool);
  Tensor d = tensor(std::vector<double>{1, 2}, kInt);
  EXPECT_EQ(d.dtype(), kInt);
  EXPECT_EQ(d.data_ptr<int32_t>()[1], 2);
  // Vectors nest inside braces like lists.
  Tensor m = tensor({std::vector<int64_t>{1, 2}, std::vector<int64_t>{3, 4}});
  EXPECT_TRUE(matches_golden(m, G("tensor_int_nested")));
}

TEST(TensorFromDataTest, RaggedListErrors) {
  expect_error<ValueError>([] { tensor({{1, 2, 3}, {1, 2}}); },
                          "expected sequence of length 3 at dim 1 (got 2)");
  expect_error<ValueError>([] { tensor({{{1}, {2}}, {{3}, {4}, {5}}}); },
                          "expected sequence of length 2 at dim 1 (got 3)");
  expect_error<TypeError>([] { tensor({{1, 2}, 3}); }, "not a sequence");
  expect_error<TypeError>([] { tensor({1, {2, 3}}); },
                         "'list' object cannot be interpreted as an integer");
  expect_error<TypeError>([] { tensor({1.5, {2, 3}}); }, "must be real number, not list");
}

TEST(ZerosOnesTest, DtypesAndValues) {
  Tensor z = zeros({2, 3});
  EXPECT_EQ(z.dtype(), kFloat);
  EXPECT_EQ(z.sizes(), IntArrayRef({2, 3}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(z.data_ptr<float>()[i], 0.0f);
  Tensor o = ones({4}, kLong);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(o.data_ptr<int64_t>()[i], 1);
  Tensor b = ones({2}, kBool);
  EXPECT_TRUE(b.data_ptr<bool>()[0]);
  Tensor h = ones({3}, kHalf);
  EXPECT_EQ(static_cast<float>(h.data_ptr<Half>()[2]), 1.0f);
  EXPECT_EQ(zeros({}).dim(), 0);
  expect_error<Error>([] { zeros({2, -1}); },
                     "Trying to create tensor with negative dimension -1: [2, -1]");
}

TEST(FullTest, FillValueKindPicksDtype) {
  EXPECT_TRUE(matches_golden(full({2, 3}, 1.5), G("full_float")));
  EXPECT_TRUE(matches_golden(full({2}, 7), G("full_int")));
  EXPECT_TRUE(matches_golden(full({2}, true), G("full_bool")));
  EXPECT_TRUE(matches_golden(full({2, 2}, 2.7, kInt), G("full_float_as_int32")));
}

TEST(LikeTest, TakesShapeDtypeFromNonContiguousInput) {
  Tensor src = strided_view(arange(12, kShort), {3, 4}, {1, 3});  // transposed layout
  Tensor z = zeros_like(src);
  EXPECT_EQ(z.dtype(), kShort);
  EXPECT_EQ(z.sizes(), IntArrayRef({3, 4}));
  // PyTorch's preserve_format: a dense input's strides are kept.
  EXPECT_EQ(z.strides(), IntArrayRef({1, 3}));
  for (int i = 0; i < 12; ++i) EXPECT_EQ(z.data_ptr<int16_t>()[i], 0);
  Tensor o = ones_like(src, kDouble);
  EXPECT_EQ(o.dtype(), kDouble);
  EXPECT_EQ(o.data_ptr<double>()[11], 1.0);
  // An expanded (stride 0) input.
  Tensor e = strided_view(arange(3.0), {4, 3}, {0, 1});
  Tensor f = full_like(e, 2);  // float stays float; the int fill is converted
  EXPECT_EQ(f.dtype(), kFloat);
  EXPECT_EQ(f.sizes(), IntArrayRef({4, 3}));
  EXPECT_EQ(f.data_ptr<float>()[11], 2.0f);
}

TEST(EyeTest, Values) {
  EXPECT_TRUE(matches_golden(eye(3), G("eye_3")));
  EXPECT_TRUE(matches_golden(eye(2, 4), G("eye_2_4")));
  EXPECT_TRUE(matches_golden(eye(4, 2, kBool), G("eye_4_2_bool")));
  EXPECT_TRUE(matches_golden(eye(3, kLong), G("eye_3_long")));
}

TEST(EyeTest, Errors) {
  expect_error<Error>([] { eye(-1); }, "n must be greater or equal to 0, got -1");
  expect_error<Error>([] { eye(2, -1); }, "m must be greater or equal to 0, got -1");
}

TEST(ArangeTest, IntegerArgumentsGiveLong) {
  EXPECT_TRUE(matches_golden(arange(5), G("arange_5")));
  EXPECT_TRUE(matches_golden(arange(1, 4), G("arange_1_4")));
  EXPECT_TRUE(matches_golden(arange(10, 0, -3), G("arange_10_0_-3")));
}

TEST(ArangeTest, FloatingArguments) {
  EXPECT_TRUE(matches_golden(arange(1, 2.5, 0.5), G("arange_1_2.5_0.5")));
  EXPECT_TRUE(matches_golden(arange(0, 1, 0.1), G("arange_0_1_0.1")));
  EXPECT_TRUE(matches_golden(arange(0, 1, 0.1, kDouble), G("arange_0_1_0.1_double")));
}

TEST(ArangeTest, LongRangesMatchBitForBit) {
  EXPECT_TRUE(matches_golden(arange(-1.5, 40.2, 0.7), G("arange_-1.5_40.2_0.7")));
  EXPECT_TRUE(matches_golden(arange(-1.5, 40.2, 0.7, kDouble), G("arange_-1.5_40.2_0.7_double")));
  EXPECT_TRUE(matches_golden(arange(0, 30, 0.1), G("arange_0_30_0.1")));
  EXPECT_TRUE(matches_golden(arange(0, 30, 0.1, kHalf), G("arange_0_30_0.1_half")));
  EXPECT_TRUE(matches_golden(arange(0, 30, 0.1, kBFloat16), G("arange_0_30_0.1_bfloat16")));
}

TEST(ArangeTest, IntegralDtypes) {
  EXPECT_TRUE(matches_golden(arange(-5, 40, 3, kInt), G("arange_-5_40_3_int32")));
  EXPECT_TRUE(matches_golden(arange(0.5, 7, kLong), G("arange_0.5_7_long")));
  EXPECT_TRUE(matches_golden(arange(0, 100, kByte), G("arange_0_100_uint8")));
}

TEST(ArangeTest, Errors) {
  expect_error<Error>([] { arange(0, 10, 0); }, "step must be nonzero");
  expect_error<Error>([] { arange(10, 0, 1); },
                     "upper bound and larger bound inconsistent with step sign");
  expect_error<Error>([] { arange(0, std::numeric_limits<double>::infinity()); },
                     "unsupported range: 0 -> inf");
  expect_error<Error>([] { arange(5, kBool); }, "\"arange_cpu\" not implemented for 'Bool'");
}

TEST(RangeTest, InclusiveEnd) {
  EXPECT_TRUE(matches_golden(range(1, 4), G("range_1_4")));
  EXPECT_TRUE(matches_golden(range(0, 1, 0.1), G("range_0_1_0.1")));
  EXPECT_TRUE(matches_golden(range(0, 2, 0.3, kDouble), G("range_0_2_0.3_double")));
  EXPECT_TRUE(matches_golden(range(1, 10, 2, kLong), G("range_1_10_2_long")));
  EXPECT_TRUE(matches_golden(range(0, 30, 0.1), G("range_0_30_0.1")));
  expect_error<Error>([] { range(0, 10, 0); }, "step must be nonzero");
  expect_error<Error>([] { range(0, 10, -1); },
                     "upper bound and larger bound inconsistent with step sign");
}

TEST(LinspaceTest, FloatingDtypes) {
  EXPECT_TRUE(matches_golden(linspace(3, 10, 5), G("linspace_3_10_5")));
  EXPECT_TRUE(matches_golden(linspace(0, 1, 100), G("linspace_0_1_100")));
  EXPECT_TRUE(matches_golden(linspace(-2.5, 7.3, 37, kDouble), G("linspace_-2.5_7.3_37_double")));
  EXPECT_TRUE(matches_golden(linspace(10, 0, 33), G("linspace_10_0_33")));
  EXPECT_TRUE(matches_golden(linspace(0, 1, 50, kHalf), G("linspace_0_1_50_half")));
  EXPECT_TRUE(matches_golden(linspace(-1, 1, 40, kBFloat16), G("linspace_-1_1_40_bfloat16")));
}

TEST(LinspaceTest, IntegralDtypesAndEdgeCounts) {
  EXPECT_TRUE(matches_golden(linspace(0, 10, 5, kLong), G("linspace_0_10_5_long")));
  EXPECT_TRUE(matches_golden(linspace(0, 100, 77, kInt), G("linspace_0_100_77_int32")));
  EXPECT_TRUE(matches_golden(linspace(5, 5, 1), G("linspace_5_5_1")));
  EXPECT_TRUE(matches_golden(linspace(0, 1, 0), G("linspace_0_1_0")));
  expect_error<Error>([] { linspace(0, 1, -1); }, "number of steps must be non-negative");
}

TEST(LogspaceTest, Values) {
  EXPECT_TRUE(matches_golden(logspace(0, 3, 4), G("logspace_0_3_4")));
  EXPECT_TRUE(matches_golden(logspace(-2, 2, 20), G("logspace_-2_2_20")));
  EXPECT_TRUE(matches_golden(logspace(0, 1, 5, 2.0), G("logspace_0_1_5_base2")));
  EXPECT_TRUE(matches_golden(logspace(0, 3, 4, 10.0, kLong), G("logspace_0_3_4_long")));
  EXPECT_TRUE(matches_golden(logspace(-1, 1, 9, 3.0, kDouble), G("logspace_-1_1_9_base3_double")));
  EXPECT_TRUE(matches_golden(logspace(0, 2, 7, 10.0, kBFloat16), G("logspace_0_2_7_bfloat16")));
  EXPECT_TRUE(matches_golden(logspace(2, 2, 1), G("logspace_2_2_1")));
}

TEST(LogspaceTest, Errors) {
  expect_error<Error>([] { logspace(0, 1, -1); }, "number of steps must be non-negative");
  expect_error<Error>([] { logspace(0, 1, 3, 10.0, kHalf); },
                     "\"logspace_cpu\" not implemented for 'Half'");
}

TEST(FromBlobTest, SharesMemoryAndCallsDeleter) {
  std::vector<float> data = {1, 2, 3, 4, 5, 6};
  int deleted = 0;
  {
    Tensor t = from_blob(data.data(), {2, 3}, [&](void* p) {
      EXPECT_EQ(p, data.data());
      ++deleted;
    });
    EXPECT_EQ(t.dtype(), kFloat);
    EXPECT_EQ(t.data_ptr<float>(), data.data());
    data[4] = 50;
    EXPECT_EQ(t.data_ptr<float>()[4], 50.0f);
    Tensor alias = t;  // the storage outlives the first handle
    t = Tensor();
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1);
}

TEST(FromBlobTest, StridesAndDtype) {
  int64_t data[] = {0, 1, 2, 3, 4, 5};
  Tensor t = from_blob(data, {3, 2}, {1, 3}, kLong);  // the transpose of a 2x3 matrix
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.stride(0), 1);
  Tensor c = t.contiguous();
  const int64_t want[] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(c.data_ptr<int64_t>()[i], want[i]);
  expect_error<Error>([&] { from_blob(data, {3, 2}, {1}, kLong); },
                     "mismatch in length of strides and shape");
}

}  // namespace
}  // namespace ember
