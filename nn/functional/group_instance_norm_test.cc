// F::group_norm and F::instance_norm against PyTorch
// (tools/golden/nn_ops_more.py), their errors and derivatives.
#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "gtest/gtest.h"
#include "nn/functional/normalization.h"
#include "nn/functional/testing/nn_golden.h"
#include "tensor/all.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_more_case;
using V = std::vector<Tensor>;

TEST(GroupNorm, AffineAndEps) {
  check_more_case("group_norm", 3, {0, 1, 2}, [](const V& x) {
    return F::group_norm(x[0], F::GroupNormFuncOptions(3).weight(x[1]).bias(x[2]).eps(1e-3));
  });
}
TEST(GroupNorm, NonContiguous) {
  check_more_case("group_norm_noncontig", 1, {0},
                  [](const V& x) { return F::group_norm(x[0].transpose(2, 3), 2); });
}
TEST(GroupNorm, TwoDimsWeightOnly) {
  check_more_case("group_norm_2d", 2, {0, 1}, [](const V& x) {
    return F::group_norm(x[0], F::GroupNormFuncOptions(2).weight(x[1]));
  });
}
// The CPU loop of contiguous inputs (Note [Group norm on the CPU]) gives
// the composition's bits, which a channels-last input still takes: with
// and without each parameter, in float and double, with sizes that are no
// multiple of eight; mean and rstd too.
TEST(GroupNorm, CpuLoopIsTheComposition) {
  for (ScalarType t : {kFloat, kDouble}) {
    const Tensor x = (randn({2, 6, 5, 3}, t) * 3 + 1).contiguous();
    const Tensor cl = x.contiguous(MemoryFormat::ChannelsLast);
    const Tensor w = randn({6}, t), b = randn({6}, t);
    for (int k = 0; k < 4; ++k) {
      const Tensor wk = k & 1 ? w : Tensor(), bk = k & 2 ? b : Tensor();
      auto fast = native_group_norm(x, wk, bk, 2, 6, 15, 3, 1e-5);
      auto composed = native_group_norm(cl, wk, bk, 2, 6, 15, 3, 1e-5);
      EXPECT_TRUE(std::get<0>(fast).equal(std::get<0>(composed).contiguous())) << k;
      EXPECT_TRUE(std::get<1>(fast).equal(std::get<1>(composed))) << k;
      EXPECT_TRUE(std::get<2>(fast).equal(std::get<2>(composed))) << k;
      EXPECT_TRUE(std::get<0>(fast).is_contiguous());
      EXPECT_TRUE(std::get<0>(composed).is_contiguous(MemoryFormat::ChannelsLast));
    }
  }
}

TEST(InstanceNorm, Affine) {
  check_more_case("instance_norm", 3, {0, 1, 2}, [](const V& x) {
    return F::instance_norm(x[0], F::InstanceNormFuncOptions().weight(x[1]).bias(x[2]));
  });
}
// The running statistics are updated in place with the samples' average.
TEST(InstanceNorm, UpdatesRunningStatistics) {
  for (const char* dt : {"f32", "f64"}) {
    SCOPED_TRACE(dt);
    const ScalarType dtype = std::string(dt) == "f32" ? kFloat : kDouble;
    const std::string base = std::string("instance_norm_running/") + dt + "/";
    Tensor x = testing::more_case_input("instance_norm_running", dt, 0);
    Tensor rm = testing::more_case_input("instance_norm_running", dt, 1);
    Tensor rv = testing::more_case_input("instance_norm_running", dt, 2);
    Tensor out = F::instance_norm(
        x.transpose(2, 3),
        F::InstanceNormFuncOptions().running_mean(rm).running_var(rv).momentum(0.2).eps(1e-3));
    const double rel = dtype == kFloat ? 2e-5 : 1e-10;
    EXPECT_TRUE(testing::near_golden(out, testing::nn_more_golden(base + "out"), dtype, rel));
    EXPECT_TRUE(testing::near_golden(rm, testing::nn_more_golden(base + "out1"), dtype, rel));
    EXPECT_TRUE(testing::near_golden(rv, testing::nn_more_golden(base + "out2"), dtype, rel));
  }
}
TEST(InstanceNorm, RunningStatisticsWithoutInputStats) {
  check_more_case("instance_norm_eval", 3, {0}, [](const V& x) {
    return F::instance_norm(
        x[0],
        F::InstanceNormFuncOptions().running_mean(x[1]).running_var(x[2]).use_input_stats(false));
  });
}

TEST(GroupNormInstanceNorm, Errors) {
  using testing::expect_nn_more_error;
  expect_nn_more_error("group_norm_divisible", [] { F::group_norm(zeros({2, 5, 3}), 2); });
  expect_nn_more_error("group_norm_weight", [] {
    F::group_norm(zeros({2, 4, 3}), F::GroupNormFuncOptions(2).weight(zeros({3})));
  });
  // PyTorch 1.13 prints the weight's shape for a bad bias, and so does ember
  // (native_group_norm's check).
  testing::expect_error(
      [] {
        F::group_norm(zeros({2, 4, 3}),
                      F::GroupNormFuncOptions(2).weight(zeros({4})).bias(zeros({5})));
      },
      "Expected bias to be a vector of size equal to the number of channels in input, but got "
      "bias of shape [4] and input of shape [2, 4, 3]");
  expect_nn_more_error("group_norm_one_value", [] { F::group_norm(zeros({1, 2}), 2); });
  expect_nn_more_error("instance_norm_spatial", [] { F::instance_norm(zeros({2, 5, 1})); });
  expect_nn_more_error("instance_norm_running_size", [] {
    F::instance_norm(zeros({2, 3, 4}),
                     F::InstanceNormFuncOptions().running_mean(zeros({4})).running_var(zeros({4})));
  });
  expect_nn_more_error("instance_norm_weight_size", [] {
    F::instance_norm(zeros({2, 3, 4}), F::InstanceNormFuncOptions().weight(zeros({4})));
  });
  expect_nn_more_error("instance_norm_no_stats", [] {
    F::instance_norm(zeros({2, 3, 4}), F::InstanceNormFuncOptions().use_input_stats(false));
  });
}

autograd::GradcheckOptions second_order() {
  autograd::GradcheckOptions o;
  o.check_grad_grad = true;
  return o;
}

TEST(GroupNorm, GradcheckAndGradgradcheck) {
  manual_seed(0);
  TensorOptions d = TensorOptions(kDouble).requires_grad(true);
  Tensor x = randn({2, 4, 3}, d), w = randn({4}, d), b = randn({4}, d);
  EXPECT_EQ(autograd::gradcheck(
                [](const autograd::variable_list& v) {
                  return autograd::variable_list{F::group_norm(
                      v[0].transpose(0, 0), F::GroupNormFuncOptions(2).weight(v[1]).bias(v[2]))};
                },
                {x, w, b}, second_order()),
            "");
}

TEST(InstanceNorm, GradcheckAndGradgradcheck) {
  manual_seed(0);
  TensorOptions d = TensorOptions(kDouble).requires_grad(true);
  Tensor x = randn({2, 3, 2, 2}, d), w = randn({3}, d), b = randn({3}, d);
  EXPECT_EQ(autograd::gradcheck(
                [](const autograd::variable_list& v) {
                  return autograd::variable_list{F::instance_norm(
                      v[0], F::InstanceNormFuncOptions().weight(v[1]).bias(v[2]))};
                },
                {x, w, b}, second_order()),
            "");
}

}  // namespace
}  // namespace ember
