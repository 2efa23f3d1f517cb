// Note [oneDNN convolution]: oneDNN's primitives (called directly, and
// through ember::convolution) against ember's float64 im2col convolution,
// over strides, padding with a floored remainder, dilation, groups,
// depthwise, 1-D, channel counts that do not fill a block, and a batch
// split across threads; and the rule's documented choices. Channels-last
// tensors as oneDNN's nhwc (Note [Native channels-last convolution] in
// conv.cc): the primitives on nhwc memory, and the public ops' values and
// strides against the row-major float64 ones.
#include "tensor/onednn.h"

#include <atomic>
#include <cstdlib>
#include <thread>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/cpu_info.h"
#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/parallel.h"
#include "tensor/random.h"

namespace ember {
namespace {

using detail::onednn::ConvPass;
using detail::onednn::ConvShape;

struct Case {
  int64_t n, c, h, w, co, kh, kw, sh, sw, ph, pw, dh, dw, groups;
};

ConvShape shape_of(const Case& k) {
  const int64_t oh = (k.h + 2 * k.ph - k.dh * (k.kh - 1) - 1) / k.sh + 1;
  const int64_t ow = (k.w + 2 * k.pw - k.dw * (k.kw - 1) - 1) / k.sw + 1;
  return {k.n,  k.c,  k.h,  k.w,  k.co, k.kh, k.kw, oh,
          ow,   k.sh, k.sw, k.ph, k.pw, k.dh, k.dw, k.groups};
}

const Case kCases[] = {
    {2, 16, 9, 11, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1},    // full blocks
    {3, 3, 13, 12, 20, 5, 5, 2, 2, 2, 2, 1, 1, 1},    // a first layer: 3 channels in, 20 out
    {2, 32, 8, 8, 32, 3, 3, 1, 1, 2, 2, 2, 2, 1},     // dilation 2
    {2, 32, 10, 7, 64, 3, 1, 2, 1, 1, 0, 1, 1, 4},    // groups, a 3x1 kernel, mixed strides
    {2, 16, 6, 6, 16, 1, 1, 2, 2, 0, 0, 1, 1, 1},     // 1x1, stride 2
    {2, 16, 8, 8, 24, 3, 3, 2, 2, 0, 0, 1, 1, 1},     // stride 2 that leaves a column over
    {1, 8, 1, 30, 16, 1, 5, 1, 1, 0, 2, 1, 1, 1},     // 1-D (H = 1)
    {2, 16, 12, 12, 16, 3, 3, 1, 1, 1, 1, 1, 1, 16},  // depthwise
    {2, 20, 12, 12, 50, 5, 5, 1, 1, 0, 0, 1, 1, 1},   // the MNIST net's second layer
};

struct Tensors {
  Tensor x, w, b, gy;
};

Tensors random_tensors(const Case& k, const ConvShape& s) {
  manual_seed(5);
  return {randn({k.n, k.c, k.h, k.w}), randn({k.co, k.c / k.groups, k.kh, k.kw}), randn({k.co}),
          randn({k.n, k.co, s.oh, s.ow})};
}

// Within float rounding of the float64 result, relative to its largest value.
void expect_near(const Tensor& got, const Tensor& want, const char* what, int i) {
  ASSERT_EQ(got.sizes(), want.sizes()) << what << " case " << i;
  const double scale = want.abs().max().item<double>() + 1;
  const double err = (got.to(kDouble) - want).abs().max().item<double>();
  EXPECT_LT(err, 2e-5 * scale) << what << " case " << i;
}

TEST(OneDnnConv, PrimitivesMatchFloat64Im2col) {
  for (int i = 0; i < static_cast<int>(std::size(kCases)); ++i) {
    const Case& k = kCases[i];
    const ConvShape s = shape_of(k);
    const Tensors t = random_tensors(k, s);
    const std::vector<int64_t> st{k.sh, k.sw}, pad{k.ph, k.pw}, dil{k.dh, k.dw};
    const Tensor xd = t.x.to(kDouble), wd = t.w.to(kDouble), gyd = t.gy.to(kDouble);
    const Tensor want_y = convolution(xd, wd, t.b.to(kDouble), st, pad, dil, k.groups);
    const Tensor want_y0 = convolution(xd, wd, Tensor(), st, pad, dil, k.groups);
    auto [want_gx, want_gw, unused] =
        convolution_backward(gyd, xd, wd, st, pad, dil, k.groups, {true, true, false});

    Tensor y = empty(want_y.sizes()), y0 = empty(want_y.sizes());
    Tensor gx = empty(t.x.sizes()), gw = empty(t.w.sizes());
    ASSERT_TRUE(detail::onednn::conv_forward(s, t.x.data_ptr<float>(), t.w.data_ptr<float>(),
                                             t.b.data_ptr<float>(), y.data_ptr<float>()))
        << i;
    ASSERT_TRUE(detail::onednn::conv_forward(s, t.x.data_ptr<float>(), t.w.data_ptr<float>(),
                                             nullptr, y0.data_ptr<float>()))
        << i;
    ASSERT_TRUE(detail::onednn::conv_backward_data(s, t.gy.data_ptr<float>(), t.w.data_ptr<float>(),
                                                   gx.data_ptr<float>()))
        << i;
    ASSERT_TRUE(detail::onednn::conv_backward_weights(s, t.gy.data_ptr<float>(),
                                                      t.x.data_ptr<float>(), gw.data_ptr<float>()))
        << i;
    expect_near(y, want_y, "output", i);
    expect_near(y0, want_y0, "output without bias", i);
    expect_near(gx, want_gx, "input gradient", i);
    expect_near(gw, want_gw, "weight gradient", i);
  }
}

Tensor channels_last(const Tensor& t) { return t.contiguous(MemoryFormat::ChannelsLast); }

// oneDNN builds bfloat16 convolutions on CPUs with AVX-512 (natively or
// emulated) and declines elsewhere (conv_forward returns false; the public
// ops then take the float32 path, BFloat16OpsTakeThePrimitivesWhenPinned).
// A decline on an AVX-512 CPU is a failure.
bool bf16_conv_here() {
  static const bool here = [] {
    const Case& k = kCases[0];
    ConvShape s = shape_of(k);
    s.bf16 = true;
    const Tensors t = random_tensors(k, s);
    const Tensor x = t.x.to(kBFloat16), w = t.w.to(kBFloat16), b = t.b.to(kBFloat16);
    const std::vector<int64_t> st{k.sh, k.sw}, pad{k.ph, k.pw}, dil{k.dh, k.dw};
    const Tensor want =
        convolution(x.to(kFloat), w.to(kFloat), b.to(kFloat), st, pad, dil, k.groups);
    Tensor y = empty(want.sizes(), TensorOptions(kBFloat16));
    return detail::onednn::conv_forward(s, x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr());
  }();
  if (!here) {
    EXPECT_FALSE(cpu_info().avx512f) << "oneDNN declined a bfloat16 convolution on AVX-512";
  }
  return here;
}

// The primitives on nhwc memory, float32 and bfloat16: the float64
// row-major results, in channels-last memory.
TEST(OneDnnConv, PrimitivesTakeChannelsLastMemory) {
  for (int i = 0; i < static_cast<int>(std::size(kCases)); ++i) {
    const Case& k = kCases[i];
    for (bool bf16 : {false, true}) {
      if (bf16 && !bf16_conv_here()) continue;  // float32 still checked
      ConvShape s = shape_of(k);
      s.channels_last = true;
      s.bf16 = bf16;
      const Tensors t = random_tensors(k, s);
      const ScalarType type = bf16 ? kBFloat16 : kFloat;
      s.weight_channels_last = i % 2 == 1;  // oneDNN's ohwi
      const Tensor x = channels_last(t.x.to(type)), b = t.b.to(type),
                   gy = channels_last(t.gy.to(type));
      const Tensor w = s.weight_channels_last ? channels_last(t.w.to(type)) : t.w.to(type);
      ASSERT_TRUE(x.is_contiguous(MemoryFormat::ChannelsLast));
      const std::vector<int64_t> st{k.sh, k.sw}, pad{k.ph, k.pw}, dil{k.dh, k.dw};
      const Tensor xd = x.to(kDouble).contiguous(), wd = w.to(kDouble),
                   gyd = gy.to(kDouble).contiguous();
      const Tensor want_y = convolution(xd, wd, b.to(kDouble), st, pad, dil, k.groups);
      auto [want_gx, want_gw, unused] =
          convolution_backward(gyd, xd, wd, st, pad, dil, k.groups, {true, true, false});
      const TensorOptions cl = TensorOptions(type).memory_format(MemoryFormat::ChannelsLast);
      Tensor y = empty(want_y.sizes(), cl), gx = empty(x.sizes(), cl), gw = empty(w.sizes());
      ASSERT_TRUE(
          detail::onednn::conv_forward(s, x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr()))
          << i;
      ASSERT_TRUE(detail::onednn::conv_backward_data(s, gy.data_ptr(), w.data_ptr(), gx.data_ptr()))
          << i;
      ASSERT_TRUE(detail::onednn::conv_backward_weights(s, gy.data_ptr(), x.data_ptr(),
                                                        gw.data_ptr<float>()))
          << i;
      if (bf16) {
        for (auto [got, want] : {std::make_pair(y, want_y), std::make_pair(gx, want_gx)}) {
          const double scale = want.abs().max().item<double>() + 1;
          EXPECT_LT((got.to(kDouble) - want).abs().max().item<double>(), 1e-2 * scale) << i;
        }
      } else {
        expect_near(y, want_y, "nhwc output", i);
        expect_near(gx, want_gx, "nhwc input gradient", i);
      }
      expect_near(gw, want_gw, "weight gradient from nhwc", i);
    }
  }
}

// Through the public ops, 1 and 2 threads, shapes the rule takes to oneDNN
// (native) and shapes it leaves to im2col (copied): the float64 row-major
// values, with the output and the input gradient channels-last, and the
// same bits run to run.
TEST(OneDnnConv, ChannelsLastOpsMatchRowMajorFloat64) {
  std::vector<Case> cases(std::begin(kCases), std::end(kCases));
  cases.push_back({1, 32, 9, 7, 48, 3, 3, 1, 2, 1, 2, 1, 1, 1});   // N = 1, odd planes
  cases.push_back({3, 48, 11, 9, 32, 3, 3, 2, 2, 1, 1, 2, 1, 2});  // groups, dilation, stride 2
  cases.push_back({2, 24, 7, 9, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1});   // partial blocks (nhwc)
  cases.push_back({2, 6, 9, 9, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1});    // reduction of 54: im2col
  cases.push_back({5, 3, 15, 13, 64, 7, 7, 2, 2, 3, 3, 1, 1, 1});  // a first layer
  const int threads = get_num_threads();
  for (int i = 0; i < static_cast<int>(cases.size()); ++i) {
    const Case& k = cases[i];
    const ConvShape s = shape_of(k);
    const Tensors t = random_tensors(k, s);
    const std::vector<int64_t> st{k.sh, k.sw}, pad{k.ph, k.pw}, dil{k.dh, k.dw};
    const Tensor xd = t.x.to(kDouble), wd = t.w.to(kDouble);
    const Tensor want_y = convolution(xd, wd, t.b.to(kDouble), st, pad, dil, k.groups);
    auto [want_gx, want_gw, want_gb] =
        convolution_backward(t.gy.to(kDouble), xd, wd, st, pad, dil, k.groups, {true, true, true});
    const Tensor x = channels_last(t.x), gy = channels_last(t.gy);
    // A channels-last weight (oneDNN's ohwi) in every other case.
    const Tensor w = i % 2 ? channels_last(t.w) : t.w;
    for (int n : {1, 2}) {
      set_num_threads(n);
      const Tensor y = convolution(x, w, t.b, st, pad, dil, k.groups);
      auto [gx, gw, gb] =
          convolution_backward(gy, x, w, st, pad, dil, k.groups, {true, true, true});
      if (k.h > 1) {  // H = 1 (1-D) strides are ambiguous
        EXPECT_TRUE(y.is_contiguous(MemoryFormat::ChannelsLast)) << i;
        EXPECT_TRUE(gx.is_contiguous(MemoryFormat::ChannelsLast)) << i;
      }
      expect_near(y, want_y, "channels-last output", i);
      expect_near(gx, want_gx, "channels-last input gradient", i);
      expect_near(gw, want_gw, "weight gradient", i);
      expect_near(gb, want_gb, "bias gradient", i);
      if (n == 1) {
        auto [gx2, gw2, gb2] =
            convolution_backward(gy, x, w, st, pad, dil, k.groups, {true, true, true});
        EXPECT_TRUE(equal(convolution(x, w, t.b, st, pad, dil, k.groups), y)) << i;
        EXPECT_TRUE(equal(gx2, gx) && equal(gw2, gw) && equal(gb2, gb)) << i;
      }
    }
  }
  set_num_threads(threads);
}

// Through the public op on two threads: each thread runs its own samples'
// primitives (5 samples: parts of 2 and 3), and the weight gradient is the
// sum of the parts'.
TEST(OneDnnConv, ConvolutionSplitsTheBatchAcrossThreads) {
  const Case k{5, 16, 10, 10, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  const ConvShape s = shape_of(k);
  for (ConvPass p : {ConvPass::kForward, ConvPass::kBackwardData, ConvPass::kBackwardWeights}) {
    EXPECT_TRUE(detail::onednn::use_conv(s, p)) << "the rule must pick oneDNN for this shape";
  }
  const Tensors t = random_tensors(k, s);
  const std::vector<int64_t> st{1, 1}, pad{1, 1}, dil{1, 1};
  const Tensor xd = t.x.to(kDouble), wd = t.w.to(kDouble);
  const Tensor want_y = convolution(xd, wd, t.b.to(kDouble), st, pad, dil, 1);
  auto [want_gx, want_gw, want_gb] =
      convolution_backward(t.gy.to(kDouble), xd, wd, st, pad, dil, 1, {true, true, true});
  const int threads = get_num_threads();
  for (int n : {1, 2}) {
    set_num_threads(n);
    expect_near(convolution(t.x, t.w, t.b, st, pad, dil, 1), want_y, "output", n);
    auto [gx, gw, gb] = convolution_backward(t.gy, t.x, t.w, st, pad, dil, 1, {true, true, true});
    expect_near(gx, want_gx, "input gradient", n);
    expect_near(gw, want_gw, "weight gradient", n);
    expect_near(gb, want_gb, "bias gradient", n);
  }
  set_num_threads(threads);
}

// A transposed convolution is the input gradient of a convolution, so it
// runs oneDNN's backward-data primitive where the rule picks it: output
// padding, stride 2, groups.
TEST(OneDnnConv, TransposedConvolutionMatchesFloat64) {
  manual_seed(6);
  const Tensor x = randn({3, 32, 7, 6}), w = randn({32, 16, 3, 3}), b = randn({32});
  ASSERT_TRUE(detail::onednn::use_conv(shape_of({3, 32, 14, 12, 32, 3, 3, 2, 2, 1, 1, 1, 1, 2}),
                                       ConvPass::kBackwardData));
  const std::vector<int64_t> st{2, 2}, pad{1, 1}, outpad{1, 1}, dil{1, 1};
  const Tensor want = conv_transpose(x.to(kDouble), w.to(kDouble), b.to(kDouble), st, pad, outpad,
                                     dil, 2);
  expect_near(conv_transpose(x, w, b, st, pad, outpad, dil, 2), want, "transposed output", 0);
}

// bfloat16 through oneDNN's bfloat16 primitives (emulated on CPUs without
// native bfloat16): within bfloat16 rounding of the float64 result of the
// same (rounded) inputs; the weight gradient comes back in float32.
TEST(OneDnnConv, BFloat16PrimitivesMatchFloat64) {
  if (!bf16_conv_here()) {
    GTEST_SKIP() << "no oneDNN bfloat16 convolution on this CPU (" << cpu_info().isa_level() << ")";
  }
  for (int i : {0, 1, 3, 7}) {
    const Case& k = kCases[i];
    ConvShape s = shape_of(k);
    s.bf16 = true;
    const Tensors t = random_tensors(k, s);
    const Tensor x = t.x.to(kBFloat16), w = t.w.to(kBFloat16), b = t.b.to(kBFloat16),
                 gy = t.gy.to(kBFloat16);
    const std::vector<int64_t> st{k.sh, k.sw}, pad{k.ph, k.pw}, dil{k.dh, k.dw};
    const Tensor xd = x.to(kDouble), wd = w.to(kDouble), gyd = gy.to(kDouble);
    const Tensor want_y = convolution(xd, wd, b.to(kDouble), st, pad, dil, k.groups);
    auto [want_gx, want_gw, unused] =
        convolution_backward(gyd, xd, wd, st, pad, dil, k.groups, {true, true, false});
    Tensor y = empty(want_y.sizes(), TensorOptions(kBFloat16));
    Tensor gx = empty(x.sizes(), TensorOptions(kBFloat16)), gw = empty(w.sizes());
    ASSERT_TRUE(detail::onednn::conv_forward(s, x.data_ptr(), w.data_ptr(), b.data_ptr(),
                                             y.data_ptr()))
        << i;
    ASSERT_TRUE(detail::onednn::conv_backward_data(s, gy.data_ptr(), w.data_ptr(), gx.data_ptr()))
        << i;
    ASSERT_TRUE(detail::onednn::conv_backward_weights(s, gy.data_ptr(), x.data_ptr(),
                                                      gw.data_ptr<float>()))
        << i;
    for (auto [got, want, what] : {std::make_tuple(y, want_y, "output"),
                                   std::make_tuple(gx, want_gx, "input gradient")}) {
      const double scale = want.abs().max().item<double>() + 1;
      EXPECT_LT((got.to(kDouble) - want).abs().max().item<double>(), 1e-2 * scale)
          << what << " case " << i;
    }
    expect_near(gw, want_gw, "float32 weight gradient", i);
  }
}

// EMBER_CPU_CONV=onednn takes the bfloat16 primitives through the public
// ops (in a child: the choice is read once per process), on two threads:
// the same results as the float32 path rounded to bfloat16, within its
// rounding.
bool bf16_ops_agree_with_float(MemoryFormat format) {
  manual_seed(8);
  const Tensor x = randn({5, 16, 9, 9}).contiguous(format), w = randn({32, 16, 3, 3}),
               b = randn({32}), gy = randn({5, 32, 9, 9}).contiguous(format);
  const std::vector<int64_t> one{1, 1};
  auto close = [](const Tensor& got, const Tensor& want) {
    const double scale = want.abs().max().item<double>() + 1;
    return got.dtype() == kBFloat16 &&
           (got.to(kDouble) - want.to(kDouble)).abs().max().item<double>() < 2e-2 * scale;
  };
  const Tensor xb = x.to(kBFloat16), wb = w.to(kBFloat16), bb = b.to(kBFloat16),
               gyb = gy.to(kBFloat16);
  set_num_threads(2);
  const Tensor want_y = convolution(xb.to(kFloat), wb.to(kFloat), bb.to(kFloat), one, one, one, 1);
  auto [want_gx, want_gw, want_gb] = convolution_backward(
      gyb.to(kFloat), xb.to(kFloat), wb.to(kFloat), one, one, one, 1, {true, true, true});
  auto [gx, gw, gb] = convolution_backward(gyb, xb, wb, one, one, one, 1, {true, true, true});
  // The bias gradient is summed in float and rounded once: within one
  // bfloat16 rounding (2^-8 relative) of the exact sum.
  const Tensor exact_gb = gyb.to(kDouble).sum({0, 2, 3});
  const bool gb_rounded_once =
      ((gb.to(kDouble) - exact_gb).abs() <= exact_gb.abs() * (1.0 / 256) + 1e-6).all().item<bool>();
  return detail::onednn::use_bf16_conv() && gyb.is_contiguous(format) &&
         close(convolution(xb, wb, bb, one, one, one, 1), want_y) && close(gx, want_gx) &&
         close(gw, want_gw) && close(gb, want_gb) && gb_rounded_once;
}

// Both layouts: row-major and channels-last memory (Note [Native
// channels-last convolution]).
bool bf16_ops_agree_with_float() {
  return bf16_ops_agree_with_float(MemoryFormat::Contiguous) &&
         bf16_ops_agree_with_float(MemoryFormat::ChannelsLast);
}

TEST(OneDnnConv, BFloat16OpsTakeThePrimitivesWhenPinned) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_EXIT(
      {
        setenv("EMBER_CPU_CONV", "onednn", 1);
        std::exit(bf16_ops_agree_with_float() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// More shapes than the plan cache holds (512), from two threads at once: the
// cache is cleared while the other thread runs a plan it got before (plans
// are shared, so it stays alive), and every result is still right.
TEST(OneDnnConv, PlanCacheBoundHoldsUnderConcurrentUse) {
  manual_seed(9);
  const Tensor w = randn({16, 16, 3, 3});
  const Tensor wd = w.to(kDouble);
  std::atomic<int> wrong{0};
  auto work = [&](int first) {
    for (int h = first; h < first + 300; ++h) {
      const Case k{1, 16, h, 3, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1};
      const ConvShape s = shape_of(k);
      const Tensor x = full({1, 16, h, 3}, 0.5);
      Tensor y = empty({1, 16, s.oh, s.ow});
      if (!detail::onednn::conv_forward(s, x.data_ptr<float>(), w.data_ptr<float>(), nullptr,
                                        y.data_ptr<float>())) {
        ++wrong;
        continue;
      }
      const std::vector<int64_t> one{1, 1};
      const Tensor want = convolution(x.to(kDouble), wd, Tensor(), one, one, one, 1);
      if ((y.to(kDouble) - want).abs().max().item<double>() > 1e-4) ++wrong;
    }
  };
  std::thread a(work, 4), b(work, 304);
  a.join();
  b.join();
  EXPECT_EQ(wrong.load(), 0);
}

// Note [oneDNN convolution rule]'s choices that hold on AVX-512 (16-channel
// blocks) and AVX2 (8) hosts alike.
TEST(OneDnnConv, RuleTakesOneDnnWhereBlocksAreFull) {
  const ConvShape resnet = shape_of({32, 64, 16, 16, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1});
  for (ConvPass p : {ConvPass::kForward, ConvPass::kBackwardData, ConvPass::kBackwardWeights}) {
    EXPECT_TRUE(detail::onednn::use_conv(resnet, p));
  }
  // A first layer of 3 channels: forward and weight gradient only.
  const ConvShape first = shape_of({32, 3, 64, 64, 64, 7, 7, 2, 2, 3, 3, 1, 1, 1});
  EXPECT_TRUE(detail::onednn::use_conv(first, ConvPass::kForward));
  EXPECT_TRUE(detail::onednn::use_conv(first, ConvPass::kBackwardWeights));
  EXPECT_FALSE(detail::onednn::use_conv(first, ConvPass::kBackwardData));
  // 2x2 output planes: the weight gradient stays on im2col.
  const ConvShape small = shape_of({32, 512, 2, 2, 512, 3, 3, 1, 1, 1, 1, 1, 1, 1});
  EXPECT_FALSE(detail::onednn::use_conv(small, ConvPass::kBackwardWeights));
  // 9 -> 9 channels fill a 16-block or two 8-blocks to 56%, squared 32%;
  // 1x1 kernels; the MNIST net's first layer (a reduction of 25).
  const ConvShape sparse = shape_of({8, 9, 12, 12, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1});
  const ConvShape one_by_one = shape_of({32, 64, 16, 16, 128, 1, 1, 2, 2, 0, 0, 1, 1, 1});
  const ConvShape mnist = shape_of({64, 1, 28, 28, 20, 5, 5, 1, 1, 0, 0, 1, 1, 1});
  for (const ConvShape& s : {sparse, one_by_one, mnist}) {
    for (ConvPass p : {ConvPass::kForward, ConvPass::kBackwardData, ConvPass::kBackwardWeights}) {
      EXPECT_FALSE(detail::onednn::use_conv(s, p)) << s.c << " -> " << s.co;
    }
  }
  // 1x1 kernels on channels-last tensors need no reorder: oneDNN.
  ConvShape one_by_one_cl = one_by_one;
  one_by_one_cl.channels_last = true;
  for (ConvPass p : {ConvPass::kForward, ConvPass::kBackwardData, ConvPass::kBackwardWeights}) {
    EXPECT_TRUE(detail::onednn::use_conv(one_by_one_cl, p));
  }
  // Partly filled blocks on channels-last tensors (nhwc has no padded
  // block to reorder into): the MNIST net's 20 -> 50 second layer and
  // 12 -> 24 take every pass; the reduction must still reach 64.
  ConvShape mnist2_cl = shape_of({64, 20, 12, 12, 50, 5, 5, 1, 1, 0, 0, 1, 1, 1});
  ConvShape narrow_cl = shape_of({32, 12, 16, 16, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1});
  ConvShape mnist_cl = mnist;
  mnist2_cl.channels_last = narrow_cl.channels_last = mnist_cl.channels_last = true;
  for (ConvPass p : {ConvPass::kForward, ConvPass::kBackwardData, ConvPass::kBackwardWeights}) {
    EXPECT_TRUE(detail::onednn::use_conv(mnist2_cl, p));
    EXPECT_TRUE(detail::onednn::use_conv(narrow_cl, p));
    EXPECT_FALSE(detail::onednn::use_conv(mnist_cl, p));
  }
  // The same layer row-major: blocks below 80% full (AVX-512: 20/32 *
  // 50/64; AVX2: 20/24 * 50/56), so im2col.
  ConvShape mnist2 = mnist2_cl;
  mnist2.channels_last = false;
  EXPECT_FALSE(detail::onednn::use_conv(mnist2, ConvPass::kForward));
}

}  // namespace
}  // namespace ember
