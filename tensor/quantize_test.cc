#include "tensor/quantize.h"

#include <gtest/gtest.h>

#include <string>

#include "tensor/creation.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::find_golden;
using testing::GoldenEntry;
using testing::golden_tensor;
using testing::matches_golden;

const GoldenEntry kGolden[] = {
#include "tensor/testdata/quantize_golden.inc"
};

const GoldenEntry& G(const std::string& name) { return find_golden(kGolden, name); }

// The golden input (a float tensor).
Tensor Input(const std::string& name) { return golden_tensor(G(name + "/input")); }

// Quantizes the golden input and checks int_repr and dequantize.
void ExpectCase(const std::string& name, const Tensor& x, double scale, int64_t zero_point,
                ScalarType dtype) {
  Tensor q = quantize_per_tensor(x, scale, zero_point, dtype);
  EXPECT_EQ(q.dtype(), dtype);
  EXPECT_TRUE(q.is_quantized());
  EXPECT_EQ(q.q_scale(), scale);
  EXPECT_EQ(q.q_zero_point(), zero_point);
  EXPECT_TRUE(matches_golden(q.int_repr(), G(name + "/int_repr")));
  EXPECT_TRUE(matches_golden(q.dequantize(), G(name + "/dequantize")));
}

TEST(QuantizeTest, SeedExample) {
  Tensor q = quantize_per_tensor(tensor({-1.0, 0.0, 1.0, 2.0}), 0.1, 10, kQUInt8);
  EXPECT_TRUE(matches_golden(q.int_repr(), G("seed/int_repr")));
  EXPECT_TRUE(matches_golden(dequantize(q), G("seed/dequantize")));
  EXPECT_EQ(q.q_scale(), 0.1);
  EXPECT_EQ(q.q_zero_point(), 10);
}

TEST(QuantizeTest, RoundsHalfToEvenAndClamps) {
  ExpectCase("ties_qint8", Input("ties_qint8"), 1.0, 0, kQInt8);
  ExpectCase("clamp_quint8", Input("clamp_quint8"), 0.05, 3, kQUInt8);
}

TEST(QuantizeTest, ManyValuesBothDtypes) {
  ExpectCase("randn_qint8", Input("randn_qint8"), 0.0371, -7, kQInt8);
  ExpectCase("randn_quint8", Input("randn_quint8"), 0.0523, 131, kQUInt8);
}

TEST(QuantizeTest, NonContiguousInput) {
  // The 4x3 transpose of a contiguous 3x4 matrix.
  const GoldenEntry& g = G("transposed/input");
  Tensor base = empty({3, 4}, kFloat);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) base.data_ptr<float>()[i * 4 + j] = static_cast<float>(g.values[j * 3 + i]);
  Tensor x = testing::strided_view(base, {4, 3}, {1, 4});
  ASSERT_FALSE(x.is_contiguous());
  ExpectCase("transposed", x, 0.11, 20, kQUInt8);
}

TEST(QuantizeTest, ItemIsDequantized) {
  Tensor q = quantize_per_tensor(tensor({0.26}), 0.1, 10, kQUInt8);
  EXPECT_FLOAT_EQ(q.item<float>(), 0.3f);
}

TEST(QuantizeTest, Errors) {
  expect_error([] { quantize_per_tensor(tensor({1.0}, kDouble), 0.1, 10, kQUInt8); },
              "Quantize only works on Float Tensor, got Double");
  expect_error([] { quantize_per_tensor(tensor({1}), 0.1, 10, kQUInt8); },
              "Quantize only works on Float Tensor, got Long");
  expect_error([] { quantize_per_tensor(tensor({1.0}), 0.1, 10, kFloat); },
              "ScalarType Float is not supported in new_qtensor.");
  expect_error([] { quantize_per_tensor(tensor({1.0}), 0.1, 300, kQUInt8); },
              "quantize_tensor_per_tensor_affine zero_point 300 is above upper bound.");
  expect_error([] { quantize_per_tensor(tensor({1.0}), 0.1, -1, kQUInt8); },
              "quantize_tensor_per_tensor_affine zero_point -1 is below lower bound.");
  expect_error([] { quantize_per_tensor(tensor({1.0}), 0.1, -200, kQInt8); },
              "quantize_tensor_per_tensor_affine zero_point -200 is below lower bound.");
  expect_error([] { tensor({1.0}).q_scale(); },
              "Could not run 'aten::q_scale' with arguments from the 'CPU' backend.");
  expect_error([] { tensor({1.0}).q_zero_point(); },
              "Could not run 'aten::q_zero_point' with arguments from the 'CPU' backend.");
  expect_error([] { tensor({1.0}).int_repr(); },
              "Could not run 'aten::int_repr' with arguments from the 'CPU' backend.");
}

TEST(QuantizeTest, DequantizeOfPlainTensorIsFloat) {
  Tensor d = tensor({1, 2}, kInt).dequantize();
  EXPECT_EQ(d.dtype(), kFloat);
  EXPECT_EQ(d.data_ptr<float>()[1], 2.0f);
}

}  // namespace
}  // namespace ember
