// What `sweep --nn` (tools/parity, issue 22) found in nn::functional,
// against PyTorch 1.13 (tools/golden/nn_sweep_cases.py): F::normalize and
// F::one_hot (ember had neither), prelu of a 0-dim input and its layout,
// smooth_l1_loss's libtorch signature with beta, bfloat16 nll_loss and
// cross_entropy, norm's float p (through normalize), multi_margin_loss's
// weight and circular pad's overlap errors.

#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "nn/functional/functional.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_case_in;
using testing::find_golden;
using testing::matches_golden;
using In = std::vector<Tensor>;

const testing::GoldenEntry kGolden[] = {
#include "nn/functional/testdata/nn_sweep_cases_golden.inc"
};
const testing::GoldenError kErrors[] = {
#include "nn/functional/testdata/nn_sweep_cases_errors_golden.inc"
};

void expect_error(const std::string& name, const std::function<void()>& f) {
  testing::expect_golden_error(kErrors, name, f);
}

TEST(NnSweepCases, Normalize) {
  using O = F::NormalizeFuncOptions;
  check_case_in(kGolden, "normalize", 1, {0}, [](const In& x) { return F::normalize(x[0]); });
  check_case_in(kGolden, "normalize_p1_last", 1, {0},
                [](const In& x) { return F::normalize(x[0], O().p(1).dim(-1)); });
  check_case_in(kGolden, "normalize_p3_dim0_eps", 1, {0},
                [](const In& x) { return F::normalize(x[0], O().p(3).dim(0).eps(0.5)); });
  check_case_in(kGolden, "normalize_p1.5", 1, {0},
                [](const In& x) { return F::normalize(x[0], O().p(1.5).dim(1)); });
  check_case_in(kGolden, "normalize_p0.9", 1, {0},
                [](const In& x) { return F::normalize(x[0], O().p(0.9).dim(1)); });
  check_case_in(kGolden, "normalize_p2.7_dim0", 1, {0},
                [](const In& x) { return F::normalize(x[0], O().p(2.7).dim(0).eps(0.1)); });
  check_case_in(kGolden, "normalize_p0.3_last", 1, {0},
                [](const In& x) { return F::normalize(x[0], O().p(0.3).dim(-1)); });
  check_case_in(kGolden, "normalize_inf", 1, {0}, [](const In& x) {
    return F::normalize(x[0], O().p(std::numeric_limits<double>::infinity()).dim(2));
  });
  check_case_in(kGolden, "normalize_zeros", 1, {0},
                [](const In& x) { return F::normalize(x[0] * 0); });
  check_case_in(kGolden, "normalize_1d", 1, {0},
                [](const In& x) { return F::normalize(x[0], O().dim(0)); });
  check_case_in(kGolden, "normalize_transposed", 1, {0},
                [](const In& x) { return F::normalize(x[0].transpose(0, 2), O().dim(1)); });
}

TEST(NnSweepCases, NormalizeNodesOutAndErrors) {
  const Tensor x = randn({2, 3}).requires_grad_();
  const Tensor y = F::normalize(x);
  ASSERT_NE(y.grad_fn(), nullptr);
  EXPECT_EQ(y.grad_fn()->name(), "DivBackward0");
  // out= receives the quotient (resized), as torch.div(..., out=out).
  Tensor out = empty({0});
  const Tensor r = F::normalize(tensor({3.0f, 4.0f}), F::NormalizeFuncOptions().dim(0).out(out));
  EXPECT_TRUE(r.is_same(out));
  EXPECT_TRUE(allclose(out, tensor({0.6f, 0.8f})));
  expect_error("normalize_long", [] { F::normalize(tensor({int64_t{1}, 2})); });
  expect_error("normalize_dim", [] { F::normalize(tensor({3.0f, 4.0f})); });
}

// 1.13's MultiMarginLossBackward0 refuses a weight that requires grad;
// its circular pad refuses to copy between overlapping parts of its result.
TEST(NnSweepCases, MarginWeightAndCircularPadErrors) {
  expect_error("multi_margin_weight_requires_grad", [] {
    F::multi_margin_loss(ones({2, 3}), tensor({int64_t{0}, 1}),
                         F::MultiMarginLossFuncOptions().weight(ones({3}).requires_grad_()));
  });
  {
    NoGradGuard no_grad;  // as 1.13: only recording refuses it
    EXPECT_NO_THROW(
        F::multi_margin_loss(ones({2, 3}), tensor({int64_t{0}, 1}),
                             F::MultiMarginLossFuncOptions().weight(ones({3}).requires_grad_())));
  }
  expect_error("pad_circular_overlap", [] {
    F::pad(arange(3.0).view({1, 1, 3}), F::PadFuncOptions({3, -2}).mode(kCircular));
  });
}

TEST(NnSweepCases, OneHot) {
  EXPECT_TRUE(matches_golden(F::one_hot(tensor({int64_t{0}, 2, 1, 2})),
                             find_golden(kGolden, "one_hot/default")));
  EXPECT_TRUE(matches_golden(F::one_hot(tensor({int64_t{0}, 2, 1, 1}).view({2, 2}), 4),
                             find_golden(kGolden, "one_hot/4")));
  EXPECT_TRUE(
      matches_golden(F::one_hot(tensor(int64_t{2}), 4), find_golden(kGolden, "one_hot/0dim")));
  EXPECT_TRUE(matches_golden(one_hot(tensor({int64_t{3}, 0, 2, 1, 1, 0}).slice(0, 0, 6, 2)),
                             find_golden(kGolden, "one_hot/stepped")));
  EXPECT_TRUE(
      matches_golden(F::one_hot(empty({0}, kLong), 3), find_golden(kGolden, "one_hot/empty")));
  expect_error("one_hot_float", [] { F::one_hot(tensor({0.0f, 1.0f})); });
  expect_error("one_hot_int", [] { F::one_hot(tensor({0, 1}).to(kInt)); });
  expect_error("one_hot_negative", [] { F::one_hot(tensor({int64_t{0}, -1})); });
  expect_error("one_hot_too_large", [] { F::one_hot(tensor({int64_t{0}, 3}), 3); });
  expect_error("one_hot_zero_classes", [] { F::one_hot(tensor({int64_t{0}, 1}), 0); });
  expect_error("one_hot_empty_infer", [] { F::one_hot(empty({0}, kLong)); });
  expect_error("one_hot_empty_zero", [] { F::one_hot(empty({0}, kLong), 0); });
}

TEST(NnSweepCases, PreluOfAZeroDimInputAndItsLayout) {
  check_case_in(kGolden, "prelu_0dim", 2, {0, 1}, [](const In& x) { return F::prelu(x[0], x[1]); });
  check_case_in(kGolden, "prelu_0dim_0dim_weight", 2, {0, 1},
                [](const In& x) { return F::prelu(x[0], x[1]); });
  expect_error("prelu_0dim_weights", [] { F::prelu(tensor(1.5f), tensor({0.25f, 0.5f})); });
  expect_error("prelu_channels", [] { F::prelu(ones({2, 4}), tensor({0.25f, 0.5f, 1.0f})); });
  // 1.13 lays the result out as suggest_memory_format: a transposed input
  // gives a contiguous result, a channels-last one stays channels-last.
  const Tensor t = randn({2, 4, 3}).transpose(1, 2);
  EXPECT_EQ(F::prelu(t, tensor({0.25f, 0.5f, 1.0f})).strides().vec(),
            (std::vector<int64_t>{12, 4, 1}));
  const Tensor cl = randn({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast);
  EXPECT_TRUE(F::prelu(cl, tensor({0.25f})).is_contiguous(MemoryFormat::ChannelsLast));
}

// 1.13 (thnn_conv_use_channels_last / mkldnn_conv_use_channels_last): a
// 4-D convolution with a channels-last weight gives a channels-last result
// even for a contiguous input (a model moved to channels_last fed a
// contiguous batch); a depthwise weight ([C, 1, k, k]) suggests no layout.
TEST(NnSweepCases, ConvolutionWithAChannelsLastWeight) {
  for (ScalarType dt : {kFloat, kDouble}) {
    const Tensor x = randn({2, 3, 5, 6}, dt);
    const Tensor w = randn({4, 3, 3, 3}, dt);
    const Tensor y = F::conv2d(x, w, F::Conv2dFuncOptions().padding(1));
    const Tensor y_cl =
        F::conv2d(x, w.contiguous(MemoryFormat::ChannelsLast), F::Conv2dFuncOptions().padding(1));
    EXPECT_EQ(y_cl.strides().vec(), (std::vector<int64_t>{120, 1, 24, 4}));
    EXPECT_TRUE(allclose(y, y_cl));
    const Tensor y_dil = F::conv2d(x, w.contiguous(MemoryFormat::ChannelsLast),
                                   F::Conv2dFuncOptions().padding(1).dilation(2));
    EXPECT_EQ(y_dil.strides().vec(), (std::vector<int64_t>{48, 1, 16, 4}));
    const Tensor depthwise = F::conv2d(
        randn({2, 4, 5, 6}, dt), randn({4, 1, 3, 3}, dt).contiguous(MemoryFormat::ChannelsLast),
        F::Conv2dFuncOptions().padding(1).groups(4));
    EXPECT_TRUE(depthwise.is_contiguous());
    // The input's gradient takes the same layout (1.13's backend format).
    const auto grads =
        convolution_backward(ones_like(y), x, w.contiguous(MemoryFormat::ChannelsLast), {1, 1},
                             {1, 1}, {1, 1}, 1, {true, true, false});
    EXPECT_TRUE(std::get<0>(grads).is_contiguous(MemoryFormat::ChannelsLast));
  }
}

// 1.13's pixel_shuffle kernels write a new tensor in the input's
// suggest_memory_format and record their own nodes.
TEST(NnSweepCases, PixelShuffleLayoutAndNodes) {
  const Tensor x = randn({2, 8, 3, 4});
  EXPECT_EQ(F::pixel_shuffle(x.contiguous(MemoryFormat::ChannelsLast), 2).strides().vec(),
            (std::vector<int64_t>{96, 1, 16, 2}));
  EXPECT_EQ(F::pixel_shuffle(x.transpose(2, 3), 2).strides().vec(),
            (std::vector<int64_t>{96, 48, 6, 1}));
  EXPECT_TRUE(
      equal(F::pixel_shuffle(x.contiguous(MemoryFormat::ChannelsLast), 2), F::pixel_shuffle(x, 2)));
  const Tensor u = randn({2, 2, 4, 6}).contiguous(MemoryFormat::ChannelsLast);
  EXPECT_EQ(F::pixel_unshuffle(u, 2).strides().vec(), (std::vector<int64_t>{48, 1, 24, 8}));
  // A factor of 1 still gives a new tensor (the node's output is no view).
  const Tensor leaf = randn({1, 4, 2, 2}).requires_grad_();
  const Tensor same = F::pixel_shuffle(leaf, 1);
  EXPECT_NE(same.data_ptr(), leaf.data_ptr());
  EXPECT_EQ(same.grad_fn()->name(), "PixelShuffleBackward0");
  same.sum().backward();
  EXPECT_TRUE(equal(leaf.grad(), ones({1, 4, 2, 2})));
  EXPECT_EQ(testing::error_of([] {
              F::channel_shuffle(randn({1, 4, 2}).requires_grad_(), 2).sum().backward();
            }),
            "derivative for channel_shuffle is not implemented");
}

// 1.13's instance_norm normalizes input.contiguous(): a contiguous result
// for a channels-last input, N = 1 included.
TEST(NnSweepCases, InstanceNormIsContiguous) {
  for (int64_t n : {1, 2}) {
    const Tensor x = randn({n, 3, 4, 3});
    const Tensor cl = x.contiguous(MemoryFormat::ChannelsLast);
    const Tensor y = F::instance_norm(cl);
    EXPECT_TRUE(y.is_contiguous());
    EXPECT_TRUE(allclose(y, F::instance_norm(x)));
  }
}

// 1.13's constant_pad_nd: a new tensor in the input's suggest_memory_format.
TEST(NnSweepCases, ConstantPadLayout) {
  using O = F::PadFuncOptions;
  const Tensor cl = randn({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast);
  EXPECT_EQ(F::pad(cl, O({1, 1, 2, 0})).strides().vec(), (std::vector<int64_t>{126, 1, 21, 3}));
  EXPECT_EQ(F::pad(cl, O({-1, -1})).strides().vec(), (std::vector<int64_t>{36, 1, 9, 3}));
  EXPECT_EQ(F::pad(cl, O({0, 0})).strides().vec(), (std::vector<int64_t>{60, 1, 15, 3}));
  const Tensor x = randn({2, 3, 4, 5});
  const Tensor crop = F::pad(x, O({-1, -1}));
  EXPECT_EQ(crop.strides().vec(), (std::vector<int64_t>{36, 12, 3, 1}));
  EXPECT_NE(crop.data_ptr(), static_cast<const char*>(x.data_ptr()) + sizeof(float));
  crop.fill_(7);  // no alias of x
  EXPECT_FALSE(x.eq(7).any().item<bool>());
  EXPECT_EQ(F::pad(x.transpose(2, 3), O({1, 1})).strides().vec(),
            (std::vector<int64_t>{90, 30, 6, 1}));
}

TEST(NnSweepCases, SmoothL1LossBeta) {
  using O = F::SmoothL1LossFuncOptions;
  for (const char* beta : {"0.5", "0.0", "2.0"}) {
    const double b = std::stod(beta);
    // The options' beta, and libtorch 1.13's fourth argument.
    check_case_in(kGolden, std::string("smooth_l1_beta") + beta, 2, {0, 1},
                  [b](const In& x) { return F::smooth_l1_loss(x[0], x[1], O(kSum).beta(b)); });
    check_case_in(kGolden, std::string("smooth_l1_beta") + beta, 2, {0, 1},
                  [b](const In& x) { return F::smooth_l1_loss(x[0], x[1], O(kSum), b); });
  }
}

TEST(NnSweepCases, HuberLossIsOneNode) {
  using O = F::HuberLossFuncOptions;
  const std::pair<const char*, Reduction> reds[] = {
      {"mean", kMean}, {"sum", kSum}, {"none", kNone}};
  for (const auto& [name, red] : reds) {
    const Reduction r = red;
    check_case_in(kGolden, std::string("huber_") + name, 2, {0, 1},
                  [r](const In& x) { return F::huber_loss(x[0], x[1], O(r).delta(0.75)); });
  }
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor hx = tensor({inf, 1.0f, -inf, 0.25f}).requires_grad_();
  const Tensor loss = F::huber_loss(hx, tensor({0.0f, 0.5f, 1.0f, 0.0f}), O().delta(1.25));
  EXPECT_EQ(loss.grad_fn()->name(), "HuberLossBackward0");
  loss.backward();
  EXPECT_TRUE(matches_golden(hx.grad(), find_golden(kGolden, "huber_inf_grad")));
}

// 1.13's huber_loss writes the input's dtype, unlike smooth_l1_loss.
TEST(NnSweepCases, HuberLossKeepsTheInputDtype) {
  const Tensor f = tensor({0.5f, -2.0f}), d = tensor({0.25, 1.0}, kDouble);
  EXPECT_EQ(F::huber_loss(f, d).dtype(), kFloat);
  EXPECT_EQ(F::huber_loss(d, f).dtype(), kDouble);
  EXPECT_EQ(F::huber_loss(f, d, F::HuberLossFuncOptions(kNone)).dtype(), kFloat);
  EXPECT_NEAR(F::huber_loss(f, d).item<float>(), (0.03125f + 2.5f) / 2, 1e-6);
}

TEST(NnSweepCases, BFloat16NllLossAndCrossEntropy) {
  const Tensor logp = (testing::make_input({3, 5}, kDouble) * 0.5 - 2).to(kBFloat16);
  const Tensor logits = (testing::make_input({3, 5}, kDouble) * 0.5 - 1).to(kBFloat16);
  const Tensor target = tensor({int64_t{1}, 4, 0});
  const Tensor w = tensor({0.5f, 1.0f, 2.0f, 1.5f, 0.25f}).to(kBFloat16);
  const std::pair<const char*, Reduction> reds[] = {
      {"mean", kMean}, {"sum", kSum}, {"none", kNone}};
  // 1.13's bfloat16 log_softmax rounds every step to bfloat16; ember's
  // rounds once (cross_entropy: within 1e-2).
  constexpr double kLogSoftmaxRounding = 1e-2;
  for (const auto& [name, red] : reds) {
    const std::string s = name;
    EXPECT_TRUE(matches_golden(F::nll_loss(logp, target, F::NLLLossFuncOptions().reduction(red)),
                               find_golden(kGolden, "bf16/nll/" + s)));
    EXPECT_TRUE(
        matches_golden(F::nll_loss(logp, target, F::NLLLossFuncOptions().weight(w).reduction(red)),
                       find_golden(kGolden, "bf16/nll_weight/" + s)));
    EXPECT_TRUE(matches_golden(
        F::cross_entropy(logits, target, F::CrossEntropyFuncOptions().reduction(red)),
        find_golden(kGolden, "bf16/ce/" + s), kLogSoftmaxRounding));
    EXPECT_TRUE(matches_golden(
        F::cross_entropy(
            logits, target,
            F::CrossEntropyFuncOptions().weight(w).reduction(red).label_smoothing(0.1)),
        find_golden(kGolden, "bf16/ce_smooth/" + s), kLogSoftmaxRounding));
  }
  EXPECT_TRUE(matches_golden(F::nll_loss(logp, target, F::NLLLossFuncOptions().ignore_index(4)),
                             find_golden(kGolden, "bf16/nll_ignore")));
  const Tensor img = (testing::make_input({2, 3, 2, 2}, kDouble) * 0.5 - 2).to(kBFloat16);
  const Tensor t2 = tensor({int64_t{0}, 2, 1, 1, 0, 2, 1, 1}).view({2, 2, 2});
  EXPECT_TRUE(matches_golden(F::nll_loss(img, t2), find_golden(kGolden, "bf16/nll2d")));
  const Tensor lp = logp.clone().requires_grad_();
  F::nll_loss(lp, target, F::NLLLossFuncOptions().weight(w)).backward();
  EXPECT_TRUE(matches_golden(lp.grad(), find_golden(kGolden, "bf16/nll_grad")));
  const Tensor lg = logits.clone().requires_grad_();
  F::cross_entropy(lg, target).backward();
  EXPECT_TRUE(matches_golden(lg.grad(), find_golden(kGolden, "bf16/ce_grad"), kLogSoftmaxRounding));
  // float16 stays refused, with 1.13's kernel name.
  EXPECT_EQ(testing::error_of([&] { F::nll_loss(logp.to(kHalf), target); }),
            "\"nll_loss_out_frame\" not implemented for 'Half'");
}

}  // namespace
}  // namespace ember
