// Dropout1d/2d/3d, alpha and feature-alpha dropout against PyTorch 1.13 under
// manual_seed (tools/golden/dropout.py): the same draws, outputs and
// gradients; and the modules libtorch programs name.

#include <gtest/gtest.h>

#include <optional>

#include "autograd/autograd.h"
#include "nn/dropout.h"
#include "nn/functional/dropout.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::find_golden;
using testing::matches_golden;

const testing::GoldenEntry kGolden[] = {
#include "nn/functional/testdata/dropout_golden.inc"
};

// As tools/golden/dropout.py builds its inputs.
Tensor input(IntArrayRef shape, bool transpose) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  Tensor x = arange(n, kFloat) * 0.1 - 0.7;
  if (transpose) {
    x = x.reshape({shape[1], shape[0]}).t();
  } else {
    x = x.reshape(shape);
  }
  return x.detach().requires_grad_();
}

void check(const std::string& name, IntArrayRef shape, bool transpose,
           const std::function<Tensor(const Tensor&)>& fn) {
  SCOPED_TRACE(name);
  Tensor x = input(shape, transpose);
  manual_seed(3);
  Tensor out = fn(x);
  Tensor weights = (arange(out.numel(), kFloat) * 0.05 + 1).reshape(out.sizes());
  (out * weights).sum().backward();
  EXPECT_TRUE(matches_golden(out, find_golden(kGolden, name + "/out"), 1e-6));
  EXPECT_TRUE(matches_golden(x.grad(), find_golden(kGolden, name + "/grad"), 1e-6));
}

TEST(DropoutTest, ChannelwiseDropoutMatchesPyTorch) {
  check("dropout1d_3d", {2, 3, 4}, false,
        [](const Tensor& x) { return F::dropout1d(x, F::Dropout1dFuncOptions().p(0.4)); });
  check("dropout1d_2d", {3, 4}, false,
        [](const Tensor& x) { return F::dropout1d(x, F::Dropout1dFuncOptions().p(0.4)); });
  check("dropout2d_4d", {2, 3, 2, 2}, false,
        [](const Tensor& x) { return F::dropout2d(x, F::Dropout2dFuncOptions().p(0.4)); });
  // libtorch's C++ API: a 3-D input is one (C, H, W) sample.
  check("dropout2d_3d", {3, 2, 2}, false,
        [](const Tensor& x) { return F::dropout2d(x, F::Dropout2dFuncOptions().p(0.4)); });
  check("dropout3d_5d", {2, 3, 1, 2, 2}, false,
        [](const Tensor& x) { return F::dropout3d(x, F::Dropout3dFuncOptions().p(0.5)); });
  check("dropout3d_4d", {3, 1, 2, 2}, false,
        [](const Tensor& x) { return F::dropout3d(x, F::Dropout3dFuncOptions().p(0.5)); });
}

TEST(DropoutTest, AlphaDropoutMatchesPyTorch) {
  check("alpha_dropout", {4, 5}, false, [](const Tensor& x) {
    return F::alpha_dropout(x, F::AlphaDropoutFuncOptions().p(0.3).training(true));
  });
  check("feature_alpha_dropout", {2, 4, 3}, false, [](const Tensor& x) {
    return F::feature_alpha_dropout(x, F::FeatureAlphaDropoutFuncOptions().p(0.3).training(true));
  });
}

// at::native_dropout on the CPU: PyTorch's mask (bool, contiguous draws),
// output (laid out as the input), node and gradient, training or not.
void check_native(const std::string& name, bool transpose, double p, std::optional<bool> train) {
  SCOPED_TRACE(name);
  Tensor x = input({4, 5}, transpose);
  manual_seed(3);
  auto [out, mask] = native_dropout(x, p, train);
  EXPECT_EQ(out.grad_fn()->name(), "NativeDropoutBackward0");
  EXPECT_EQ(out.strides(), x.strides());
  EXPECT_EQ(mask.dtype(), kBool);
  Tensor weights = (arange(out.numel(), kFloat) * 0.05 + 1).reshape(out.sizes());
  (out * weights).sum().backward();
  EXPECT_TRUE(matches_golden(out, find_golden(kGolden, name + "/out"), 0));
  EXPECT_TRUE(matches_golden(mask, find_golden(kGolden, name + "/mask"), 0));
  if (train.has_value()) {
    EXPECT_TRUE(matches_golden(x.grad(), find_golden(kGolden, name + "/grad"), 0));
  } else {  // training: mask * scale, where 1.13 forgets the scale (native_dropout.h)
    EXPECT_TRUE(x.grad().equal(weights.mul(mask).mul_(1. / (1. - p))));
  }
}

TEST(DropoutTest, NativeDropoutMatchesPyTorch) {
  check_native("native_dropout", false, 0.3, true);
  check_native("native_dropout_default_train", false, 0.6, std::nullopt);
  check_native("native_dropout_eval", false, 0.3, false);
  check_native("native_dropout_p1", false, 1.0, true);
  check_native("native_dropout_p0", false, 0.0, true);
  check_native("native_dropout_transposed", true, 0.5, true);
}

TEST(DropoutTest, NativeDropoutEdgeCases) {
  // An empty input comes back as it is, with an empty mask of its dtype.
  Tensor e = empty({0, 3});
  auto [out, mask] = native_dropout(e, 0.5, true);
  EXPECT_TRUE(out.is_same(e));
  EXPECT_EQ(mask.sizes(), e.sizes());
  EXPECT_EQ(mask.dtype(), kFloat);
  try {
    native_dropout(ones({3}), 1.5, true);
    ADD_FAILURE() << "no error";
  } catch (const Error& err) {
    EXPECT_STREQ(err.what(), "bernoulli_ expects p to be in [0, 1], but got p=-0.5");
  }
  // The backward is grad * mask * scale.
  Tensor g = tensor({1.f, -2.f, 3.f}), m = tensor({true, false, true});
  EXPECT_TRUE(equal(native_dropout_backward(g, m, 2.0), tensor({2.f, -0.f, 6.f})));
}

// The noise is drawn contiguous (PyTorch's LEGACY_CONTIGUOUS_MEMORY_FORMAT),
// so a transposed input gets PyTorch's mask too.
TEST(DropoutTest, TransposedInputGetsPyTorchsMask) {
  check("dropout_transposed", {4, 5}, true,
        [](const Tensor& x) { return F::dropout(x, F::DropoutFuncOptions().p(0.5)); });
}

TEST(DropoutTest, DefaultsAndEdgeCases) {
  Tensor x = arange(24, kFloat).reshape({2, 3, 2, 2});
  // Alpha dropout's functional form does nothing unless asked to train
  // (libtorch's AlphaDropoutFuncOptions().training() is false).
  EXPECT_TRUE(F::alpha_dropout(x).equal(x));
  EXPECT_TRUE(F::feature_alpha_dropout(x).equal(x));
  EXPECT_TRUE(F::dropout2d(x, F::Dropout2dFuncOptions().training(false)).equal(x));
  // p = 1 zeroes everything; p = 0 is the input.
  EXPECT_EQ(F::dropout2d(x, F::Dropout2dFuncOptions().p(1)).abs().sum().item<float>(), 0.f);
  EXPECT_TRUE(F::dropout3d(x, F::Dropout3dFuncOptions().p(0)).equal(x));
  // Whole channels: every (n, c) plane is all zero or all scaled.
  manual_seed(0);
  Tensor y = F::dropout2d(x + 1, F::Dropout2dFuncOptions().p(0.5));
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t c = 0; c < 3; ++c) {
      Tensor plane = y[n][c];
      const bool zero = plane.abs().sum().item<float>() == 0;
      EXPECT_TRUE(zero || plane.equal(((x + 1)[n][c]) * 2)) << n << " " << c;
    }
  }
  // In place: the input is the result, its shape kept (an unbatched sample
  // is unsqueezed and squeezed back).
  Tensor z = arange(12, kFloat).reshape({3, 2, 2});
  Tensor r = F::dropout2d(z, F::Dropout2dFuncOptions().p(0.5).inplace(true));
  EXPECT_EQ(r.unsafeGetTensorImpl(), z.unsafeGetTensorImpl());
  EXPECT_EQ(z.sizes(), IntArrayRef({3, 2, 2}));
  EXPECT_THROW(F::dropout2d(x, F::Dropout2dFuncOptions().p(1.5)), Error);
  try {
    F::dropout1d(x);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dropout1d: Expected 2D or 3D input, but received a 4D "
                                         "input"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(F::feature_alpha_dropout(arange(3, kFloat),
                                        F::FeatureAlphaDropoutFuncOptions().training(true)),
               Error);
}

TEST(DropoutTest, ModulesTrainAndEvaluateAsLibtorchs) {
  nn::Dropout1d d1(0.2);
  EXPECT_EQ(d1->repr(), "Dropout1d(p=0.2, inplace=False)");
  nn::Dropout2d d2(0.4);
  nn::Dropout3d d3(nn::Dropout3dOptions().p(0.5));
  nn::AlphaDropout a(0.3);
  nn::FeatureAlphaDropout fa(0.3);
  EXPECT_EQ(d2->options.p(), 0.4);
  EXPECT_EQ(d3->extra_repr(), "p=0.5, inplace=False");
  EXPECT_EQ(d2->repr(), "Dropout2d(p=0.4, inplace=False)");
  EXPECT_EQ(fa->repr(), "FeatureAlphaDropout(p=0.3, inplace=False)");
  Tensor x = input({2, 3, 2, 2}, false).detach();
  manual_seed(3);
  Tensor trained = d2->forward(x);
  manual_seed(3);
  EXPECT_TRUE(trained.equal(F::dropout2d(x, F::Dropout2dFuncOptions().p(0.4))));
  // The modules train by default; in eval mode they are the identity.
  manual_seed(3);
  Tensor alpha = a->forward(x);
  manual_seed(3);
  EXPECT_TRUE(
      alpha.equal(F::alpha_dropout(x, F::AlphaDropoutFuncOptions().p(0.3).training(true))));
  for (nn::Module* m : {static_cast<nn::Module*>(d2.get()), static_cast<nn::Module*>(d3.get()),
                        static_cast<nn::Module*>(a.get()), static_cast<nn::Module*>(fa.get())}) {
    m->eval();
  }
  EXPECT_TRUE(d2->forward(x).equal(x));
  EXPECT_TRUE(fa->forward(x).equal(x));
  EXPECT_THROW(nn::AlphaDropout(1.5), Error);
}

}  // namespace
}  // namespace ember
