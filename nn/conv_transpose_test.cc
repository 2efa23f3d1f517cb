// ConvTranspose1d / ConvTranspose2d (nn/conv.h) against PyTorch
// (tools/golden/nn_modules_more.py): initial parameters under
// manual_seed(0), their names and shapes, forward values, output_size, the
// printed form and the constructor's errors.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "nn/conv.h"
#include "nn/container.h"
#include "nn/test_golden_more.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

using ::ember::testing::near_golden;
namespace g = testing::more;
using g::expect_layer;

TEST(ConvTransposeTest, InitAndForwardMatchPyTorch) {
  manual_seed(0);
  ConvTranspose1d c1(ConvTranspose1dOptions(2, 4, 3).stride(2).padding(1).output_padding(1));
  expect_layer("convt1d", c1);
  manual_seed(0);
  ConvTranspose2d groups(
      ConvTranspose2dOptions(4, 6, {3, 2}).stride({2, 1}).padding({1, 0}).groups(2).bias(false));
  expect_layer("convt2d_groups", groups);
  manual_seed(0);
  ConvTranspose2d dilated(ConvTranspose2dOptions(2, 3, 3).stride(2).padding(1).dilation(2));
  expect_layer("convt2d_dilation", dilated);
  manual_seed(0);
  ConvTranspose2d unbatched(2, 3, 2);
  expect_layer("convt2d_unbatched", unbatched);
}

// forward(input, output_size): the output_padding that gives the size.
TEST(ConvTransposeTest, OutputSize) {
  manual_seed(0);
  ConvTranspose2d up(ConvTranspose2dOptions(2, 3, 3).stride({3, 2}).padding(1));
  Tensor x = g::golden_tensor("output_size.input");
  EXPECT_TRUE(near_golden(up(x, std::vector<int64_t>{8, 8}), g::golden("output_size.out_8x8"),
                          kFloat, 1e-5));
  EXPECT_TRUE(near_golden(up(x, std::vector<int64_t>{1, 3, 9, 8}),
                          g::golden("output_size.out_9x8_full"), kFloat, 1e-5));
  EXPECT_TRUE(near_golden(up(x[0], std::vector<int64_t>{3, 7, 8}),
                          g::golden("output_size.out_unbatched"), kFloat, 1e-5));
  g::expect_golden_error("output_size.length", [&] { up(x, std::vector<int64_t>{8}); });
  g::expect_golden_error("output_size.range", [&] { up(x, std::vector<int64_t>{10, 8}); });
  g::expect_golden_error("output_size.range_unbatched",
                         [&] { up(x[0], std::vector<int64_t>{7, 10}); });
}

TEST(ConvTransposeTest, GradientsReachParameters) {
  manual_seed(0);
  ConvTranspose2d up(ConvTranspose2dOptions(2, 3, 3).stride(2));
  Tensor x = randn({2, 2, 3, 3}).requires_grad_();
  up(x).sum().backward();
  EXPECT_EQ(x.grad().sizes(), x.sizes());
  EXPECT_EQ(up->weight.grad().sizes(), up->weight.sizes());
  // The bias gradient of a sum: the number of outputs per channel.
  EXPECT_TRUE(up->bias.grad().equal(full({3}, 2.0f * 7 * 7)));
}

TEST(ConvTransposeTest, PrintsAsPyTorch) {
  ModuleList convs(
      ConvTranspose1d(ConvTranspose1dOptions(2, 4, 3).stride(2).padding(1).output_padding(1)),
      ConvTranspose2d(
          ConvTranspose2dOptions(4, 6, {3, 2}).stride({2, 1}).padding({1, 0}).groups(2).bias(false)),
      ConvTranspose2d(ConvTranspose2dOptions(2, 3, 3).stride(2).padding(1).dilation(2)),
      ConvTranspose2d(2, 3, 2));
  EXPECT_EQ(g::repr(*convs), g::golden_string("repr.convs"));
}

TEST(ConvTransposeTest, ConstructionErrors) {
  g::expect_golden_error("convt.padding_mode", [] {
    ConvTranspose2d(ConvTranspose2dOptions(2, 3, 3).padding_mode(kReflect));
  });
  g::expect_golden_error("convt.groups_in",
                         [] { ConvTranspose2d(ConvTranspose2dOptions(3, 4, 3).groups(2)); });
  g::expect_golden_error("convt.groups_out",
                         [] { ConvTranspose1d(ConvTranspose1dOptions(4, 3, 3).groups(2)); });
}

}  // namespace
}  // namespace nn
}  // namespace ember
