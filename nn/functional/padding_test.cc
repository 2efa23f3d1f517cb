#include "nn/functional/padding.h"

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_case;
using testing::expect_nn_error;
using V = std::vector<Tensor>;

// Values and gradients against PyTorch 1.13 (tools/golden/nn_ops.py).
TEST(Pad, Constant) {
  check_case("pad_constant", 1, {0},
             [](const V& x) { return F::pad(x[0], F::PadFuncOptions({1, 2, 0, 1}).value(1.5)); });
  check_case("pad_constant_negative", 1, {0},
             [](const V& x) { return F::pad(x[0], F::PadFuncOptions({-1, 2, 1, -2})); });
  check_case("pad_constant_3dims", 1, {0}, [](const V& x) {
    return F::pad(x[0].transpose(0, 2), F::PadFuncOptions({1, 0, 0, 1, 2, 1}));
  });
}

TEST(Pad, Reflect) {
  auto reflect = [](std::vector<int64_t> p) { return F::PadFuncOptions(p).mode(kReflect); };
  check_case("pad_reflect_1d", 1, {0}, [&](const V& x) { return F::pad(x[0], reflect({2, 3})); });
  check_case("pad_reflect_2d", 1, {0},
             [&](const V& x) { return F::pad(x[0], reflect({1, 2, 2, 1})); });
  check_case("pad_reflect_2d_unbatched", 1, {0},
             [&](const V& x) { return F::pad(x[0].transpose(1, 2), reflect({-1, 1, 1, 1})); });
  check_case("pad_reflect_3d", 1, {0},
             [&](const V& x) { return F::pad(x[0], reflect({1, 1, 1, 0, 0, 2})); });
}

TEST(Pad, Replicate) {
  auto replicate = [](std::vector<int64_t> p) { return F::PadFuncOptions(p).mode(kReplicate); };
  check_case("pad_replicate_1d", 1, {0},
             [&](const V& x) { return F::pad(x[0], replicate({3, 1})); });
  check_case("pad_replicate_2d", 1, {0},
             [&](const V& x) { return F::pad(x[0], replicate({2, 0, 1, 3})); });
  check_case("pad_replicate_3d", 1, {0},
             [&](const V& x) { return F::pad(x[0], replicate({1, 2, 0, 1, 1, 1})); });
}

TEST(Pad, Circular) {
  auto circular = [](std::vector<int64_t> p) { return F::PadFuncOptions(p).mode(kCircular); };
  check_case("pad_circular_1d", 1, {0},
             [&](const V& x) { return F::pad(x[0], circular({2, 3})); });
  check_case("pad_circular_2d", 1, {0},
             [&](const V& x) { return F::pad(x[0], circular({1, 2, -1, 2})); });
  check_case("pad_circular_3d", 1, {0},
             [&](const V& x) { return F::pad(x[0], circular({0, 1, 2, 1, 1, 0})); });
}

TEST(Pad, KeepsDtypeAndFillsIntegers) {
  Tensor x = arange(6, kInt).view({2, 3});
  Tensor y = F::pad(x, F::PadFuncOptions({1, 0}).value(7));
  EXPECT_EQ(y.dtype(), kInt);
  // PyTorch: tensor([[7, 0, 1, 2], [7, 3, 4, 5]], dtype=torch.int32)
  EXPECT_TRUE(equal(y, tensor({7, 0, 1, 2, 7, 3, 4, 5}, kInt).view({2, 4})));
  // No padding: a copy, not the input.
  Tensor same = F::pad(x, F::PadFuncOptions({}));
  EXPECT_TRUE(equal(same, x));
  EXPECT_FALSE(same.is_same(x));
}

TEST(Pad, ErrorsArePyTorchs) {
  Tensor x3 = arange(6, kFloat).view({1, 2, 3});
  expect_nn_error("pad_odd", [&] { F::pad(x3, F::PadFuncOptions({1})); });
  expect_nn_error("pad_too_long", [&] { F::pad(x3, F::PadFuncOptions({1, 1, 1, 1, 1, 1, 1, 1})); });
  expect_nn_error("pad_reflect_too_big",
                  [&] { F::pad(x3, F::PadFuncOptions({3, 3}).mode(kReflect)); });
  expect_nn_error("pad_reflect_value",
                  [&] { F::pad(x3, F::PadFuncOptions({1, 1}).mode(kReflect).value(1)); });
  expect_nn_error("pad_replicate_dims",
                  [&] { F::pad(x3, F::PadFuncOptions({1, 1, 1, 1, 1, 1}).mode(kReplicate)); });
  expect_nn_error("pad_replicate_1d_input",
                  [&] { F::pad(zeros({3}), F::PadFuncOptions({1, 1}).mode(kReplicate)); });
  expect_nn_error("pad_circular_wrap",
                  [&] { F::pad(x3, F::PadFuncOptions({4, 4}).mode(kCircular)); });
  expect_nn_error("pad_circular_unbatched", [&] {
    F::pad(zeros({2, 3, 4}), F::PadFuncOptions({1, 1, 1, 1}).mode(kCircular));
  });
  expect_nn_error("pad_replicate_empty",
                  [&] { F::pad(zeros({2, 0, 3}), F::PadFuncOptions({1, 1}).mode(kReplicate)); });
  // Cropping a dim away and then wrapping around it: nothing to copy
  // (PyTorch 1.13 reads uninitialized memory here).
  EXPECT_THROW(F::pad(x3, F::PadFuncOptions({-3, 1}).mode(kCircular)), Error);
  // PyTorch 1.13 fails here inside narrow ("Dimension out of range"); the
  // message is the one later PyTorch versions give.
  try {
    F::pad(x3, F::PadFuncOptions({-4, 0}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "The input size 3, plus negative padding -4 and 0 resulted in a negative output "
                 "size, which is invalid. Check dimension 2 of your input.");
  }
}

TEST(Pad, Gradcheck) {
  Tensor x = randn({2, 3, 4, 5}, TensorOptions(kDouble).requires_grad(true));
  for (PadMode mode : {kConstant, kReflect, kReplicate, kCircular}) {
    SCOPED_TRACE(pad_mode_name(mode));
    EXPECT_EQ(autograd::gradcheck(
                  [&](const autograd::variable_list& v) {
                    return autograd::variable_list{
                        F::pad(v[0], F::PadFuncOptions({2, -1, 3, 1}).mode(mode))};
                  },
                  {x}),
              "");
  }
}

}  // namespace
}  // namespace ember
