// The gradients of reduce_ops.h's ops against PyTorch 1.13's values and
// backward errors (tools/golden/reduce_ops.py; the forward values are
// checked in tensor/reduce_ops_test.cc, the formulas against finite
// differences in gradcheck_test.cc).
#include <string>
#include <tuple>

#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

const testing::GoldenEntry kGolden[] = {
#include "tensor/testdata/reduce_ops_golden.inc"
};

Tensor G(const std::string& name) {
  return testing::golden_tensor(testing::find_golden(kGolden, name));
}

void expect_golden(const Tensor& t, const std::string& name, double rel) {
  EXPECT_TRUE(testing::matches_golden(t, testing::find_golden(kGolden, name), rel)) << name;
}

// The weights the golden script multiplies the result by before sum().
Tensor weights(IntArrayRef sizes) { return testing::make_input(sizes, kDouble, 7); }

TEST(ReduceOpsGrad, ScatterReduceMatchesPyTorch) {
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    for (bool include_self : {true, false}) {
      const std::string name = std::string("scatter/") + reduce + "/" + (include_self ? "1" : "0");
      Tensor s = G("scatter/self").requires_grad_();
      Tensor x = G("scatter/src").requires_grad_();
      const Tensor out = s.scatter_reduce(0, G("scatter/index"), x, reduce, include_self);
      (out * weights({3, 4})).sum().backward();
      expect_golden(s.grad(), name + "/grad_self", 1e-12);
      expect_golden(x.grad(), name + "/grad_src", 1e-12);
    }
  }
}

TEST(ReduceOpsGrad, InPlaceScatterReduceOnANonLeaf) {
  Tensor s = G("scatter/self").requires_grad_();
  Tensor y = s * 1;
  y.scatter_reduce_(0, G("scatter/index"), G("scatter/src"), "amax", false);
  (y * weights({3, 4})).sum().backward();
  expect_golden(s.grad(), "scatter/amax/0/grad_self", 1e-12);
}

TEST(ReduceOpsGrad, IndexReduceMatchesPyTorch) {
  for (const char* reduce : {"prod", "mean", "amax", "amin"}) {
    for (bool include_self : {true, false}) {
      const std::string name = std::string("index/") + reduce + "/" + (include_self ? "1" : "0");
      Tensor s = G("index/self").requires_grad_();
      Tensor x = G("index/src").requires_grad_();
      const Tensor out = s.index_reduce(0, tensor({0, 2, 0, 3, 2}, kLong), x, reduce, include_self);
      (out * weights({4, 3})).sum().backward();
      expect_golden(s.grad(), name + "/grad_self", 1e-12);
      expect_golden(x.grad(), name + "/grad_src", 1e-12);
    }
  }
}

// Differentiable in x only, as PyTorch's.
TEST(ReduceOpsGrad, IgammaInXOnly) {
  const Tensor a = tensor({1.5, 2.0, 0.7}, kDouble);
  Tensor x = tensor({0.5, 3.0, 1.2}, kDouble).requires_grad_();
  igamma(a, x).sum().backward();
  expect_golden(x.grad(), "igamma/grad", 1e-13);
  Tensor x2 = tensor({0.5, 3.0, 1.2}, kDouble).requires_grad_();
  igammac(a, x2).sum().backward();
  expect_golden(x2.grad(), "igammac/grad", 1e-13);
  Tensor a2 = a.clone().requires_grad_();
  EXPECT_EQ(testing::error_of([&] { igamma(a2, x2).sum().backward(); }),
            "the derivative for 'igamma: input' is not implemented.");
  EXPECT_EQ(testing::error_of([&] { igammac(a2, x2).sum().backward(); }),
            "the derivative for 'igammac: input' is not implemented.");
}

TEST(ReduceOpsGrad, HistogramRecordsNothing) {
  const Tensor h = tensor({1.0f, 2.0f}).requires_grad_();
  EXPECT_FALSE(std::get<0>(histogram(h, 3)).requires_grad());
  // histogramdd is not differentiable in 1.13 either (Note [One histogram]).
  const Tensor p = tensor({1.0f, 2.0f, 0.5f, 3.0f}).view({2, 2}).requires_grad_();
  auto [hist, edges] = histogramdd(p, 2);
  EXPECT_FALSE(hist.requires_grad());
  EXPECT_FALSE(edges[1].requires_grad());
  const Tensor b = tensor({0.0f, 4.0f}).requires_grad_();
  auto [hist_t, edges_t] = histogramdd(p, TensorList{b, b});
  EXPECT_FALSE(hist_t.requires_grad());
  EXPECT_FALSE(edges_t[0].requires_grad());
}

}  // namespace
}  // namespace ember
