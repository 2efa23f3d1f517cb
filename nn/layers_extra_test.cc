// Issue 19's layers against PyTorch (tools/golden/nn_modules_extra.py):
// Conv3d / ConvTranspose3d initial parameters under manual_seed(0), names,
// forward values, BatchNorm3d's statistics, the printed forms of the
// pooling, resampling and 3-d layers, and the constructors' errors. The
// functional ops behind them are checked in nn/functional.

#include <gtest/gtest.h>

#include <vector>

#include "autograd/autograd.h"
#include "nn/container.h"
#include "nn/conv.h"
#include "nn/normalization.h"
#include "nn/pooling.h"
#include "nn/test_golden_extra.h"
#include "nn/upsampling.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

using ::ember::testing::golden_tensor;
using ::ember::testing::near_golden;
namespace g = testing::more;
const testing::GoldenTables& t() { return testing::extra::tables(); }

TEST(LayersExtraTest, Conv3dInitAndForwardMatchPyTorch) {
  manual_seed(0);
  Conv3d c(Conv3dOptions(2, 3, {2, 3, 2}).stride({1, 2, 1}).padding(1));
  g::expect_layer_in(t(), "conv3d", c);
  manual_seed(0);
  Conv3d groups(Conv3dOptions(4, 2, 2).groups(2).bias(false).dilation({2, 1, 1}));
  g::expect_layer_in(t(), "conv3d_groups", groups);
  manual_seed(0);
  Conv3d reflect(Conv3dOptions(1, 2, 3).padding(1).padding_mode(kReflect));
  g::expect_layer_in(t(), "conv3d_reflect", reflect);
  manual_seed(0);
  ConvTranspose3d ct(
      ConvTranspose3dOptions(2, 4, {2, 3, 2}).stride(2).padding({0, 1, 0}).output_padding({1, 0, 1}));
  g::expect_layer_in(t(), "convt3d", ct);
  manual_seed(0);
  ConvTranspose3d ctg(ConvTranspose3dOptions(4, 2, 2).groups(2).bias(false));
  g::expect_layer_in(t(), "convt3d_groups", ctg);
}

TEST(LayersExtraTest, ConvTranspose3dOutputSize) {
  manual_seed(0);
  ConvTranspose3d up(ConvTranspose3dOptions(2, 3, 3).stride({3, 2, 2}).padding(1));
  Tensor out = up(golden_tensor(t().golden("output_size.input")), std::vector<int64_t>{5, 6, 4});
  EXPECT_TRUE(near_golden(out, t().golden("output_size.out"), kFloat, 1e-5));
}

TEST(LayersExtraTest, BatchNorm3dTrainsAndEvaluates) {
  manual_seed(0);
  BatchNorm3d bn(BatchNormOptions(3).momentum(0.3));
  EXPECT_EQ(g::params_string(*bn), t().golden_string("params.batchnorm3d"));
  EXPECT_EQ(g::state_dict_keys(*bn), t().golden_string("state_dict.batchnorm3d"));
  Tensor x = golden_tensor(t().golden("bn3d.input"));
  EXPECT_TRUE(near_golden(bn(x), t().golden("bn3d.train1"), kFloat, 1e-5));
  EXPECT_TRUE(near_golden(bn(x * 2 + 1), t().golden("bn3d.train2"), kFloat, 1e-5));
  for (const auto& [name, b] : bn->named_buffers()) {
    EXPECT_TRUE(near_golden(b, t().golden("bn3d." + name), b.dtype(), 1e-5)) << name;
  }
  bn->eval();
  EXPECT_TRUE(near_golden(bn(x), t().golden("bn3d.eval"), kFloat, 1e-5));
}

TEST(LayersExtraTest, PrintedFormsMatchPyTorch) {
  ModuleList convs;
  convs->push_back(Conv3d(Conv3dOptions(2, 3, {2, 3, 2}).stride({1, 2, 1}).padding(1)));
  convs->push_back(Conv3d(Conv3dOptions(4, 2, 2).groups(2).bias(false).dilation({2, 1, 1})));
  convs->push_back(Conv3d(Conv3dOptions(1, 2, 3).padding(kSame).padding_mode(kReflect)));
  convs->push_back(ConvTranspose3d(
      ConvTranspose3dOptions(2, 4, {2, 3, 2}).stride(2).padding({0, 1, 0}).output_padding({1, 0, 1})));
  convs->push_back(ConvTranspose3d(ConvTranspose3dOptions(4, 2, 2).groups(2).bias(false)));
  EXPECT_EQ(g::repr(*convs), t().golden_string("repr.convs"));

  ModuleList pools;
  pools->push_back(MaxPool1d(3));
  pools->push_back(MaxPool1d(MaxPool1dOptions(3).stride(2).padding(1).dilation(2).ceil_mode(true)));
  pools->push_back(MaxPool3d(2));
  pools->push_back(MaxPool3d(MaxPool3dOptions({3, 2, 2}).stride({2, 1, 2}).padding(1).ceil_mode(true)));
  pools->push_back(AvgPool1d(3));
  pools->push_back(AvgPool1d(AvgPool1dOptions(4).stride(2).padding(1).ceil_mode(true).count_include_pad(false)));
  pools->push_back(AvgPool3d(2));
  pools->push_back(AvgPool3d(AvgPool3dOptions({3, 2, 2}).stride(1).padding({1, 0, 1}).count_include_pad(false).divisor_override(3)));
  pools->push_back(AdaptiveAvgPool1d(3));
  pools->push_back(AdaptiveAvgPool3d(2));
  pools->push_back(AdaptiveAvgPool3d(AdaptiveAvgPool3dOptions({2, 3, 1})));
  pools->push_back(AdaptiveMaxPool1d(3));
  pools->push_back(AdaptiveMaxPool2d(2));
  pools->push_back(AdaptiveMaxPool2d(AdaptiveMaxPool2dOptions({3, 2})));
  EXPECT_EQ(g::repr(*pools), t().golden_string("repr.pools"));

  ModuleList resample;
  resample->push_back(Upsample(UpsampleOptions().scale_factor(std::vector<double>{2})));
  resample->push_back(Upsample(
      UpsampleOptions().size(std::vector<int64_t>{2, 3}).mode(kBilinear).align_corners(true)));
  resample->push_back(Upsample(UpsampleOptions().size(std::vector<int64_t>{5}).mode(kLinear)));
  resample->push_back(
      Upsample(UpsampleOptions().scale_factor(std::vector<double>{1.5, 2.0}).mode(kBicubic)));
  resample->push_back(Fold(FoldOptions({4, 5}, 2)));
  resample->push_back(Fold(FoldOptions(6, {2, 3}).dilation(2).padding(1).stride({1, 2})));
  resample->push_back(Unfold(UnfoldOptions(2)));
  resample->push_back(Unfold(UnfoldOptions({2, 3}).dilation(1).padding(1).stride(2)));
  EXPECT_EQ(g::repr(*resample), t().golden_string("repr.resample"));

  ModuleList others;
  others->push_back(BatchNorm3d(3));
  others->push_back(BatchNorm3d(BatchNormOptions(4).eps(1e-3).momentum(std::nullopt).affine(false)));
  EXPECT_EQ(g::repr(*others), t().golden_string("repr.others"));
}

TEST(LayersExtraTest, LayersRunTheirFunctionalOps) {
  manual_seed(0);
  Tensor x = randn({1, 2, 4, 6, 5});
  MaxPool3d pool(2);
  auto [out, idx] = pool->forward_with_indices(x);
  EXPECT_EQ(out.sizes(), IntArrayRef({1, 2, 2, 3, 2}));
  EXPECT_TRUE(out.equal(x.flatten(2).gather(2, idx.flatten(2)).view_as(out)));
  AdaptiveMaxPool2d amax(AdaptiveMaxPool2dOptions({3, 2}));
  Tensor y = x[0][0];  // [4, 6, 5]: unbatched [C, H, W]
  EXPECT_TRUE(amax(y).equal(functional::adaptive_max_pool2d(y, {3, 2})));
  Upsample up(UpsampleOptions().scale_factor(std::vector<double>{2}).mode(kTrilinear));
  EXPECT_EQ(up(x).sizes(), IntArrayRef({1, 2, 8, 12, 10}));
  Unfold unfold(UnfoldOptions(2));
  Fold fold(FoldOptions({6, 5}, 2));
  Tensor planes = x.flatten(1, 2);  // [1, 8, 6, 5]
  // fold(unfold(x)) counts each element once per block covering it.
  Tensor counts = fold(unfold(ones_like(planes)));
  EXPECT_TRUE(fold(unfold(planes)).allclose(planes * counts));
}

TEST(LayersExtraTest, Errors) {
  t().expect_golden_error("conv3d.groups", [] { Conv3d(Conv3dOptions(3, 4, 3).groups(2)); });
  t().expect_golden_error("convt3d.padding_mode", [] {
    ConvTranspose3d(ConvTranspose3dOptions(2, 3, 3).padding_mode(kReflect));
  });
  t().expect_golden_error("batchnorm3d.dims", [] { BatchNorm3d(3)(zeros({2, 3, 4, 5})); });
}

}  // namespace
}  // namespace nn
}  // namespace ember
