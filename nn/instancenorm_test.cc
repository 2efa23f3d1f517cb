// InstanceNorm1d / InstanceNorm2d (nn/instancenorm.h) and GroupNorm
// (nn/normalization.h) against PyTorch (tools/golden/nn_modules_more.py):
// parameters and buffers, forward values, running statistics in training
// and eval, unbatched inputs, printed forms and errors.

#include <gtest/gtest.h>

#include <string>

#include "nn/container.h"
#include "nn/instancenorm.h"
#include "nn/normalization.h"
#include "nn/test_golden_more.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

using ::ember::testing::matches_golden;
using ::ember::testing::near_golden;
namespace g = testing::more;
using g::expect_layer;

TEST(GroupNormTest, ForwardMatchesPyTorch) {
  GroupNorm gn(2, 4);
  expect_layer("groupnorm", gn);
  GroupNorm plain(GroupNormOptions(3, 6).eps(1e-3).affine(false));
  expect_layer("groupnorm_noaffine", plain);
}

TEST(InstanceNormTest, DefaultsHaveNoParametersOrStatistics) {
  InstanceNorm1d in(3);
  expect_layer("instancenorm1d", in);
  EXPECT_FALSE(in->running_mean.defined());
  InstanceNorm1d affine(InstanceNorm1dOptions(3).affine(true));
  expect_layer("instancenorm1d_unbatched", affine);  // input [C, L]
}

// Training updates the running statistics with the samples' average; eval
// normalizes with them (batched and unbatched).
TEST(InstanceNormTest, TrackedStatisticsTrainThenEval) {
  InstanceNorm2d in(
      InstanceNorm2dOptions(3).affine(true).track_running_stats(true).momentum(0.3));
  EXPECT_EQ(g::params_string(*in), g::golden_string("params.instancenorm2d_tracked"));
  EXPECT_EQ(g::state_dict_keys(*in), g::golden_string("state_dict.instancenorm2d_tracked"));
  Tensor x = g::golden_tensor("in2d.input");
  EXPECT_TRUE(near_golden(in(x), g::golden("in2d.train1"), kFloat, 1e-5));
  EXPECT_TRUE(near_golden(in(x * 2 + 1), g::golden("in2d.train2"), kFloat, 1e-5));
  EXPECT_TRUE(near_golden(in->running_mean, g::golden("in2d.running_mean"), kFloat, 1e-5));
  EXPECT_TRUE(near_golden(in->running_var, g::golden("in2d.running_var"), kFloat, 1e-5));
  // Instance norm does not count batches (PyTorch's stays 0).
  EXPECT_TRUE(matches_golden(in->num_batches_tracked, g::golden("in2d.num_batches_tracked")));
  in->eval();
  EXPECT_TRUE(near_golden(in(x), g::golden("in2d.eval"), kFloat, 1e-5));
  EXPECT_TRUE(near_golden(in(x[1]), g::golden("in2d.eval_unbatched"), kFloat, 1e-5));
}

TEST(InstanceNormTest, GradientsReachParameters) {
  InstanceNorm1d in(InstanceNorm1dOptions(2).affine(true));
  Tensor x = randn({3, 2, 5}).requires_grad_();
  (in(x) * randn({3, 2, 5})).sum().backward();
  EXPECT_EQ(x.grad().sizes(), x.sizes());
  EXPECT_EQ(in->weight.grad().sizes(), IntArrayRef({2}));
  EXPECT_TRUE(in->bias.grad().defined());
}

TEST(NormMoreTest, PrintsAsPyTorch) {
  ModuleList norms(GroupNorm(2, 4), GroupNorm(GroupNormOptions(3, 6).eps(1e-3).affine(false)),
                   InstanceNorm1d(3), InstanceNorm1d(InstanceNorm1dOptions(3).affine(true)),
                   InstanceNorm2d(InstanceNorm2dOptions(4).eps(1e-3).momentum(0.3).affine(true)
                                      .track_running_stats(true)));
  EXPECT_EQ(g::repr(*norms), g::golden_string("repr.norms"));
}

TEST(NormMoreTest, Errors) {
  g::expect_golden_error("groupnorm.divisible", [] { GroupNorm(4, 6); });
  g::expect_golden_error("instancenorm1d.dims", [] { InstanceNorm1d(3)(zeros({2, 3, 4, 5})); });
  g::expect_golden_error("instancenorm2d.dims", [] { InstanceNorm2d(3)(zeros({2, 3})); });
}

}  // namespace
}  // namespace nn
}  // namespace ember
