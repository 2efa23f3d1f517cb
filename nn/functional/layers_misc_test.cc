// softmin/Softmax2d, channel_shuffle, lp_pool1d/2d and local_response_norm
// against PyTorch 1.13 (tools/golden/layers_misc.py): outputs and gradients
// in float32 and float64; the modules; the errors.

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "nn/activation.h"
#include "nn/functional/activation.h"
#include "nn/functional/linear.h"
#include "nn/functional/normalization.h"
#include "nn/functional/pixelshuffle.h"
#include "nn/functional/pooling.h"
#include "nn/functional/testing/nn_golden.h"
#include "nn/linear.h"
#include "nn/normalization.h"
#include "nn/pixelshuffle.h"
#include "nn/pooling.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_case_in;
using In = std::vector<Tensor>;

const testing::GoldenEntry kGolden[] = {
#include "nn/functional/testdata/layers_misc_golden.inc"
};

TEST(LayersMiscTest, SoftminAndSoftmax2d) {
  check_case_in(kGolden, "softmin_dim1", 1, {0},
                [](const In& in) { return F::softmin(in[0], F::SoftminFuncOptions(1)); });
  nn::Softmax2d s2d;
  check_case_in(kGolden, "softmax2d", 1, {0}, [&](const In& in) { return s2d->forward(in[0]); });
  check_case_in(kGolden, "softmax2d_3d", 1, {0}, [&](const In& in) { return s2d->forward(in[0]); });
  EXPECT_THROW(s2d->forward(zeros({2, 3})), Error);
  nn::Softmin sm(1);
  EXPECT_EQ(sm->repr(), "Softmin(dim=1)");
}

TEST(LayersMiscTest, ChannelShuffle) {
  // PyTorch 1.13 has no gradient for it (ember's is the permutation's).
  check_case_in(kGolden, "channel_shuffle_3", 1, {},
                [](const In& in) { return F::channel_shuffle(in[0], 3); });
  nn::ChannelShuffle cs(2);
  check_case_in(kGolden, "channel_shuffle_2_3d", 1, {},
                [&](const In& in) { return cs->forward(in[0]); });
  EXPECT_EQ(cs->repr(), "ChannelShuffle(groups=2)");
  EXPECT_THROW(F::channel_shuffle(zeros({2, 5, 3}), 2), Error);  // 5 channels, 2 groups
  EXPECT_THROW(F::channel_shuffle(zeros({2, 4}), 2), Error);
}

TEST(LayersMiscTest, LPPool) {
  check_case_in(kGolden, "lp_pool2d_p2", 1, {0},
                [](const In& in) { return F::lp_pool2d(in[0], F::LPPool2dFuncOptions(2.0, 2)); });
  check_case_in(kGolden, "lp_pool2d_p3_stride1_ceil", 1, {0}, [](const In& in) {
    return F::lp_pool2d(in[0], F::LPPool2dFuncOptions(3.0, {2, 3}).stride(1).ceil_mode(true));
  });
  nn::LPPool2d p1(1.0, 2);
  check_case_in(kGolden, "lp_pool2d_p1_signed", 1, {0},
                [&](const In& in) { return p1->forward(in[0]); });
  nn::LPPool1d l1(nn::LPPool1dOptions(2.0, 3).stride(2));
  check_case_in(kGolden, "lp_pool1d_p2", 1, {0}, [&](const In& in) { return l1->forward(in[0]); });
  EXPECT_EQ(p1->repr(), "LPPool2d(norm_type=1.0, kernel_size=2, stride=2, ceil_mode=False)");
}

TEST(LayersMiscTest, LocalResponseNorm) {
  nn::LocalResponseNorm lrn(3);
  check_case_in(kGolden, "local_response_norm_4d", 1, {0},
                [&](const In& in) { return lrn->forward(in[0]); });
  check_case_in(kGolden, "local_response_norm_3d", 1, {0}, [](const In& in) {
    return F::local_response_norm(in[0],
                                  F::LocalResponseNormFuncOptions(2).alpha(0.01).beta(0.5).k(2.0));
  });
  check_case_in(kGolden, "local_response_norm_5d", 1, {0},
                [](const In& in) { return F::local_response_norm(in[0], 4); });
  EXPECT_EQ(lrn->repr(), "LocalResponseNorm(3, alpha=0.0001, beta=0.75, k=1.0)");
  EXPECT_THROW(F::local_response_norm(zeros({2, 3}), 2), Error);
}

TEST(LayersMiscTest, MaxUnpool) {
  check_case_in(kGolden, "max_unpool2d", 2, {0}, [](const In& in) {
    return F::max_unpool2d(in[0], in[1], F::MaxUnpool2dFuncOptions(2));
  });
  check_case_in(kGolden, "max_unpool2d_output_size", 2, {0}, [](const In& in) {
    return F::max_unpool2d(in[0], in[1],
                           F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{2, 6, 3, 5}));
  });
  nn::MaxUnpool1d u1(nn::MaxUnpool1dOptions(3).stride(2).padding(1));
  check_case_in(kGolden, "max_unpool1d", 2, {0},
                [&](const In& in) { return u1->forward(in[0], in[1]); });
  nn::MaxUnpool3d u3(2);
  check_case_in(kGolden, "max_unpool3d", 2, {0},
                [&](const In& in) { return u3->forward(in[0], in[1]); });
  check_case_in(kGolden, "max_unpool2d_unbatched", 2, {0}, [](const In& in) {
    return F::max_unpool2d(in[0], in[1], F::MaxUnpool2dFuncOptions(2));
  });
  EXPECT_EQ(u1->repr(), "MaxUnpool1d(kernel_size=(3,), stride=(2,), padding=(1,))");
  Tensor v = ones({1, 1, 2, 2});
  EXPECT_THROW(F::max_unpool2d(v, full({1, 1, 2, 2}, 16, kLong), F::MaxUnpool2dFuncOptions(2)),
               Error);  // index 16 in a 4x4 output
  EXPECT_THROW(F::max_unpool2d(v, zeros({1, 1, 2, 2}, kLong),
                               F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{9, 9})),
               Error);
}

// Training draws one slope per element <= 0 from the default generator, as
// ATen's rrelu_with_noise: PyTorch's slopes under manual_seed.
TEST(LayersMiscTest, RReLUDrawsAsPyTorch) {
  for (const auto& [name, dtype] : {std::pair<std::string, ScalarType>{"f32", kFloat},
                                    std::pair<std::string, ScalarType>{"f64", kDouble}}) {
    SCOPED_TRACE(name);
    Tensor x = (testing::make_input({3, 7}, dtype) * 0.3 - 1.2).detach().requires_grad_();
    manual_seed(0);
    Tensor out = F::rrelu(x, F::RReLUFuncOptions().lower(0.1).upper(0.4).training(true));
    (out * testing::make_input({3, 7}, dtype, 7)).sum().backward();
    EXPECT_TRUE(testing::matches_golden(out, testing::find_golden(kGolden, "rrelu_train/" + name + "/out")));
    EXPECT_TRUE(
        testing::matches_golden(x.grad(), testing::find_golden(kGolden, "rrelu_train/" + name + "/grad")));
  }
  nn::RReLU m(nn::RReLUOptions().lower(0.1).upper(0.4));
  m->eval();
  check_case_in(kGolden, "rrelu_eval", 1, {0}, [&](const In& in) { return m->forward(in[0]); });
  EXPECT_EQ(nn::RReLU()->repr(), "RReLU(lower=0.125, upper=0.3333333333333333)");
  EXPECT_THROW(F::rrelu(ones({2}), F::RReLUFuncOptions().lower(0.5).upper(0.1)), Error);
}

TEST(LayersMiscTest, Bilinear) {
  check_case_in(kGolden, "bilinear", 4, {0, 1, 2, 3}, [](const In& in) {
    return F::bilinear(in[0], in[1], in[2], in[3]);
  });
  check_case_in(kGolden, "bilinear_no_bias", 3, {0, 1, 2},
                [](const In& in) { return F::bilinear(in[0], in[1], in[2]); });
  manual_seed(0);
  nn::Bilinear m(3, 4, 2);
  EXPECT_TRUE(testing::matches_golden(m->weight, testing::find_golden(kGolden, "bilinear_init/weight")));
  EXPECT_TRUE(testing::matches_golden(m->bias, testing::find_golden(kGolden, "bilinear_init/bias")));
  EXPECT_EQ(m->repr(), "Bilinear(in1_features=3, in2_features=4, out_features=2, bias=True)");
  EXPECT_EQ(m->forward(ones({5, 3}), ones({5, 4})).sizes(), IntArrayRef({5, 2}));
  EXPECT_THROW(F::bilinear(ones({5, 3}), ones({5, 5}), m->weight), Error);
  EXPECT_THROW(F::bilinear(ones({5, 3}), ones({6, 4}), m->weight), Error);
}

}  // namespace
}  // namespace ember
