#include "nn/functional/loss.h"

#include <cmath>
#include <limits>

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

struct Red {
  const char* name;
  Reduction r;
};
const Red kReductions[] = {{"none", kNone}, {"mean", kMean}, {"sum", kSum}};

TEST(Loss, MseL1SmoothL1) {
  for (const Red& r : kReductions) {
    const std::string s = r.name;
    check_case("mse_loss_" + s, 2, {0, 1},
               [&](const V& x) { return F::mse_loss(x[0], x[1], r.r); });
    check_case("l1_loss_" + s, 2, {0, 1},
               [&](const V& x) { return F::l1_loss(x[0].t(), x[1], r.r); });
    check_case("smooth_l1_loss_" + s, 2, {0, 1}, [&](const V& x) {
      return F::smooth_l1_loss(x[0], x[1], F::SmoothL1LossFuncOptions(r.r).beta(0.5));
    });
  }
}
TEST(Loss, NllLoss) {
  for (const Red& r : kReductions) {
    const std::string s = r.name;
    check_case("nll_loss_" + s, 3, {0}, [&](const V& x) {
      return F::nll_loss(x[0], x[1],
                         F::NLLLossFuncOptions().weight(x[2]).ignore_index(1).reduction(r.r));
    });
    check_case("nll_loss_2d_" + s, 2, {0}, [&](const V& x) {
      return F::nll_loss(x[0], x[1], F::NLLLossFuncOptions().reduction(r.r));
    });
  }
  check_case("nll_loss_1d", 2, {0}, [](const V& x) { return F::nll_loss(x[0], x[1]); });
}
TEST(Loss, CrossEntropy) {
  for (const Red& r : kReductions) {
    const std::string s = r.name;
    check_case("cross_entropy_" + s, 2, {0}, [&](const V& x) {
      return F::cross_entropy(x[0], x[1], F::CrossEntropyFuncOptions().reduction(r.r));
    });
    check_case("cross_entropy_smooth_" + s, 3, {0}, [&](const V& x) {
      return F::cross_entropy(
          x[0], x[1],
          F::CrossEntropyFuncOptions().weight(x[2]).ignore_index(2).label_smoothing(0.1).reduction(
              r.r));
    });
    check_case("cross_entropy_nd_" + s, 2, {0}, [&](const V& x) {
      return F::cross_entropy(x[0], x[1],
                              F::CrossEntropyFuncOptions().label_smoothing(0.2).reduction(r.r));
    });
    check_case("cross_entropy_probs_" + s, 2, {0}, [&](const V& x) {
      return F::cross_entropy(x[0], x[1],
                              F::CrossEntropyFuncOptions().label_smoothing(0.1).reduction(r.r));
    });
  }
}
TEST(Loss, BinaryCrossEntropy) {
  for (const Red& r : kReductions) {
    const std::string s = r.name;
    check_case("bce_" + s, 3, {0, 1}, [&](const V& x) {
      return F::binary_cross_entropy(
          x[0], x[1], F::BinaryCrossEntropyFuncOptions().weight(x[2]).reduction(r.r));
    });
    check_case("bce_logits_" + s, 4, {0, 1}, [&](const V& x) {
      return F::binary_cross_entropy_with_logits(
          x[0], x[1],
          F::BinaryCrossEntropyWithLogitsFuncOptions().weight(x[2]).pos_weight(x[3]).reduction(
              r.r));
    });
  }
  check_case("bce_logits_plain", 2, {0, 1},
             [](const V& x) { return F::binary_cross_entropy_with_logits(x[0], x[1]); });
}
TEST(Loss, GradNames) {
  Tensor x = randn({3, 4}).requires_grad_(true);
  Tensor t = tensor({0, 1, 3});
  EXPECT_EQ(F::nll_loss(x, t).grad_fn()->name(), "NllLossBackward0");
  EXPECT_EQ(
      F::nll_loss(randn({3, 4, 2}).requires_grad_(true), zeros({3, 2}, kLong)).grad_fn()->name(),
      "NllLoss2DBackward0");
  EXPECT_EQ(F::cross_entropy(x, t).grad_fn()->name(), "NllLossBackward0");
  EXPECT_EQ(F::mse_loss(x, zeros({3, 4})).grad_fn()->name(), "MseLossBackward0");
  EXPECT_EQ(F::smooth_l1_loss(x, zeros({3, 4})).grad_fn()->name(), "SmoothL1LossBackward0");
  EXPECT_EQ(F::binary_cross_entropy(x.sigmoid(), zeros({3, 4})).grad_fn()->name(),
            "BinaryCrossEntropyBackward0");
  EXPECT_EQ(F::binary_cross_entropy_with_logits(x, zeros({3, 4})).grad_fn()->name(),
            "BinaryCrossEntropyWithLogitsBackward0");
}
TEST(Loss, AllIgnoredMeanIsNan) {
  Tensor l = F::nll_loss(randn({2, 3}), tensor({-100, -100}));
  EXPECT_TRUE(std::isnan(l.item<float>()));
}
TEST(Loss, Errors) {
  using testing::expect_nn_error;
  expect_nn_error("nll_loss_batch", [] { F::nll_loss(zeros({3, 4}), tensor({0, 1})); });
  expect_nn_error("nll_loss_target", [] { F::nll_loss(zeros({2, 4}), tensor({0, 5})); });
  expect_nn_error("nll_loss_weight", [] {
    F::nll_loss(zeros({2, 4}), tensor({0, 1}), F::NLLLossFuncOptions().weight(zeros({3})));
  });
  expect_nn_error("nll_loss_nd_target", [] { F::nll_loss(zeros({2, 4, 3}), tensor({0, 1})); });
  expect_nn_error("cross_entropy_target", [] { F::cross_entropy(zeros({2, 4}), tensor({0, 5})); });
  expect_nn_error("bce_size", [] { F::binary_cross_entropy(zeros({2, 3}), zeros({3})); });
  expect_nn_error("bce_range", [] { F::binary_cross_entropy(zeros({2, 3}) + 2, zeros({2, 3})); });
  expect_nn_error("bce_logits_size", [] {
    F::binary_cross_entropy_with_logits(zeros({2, 3}), zeros({3}));
  });
}
TEST(Loss, Gradcheck) {
  TensorOptions d = TensorOptions(kDouble).requires_grad(true);
  Tensor x = randn({4, 3}, d), t = randn({4, 3}, d);
  Tensor p = (rand({4, 3}, kDouble) * 0.8 + 0.1).requires_grad_(true);
  Tensor pt = rand({4, 3}, kDouble).requires_grad_(true);
  Tensor cls = tensor({0, 2, 1, 2});
  Tensor w = rand({3}, kDouble) + 0.5, pw = (rand({3}, kDouble) + 0.5).requires_grad_(true);
  using L = autograd::variable_list;
  for (Reduction r : {kNone, kMean, kSum}) {
    EXPECT_EQ(
        autograd::gradcheck([&](const L& v) { return L{F::mse_loss(v[0], v[1], r)}; }, {x, t}), "");
    EXPECT_EQ(
        autograd::gradcheck(
            [&](const L& v) {
              return L{F::smooth_l1_loss(v[0], v[1], F::SmoothL1LossFuncOptions(r).beta(0.7))};
            },
            {x, t}),
        "");
    EXPECT_EQ(autograd::gradcheck(
                  [&](const L& v) {
                    return L{F::nll_loss(
                        v[0], cls, F::NLLLossFuncOptions().weight(w).ignore_index(1).reduction(r))};
                  },
                  {x}),
              "");
    EXPECT_EQ(autograd::gradcheck(
                  [&](const L& v) {
                    return L{F::binary_cross_entropy(
                        v[0], v[1], F::BinaryCrossEntropyFuncOptions().weight(w).reduction(r))};
                  },
                  {p, pt}),
              "");
    EXPECT_EQ(
        autograd::gradcheck(
            [&](const L& v) {
              return L{F::binary_cross_entropy_with_logits(
                  v[0], v[1],
                  F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(v[2]).reduction(r))};
            },
            {x, pt, pw}),
        "");
  }
  Tensor x3 = randn({2, 3, 2}, d);
  EXPECT_EQ(autograd::gradcheck(
                [&](const L& v) {
                  return L{F::cross_entropy(v[0], tensor({{0, 2}, {1, 1}}),
                                            F::CrossEntropyFuncOptions().label_smoothing(0.3))};
                },
                {x3}),
            "");
}

// libtorch 1.13's ATen ops (Note [Binary cross entropy as 1.13 computes it]
// in tensor/loss.cc); every number from tools/golden/bce_aten.py.
void expect_bce(const Tensor& got, const Tensor& want, IntArrayRef strides) {
  ASSERT_EQ(got.sizes(), want.sizes());
  EXPECT_EQ(got.dtype(), want.dtype());
  EXPECT_EQ(got.strides(), strides);
  EXPECT_TRUE(got.to(kDouble).allclose(want.to(kDouble), 1e-7, 1e-12)) << got << want;
}
const int64_t kRedNone = loss_reduction::kNone;
Tensor d(const TensorDataContainer& v) { return tensor(v, kDouble); }

TEST(BceAten, PairsTheSqueezedOperands) {
  Tensor x = d({{0.3, 0.5, 0.9, 0.1}}), y = d({{0.2}, {0.7}, {0.1}, {0.4}});
  expect_bce(binary_cross_entropy(x, y, {}, kRedNone),
             d({{0.5261345160161732, 0.6931471805599453, 2.082862635260424, 0.984250346592314}}),
             {4, 1});
  // A scalar input shows the first element of the resized squeezed output.
  expect_bce(binary_cross_entropy(d(0.5), x, {}, kRedNone), d(0.6931471805599453), {});
  expect_bce(binary_cross_entropy(d({0.25, 0.5, 0.75}), d({{0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}}), {},
                                  kRedNone),
             d({0.2876820724517809, 0.6931471805599453, 1.3862943611198906}), {1});
  expect_bce(binary_cross_entropy(tensor({{0.2f, 0.4f}, {0.6f, 0.8f}}).t(), full({2, 2}, 0.5f), {},
                                  kRedNone),
             tensor({{0.9162907600402832f, 0.7135581970214844f},
                     {0.7135581374168396f, 0.9162907600402832f}}),
             {1, 2});
  // log(1 - x), not log1p(-x).
  EXPECT_EQ(binary_cross_entropy(tensor({1e-9f}), zeros({1}), {}, kRedNone).item<float>(), 0.0f);
  expect_bce(
      binary_cross_entropy(x, x, tensor({0.5f}), kRedNone),
      d({{0.30543215102744675, 0.34657359027997264, 0.1625414866957241, 0.1625414866957241}}),
      {4, 1});
}

TEST(BceAten, RefusesWhat113Refuses) {
  Tensor x = d({{0.3, 0.5, 0.9, 0.1}});
  EXPECT_EQ(testing::error_of([&] { binary_cross_entropy(x, x.to(kFloat)); }),
            "Found dtype Float but expected Double");
  EXPECT_EQ(testing::error_of([&] { binary_cross_entropy(x.to(kBFloat16), x.to(kBFloat16)); }),
            "\"binary_cross_entropy\" not implemented for 'BFloat16'");
  EXPECT_EQ(testing::error_of([&] { binary_cross_entropy(x.to(kInt), x.to(kInt)); }),
            "\"binary_cross_entropy\" not implemented for 'Int'");
  EXPECT_EQ(testing::error_of([&] {
              binary_cross_entropy(x, x, ones({3, 1}, kDouble));
            }),
            "output with shape [1, 4] doesn't match the broadcast shape [3, 4]");
  EXPECT_EQ(testing::error_of([&] { binary_cross_entropy(x + 0.6, x); }),
            "all elements of input should be between 0 and 1");
}

// The CPU loop (bce_cpu in tensor/loss.cc) on eleven elements (a vector's
// eight and three more): each log clamped at -100, a NaN target giving
// NaN, a NaN input anywhere refused as one out of [0, 1]; float as double.
TEST(BceAten, ClampsLogsAndRefusesNaNInputs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = d({0.0, 1.0, 0.5, 0.25, 0.75, 1e-30, 0.999, 0.1, 0.2, 0.3, 0.4});
  const Tensor t = d({1.0, 0.0, 0.5, 1.0, 0.0, 0.0, 1.0, 0.3, nan, 0.9, 0.1});
  const Tensor want =
      d({100.0, 100.0, 0.6931471805599453, 1.3862943611198906, 1.3862943611198906, 0.0,
         0.0010005003335835344, 0.764527888858692, 0.0, 1.1192430182872157, 0.5513721345768071});
  for (ScalarType dt : {kDouble, kFloat}) {
    const Tensor got = binary_cross_entropy(x.to(dt), t.to(dt), {}, kRedNone);
    EXPECT_TRUE(std::isnan(got[8].item<double>()));
    EXPECT_TRUE(got.to(kDouble).nan_to_num(0).allclose(want, 1e-6, 1e-6)) << got;
    Tensor bad = x.to(dt).clone();
    bad[9].fill_(nan);
    EXPECT_EQ(testing::error_of([&] { binary_cross_entropy(bad, t.to(dt)); }),
              "all elements of input should be between 0 and 1");
  }
}

TEST(BceAten, WithLogitsHasTheTargetsShapeAndDtype) {
  Tensor a = tensor({{1.5f, -2.0f, 0.3f}}), b = tensor({{0.2f}, {0.7f}});
  const std::string bigger = "output with shape [1, 3] doesn't match the broadcast shape [2, 3]";
  EXPECT_EQ(testing::error_of([&] { binary_cross_entropy_with_logits(a, b); }),
            "output with shape [2, 1] doesn't match the broadcast shape [2, 3]");
  EXPECT_EQ(testing::error_of([&] { binary_cross_entropy_with_logits(b, a.sigmoid()); }), bigger);
  EXPECT_EQ(testing::error_of([&] {
              binary_cross_entropy_with_logits(a, a.sigmoid(), {}, ones({2, 1}));
            }),
            bigger);
  EXPECT_EQ(testing::error_of([&] {
              binary_cross_entropy_with_logits(a, a.sigmoid(), ones({2, 1}));
            }),
            bigger);
  EXPECT_EQ(testing::error_of([&] {
              binary_cross_entropy_with_logits(a, tensor({{1, 0, 1}}, kInt));
            }),
            "result type Float can't be cast to the desired output type Int");
  EXPECT_EQ(testing::error_of([&] { binary_cross_entropy_with_logits(a, a > 0); }),
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
            "or `logical_xor()` operator instead.");
  EXPECT_EQ(testing::error_of([&] { binary_cross_entropy_with_logits(a.to(kInt), a); }),
            "result type Float can't be cast to the desired output type Int");
  EXPECT_EQ(testing::error_of([&] { binary_cross_entropy_with_logits(a > 0, a); }),
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead.");
  expect_bce(binary_cross_entropy_with_logits(a, a.sigmoid().to(kBFloat16), {}, {}, kRedNone),
             tensor({{0.4765625f, 0.361328125f, 0.68359375f}}).to(kBFloat16), {3, 1});
  // Each in-place step rounds to float32.
  Tensor f64_input = binary_cross_entropy_with_logits(a.to(kDouble), a.sigmoid(), {}, {}, kRedNone);
  EXPECT_EQ(f64_input.dtype(), kFloat);
  EXPECT_TRUE(
      f64_input.equal(tensor({{0.475051611661911f, 0.36533382534980774f, 0.6820225119590759f}})))
      << f64_input;
  expect_bce(binary_cross_entropy_with_logits(a, a.sigmoid(), {}, {}, kRedNone),
             tensor({{0.4750516712665558f, 0.3653338551521301f, 0.6820225119590759f}}), {3, 1});
  expect_bce(binary_cross_entropy_with_logits(a, a.sigmoid(), {}, d({1.0, 2.0, 3.0}), kRedNone),
             tensor({{0.4750516712665558f, 0.618869960308075f, 1.3189129829406738f}}), {3, 1});
}

TEST(BceAten, GradientsAre113s) {
  Tensor x = d({0.0, 0.25, 1.0, 0.5}).requires_grad_(true);
  Tensor t = d({0.0, 0.5, 1.0, 0.25}).requires_grad_(true);
  V g = autograd::grad({binary_cross_entropy(x, t)}, {x, t});
  EXPECT_TRUE(g[0].allclose(d({0.0, -0.3333333333333333, 0.0, 0.25}))) << g[0];
  // The target's gradient is -logit(input): infinite at 0 and 1.
  EXPECT_TRUE(g[1].allclose(d({INFINITY, 0.2746530721670274, -INFINITY, 0.0}))) << g[1];
  Tensor x2 = d({{0.3, 0.5, 0.9, 0.1}}).requires_grad_(true);
  Tensor y = d({{0.2}, {0.7}, {0.1}, {0.4}});
  V g2 = autograd::grad({binary_cross_entropy(x2, y, {}, loss_reduction::kSum)}, {x2});
  EXPECT_TRUE(g2[0].allclose(
      d({{0.4761904761904761, -0.7999999999999998, 8.888888888888891, -3.3333333333333335}})))
      << g2[0];
}

}  // namespace
}  // namespace ember
