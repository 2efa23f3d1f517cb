#include "nn/functional/normalization.h"

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/embedding.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::case_input;
using testing::check_case;
using testing::nn_golden;
using V = std::vector<Tensor>;

TEST(BatchNorm, TrainingUpdatesRunningStats) {
  check_case("batch_norm_train", 5, {0, 1, 2}, [](const V& x) {
    return F::batch_norm(
        x[0], x[3], x[4],
        F::BatchNormFuncOptions().weight(x[1]).bias(x[2]).training(true).momentum(0.2).eps(1e-3));
  });
  for (const char* dt : {"f32", "f64"}) {
    const ScalarType dtype = std::string(dt) == "f32" ? kFloat : kDouble;
    Tensor rm = case_input("batch_norm_train", dt, 3), rv = case_input("batch_norm_train", dt, 4);
    F::batch_norm(case_input("batch_norm_train", dt, 0), rm, rv,
                  F::BatchNormFuncOptions().training(true).momentum(0.2).eps(1e-3));
    const std::string base = std::string("batch_norm_train/") + dt;
    EXPECT_TRUE(testing::near_golden(rm, nn_golden(base + "/out1"), dtype, 1e-5));
    EXPECT_TRUE(testing::near_golden(rv, nn_golden(base + "/out2"), dtype, 1e-5));
  }
}
TEST(BatchNorm, TrainingWithoutRunningStats) {
  check_case("batch_norm_train_1d", 1, {0}, [](const V& x) {
    return F::batch_norm(x[0], Tensor(), Tensor(), F::BatchNormFuncOptions().training(true));
  });
}
TEST(BatchNorm, EvalUsesRunningStats) {
  check_case("batch_norm_eval", 5, {0, 1, 2}, [](const V& x) {
    return F::batch_norm(x[0].transpose(2, 3), x[3], x[4],
                         F::BatchNormFuncOptions().weight(x[1]).bias(x[2]));
  });
}
TEST(LayerNorm, WeightBiasAndPlain) {
  check_case("layer_norm", 3, {0, 1, 2}, [](const V& x) {
    return F::layer_norm(x[0], F::LayerNormFuncOptions({4, 5}).weight(x[1]).bias(x[2]));
  });
  check_case("layer_norm_plain", 1, {0}, [](const V& x) {
    return F::layer_norm(x[0].t(), F::LayerNormFuncOptions({3}).eps(1e-2));
  });
}
// The norms' nodes keep their statistics, not their result (as PyTorch's),
// so the result may be modified in place before backward: torchvision's
// `out = bn(x); out += identity`, a Transformer's `x = norm(x); x += ...`.
TEST(BatchNorm, ResultMayBeModifiedInPlaceBeforeBackward) {
  manual_seed(0);
  Tensor x = randn({4, 3, 2, 2}, kDouble).requires_grad_();
  Tensor w = randn({3}, kDouble).requires_grad_(), b = randn({3}, kDouble).requires_grad_();
  Tensor gy = randn({4, 3, 2, 2}, kDouble);
  auto run = [&](bool inplace) {
    Tensor y = F::batch_norm(x, Tensor(), Tensor(),
                             F::BatchNormFuncOptions().weight(w).bias(b).training(true));
    if (inplace) y.add_(1); else y = y + 1;
    return autograd::grad({(y * gy).sum()}, {x, w, b});
  };
  auto want = run(false), got = run(true);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(allclose(got[i], want[i], 1e-12, 1e-12)) << i;

  Tensor z = F::layer_norm(x, F::LayerNormFuncOptions({2, 2}));
  z.mul_(2);
  z.sum().backward();  // no "modified by an inplace operation"
  EXPECT_TRUE(x.grad().defined());
}

TEST(Embedding, RowsAndPadding) {
  check_case("embedding", 2, {0}, [](const V& x) { return F::embedding(x[1], x[0]); });
  check_case("embedding_padding", 2, {0}, [](const V& x) {
    return F::embedding(x[1], x[0], F::EmbeddingFuncOptions().padding_idx(-6));
  });
}
TEST(Normalization, GradNames) {
  Tensor x = randn({2, 3}).requires_grad_(true);
  EXPECT_EQ(F::batch_norm(x, Tensor(), Tensor(), F::BatchNormFuncOptions().training(true))
                .grad_fn()
                ->name(),
            "NativeBatchNormBackward0");
  EXPECT_EQ(F::layer_norm(x, F::LayerNormFuncOptions({3})).grad_fn()->name(),
            "NativeLayerNormBackward0");
  Tensor w = randn({4, 2}).requires_grad_(true);
  EXPECT_EQ(F::embedding(tensor({1, 2}), w).grad_fn()->name(), "EmbeddingBackward0");
}
TEST(Normalization, Errors) {
  using testing::expect_nn_error;
  expect_nn_error("batch_norm_running", [] {
    F::batch_norm(zeros({2, 3}), zeros({4}), zeros({3}));
  });
  expect_nn_error("batch_norm_one_value", [] {
    F::batch_norm(zeros({1, 3}), zeros({3}), zeros({3}), F::BatchNormFuncOptions().training(true));
  });
  expect_nn_error("layer_norm_shape", [] {
    F::layer_norm(zeros({2, 3, 4}), F::LayerNormFuncOptions({5}));
  });
  expect_nn_error("embedding_range", [] { F::embedding(tensor({0, 5}), zeros({5, 2})); });
}
TEST(Normalization, Gradcheck) {
  TensorOptions d = TensorOptions(kDouble).requires_grad(true);
  Tensor x = randn({4, 3, 2}, d), w = randn({3}, d), b = randn({3}, d);
  Tensor rm = randn({3}, kDouble), rv = rand({3}, kDouble) + 0.5;
  for (bool training : {true, false}) {
    EXPECT_EQ(autograd::gradcheck(
                  [&](const autograd::variable_list& v) {
                    return autograd::variable_list{F::batch_norm(
                        v[0], training ? Tensor() : rm, training ? Tensor() : rv,
                        F::BatchNormFuncOptions().weight(v[1]).bias(v[2]).training(training))};
                  },
                  {x, w, b}),
              "")
        << "training=" << training;
  }
  // Note [Channels-last batch norm]: the channels-last kernels' gradients,
  // and the input gradient stays channels-last.
  Tensor xcl = randn({2, 5, 3, 3}, kDouble).contiguous(MemoryFormat::ChannelsLast);
  xcl.requires_grad_();
  Tensor w5 = randn({5}, d), b5 = randn({5}, d);
  auto bn = [&](const autograd::variable_list& v) {
    return autograd::variable_list{
        F::batch_norm(v[0], Tensor(), Tensor(),
                      F::BatchNormFuncOptions().weight(v[1]).bias(v[2]).training(true))};
  };
  EXPECT_EQ(autograd::gradcheck(bn, {xcl, w5, b5}), "");
  const Tensor y = bn({xcl, w5, b5})[0];
  EXPECT_TRUE(y.is_contiguous(MemoryFormat::ChannelsLast));
  const Tensor gy = randn({2, 5, 3, 3}, kDouble).contiguous(MemoryFormat::ChannelsLast);
  const Tensor gx = autograd::grad({y}, {xcl}, {gy})[0];
  EXPECT_TRUE(gx.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_LT((gx - autograd::grad({bn({xcl.contiguous(), w5, b5})[0]}, {xcl}, {gy})[0])
                .abs()
                .max()
                .item<double>(),
            1e-12);
  Tensor lw = randn({3, 2}, d), lb = randn({3, 2}, d);
  EXPECT_EQ(autograd::gradcheck(
                [](const autograd::variable_list& v) {
                  return autograd::variable_list{
                      F::layer_norm(v[0], F::LayerNormFuncOptions({3, 2}).weight(v[1]).bias(v[2]))};
                },
                {x, lw, lb}),
            "");
  Tensor ew = randn({6, 3}, d);
  EXPECT_EQ(
      autograd::gradcheck(
          [](const autograd::variable_list& v) {
            // No padding_idx: its rows are in the output but get no
            // gradient, which finite differences would flag.
            return autograd::variable_list{F::embedding(tensor({{1, 2, 1}, {5, 0, 2}}), v[0])};
          },
          {ew}),
      "");
}

}  // namespace
}  // namespace ember
