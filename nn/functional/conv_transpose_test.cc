// F::conv_transpose1d / conv_transpose2d against PyTorch
// (tools/golden/nn_ops_more.py), their errors, and their derivatives to
// second order (Note [Transposed convolution] in tensor/nn_ops.h).
#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/conv.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_more_case;
using V = std::vector<Tensor>;

TEST(ConvTranspose2d, Basic) {
  check_more_case("conv_transpose2d_basic", 3, {0, 1, 2}, [](const V& x) {
    return F::conv_transpose2d(x[0], x[1], F::ConvTranspose2dFuncOptions().bias(x[2]));
  });
}
TEST(ConvTranspose2d, StridePaddingOutputPadding) {
  check_more_case("conv_transpose2d_stride_pad_outpad", 3, {0, 1, 2}, [](const V& x) {
    return F::conv_transpose2d(
        x[0], x[1],
        F::ConvTranspose2dFuncOptions().bias(x[2]).stride(2).padding(1).output_padding(1));
  });
}
TEST(ConvTranspose2d, GroupsDilation) {
  check_more_case("conv_transpose2d_groups_dilation", 2, {0, 1}, [](const V& x) {
    return F::conv_transpose2d(
        x[0], x[1],
        F::ConvTranspose2dFuncOptions().stride({1, 2}).padding({1, 0}).groups(2).dilation({2, 1}));
  });
}
// output_padding at or above the stride (allowed below the dilation): the
// trailing outputs get no input at all.
TEST(ConvTranspose2d, OutputPaddingBelowDilation) {
  check_more_case("conv_transpose2d_outpad_dilation", 3, {0, 1, 2}, [](const V& x) {
    return F::conv_transpose2d(x[0], x[1],
                               F::ConvTranspose2dFuncOptions()
                                   .bias(x[2])
                                   .stride({1, 2})
                                   .output_padding({2, 1})
                                   .dilation({3, 1}));
  });
}
TEST(ConvTranspose2d, NonContiguous) {
  check_more_case("conv_transpose2d_noncontig", 2, {0, 1}, [](const V& x) {
    return F::conv_transpose2d(x[0].transpose(2, 3), x[1].transpose(2, 3),
                               F::ConvTranspose2dFuncOptions().stride(2));
  });
}
TEST(ConvTranspose2d, Unbatched) {
  check_more_case("conv_transpose2d_unbatched", 3, {0, 1, 2}, [](const V& x) {
    return F::conv_transpose2d(x[0], x[1], F::ConvTranspose2dFuncOptions().bias(x[2]).stride(2));
  });
}
TEST(ConvTranspose1d, StridePaddingOutputPadding) {
  check_more_case("conv_transpose1d_basic", 3, {0, 1, 2}, [](const V& x) {
    return F::conv_transpose1d(
        x[0], x[1],
        F::ConvTranspose1dFuncOptions().bias(x[2]).stride(2).padding(1).output_padding(1));
  });
}
TEST(ConvTranspose1d, GroupsDilation) {
  check_more_case("conv_transpose1d_groups_dilation", 2, {0, 1}, [](const V& x) {
    return F::conv_transpose1d(
        x[0], x[1], F::ConvTranspose1dFuncOptions().groups(3).dilation(2).output_padding(1));
  });
}

// The adjoint of conv2d: <conv2d(y, w), x> == <y, conv_transpose2d(x, w)>.
TEST(ConvTranspose2d, IsTheAdjointOfConv2d) {
  manual_seed(0);
  Tensor x = randn({2, 4, 3, 4}, kDouble), w = randn({4, 2, 3, 2}, kDouble);
  auto o = F::ConvTranspose2dFuncOptions().stride({2, 1}).padding({1, 0}).groups(2);
  Tensor y = F::conv_transpose2d(x, w, o);
  Tensor v = randn(y.sizes(), kDouble);
  Tensor cv = F::conv2d(v, w, F::Conv2dFuncOptions().stride({2, 1}).padding({1, 0}).groups(2));
  EXPECT_NEAR((y * v).sum().item<double>(), (cv * x).sum().item<double>(), 1e-9);
}

TEST(ConvTranspose2d, SameResultOnOneAndThreeThreads) {
  manual_seed(0);
  Tensor x = randn({5, 4, 4, 3}), w = randn({4, 3, 3, 3}), b = randn({6});
  testing::expect_same_on_one_and_three_threads(x, w, [&](const Tensor& xr, const Tensor& wr) {
    return F::conv_transpose2d(
        xr, wr, F::ConvTranspose2dFuncOptions().bias(b).stride(2).padding(1).groups(2));
  });
}

TEST(ConvTranspose2d, GradName) {
  Tensor x = randn({1, 2, 3, 3}).requires_grad_(true);
  EXPECT_EQ(F::conv_transpose2d(x, randn({2, 3, 2, 2})).grad_fn()->name(),
            "ConvolutionBackward0");
}

TEST(ConvTranspose2d, Errors) {
  using testing::expect_nn_more_error;
  auto z = [](IntArrayRef s) { return zeros(s); };
  expect_nn_more_error("conv_transpose2d_dims",
                       [&] { F::conv_transpose2d(z({2, 3}), z({2, 3, 3, 3})); });
  expect_nn_more_error("conv_transpose1d_dims",
                       [&] { F::conv_transpose1d(z({1, 2, 3, 3}), z({2, 3, 3})); });
  expect_nn_more_error("conv_transpose2d_channels",
                       [&] { F::conv_transpose2d(z({1, 4, 3, 3}), z({2, 3, 3, 3})); });
  expect_nn_more_error("conv_transpose1d_channels",
                       [&] { F::conv_transpose1d(z({1, 4, 3}), z({2, 3, 3})); });
  expect_nn_more_error("conv_transpose2d_groups", [&] {
    F::conv_transpose2d(z({1, 3, 3, 3}), z({3, 2, 3, 3}), F::ConvTranspose2dFuncOptions().groups(2));
  });
  expect_nn_more_error("conv_transpose2d_bias", [&] {
    F::conv_transpose2d(z({1, 2, 3, 3}), z({2, 3, 3, 3}),
                        F::ConvTranspose2dFuncOptions().bias(z({2})));
  });
  expect_nn_more_error("conv_transpose2d_output_padding", [&] {
    F::conv_transpose2d(z({1, 2, 3, 3}), z({2, 3, 3, 3}),
                        F::ConvTranspose2dFuncOptions().stride(2).output_padding(2));
  });
  expect_nn_more_error("conv_transpose1d_output_padding", [&] {
    F::conv_transpose1d(z({1, 2, 3}), z({2, 3, 3}),
                        F::ConvTranspose1dFuncOptions().stride(2).output_padding(2));
  });
  expect_nn_more_error("conv_transpose2d_small", [&] {
    F::conv_transpose2d(z({1, 2, 1, 1}), z({2, 3, 1, 1}), F::ConvTranspose2dFuncOptions().padding(2));
  });
  expect_nn_more_error("conv_transpose1d_small", [&] {
    F::conv_transpose1d(z({1, 2, 1}), z({2, 3, 1}), F::ConvTranspose1dFuncOptions().padding(2));
  });
  expect_nn_more_error("conv_transpose2d_stride", [&] {
    F::conv_transpose2d(z({1, 2, 3, 3}), z({2, 3, 3, 3}), F::ConvTranspose2dFuncOptions().stride(0));
  });
  expect_nn_more_error("conv_transpose2d_padding", [&] {
    F::conv_transpose2d(z({1, 2, 3, 3}), z({2, 3, 3, 3}),
                        F::ConvTranspose2dFuncOptions().padding(-1));
  });
  expect_nn_more_error("conv_transpose2d_negative_output_padding", [&] {
    F::conv_transpose2d(z({1, 2, 3, 3}), z({2, 3, 3, 3}),
                        F::ConvTranspose2dFuncOptions().output_padding(-1));
  });
  expect_nn_more_error("conv_transpose2d_dilation", [&] {
    F::conv_transpose2d(z({1, 2, 3, 3}), z({2, 3, 3, 3}),
                        F::ConvTranspose2dFuncOptions().dilation(0));
  });
  expect_nn_more_error("conv_transpose2d_nonpositive_groups", [&] {
    F::conv_transpose2d(z({1, 2, 3, 3}), z({2, 3, 3, 3}), F::ConvTranspose2dFuncOptions().groups(0));
  });
  expect_nn_more_error("conv_transpose2d_dtype", [&] {
    F::conv_transpose2d(z({1, 2, 3, 3}), zeros({2, 3, 3, 3}, kDouble));
  });
}

autograd::GradcheckOptions second_order() {
  autograd::GradcheckOptions o;
  o.check_grad_grad = true;
  return o;
}

TEST(ConvTranspose2d, GradcheckAndGradgradcheck) {
  manual_seed(0);
  TensorOptions d = TensorOptions(kDouble).requires_grad(true);
  Tensor x = randn({2, 4, 3, 2}, d), w = randn({4, 2, 2, 3}, d), b = randn({4}, d);
  EXPECT_EQ(autograd::gradcheck(
                [](const autograd::variable_list& v) {
                  return autograd::variable_list{F::conv_transpose2d(
                      v[0], v[1],
                      F::ConvTranspose2dFuncOptions().bias(v[2]).stride({2, 1}).padding(1).groups(
                          2).output_padding({1, 0}))};
                },
                {x, w, b}, second_order()),
            "");
}

// output_padding >= stride: the gradient drops the convolution's extra
// outputs and the weight's sees zeros there.
TEST(ConvTranspose2d, GradcheckOutputPaddingBelowDilation) {
  manual_seed(0);
  TensorOptions d = TensorOptions(kDouble).requires_grad(true);
  Tensor x = randn({1, 2, 3, 2}, d), w = randn({2, 1, 2, 2}, d);
  EXPECT_EQ(autograd::gradcheck(
                [](const autograd::variable_list& v) {
                  return autograd::variable_list{F::conv_transpose2d(
                      v[0], v[1],
                      F::ConvTranspose2dFuncOptions().stride({1, 2}).output_padding({2, 1}).dilation(
                          {3, 1}))};
                },
                {x, w}, second_order()),
            "");
}

TEST(ConvTranspose1d, GradcheckAndGradgradcheck) {
  manual_seed(0);
  TensorOptions d = TensorOptions(kDouble).requires_grad(true);
  Tensor x = randn({2, 3, 4}, d), w = randn({3, 2, 3}, d), b = randn({6}, d);
  EXPECT_EQ(autograd::gradcheck(
                [](const autograd::variable_list& v) {
                  return autograd::variable_list{F::conv_transpose1d(
                      v[0].transpose(0, 0), v[1],
                      F::ConvTranspose1dFuncOptions().bias(v[2]).groups(3).dilation(2).stride(2))};
                },
                {x, w, b}, second_order()),
            "");
}

}  // namespace
}  // namespace ember
