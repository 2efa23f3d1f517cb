// Note [Layer norm kernels] on CUDA (tensor/cuda/layer_norm.cu) against the
// CPU's layer norm in float64: outputs, statistics and the three
// gradients, with and without weight and bias, in double, float, bfloat16
// and float16, over rows shorter and longer than a block. Needs a GPU;
// skips without one. The kernels are opt-in until this passes on a GPU.

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "autograd/autograd.h"
#include "nn/functional/normalization.h"
#include "tensor/all.h"
#include "tensor/cuda/cuda.h"
#include "tensor/layer_norm_kernels.h"

namespace ember {
namespace nn {
namespace functional {
namespace {

class LayerNormCudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
    detail::set_fused_layer_norm(true);
  }
  void TearDown() override { detail::set_fused_layer_norm(false); }
};

struct Result {
  Tensor out, mean, rstd, gx, gw, gb;
};

Result run(const Tensor& x0, const Tensor& w0, const Tensor& b0, const Tensor& g0,
           const std::vector<int64_t>& normalized, Device device, ScalarType dtype) {
  Tensor x = x0.detach().to(device, dtype).requires_grad_();
  Tensor w = w0.defined() ? w0.detach().to(device, dtype).requires_grad_() : Tensor();
  Tensor b = b0.defined() ? b0.detach().to(device, dtype).requires_grad_() : Tensor();
  auto [out, mean, rstd] = native_layer_norm(x, normalized, w, b, 1e-5);
  EXPECT_EQ(out.dtype(), dtype);
  (out.to(kDouble) * g0.to(device, kDouble)).sum().backward();
  auto host = [](const Tensor& t) {
    return t.defined() ? t.to(Device(kCPU), kDouble) : Tensor();
  };
  return {host(out),  host(mean.reshape({-1})), host(rstd.reshape({-1})),
          host(x.grad()), w.defined() ? host(w.grad()) : Tensor(),
          b.defined() ? host(b.grad()) : Tensor()};
}

TEST_F(LayerNormCudaTest, KernelsMatchTheCpu) {
  struct Case {
    std::vector<int64_t> shape, normalized;
  };
  const Case cases[] = {{{4, 7, 768}, {768}}, {{3, 5}, {5}}, {{2, 3, 4, 5}, {4, 5}},
                        {{6, 3000}, {3000}},  {{130, 64}, {64}}};
  manual_seed(21);
  for (const Case& c : cases) {
    for (bool affine : {true, false}) {
      Tensor x = randn(c.shape, kDouble) * 2 + 0.5;
      Tensor w = affine ? randn(c.normalized, kDouble) : Tensor();
      Tensor b = affine ? randn(c.normalized, kDouble) : Tensor();
      Tensor g = randn(c.shape, kDouble);
      const Result want = run(x, w, b, g, c.normalized, Device(kCPU), kDouble);
      for (ScalarType dtype : {kDouble, kFloat, kBFloat16, kHalf}) {
        const Result got = run(x, w, b, g, c.normalized, Device("cuda"), dtype);
        const double tol = dtype == kDouble ? 1e-9 : dtype == kFloat ? 2e-4
                                                 : dtype == kHalf ? 2e-2 : 1e-1;
        const std::string what = std::string(dtype_name(dtype)) + " " +
                                 std::to_string(c.shape.back()) + (affine ? " affine" : "");
        const std::vector<std::pair<const char*, std::pair<Tensor, Tensor>>> pairs = {
            {"out", {got.out, want.out}},        {"mean", {got.mean, want.mean}},
            {"rstd", {got.rstd, want.rstd}},     {"grad input", {got.gx, want.gx}},
            {"grad weight", {got.gw, want.gw}}, {"grad bias", {got.gb, want.gb}}};
        for (const auto& [name, p] : pairs) {
          if (!p.second.defined()) continue;
          ASSERT_TRUE(p.first.defined()) << what << " " << name;
          const double scale = std::max(1.0, p.second.abs().max().item<double>());
          EXPECT_LE((p.first - p.second).abs().max().item<double>(), tol * scale)
              << what << " " << name;
        }
      }
    }
  }
}

// Empty batches: empty results, zero parameter gradients.
TEST_F(LayerNormCudaTest, EmptyBatch) {
  Tensor x = empty({0, 8}, Device("cuda")).requires_grad_();
  Tensor w = ones({8}, Device("cuda")).requires_grad_();
  Tensor out = layer_norm(x, LayerNormFuncOptions({8}).weight(w));
  EXPECT_EQ(out.numel(), 0);
  out.sum().backward();
  EXPECT_TRUE(w.grad().cpu().eq(0).all().item<bool>());
}

}  // namespace
}  // namespace functional
}  // namespace nn
}  // namespace ember
