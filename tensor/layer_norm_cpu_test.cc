// Note [Layer norm kernels] on the CPU (layer_norm_cpu.cc): native_layer_norm
// through the kernels against the composed path (a non-contiguous input
// takes it) and against the formulas in double, over rows shorter than the
// kernels' eight lanes, a row of one element, row counts that are not a
// multiple of the gradient chunks, and without weight or bias; the weight
// and bias gradients do not depend on the thread count. Gradients against
// finite differences and PyTorch's values: nn/functional:normalization_test.
#include <vector>

#include "gtest/gtest.h"
#include "tensor/creation.h"
#include "tensor/layer_norm_kernels.h"
#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/parallel.h"
#include "tensor/random.h"
#include "tensor/reduce.h"

namespace ember {
namespace {

struct Case {
  std::vector<int64_t> shape, normalized;
};
const Case kCases[] = {{{4, 7, 96}, {96}}, {{3, 5}, {5}},     {{2, 3, 4, 5}, {4, 5}},
                       {{6, 1}, {1}},      {{130, 64}, {64}}, {{1, 3000}, {3000}}};

void expect_close(const Tensor& got, const Tensor& want, double tol, const std::string& what) {
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  const double scale = std::max(1.0, want.to(kDouble).abs().max().item<double>());
  EXPECT_LT((got.to(kDouble) - want.to(kDouble)).abs().max().item<double>(), tol * scale) << what;
}

// A copy of t with the same values that is not contiguous (so that
// native_layer_norm takes the composed path).
Tensor strided_copy(const Tensor& t) {
  Tensor wide = zeros({t.numel(), 2}, t.options());
  wide.select(1, 0).copy_(t.reshape({-1}));
  return wide.select(1, 0).view(t.sizes());
}

TEST(LayerNormCpu, ForwardMatchesTheComposedPath) {
  manual_seed(4);
  for (const Case& c : kCases) {
    for (ScalarType dtype : {kFloat, kDouble}) {
      for (int affine = 0; affine < 4; ++affine) {
        const Tensor x = (randn(c.shape, TensorOptions(dtype)) * 3 + 1.5).contiguous();
        const Tensor w = affine & 1 ? randn(c.normalized, TensorOptions(dtype)) : Tensor();
        const Tensor b = affine & 2 ? randn(c.normalized, TensorOptions(dtype)) : Tensor();
        ASSERT_TRUE(detail::layer_norm_kernels_apply(x, w, b));
        const Tensor xs = strided_copy(x);
        ASSERT_FALSE(detail::layer_norm_kernels_apply(xs, w, b));
        auto [out, mean, rstd] = native_layer_norm(x, c.normalized, w, b, 1e-5);
        auto [want_out, want_mean, want_rstd] = native_layer_norm(xs, c.normalized, w, b, 1e-5);
        const double tol = dtype == kDouble ? 1e-12 : 2e-6;
        const std::string what = std::to_string(c.shape.back()) + " " + dtype_name(dtype) +
                                 " affine " + std::to_string(affine);
        expect_close(out, want_out, tol, what + " out");
        expect_close(mean, want_mean, tol, what + " mean");
        expect_close(rstd, want_rstd, tol, what + " rstd");
      }
    }
  }
}

// The backward kernel against the gradients written out in double:
// gx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = gy * w;
// gw = sum over rows of gy * xhat; gb = sum over rows of gy.
TEST(LayerNormCpu, BackwardMatchesTheFormula) {
  manual_seed(5);
  for (const Case& c : kCases) {
    const int64_t d = zeros(c.normalized).numel();
    const int64_t rows = zeros(c.shape).numel() / d;
    for (ScalarType dtype : {kFloat, kDouble}) {
      for (bool affine : {true, false}) {
        const Tensor x = randn({rows, d}, TensorOptions(dtype)) * 2 - 0.5;
        const Tensor w = affine ? randn({d}, TensorOptions(dtype)) : Tensor();
        const Tensor b = affine ? randn({d}, TensorOptions(dtype)) : Tensor();
        const Tensor gy = randn({rows, d}, TensorOptions(dtype));
        auto [out, mean, rstd] = native_layer_norm(x, {d}, w, b, 1e-5);
        Tensor gx = empty({rows, d}, TensorOptions(dtype));
        Tensor gw = affine ? empty({d}, TensorOptions(dtype)) : Tensor();
        Tensor gb = affine ? empty({d}, TensorOptions(dtype)) : Tensor();
        detail::layer_norm_backward_kernel(kCPU)(gy, x, mean, rstd, w, gx, gw, gb);

        const Tensor xd = x.to(kDouble), gyd = gy.to(kDouble);
        const Tensor md = xd.mean({1}, true);
        const Tensor rd = (xd.var({1}, false, true) + 1e-5).rsqrt();
        const Tensor xhat = (xd - md) * rd;
        const Tensor g = affine ? gyd * w.to(kDouble) : gyd;
        const Tensor want_gx = rd * (g - g.mean({1}, true) - xhat * (g * xhat).mean({1}, true));
        const double tol = dtype == kDouble ? 1e-10 : 2e-5;
        const std::string what = std::to_string(d) + " " + dtype_name(dtype);
        expect_close(gx, want_gx.to(dtype), tol, what + " grad input");
        if (affine) {
          expect_close(gw, (gyd * xhat).sum({0}).to(dtype), tol, what + " grad weight");
          expect_close(gb, gyd.sum({0}).to(dtype), tol, what + " grad bias");
        }
      }
    }
  }
}

TEST(LayerNormCpu, WeightAndBiasGradientsDoNotDependOnThreads) {
  manual_seed(6);
  const Tensor x = randn({1000, 48}), w = randn({48}), gy = randn({1000, 48});
  auto [out, mean, rstd] = native_layer_norm(x, {48}, w, Tensor(), 1e-5);
  std::vector<Tensor> results;
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    Tensor gx = empty({1000, 48}), gw = empty({48}), gb = empty({48});
    detail::layer_norm_backward_kernel(kCPU)(gy, x, mean, rstd, w, gx, gw, gb);
    results.insert(results.end(), {gx, gw, gb});
  }
  set_num_threads(1);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(results[i].equal(results[i + 3])) << i;
}

// bfloat16 (outside autocast) and parameters of another dtype keep the
// composed path.
TEST(LayerNormCpu, OtherDtypesTakeTheComposedPath) {
  const Tensor x = randn({4, 8});
  EXPECT_FALSE(detail::layer_norm_kernels_apply(x.to(kBFloat16), Tensor(), Tensor()));
  EXPECT_FALSE(detail::layer_norm_kernels_apply(x, randn({8}, TensorOptions(kDouble)), Tensor()));
  auto [out, mean, rstd] = native_layer_norm(x.to(kBFloat16), {8}, Tensor(), Tensor(), 1e-5);
  expect_close(out.to(kFloat), std::get<0>(native_layer_norm(x, {8}, Tensor(), Tensor(), 1e-5)),
               2e-2, "bfloat16");
}

}  // namespace
}  // namespace ember
