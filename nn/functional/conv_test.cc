#include "nn/functional/conv.h"

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_case;
using V = std::vector<Tensor>;

TEST(Conv2d, Basic) {
  check_case("conv2d_basic", 3, {0, 1, 2},
             [](const V& x) { return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().bias(x[2])); });
}
// Note [Short rows]: float's vectorized im2col/col2im for "valid"
// convolutions (row widths of one vector, several, and a masked tail)
// against the same convolution in float64 (the general loops), forward and
// both gradients.
TEST(Conv2d, DenseRowsFloatMatchesDouble) {
  for (int64_t ow : {8, 13, 24, 3}) {
    SCOPED_TRACE(ow);
    manual_seed(ow);
    const Tensor x64 = randn({3, 2, 6, ow + 4}, TensorOptions(kDouble));
    const Tensor w64 = randn({5, 2, 5, 5}, TensorOptions(kDouble));
    const Tensor g64 = randn({3, 5, 2, ow}, TensorOptions(kDouble));
    Tensor x32 = x64.to(kFloat).requires_grad_(true), w32 = w64.to(kFloat).requires_grad_(true);
    Tensor x = x64.clone().requires_grad_(true), w = w64.clone().requires_grad_(true);
    Tensor y32 = F::conv2d(x32, w32), y = F::conv2d(x, w);
    (y32 * g64.to(kFloat)).sum().backward();
    (y * g64).sum().backward();
    EXPECT_TRUE(y32.to(kDouble).allclose(y, 1e-4, 1e-4));
    EXPECT_TRUE(x32.grad().to(kDouble).allclose(x.grad(), 1e-4, 1e-4));
    EXPECT_TRUE(w32.grad().to(kDouble).allclose(w.grad(), 1e-4, 1e-4));
  }
}
TEST(Conv2d, StridePadding) {
  check_case("conv2d_stride_pad", 3, {0, 1, 2}, [](const V& x) {
    return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().bias(x[2]).stride(2).padding(1));
  });
}
TEST(Conv2d, Dilation) {
  check_case("conv2d_dilation", 2, {0, 1}, [](const V& x) {
    return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().stride({1, 2}).padding({1, 2}).dilation(2));
  });
}
TEST(Conv2d, Groups) {
  check_case("conv2d_groups", 3, {0, 1, 2}, [](const V& x) {
    return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().bias(x[2]).groups(2));
  });
}
TEST(Conv2d, PaddingSameAndValid) {
  check_case("conv2d_same", 2, {0, 1}, [](const V& x) {
    return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().padding(kSame));
  });
  check_case("conv2d_valid", 2, {0, 1}, [](const V& x) {
    return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().padding(kValid));
  });
}
TEST(Conv2d, NonContiguous) {
  check_case("conv2d_noncontig", 2, {0, 1}, [](const V& x) {
    return F::conv2d(x[0].transpose(2, 3), x[1].transpose(2, 3), F::Conv2dFuncOptions().padding(1));
  });
}
TEST(Conv2d, Unbatched) {
  check_case("conv2d_unbatched", 3, {0, 1, 2},
             [](const V& x) { return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().bias(x[2])); });
}
TEST(Conv1d, StridePadding) {
  check_case("conv1d_basic", 3, {0, 1, 2}, [](const V& x) {
    return F::conv1d(x[0], x[1], F::Conv1dFuncOptions().bias(x[2]).stride(2).padding(1));
  });
}
TEST(Conv1d, GroupsDilation) {
  check_case("conv1d_groups_dilation", 2, {0, 1}, [](const V& x) {
    return F::conv1d(x[0], x[1], F::Conv1dFuncOptions().groups(3).dilation(2));
  });
}

// Note [Convolution threads]: float batches split across threads, each part
// with its own partial weight gradient; the result must not depend on it.
TEST(Conv2d, SameResultOnOneAndThreeThreads) {
  Tensor x = randn({5, 4, 7, 6}), w = randn({6, 2, 3, 3}), b = randn({6});
  testing::expect_same_on_one_and_three_threads(x, w, [&](const Tensor& xr, const Tensor& wr) {
    return F::conv2d(xr, wr, F::Conv2dFuncOptions().bias(b).padding(1).groups(2));
  });
}

TEST(Conv2d, GradName) {
  Tensor x = randn({1, 2, 4, 4}).requires_grad_(true);
  EXPECT_EQ(F::conv2d(x, randn({3, 2, 3, 3})).grad_fn()->name(), "ConvolutionBackward0");
}

TEST(Conv2d, Errors) {
  using testing::expect_nn_error;
  expect_nn_error("conv2d_dims", [] { F::conv2d(zeros({2, 3}), zeros({1, 1, 1, 1})); });
  expect_nn_error("conv2d_channels", [] { F::conv2d(zeros({1, 5, 8, 8}), zeros({4, 3, 3, 3})); });
  expect_nn_error("conv2d_groups", [] {
    F::conv2d(zeros({1, 4, 8, 8}), zeros({3, 2, 3, 3}), F::Conv2dFuncOptions().groups(2));
  });
  expect_nn_error("conv2d_kernel", [] { F::conv2d(zeros({1, 3, 2, 2}), zeros({4, 3, 3, 3})); });
  expect_nn_error("conv2d_same_strided", [] {
    F::conv2d(zeros({1, 3, 5, 5}), zeros({4, 3, 3, 3}),
              F::Conv2dFuncOptions().stride(2).padding(kSame));
  });
  expect_nn_error("conv2d_bias", [] {
    F::conv2d(zeros({1, 3, 5, 5}), zeros({4, 3, 3, 3}), F::Conv2dFuncOptions().bias(zeros({3})));
  });
  expect_nn_error("conv1d_dims", [] { F::conv1d(zeros({2, 3, 4, 5}), zeros({1, 3, 1})); });
}

TEST(Conv2d, Gradcheck) {
  TensorOptions d = TensorOptions(kDouble).requires_grad(true);
  Tensor x = randn({2, 4, 5, 6}, d), w = randn({4, 2, 3, 2}, d), b = randn({4}, d);
  EXPECT_EQ(
      autograd::gradcheck(
          [](const autograd::variable_list& v) {
            return autograd::variable_list{F::conv2d(
                v[0], v[1], F::Conv2dFuncOptions().bias(v[2]).stride({2, 1}).padding(1).groups(2))};
          },
          {x, w, b}),
      "");
  Tensor x1 = randn({2, 2, 7}, d), w1 = randn({3, 2, 3}, d);
  EXPECT_EQ(autograd::gradcheck(
                [](const autograd::variable_list& v) {
                  return autograd::variable_list{
                      F::conv1d(v[0], v[1], F::Conv1dFuncOptions().dilation(2).padding(kSame))};
                },
                {x1, w1}),
            "");
}

}  // namespace
}  // namespace ember
