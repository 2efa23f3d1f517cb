// conv_tbc and conv_tbc_backward against PyTorch 1.13
// (tools/golden/conv_tbc.py wrote testdata/conv_tbc_*golden.inc).
#include <string>
#include <tuple>

#include "gtest/gtest.h"
#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::expect_golden_error;
using testing::find_golden;
using testing::golden_tensor;
using testing::make_input;
using testing::matches_golden;

const testing::GoldenEntry kGolden[] = {
#include "tensor/testdata/conv_tbc_golden.inc"
};
const testing::GoldenError kErrors[] = {
#include "tensor/testdata/conv_tbc_errors_golden.inc"
};

// Both compute one GEMM per tap, accumulated in the same order; the GEMMs
// themselves may round differently.
::testing::AssertionResult near(const Tensor& t, const std::string& name) {
  const testing::GoldenEntry& g = find_golden(kGolden, name);
  return matches_golden(t, g, g.dtype == kFloat ? 1e-5 : 1e-12);
}

void check_case(const std::string& name, const Tensor& x, const Tensor& w, const Tensor& b,
                int64_t pad) {
  const Tensor out = conv_tbc(x, w, b, pad);
  EXPECT_TRUE(near(out, name + "/out")) << name;
  const int64_t seed = 7;
  auto [gi, gw, gb] = conv_tbc_backward(make_input(out.sizes(), out.dtype(), seed), x, w, b, pad);
  EXPECT_TRUE(near(gi, name + "/grad_input")) << name;
  EXPECT_TRUE(near(gw, name + "/grad_weight")) << name;
  EXPECT_TRUE(near(gb, name + "/grad_bias")) << name;
}

TEST(ConvTbcTest, ValuesAndGradients) {
  for (auto [dtn, dt] : {std::pair<std::string, ScalarType>{"f32", kFloat}, {"f64", kDouble}}) {
    const Tensor x = make_input({5, 2, 3}, dt, 1), w = make_input({3, 3, 4}, dt, 2),
                 b = make_input({4}, dt, 3);
    for (int64_t pad : {0, 1, -1, 3}) check_case(dtn + "/pad" + std::to_string(pad), x, w, b, pad);
    check_case(dtn + "/short", make_input({1, 2, 3}, dt, 4), w, b, 1);
  }
}

TEST(ConvTbcTest, DtypesAndLayouts) {
  EXPECT_TRUE(near(conv_tbc(make_input({4, 2, 3}, kLong, 1), make_input({2, 3, 2}, kLong, 2),
                            make_input({2}, kLong, 3), 1),
                   "long/out"));
  const Tensor xd = make_input({4, 2, 3}, kDouble, 1), wd = make_input({2, 3, 2}, kDouble, 2);
  const Tensor mixed = conv_tbc(xd, wd, make_input({2}, kFloat, 3));
  EXPECT_EQ(mixed.dtype(), kDouble);
  EXPECT_TRUE(near(mixed, "mixed_bias/out"));
  EXPECT_TRUE(near(conv_tbc(xd.narrow(0, 0, 1), wd, make_input({2}, kDouble, 3)), "zero_len/out"));
  // A non-contiguous input (1.13 raises view's error; see nn_ops.h).
  const Tensor xt = xd.transpose(0, 1).contiguous().transpose(0, 1);
  ASSERT_FALSE(xt.is_contiguous());
  EXPECT_TRUE(allclose(conv_tbc(xt, wd, make_input({2}, kDouble, 3)),
                       conv_tbc(xd, wd, make_input({2}, kDouble, 3)), 0, 0));
}

TEST(ConvTbcTest, Errors) {
  const Tensor x = make_input({5, 2, 3}), w = make_input({3, 3, 4}), b = make_input({4});
  expect_golden_error(kErrors, "input dims", [&] { conv_tbc(x.select(0, 0), w, b); });
  expect_golden_error(kErrors, "weight dims", [&] { conv_tbc(x, w.select(0, 0), b); });
  expect_golden_error(kErrors, "bias dims", [&] { conv_tbc(x, w, b.unsqueeze(0)); });
  expect_golden_error(kErrors, "in channels", [&] { conv_tbc(x, w.narrow(1, 0, 2), b); });
  expect_golden_error(kErrors, "out channels", [&] { conv_tbc(x, w, b.narrow(0, 0, 3)); });
  expect_golden_error(kErrors, "negative length", [&] { conv_tbc(x, w, b, -2); });
  expect_golden_error(kErrors, "weight dtype", [&] { conv_tbc(x, w.to(kDouble), b); });
}

}  // namespace
}  // namespace ember
