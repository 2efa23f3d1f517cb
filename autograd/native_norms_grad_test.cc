// The gradients of native_group_norm (all three outputs), _weight_norm and
// _weight_norm_interface against PyTorch
// 1.13's (tools/golden/native_norms.py; forward values in
// tensor/native_norms_test.cc, the formulas against finite differences in
// gradcheck_test.cc).
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::make_input;

const testing::GoldenEntry kGolden[] = {
#include "tensor/testdata/native_norms_golden.inc"
};

void expect_golden(const Tensor& t, const std::string& name) {
  const testing::GoldenEntry& g = testing::find_golden(kGolden, name);
  EXPECT_TRUE(testing::matches_golden(t, g, g.dtype == kDouble ? 1e-12 : 1e-5)) << name;
}

// sum(out * u) + sum(mean * v) + sum(rstd * z), u, v, z as the script's.
void backward_all(const std::tuple<Tensor, Tensor, Tensor>& r) {
  auto [out, mean, rstd] = r;
  ((out * make_input(out.sizes(), out.dtype(), 7)).sum() +
   (mean * make_input(mean.sizes(), mean.dtype(), 8)).sum() +
   (rstd * make_input(rstd.sizes(), rstd.dtype(), 9)).sum())
      .backward();
}

TEST(NativeGroupNormGrad, MatchesPyTorch) {
  for (auto [dtn, dt] : {std::pair<std::string, ScalarType>{"f32", kFloat}, {"f64", kDouble}}) {
    const std::string p = "gn/" + dtn + "/";
    Tensor x = make_input({2, 4, 3}, dt, 1).requires_grad_();
    Tensor w = make_input({4}, dt, 2).requires_grad_();
    Tensor b = make_input({4}, dt, 3).requires_grad_();
    backward_all(native_group_norm(x, w, b, 2, 4, 3, 2, 1e-5));
    expect_golden(x.grad(), p + "affine/grad_input");
    expect_golden(w.grad(), p + "affine/grad_weight");
    expect_golden(b.grad(), p + "affine/grad_bias");

    Tensor x2 = make_input({2, 4, 3}, dt, 1).requires_grad_();
    backward_all(native_group_norm(x2, Tensor(), Tensor(), 2, 4, 3, 4, 1e-5));
    expect_golden(x2.grad(), p + "plain/grad_input");

    Tensor x3 = make_input({2, 4, 2, 3}, dt, 4).requires_grad_();
    Tensor w3 = make_input({4}, dt, 2).requires_grad_();
    backward_all(native_group_norm(x3, w3, Tensor(), 2, 4, 6, 2, 1e-5));
    expect_golden(x3.grad(), p + "image/grad_input");
    expect_golden(w3.grad(), p + "image/grad_weight");
  }
}

TEST(NativeGroupNormGrad, OneNodeForAllOutputs) {
  const Tensor x = make_input({2, 4, 3}, kDouble, 1).requires_grad_();
  auto [out, mean, rstd] = native_group_norm(x, Tensor(), Tensor(), 2, 4, 3, 2, 1e-5);
  ASSERT_NE(out.grad_fn(), nullptr);
  EXPECT_EQ(out.grad_fn()->name(), "NativeGroupNormBackward0");
  EXPECT_EQ(mean.grad_fn(), out.grad_fn());
  EXPECT_EQ(rstd.grad_fn(), out.grad_fn());
}

TEST(WeightNormGrad, MatchesPyTorch) {
  for (auto [dtn, dt] : {std::pair<std::string, ScalarType>{"f32", kFloat}, {"f64", kDouble}}) {
    const std::vector<std::pair<int64_t, std::vector<int64_t>>> cases = {
        {0, {3, 1, 1}}, {2, {1, 1, 2}}, {1, {1, 4, 1}}, {-1, {}}};
    for (const auto& [dim, gshape] : cases) {
      Tensor v = make_input({3, 4, 2}, dt, 1).requires_grad_();
      Tensor g = (make_input(gshape, dt, 5) + 2).detach().requires_grad_();
      const Tensor w = _weight_norm(v, g, dim);
      (w * make_input(w.sizes(), dt, 7)).sum().backward();
      const std::string base = "wn/" + dtn + "/d" + std::to_string(dim);
      expect_golden(v.grad(), base + "/grad_v");
      expect_golden(g.grad(), base + "/grad_g");
    }
    for (const auto& [dim, gshape] :
         std::vector<std::pair<int64_t, std::vector<int64_t>>>{{0, {3}}, {2, {1, 1, 2}}}) {
      Tensor v = make_input({3, 4, 2}, dt, 1).requires_grad_();
      Tensor g = (make_input(gshape, dt, 5) + 2).detach().requires_grad_();
      auto [w, norms] = _weight_norm_interface(v, g, dim);
      EXPECT_FALSE(norms.requires_grad());
      (w * make_input(w.sizes(), dt, 7)).sum().backward();
      const std::string base = "wni/" + dtn + "/d" + std::to_string(dim);
      expect_golden(v.grad(), base + "/grad_v");
      expect_golden(g.grad(), base + "/grad_g");
    }
  }
}

}  // namespace
}  // namespace ember
