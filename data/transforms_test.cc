#include "data/transforms.h"

#include <gtest/gtest.h>

#include "data/test_golden.h"

#include <string>
#include <vector>

#include "tensor/creation.h"
#include "tensor/indexing.h"
#include "tensor/math.h"
#include "tensor/random.h"

namespace ember {
namespace data {
namespace transforms {
namespace {

const testing::Golden<float> kGolden[] = {
#include "data/testdata/transforms_golden.inc"
};

const std::vector<float>& golden(const std::string& name) { return testing::find_golden(kGolden, name); }

std::vector<float> values(const Tensor& t) {
  const Tensor c = t.contiguous().to(kFloat);
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

Tensor hwc_image() { return (arange(5 * 6 * 3) * 7).remainder(256).to(kByte).view({5, 6, 3}); }
Tensor gray_image() { return (arange(4 * 3) * 21).remainder(256).to(kByte).view({4, 3}); }

TEST(ToTensorTest, HwcBytesToChwFloats) {
  const Tensor t = ToTensor()(hwc_image());
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{3, 5, 6}));
  EXPECT_EQ(t.dtype(), kFloat);
  EXPECT_EQ(values(t), golden("to_tensor_hwc"));
}

TEST(ToTensorTest, GrayImageGetsAChannel) {
  const Tensor t = ToTensor()(gray_image());
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{1, 4, 3}));
  EXPECT_EQ(values(t), golden("to_tensor_hw"));
  // A non-contiguous view gives the same values.
  const Tensor strided = gray_image().t().contiguous().t();
  EXPECT_EQ(values(ToTensor()(strided)), golden("to_tensor_hw"));
}

TEST(ToTensorTest, NonByteIsNotScaledAndBadRankThrows) {
  const Tensor f = ones({2, 2, 3}, kFloat) * 7;
  const Tensor t = ToTensor()(f);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{3, 2, 2}));
  EXPECT_EQ(t.max().item<float>(), 7.0f);
  try {
    ToTensor()(zeros({4}, kByte));
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "pic should be 2/3 dimensional. Got 1 dimensions.");
  }
}

TEST(NormalizeTest, PerChannelMatchesPyTorch) {
  const Tensor x = ToTensor()(hwc_image());
  Normalize n({0.485, 0.456, 0.406}, {0.229, 0.224, 0.225});
  EXPECT_EQ(values(n(x)), golden("normalize_rgb"));
  // Not in place by default.
  EXPECT_EQ(values(x), golden("to_tensor_hwc"));
  EXPECT_EQ(values(Normalize({0.2860}, {0.3530})(ToTensor()(gray_image()))),
            golden("normalize_mnist"));
}

TEST(NormalizeTest, StridedAndBatchedInputsTakeTheGeneralPath) {
  const Tensor x = ToTensor()(hwc_image());
  Normalize n({0.485, 0.456, 0.406}, {0.229, 0.224, 0.225});
  const Tensor strided = x.transpose(1, 2).contiguous().transpose(1, 2);
  ASSERT_FALSE(strided.is_contiguous());
  EXPECT_EQ(values(n(strided)), golden("normalize_rgb"));
  const Tensor batch = n(x.unsqueeze(0).expand({2, 3, 5, 6}).contiguous());
  EXPECT_EQ(values(batch[1]), golden("normalize_rgb"));
}

TEST(NormalizeTest, InPlaceWritesTheInput) {
  Tensor x = ToTensor()(hwc_image());
  Tensor y = Normalize({0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}, true)(x);
  EXPECT_TRUE(y.is_same(x));
  EXPECT_EQ(values(x), golden("normalize_rgb"));
}

TEST(NormalizeTest, Errors) {
  Normalize n({0.5}, {0.5});
  try {
    n(zeros({1, 2, 2}, kByte));
    FAIL() << "no error";
  } catch (const TypeError& e) {
    EXPECT_STREQ(e.what(), "Input tensor should be a float tensor. Got torch.uint8.");
  }
  try {
    n(zeros({2, 2}));
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(),
                 "Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() "
                 "= [2, 2]");
  }
  try {
    Normalize({0.5}, {0.0})(zeros({1, 2, 2}));
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(),
                 "std evaluated to zero after conversion to torch.float32, leading to division by "
                 "zero.");
  }
  // Two means for three channels: the broadcasting error.
  EXPECT_THROW(Normalize({0.1, 0.2}, {1, 1})(zeros({3, 2, 2})), Error);
}

TEST(ComposeTest, AppliesInOrderWithLambda) {
  Compose c({ToTensor(), Lambda([](const Tensor& t) { return t * 2; }),
             Normalize({1.0}, {0.5})});
  const Tensor y = c(gray_image());
  const Tensor expect = (ToTensor()(gray_image()) * 2 - 1) / 0.5;
  EXPECT_EQ(values(y), values(expect));
}

TEST(RandomCropTest, MatchesTorchvisionDraws) {
  const Tensor x = arange(36, kFloat).view({1, 6, 6});
  RandomCrop crop({4}, {2});
  manual_seed(3);
  for (int k = 0; k < 5; ++k) {
    const Tensor y = crop(x);
    EXPECT_EQ(y.sizes(), (std::vector<int64_t>{1, 4, 4}));
    EXPECT_EQ(values(y), golden("random_crop_seed3_call" + std::to_string(k))) << k;
  }
}

TEST(RandomCropTest, OwnGeneratorIsReproducible) {
  const Tensor x = arange(64, kFloat).view({1, 8, 8});
  RandomCrop a({3, 5}, {}, false, 0, Generator(9)), b({3, 5}, {}, false, 0, Generator(9));
  for (int k = 0; k < 4; ++k) EXPECT_EQ(values(a(x)), values(b(x)));
}

TEST(RandomCropTest, PaddingOrderAndErrors) {
  // 4 values: left, top, right, bottom.
  const Tensor p = pad(ones({1, 2, 2}), 1, 0, 2, 3, 9);
  EXPECT_EQ(p.sizes(), (std::vector<int64_t>{1, 5, 5}));
  EXPECT_EQ(p.index({0, 0, 0}).item<float>(), 9.0f);
  EXPECT_EQ(p.index({0, 0, 1}).item<float>(), 1.0f);
  EXPECT_EQ(p.index({0, 1, 2}).item<float>(), 1.0f);
  EXPECT_EQ(p.index({0, 2, 1}).item<float>(), 9.0f);
  try {
    RandomCrop({32})(zeros({1, 28, 28}));
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "Required crop size (32, 32) is larger than input image size (28, 28)");
  }
  // pad_if_needed grows the image instead.
  EXPECT_EQ(RandomCrop({32}, {}, true)(zeros({1, 28, 28})).sizes(),
            (std::vector<int64_t>{1, 32, 32}));
  EXPECT_THROW(RandomCrop({4}, {1, 2, 3}), ValueError);
  EXPECT_THROW(RandomCrop({1, 2, 3}), ValueError);
}

TEST(RandomHorizontalFlipTest, MatchesTorchRandDraws) {
  const Tensor x = arange(4, kFloat).view({1, 2, 2});
  RandomHorizontalFlip flip(0.5);
  manual_seed(8);
  std::vector<float> flips;
  for (int k = 0; k < 16; ++k) {
    const Tensor y = flip(x);
    flips.push_back(y.index({0, 0, 0}).item<float>() == 1.0f ? 1.0f : 0.0f);
    if (flips.back() == 1.0f) {
      EXPECT_EQ(values(y), (std::vector<float>{1, 0, 3, 2}));
    }
  }
  EXPECT_EQ(flips, golden("hflip_seed8_p05_flips"));
  EXPECT_EQ(values(RandomHorizontalFlip(1.0)(x)), (std::vector<float>{1, 0, 3, 2}));
  EXPECT_EQ(values(RandomHorizontalFlip(0.0)(x)), values(x));
  EXPECT_THROW(RandomHorizontalFlip(1.5), ValueError);
}

}  // namespace
}  // namespace transforms
}  // namespace data
}  // namespace ember
