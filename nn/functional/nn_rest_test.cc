// The last torch.nn layers of issue 19 against PyTorch 1.13
// (tools/golden/nn_rest.py): InstanceNorm3d, adaptive_max_pool3d,
// AdaptiveLogSoftmaxWithLoss, fractional_max_pool2d/3d and CrossMapLRN2d.
// Outputs, indices and gradients in float32 and float64, what is drawn
// under manual_seed, printed forms, PyTorch's errors, and float64 finite
// differences.

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autograd/autograd.h"
#include "nn/adaptive.h"
#include "nn/container.h"
#include "nn/functional/pooling.h"
#include "nn/functional/testing/nn_golden.h"
#include "nn/instancenorm.h"
#include "nn/normalization.h"
#include "nn/pooling.h"
#include "nn/test_golden.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

namespace F = nn::functional;
using testing::check_case_in;
using testing::find_golden;
using testing::matches_golden;
using testing::near_golden;
using In = std::vector<Tensor>;

const testing::GoldenEntry kGolden[] = {
#include "nn/functional/testdata/nn_rest_golden.inc"
};
const testing::GoldenError kErrors[] = {
#include "nn/functional/testdata/nn_rest_errors_golden.inc"
};
const nn::testing::GoldenString kStrings[] = {
#include "nn/functional/testdata/nn_rest_strings_golden.inc"
};
constexpr nn::testing::GoldenTables kTables(kGolden, kErrors, kStrings);

const std::pair<const char*, ScalarType> kDtypes[] = {{"f32", kFloat}, {"f64", kDouble}};

Tensor golden(const std::string& name) {
  return testing::golden_tensor(find_golden(kGolden, name));
}

void expect_error(const std::string& name, const std::function<void()>& f) {
  kTables.expect_golden_error(name, f);
}

// The indices (PyTorch's "out1") of an op case whose fn returns them.
void expect_indices(const std::string& name, int num_inputs,
                    const std::function<Tensor(const In&)>& indices) {
  for (const auto& [dt, dtype] : kDtypes) {
    SCOPED_TRACE(absl::StrCat(name, "/", dt));
    In in;
    for (int i = 0; i < num_inputs; ++i)
      in.push_back(golden(absl::StrCat(name, "/", dt, "/in", i)));
    EXPECT_TRUE(
        matches_golden(indices(in), find_golden(kGolden, absl::StrCat(name, "/", dt, "/out1"))));
  }
}

std::string gradcheck(const autograd::GradcheckFn& fn, const autograd::variable_list& inputs) {
  return autograd::gradcheck(fn, inputs);
}

std::string params_string(const nn::Module& m) {
  std::vector<std::string> lines;
  for (const auto& [name, p] : m.named_parameters()) {
    lines.push_back(absl::StrCat(name, " [", absl::StrJoin(p.sizes(), ", "), "]"));
  }
  return absl::StrJoin(lines, "\n");
}

// --- InstanceNorm3d ---------------------------------------------------------------------------

TEST(InstanceNorm3dTest, ForwardAndGradientsMatchPyTorch) {
  nn::InstanceNorm3d affine(nn::InstanceNorm3dOptions(3).affine(true));
  check_case_in(kGolden, "instance_norm3d_affine", 3, {0, 1, 2}, [&](const In& in) {
    affine->weight = in[1];
    affine->bias = in[2];
    return affine->forward(in[0]);
  });
  nn::InstanceNorm3d plain(3);
  check_case_in(kGolden, "instance_norm3d_unbatched", 1, {0},
                [&](const In& in) { return plain->forward(in[0]); });
  EXPECT_FALSE(plain->weight.defined());
  expect_error("in3d.dims", [&] { plain(zeros({2, 3, 4})); });
}

TEST(InstanceNorm3dTest, TrackedStatisticsTrainThenEval) {
  nn::InstanceNorm3d in(nn::InstanceNorm3dOptions(3).momentum(0.3).track_running_stats(true));
  Tensor x = golden("instance_norm3d_affine/f32/in0");
  EXPECT_TRUE(near_golden(in(x), find_golden(kGolden, "in3d/train1"), kFloat, 1e-5));
  EXPECT_TRUE(near_golden(in(x * 2 + 1), find_golden(kGolden, "in3d/train2"), kFloat, 1e-5));
  EXPECT_TRUE(
      near_golden(in->running_mean, find_golden(kGolden, "in3d/running_mean"), kFloat, 1e-5));
  EXPECT_TRUE(near_golden(in->running_var, find_golden(kGolden, "in3d/running_var"), kFloat, 1e-5));
  in->eval();
  EXPECT_TRUE(near_golden(in(x), find_golden(kGolden, "in3d/eval"), kFloat, 1e-5));
}

TEST(InstanceNorm3dTest, Gradcheck) {
  nn::InstanceNorm3d in(nn::InstanceNorm3dOptions(2).affine(true));
  in->to(kDouble);
  Tensor x = randn({2, 2, 2, 3, 2}, kDouble).requires_grad_();
  EXPECT_EQ(gradcheck(
                [&](const autograd::variable_list& v) {
                  in->weight = v[1];
                  in->bias = v[2];
                  return autograd::variable_list{in(v[0])};
                },
                {x, randn({2}, kDouble).requires_grad_(), randn({2}, kDouble).requires_grad_()}),
            "");
}

// --- adaptive_max_pool3d ----------------------------------------------------------------------

TEST(AdaptiveMaxPool3dTest, ValuesIndicesAndGradientsMatchPyTorch) {
  // The inputs have ties: the first maximum in (d, h, w) order wins.
  check_case_in(kGolden, "adaptive_max_pool3d", 1, {0}, [](const In& in) {
    return F::adaptive_max_pool3d(in[0], {2, 4, 3});
  });
  expect_indices("adaptive_max_pool3d", 1, [](const In& in) {
    return std::get<1>(F::adaptive_max_pool3d_with_indices(in[0], {2, 4, 3}));
  });
  nn::AdaptiveMaxPool3d pool(3);
  check_case_in(kGolden, "adaptive_max_pool3d_unbatched", 1, {0},
                [&](const In& in) { return pool(in[0]); });
  expect_indices("adaptive_max_pool3d_unbatched", 1,
                 [&](const In& in) { return std::get<1>(pool->forward_with_indices(in[0])); });
  nn::AdaptiveMaxPool3d grow(nn::AdaptiveMaxPool3dOptions({7, 2, 9}));
  check_case_in(kGolden, "adaptive_max_pool3d_grow", 1, {0},
                [&](const In& in) { return grow(in[0]); });
  expect_indices("adaptive_max_pool3d_grow", 1,
                 [&](const In& in) { return std::get<1>(grow->forward_with_indices(in[0])); });
  expect_error("amp3d.dims", [] { F::adaptive_max_pool3d(zeros({2, 3, 4}), 2); });
  expect_error("amp3d.empty", [] { F::adaptive_max_pool3d(zeros({2, 3, 0, 4, 4}), 2); });
  EXPECT_EQ(gradcheck(
                [](const autograd::variable_list& v) {
                  return autograd::variable_list{F::adaptive_max_pool3d(v[0], {2, 3, 2})};
                },
                {randn({1, 2, 3, 5, 4}, kDouble).requires_grad_()}),
            "");
}

// --- AdaptiveLogSoftmaxWithLoss ---------------------------------------------------------------

nn::AdaptiveLogSoftmaxWithLoss small_asm() {
  manual_seed(0);
  return nn::AdaptiveLogSoftmaxWithLoss(
      nn::AdaptiveLogSoftmaxWithLossOptions(8, 10, {3, 6}).div_value(2.0));
}

TEST(AdaptiveLogSoftmaxWithLossTest, ParametersInitializeAsPyTorch) {
  nn::AdaptiveLogSoftmaxWithLoss m = small_asm();
  EXPECT_EQ(params_string(*m), kTables.golden_string("asm.params"));
  for (const auto& [name, p] : m->named_parameters()) {
    EXPECT_TRUE(matches_golden(p, find_golden(kGolden, "asm/init/" + name))) << name;
  }
  manual_seed(1);
  nn::AdaptiveLogSoftmaxWithLoss mb(
      nn::AdaptiveLogSoftmaxWithLossOptions(16, 20, {4, 9, 15}).head_bias(true));
  EXPECT_EQ(params_string(*mb), kTables.golden_string("asm.params_bias"));
  for (const auto& [name, p] : mb->named_parameters()) {
    EXPECT_TRUE(matches_golden(p, find_golden(kGolden, "asm_bias/init/" + name))) << name;
  }
  EXPECT_EQ(mb->repr(), kTables.golden_string("asm.repr"));
}

TEST(AdaptiveLogSoftmaxWithLossTest, ForwardLogProbPredictAndGradientsMatchPyTorch) {
  const Tensor target = tensor(std::vector<int64_t>{0, 5, 9, 2, 3, 7, 6, 1}, kLong);
  for (const auto& [dt, dtype] : kDtypes) {
    SCOPED_TRACE(dt);
    const std::string base = absl::StrCat("asm/", dt, "/");
    const double rel = dtype == kFloat ? 2e-5 : 1e-10;
    auto near = [&](const Tensor& t, const std::string& name, double tol) {
      return near_golden(t, find_golden(kGolden, base + name), dtype, tol);
    };
    nn::AdaptiveLogSoftmaxWithLoss m = small_asm();
    m->to(dtype);
    Tensor x = (testing::make_input({8, 8}, dtype) * 0.7).detach().requires_grad_();
    auto [out, loss] = m(x, target);
    EXPECT_TRUE(near(out, "out", rel));
    EXPECT_TRUE(near(loss, "loss", rel));
    (loss + (out * testing::make_input({8}, dtype, 7)).sum()).backward();
    EXPECT_TRUE(near(x.grad(), "grad_input", rel * 10));
    for (const auto& [name, p] : m->named_parameters()) {
      EXPECT_TRUE(near(p.grad(), "grad/" + name, rel * 10)) << name;
    }
    NoGradGuard no_grad;
    EXPECT_TRUE(near(m->log_prob(x), "log_prob", rel));
    EXPECT_TRUE(matches_golden(m->predict(x), find_golden(kGolden, base + "predict")));
    auto [out1, loss1] = m(x[3], target[3]);
    EXPECT_EQ(out1.dim(), 0);
    EXPECT_TRUE(near(out1, "out_unbatched", rel));
    EXPECT_TRUE(near(loss1, "loss_unbatched", rel));
  }
  manual_seed(1);
  nn::AdaptiveLogSoftmaxWithLoss mb(
      nn::AdaptiveLogSoftmaxWithLossOptions(16, 20, {4, 9, 15}).head_bias(true));
  Tensor xb = testing::make_input({6, 16}, kFloat, 3) * 0.9;
  auto [out, loss] = mb(xb, tensor(std::vector<int64_t>{0, 19, 4, 10, 15, 8}, kLong));
  EXPECT_TRUE(near_golden(out, find_golden(kGolden, "asm_bias/out"), kFloat, 2e-5));
  EXPECT_TRUE(near_golden(loss, find_golden(kGolden, "asm_bias/loss"), kFloat, 2e-5));
  EXPECT_TRUE(
      near_golden(mb->log_prob(xb), find_golden(kGolden, "asm_bias/log_prob"), kFloat, 2e-5));
  EXPECT_TRUE(matches_golden(mb->predict(xb), find_golden(kGolden, "asm_bias/predict")));
}

TEST(AdaptiveLogSoftmaxWithLossTest, Gradcheck) {
  nn::AdaptiveLogSoftmaxWithLoss m = small_asm();
  m->to(kDouble);
  const Tensor target = tensor(std::vector<int64_t>{0, 5, 9, 2, 7}, kLong);
  Tensor w = m->head->weight.detach().clone().requires_grad_();
  EXPECT_EQ(gradcheck(
                [&](const autograd::variable_list& v) {
                  m->head->weight = v[1];
                  auto [out, loss] = m(v[0], target);
                  return autograd::variable_list{out, loss, m->log_prob(v[0])};
                },
                {randn({5, 8}, kDouble).requires_grad_(), w}),
            "");
}

TEST(AdaptiveLogSoftmaxWithLossTest, Errors) {
  using O = nn::AdaptiveLogSoftmaxWithLossOptions;
  expect_error("asm.cutoffs_sorted", [] { nn::AdaptiveLogSoftmaxWithLoss(O(8, 10, {6, 3})); });
  expect_error("asm.cutoffs_range", [] { nn::AdaptiveLogSoftmaxWithLoss(O(8, 10, {3, 10})); });
  expect_error("asm.cutoffs_unique", [] { nn::AdaptiveLogSoftmaxWithLoss(O(8, 10, {3, 3})); });
  expect_error("asm.cutoffs_positive", [] { nn::AdaptiveLogSoftmaxWithLoss(O(8, 10, {0, 3})); });
  nn::AdaptiveLogSoftmaxWithLoss m(8, 10, std::vector<int64_t>{3, 6});
  expect_error("asm.target_range", [&] {
    m(zeros({3, 8}), tensor(std::vector<int64_t>{1, 10, 2}, kLong));
  });
  expect_error("asm.batch", [&] { m(zeros({3, 8}), tensor(std::vector<int64_t>{1, 2}, kLong)); });
  expect_error("asm.multi_target", [&] { m(zeros({3, 8}), zeros({3, 1}, kLong)); });
  // PyTorch 1.13 raises RuntimeError(message, size) (the message a tuple's
  // repr); ember words them as libtorch does.
  testing::expect_error(
      [&] {
        m(zeros({3}), tensor(std::vector<int64_t>{1, 2, 3}, kLong));
      },
      "1D target tensor expects 2D input tensors, but found inputs with size [3]");
  testing::expect_error(
      [&] {
        m(zeros({3, 8}), scalar_tensor(1, kLong));
      },
      "0D target tensor expects 1D input tensors, but found inputs with size "
      "[3, 8]");
}

// --- fractional_max_pool2d/3d -----------------------------------------------------------------

TEST(FractionalMaxPoolTest, GivenSamplesMatchPyTorch) {
  using O2 = F::FractionalMaxPool2dFuncOptions;
  using O3 = F::FractionalMaxPool3dFuncOptions;
  const std::vector<std::pair<std::string, std::function<std::tuple<Tensor, Tensor>(const In&)>>>
      cases = {
          {"fmp2d_output_size",
           [](const In& in) {
             return F::fractional_max_pool2d_with_indices(
                 in[0], O2(2).output_size({4, 5})._random_samples(in[1]));
           }},
          {"fmp2d_ratio",
           [](const In& in) {
             return F::fractional_max_pool2d_with_indices(
                 in[0], O2({3, 2}).output_ratio({0.5, 0.7})._random_samples(in[1]));
           }},
          {"fmp2d_unbatched",
           [](const In& in) {
             return nn::FractionalMaxPool2d(O2(3).output_size(5)._random_samples(in[1]))
                 ->forward_with_indices(in[0]);
           }},
          {"fmp2d_one",
           [](const In& in) {
             return F::fractional_max_pool2d_with_indices(
                 in[0], O2(2).output_size({1, 8})._random_samples(in[1]));
           }},
          {"fmp3d_output_size",
           [](const In& in) {
             return F::fractional_max_pool3d_with_indices(
                 in[0], O3(2).output_size({3, 4, 5})._random_samples(in[1]));
           }},
          {"fmp3d_ratio",
           [](const In& in) {
             return nn::FractionalMaxPool3d(O3({2, 3, 2}).output_ratio(0.6)._random_samples(in[1]))
                 ->forward_with_indices(in[0]);
           }},
          {"fmp3d_unbatched",
           [](const In& in) {
             return F::fractional_max_pool3d_with_indices(
                 in[0], O3(2).output_size(3)._random_samples(in[1]));
           }},
      };
  for (const auto& [name, fn] : cases) {
    check_case_in(kGolden, name, 2, {0}, [&fn = fn](const In& in) { return std::get<0>(fn(in)); });
    expect_indices(name, 2, [&fn = fn](const In& in) { return std::get<1>(fn(in)); });
  }
}

// Without samples, they are drawn as Python draws them (rand [N, C, D] of
// the input's dtype): PyTorch's results under manual_seed.
TEST(FractionalMaxPoolTest, DrawnSamplesMatchPyTorch) {
  for (const auto& [dt, dtype] : kDtypes) {
    SCOPED_TRACE(dt);
    Tensor x4 = golden(absl::StrCat("fmp2d_output_size/", dt, "/in0"));
    Tensor x5 = golden(absl::StrCat("fmp3d_output_size/", dt, "/in0"));
    auto expect = [&](const std::string& name, const Tensor& t) {
      EXPECT_TRUE(matches_golden(
          t, find_golden(kGolden, absl::StrCat(name, "/", dt, "/")
                                      .append(t.scalar_type() == kLong ? "indices" : "out"))))
          << name;
    };
    manual_seed(5);
    auto [o2, i2] = F::fractional_max_pool2d_with_indices(
        x4, F::FractionalMaxPool2dFuncOptions(2).output_ratio(0.5));
    expect("fmp2d_drawn", o2);
    expect("fmp2d_drawn", i2);
    manual_seed(5);
    nn::FractionalMaxPool3d p3(nn::FractionalMaxPool3dOptions(2).output_size({2, 3, 4}));
    auto [o3, i3] = p3->forward_with_indices(x5);
    expect("fmp3d_drawn", o3);
    expect("fmp3d_drawn", i3);
    manual_seed(5);
    expect("fmp2d_drawn_unbatched",
           nn::FractionalMaxPool2d(nn::FractionalMaxPool2dOptions(3).output_size(4))(x4[0]));
  }
}

TEST(FractionalMaxPoolTest, Gradcheck) {
  Tensor s2 = rand({2, 3, 2}, kDouble), s3 = rand({1, 2, 3}, kDouble);
  EXPECT_EQ(
      gradcheck(
          [&](const autograd::variable_list& v) {
            return autograd::variable_list{
                F::fractional_max_pool2d(
                    v[0],
                    F::FractionalMaxPool2dFuncOptions(2).output_size({3, 4})._random_samples(s2)),
                F::fractional_max_pool3d(
                    v[1],
                    F::FractionalMaxPool3dFuncOptions({2, 1, 2}).output_size(3)._random_samples(
                        s3))};
          },
          {randn({2, 3, 5, 6}, kDouble).requires_grad_(),
           randn({1, 2, 4, 5, 5}, kDouble).requires_grad_()}),
      "");
}

TEST(FractionalMaxPoolTest, Errors) {
  using O2 = nn::FractionalMaxPool2dOptions;
  using O3 = nn::FractionalMaxPool3dOptions;
  expect_error("fmp2d.none", [] { nn::FractionalMaxPool2d(O2(2)); });
  expect_error("fmp2d.both",
               [] { nn::FractionalMaxPool2d(O2(2).output_size(3).output_ratio(0.5)); });
  expect_error("fmp2d.ratio", [] { nn::FractionalMaxPool2d(O2(2).output_ratio({0.5, 1.0})); });
  expect_error("fmp3d.none", [] { nn::FractionalMaxPool3d(O3(2)); });
  expect_error("fmp3d.ratio", [] { nn::FractionalMaxPool3d(O3(2).output_ratio({0.5, 0.5, 0.0})); });
  expect_error("fmp2d.func_none", [] { F::fractional_max_pool2d(zeros({1, 1, 4, 4}), O2(2)); });
  expect_error("fmp2d.dims", [] {
    F::fractional_max_pool2d(zeros({4, 4}), O2(2).output_size(2)._random_samples(rand({1, 4, 2})));
  });
  expect_error("fmp2d.empty", [] {
    F::fractional_max_pool2d(zeros({1, 0, 4, 4}),
                             O2(2).output_size(2)._random_samples(rand({1, 0, 2})));
  });
  expect_error("fmp2d.too_high", [] {
    F::fractional_max_pool2d(zeros({1, 1, 4, 8}),
                             O2(2).output_size({4, 3})._random_samples(rand({1, 1, 2})));
  });
  expect_error("fmp2d.too_wide", [] {
    F::fractional_max_pool2d(zeros({1, 1, 8, 4}),
                             O2(3).output_size({3, 3})._random_samples(rand({1, 1, 2})));
  });
  expect_error("fmp3d.dims", [] {
    F::fractional_max_pool3d(zeros({4, 4, 4}),
                             O3(2).output_size(2)._random_samples(rand({1, 4, 3})));
  });
  expect_error("fmp3d.too_deep", [] {
    F::fractional_max_pool3d(zeros({1, 1, 4, 8, 8}),
                             O3(2).output_size({4, 3, 3})._random_samples(rand({1, 1, 3})));
  });
  expect_error("fmp3d.too_high", [] {
    F::fractional_max_pool3d(zeros({1, 1, 8, 4, 8}),
                             O3(2).output_size({3, 4, 3})._random_samples(rand({1, 1, 3})));
  });
  expect_error("fmp3d.too_wide", [] {
    F::fractional_max_pool3d(zeros({1, 1, 8, 8, 4}),
                             O3(2).output_size({3, 3, 4})._random_samples(rand({1, 1, 3})));
  });
  // A _random_samples of the wrong size is refused (1.13 reads past it).
  EXPECT_THROW(F::fractional_max_pool2d(zeros({2, 1, 4, 4}),
                                        O2(2).output_size(2)._random_samples(rand({1, 1, 2}))),
               Error);
}

// --- CrossMapLRN2d ----------------------------------------------------------------------------

// The gradients are the legacy backward's (PyTorch's), which is not the
// forward's derivative: no finite-difference check.
TEST(CrossMapLRN2dTest, ForwardAndLegacyBackwardMatchPyTorch) {
  for (int64_t size : {3, 5, 4, 2}) {
    nn::CrossMapLRN2d m(nn::CrossMapLRN2dOptions(size).alpha(0.3).beta(0.6).k(1.5));
    check_case_in(kGolden, absl::StrCat("cross_map_lrn2d_", size), 1, {0},
                  [&](const In& in) { return m(in[0]); });
  }
  nn::CrossMapLRN2d m(3);
  check_case_in(kGolden, "cross_map_lrn2d_defaults", 1, {0},
                [&](const In& in) { return m(in[0]); });
  Tensor y = m(randn({1, 2, 2, 2}).requires_grad_());
  EXPECT_EQ(y.grad_fn()->name(), "CrossMapLRN2dBackward");
  testing::expect_error(
      [&] {
        m(zeros({2, 3, 4}));
      },
      "CrossMapLRN2d: Expected input to be 4D, got 3D instead.");
}

TEST(NnRestTest, PrintsAsPyTorch) {
  using O2 = nn::FractionalMaxPool2dOptions;
  nn::ModuleList layers(
      nn::FractionalMaxPool2d(O2(3).output_size({4, 5})),
      nn::FractionalMaxPool2d(O2({2, 3}).output_ratio(0.5)),
      nn::FractionalMaxPool3d(nn::FractionalMaxPool3dOptions(2).output_ratio({0.5, 0.25, 0.75})),
      nn::AdaptiveMaxPool3d(nn::AdaptiveMaxPool3dOptions({2, 3, 4})), nn::AdaptiveMaxPool3d(2),
      nn::InstanceNorm3d(nn::InstanceNorm3dOptions(4).affine(true)), nn::CrossMapLRN2d(3),
      nn::CrossMapLRN2d(nn::CrossMapLRN2dOptions(5).alpha(0.3).beta(0.6).k(2)));
  std::vector<std::string> lines;
  for (int64_t i = 0; i < static_cast<int64_t>(layers->size()); ++i) {
    lines.push_back(layers[i].repr());
  }
  EXPECT_EQ(absl::StrJoin(lines, "\n"), kTables.golden_string("repr.fmp"));
}

}  // namespace
}  // namespace ember
