// F::conv3d / F::conv_transpose3d against PyTorch (tools/golden/nn_ops_extra.py)
// and finite differences.
#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/conv.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_extra_case;
using testing::expect_nn_extra_error;
using V = std::vector<Tensor>;

TEST(Conv3d, Basic) {
  check_extra_case("conv3d_basic", 3, {0, 1, 2},
                   [](const V& x) { return F::conv3d(x[0], x[1], F::Conv3dFuncOptions().bias(x[2])); });
}
TEST(Conv3d, StridePaddingDilationGroups) {
  check_extra_case("conv3d_stride_pad_dil_groups", 2, {0, 1}, [](const V& x) {
    return F::conv3d(x[0], x[1],
                     F::Conv3dFuncOptions().stride({2, 1, 2}).padding({1, 0, 1}).dilation({1, 2, 1}).groups(2));
  });
}
TEST(Conv3d, Unbatched) {
  check_extra_case("conv3d_unbatched", 3, {0, 1, 2}, [](const V& x) {
    return F::conv3d(x[0], x[1], F::Conv3dFuncOptions().bias(x[2]).padding(1));
  });
}
TEST(Conv3d, SamePadding) {
  check_extra_case("conv3d_same", 2, {0, 1}, [](const V& x) {
    return F::conv3d(x[0], x[1], F::Conv3dFuncOptions().padding(kSame).dilation({1, 1, 2}));
  });
}
TEST(Conv3d, NonContiguousInput) {
  check_extra_case("conv3d_noncontig", 2, {0, 1}, [](const V& x) {
    return F::conv3d(x[0].transpose(2, 4), x[1], F::Conv3dFuncOptions().stride(2));
  });
}
TEST(ConvTranspose3d, Basic) {
  check_extra_case("conv_transpose3d_basic", 3, {0, 1, 2}, [](const V& x) {
    return F::conv_transpose3d(x[0], x[1], F::ConvTranspose3dFuncOptions().bias(x[2]));
  });
}
TEST(ConvTranspose3d, StridePaddingOutputPadding) {
  check_extra_case("conv_transpose3d_stride_pad_outpad", 3, {0, 1, 2}, [](const V& x) {
    return F::conv_transpose3d(
        x[0], x[1],
        F::ConvTranspose3dFuncOptions().bias(x[2]).stride({2, 1, 2}).padding(1).output_padding({1, 0, 1}));
  });
}
TEST(ConvTranspose3d, GroupsDilation) {
  check_extra_case("conv_transpose3d_groups_dilation", 2, {0, 1}, [](const V& x) {
    return F::conv_transpose3d(x[0], x[1],
                               F::ConvTranspose3dFuncOptions()
                                   .stride({1, 2, 1})
                                   .groups(2)
                                   .dilation({3, 1, 2})
                                   .output_padding({2, 1, 0}));
  });
}
TEST(ConvTranspose3d, Unbatched) {
  check_extra_case("conv_transpose3d_unbatched", 2, {0, 1}, [](const V& x) {
    return F::conv_transpose3d(x[0], x[1], F::ConvTranspose3dFuncOptions().stride(2).padding(1));
  });
}

TEST(Conv3d, Gradcheck) {
  manual_seed(0);
  auto leaf = [](IntArrayRef s) { return randn(s, kDouble).requires_grad_(true); };
  EXPECT_EQ(autograd::gradcheck(
                [](const V& v) {
                  return V{F::conv3d(v[0], v[1],
                                     F::Conv3dFuncOptions().bias(v[2]).stride({1, 2, 1}).padding(
                                         {1, 0, 1}).groups(2))};
                },
                {leaf({2, 2, 3, 4, 3}), leaf({2, 1, 2, 2, 2}), leaf({2})}),
            "");
  EXPECT_EQ(autograd::gradcheck(
                [](const V& v) {
                  return V{F::conv_transpose3d(v[0], v[1],
                                               F::ConvTranspose3dFuncOptions()
                                                   .bias(v[2])
                                                   .stride({2, 1, 2})
                                                   .padding({1, 0, 0})
                                                   .output_padding({1, 0, 0}))};
                },
                {leaf({1, 2, 2, 3, 2}), leaf({2, 3, 3, 2, 2}), leaf({3})}),
            "");
}

TEST(Conv3d, Errors) {
  auto r = [](IntArrayRef s) { return zeros(s); };
  expect_nn_extra_error("conv3d_dims", [&] { F::conv3d(r({2, 3, 4}), r({2, 3, 3, 3, 3})); });
  expect_nn_extra_error("conv3d_channels",
                        [&] { F::conv3d(r({1, 4, 3, 3, 3}), r({2, 3, 3, 3, 3})); });
  expect_nn_extra_error("conv3d_weight_dims", [&] { F::conv3d(r({1, 3, 3, 3, 3}), r({2, 3, 3, 3})); });
  expect_nn_extra_error("conv3d_small", [&] { F::conv3d(r({1, 3, 2, 3, 3}), r({2, 3, 3, 3, 3})); });
  expect_nn_extra_error("conv3d_bias", [&] {
    F::conv3d(r({1, 3, 3, 3, 3}), r({2, 3, 1, 1, 1}), F::Conv3dFuncOptions().bias(r({3})));
  });
  expect_nn_extra_error("conv3d_groups", [&] {
    F::conv3d(r({1, 4, 3, 3, 3}), r({3, 2, 1, 1, 1}), F::Conv3dFuncOptions().groups(2));
  });
  expect_nn_extra_error("conv3d_same_strided", [&] {
    F::conv3d(r({1, 3, 3, 3, 3}), r({2, 3, 1, 1, 1}), F::Conv3dFuncOptions().padding(kSame).stride(2));
  });
  expect_nn_extra_error("conv_transpose3d_dims",
                        [&] { F::conv_transpose3d(r({2, 3}), r({2, 3, 3, 3, 3})); });
  expect_nn_extra_error("conv_transpose3d_channels",
                        [&] { F::conv_transpose3d(r({1, 4, 3, 3, 3}), r({2, 3, 3, 3, 3})); });
  expect_nn_extra_error("conv_transpose3d_output_padding", [&] {
    F::conv_transpose3d(r({1, 2, 3, 3, 3}), r({2, 3, 3, 3, 3}),
                        F::ConvTranspose3dFuncOptions().stride(2).output_padding(2));
  });
}

}  // namespace
}  // namespace ember
