// Note [Fused attention] on CUDA (tensor/cuda/attention.cu) against the CPU's
// math path: outputs and the three gradients over ragged tiles, broadcast
// batch/head dims, masks, causality and head dims up to 64, in float and
// double. Needs a GPU; skips without one. Passed on an H200 (2026-11-27);
// which path CUDA takes by default: Note [CUDA fused attention by size].

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "nn/functional/attention.h"
#include "tensor/all.h"
#include "tensor/cuda/cuda.h"

namespace ember {
namespace nn {
namespace functional {
namespace {

class AttentionCudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

struct Shape {
  std::vector<int64_t> q, k, v, mask;
  bool causal;
};

// (out, grad q, grad k, grad v) of sum(out * w) for inputs on `device`,
// through `backend` alone.
std::vector<Tensor> run(const Tensor& q0, const Tensor& k0, const Tensor& v0, const Tensor& mask0,
                        const Tensor& w, bool causal, Device device, SDPBackend backend) {
  SDPAKernelGuard guard(backend);
  // detach first: on the CPU, to() returns q0 itself, which must stay a
  // plain input for the next run.
  Tensor q = q0.detach().to(device).requires_grad_(), k = k0.detach().to(device).requires_grad_(),
         v = v0.detach().to(device).requires_grad_();
  Tensor mask = mask0.defined() ? mask0.to(device) : Tensor();
  Tensor out = scaled_dot_product_attention(q, k, v, mask, 0.0, causal);
  (out * w.to(device)).sum().backward();
  return {out.cpu(), q.grad().cpu(), k.grad().cpu(), v.grad().cpu()};
}

TEST_F(AttentionCudaTest, FlashKernelMatchesTheCpuMathPath) {
  const Shape shapes[] = {
      {{2, 3, 70, 16}, {2, 3, 150, 16}, {2, 3, 150, 8}, {}, false},
      {{1, 2, 130, 64}, {2, 1, 130, 64}, {2, 1, 130, 64}, {}, true},
      {{3, 65, 32}, {3, 200, 32}, {3, 200, 24}, {65, 200}, false},
      {{2, 2, 9, 4}, {2, 2, 300, 4}, {2, 2, 300, 4}, {2, 1, 9, 300}, false},
      {{1, 1, 100, 48}, {1, 1, 40, 48}, {1, 1, 40, 48}, {}, true},
      {{4, 4, 257, 64}, {4, 4, 257, 64}, {4, 4, 257, 64}, {}, true},
  };
  for (ScalarType dtype : {kFloat, kDouble}) {
    manual_seed(9);
    for (const Shape& sh : shapes) {
      Tensor q = randn(sh.q, dtype), k = randn(sh.k, dtype), v = randn(sh.v, dtype);
      Tensor mask = sh.mask.empty() ? Tensor() : randn(sh.mask, dtype);
      Tensor probe = scaled_dot_product_attention(q, k, v, mask, 0.0, sh.causal);
      Tensor w = randn(probe.sizes(), dtype);
      auto want = run(q, k, v, mask, w, sh.causal, Device(kCPU), SDPBackend::kMath);
      auto got = run(q, k, v, mask, w, sh.causal, Device("cuda"), SDPBackend::kFlashAttention);
      const double tol = dtype == kFloat ? 5e-5 : 1e-10;
      for (int i = 0; i < 4; ++i) {
        EXPECT_TRUE(allclose(got[i], want[i], tol, tol))
            << dtype_name(dtype) << " q " << sh.q[0] << "x" << sh.q[sh.q.size() - 2] << " result "
            << i << " max diff " << (got[i] - want[i]).abs().max().item<double>();
      }
    }
  }
}

// A query whose keys are all masked: zeros and zero gradient, no NaN.
TEST_F(AttentionCudaTest, FullyMaskedRow) {
  Tensor q = randn({1, 1, 3, 8}), k = randn({1, 1, 5, 8}), v = randn({1, 1, 5, 8});
  Tensor mask = zeros({3, 5});
  mask.select(0, 1).fill_(-std::numeric_limits<double>::infinity());
  auto got = run(q, k, v, mask, ones({1, 1, 3, 8}), false, Device("cuda"),
                 SDPBackend::kFlashAttention);
  for (const Tensor& t : got) EXPECT_FALSE(t.isnan().any().item<bool>());
  EXPECT_TRUE(got[0].select(2, 1).eq(0).all().item<bool>());
  EXPECT_TRUE(got[1].select(2, 1).eq(0).all().item<bool>());
}

// By default CUDA takes the math path for a small score matrix (Note [CUDA
// fused attention by size]); head dims above 64 have no fused kernel.
TEST_F(AttentionCudaTest, DefaultPathAndLimits) {
  Tensor q = randn({1, 2, 4, 8}, Device("cuda")).requires_grad_();
  Tensor k = randn({1, 2, 6, 8}, Device("cuda")), v = randn({1, 2, 6, 8}, Device("cuda"));
  EXPECT_NE(scaled_dot_product_attention(q, k, v).grad_fn()->name(),
            "ScaledDotProductFlashAttentionForCpuBackward0");
  {
    SDPAKernelGuard flash(SDPBackend::kFlashAttention);
    EXPECT_EQ(scaled_dot_product_attention(q, k, v).grad_fn()->name(),
              "ScaledDotProductFlashAttentionForCpuBackward0");
    Tensor wide = randn({1, 1, 4, 80}, Device("cuda"));
    EXPECT_THROW(scaled_dot_product_attention(wide, wide, wide), Error);
  }
  // A score matrix past 2^28 elements takes the fused kernel by default.
  Tensor big = randn({1, 1, 16400, 8}, Device("cuda")).requires_grad_();
  EXPECT_EQ(scaled_dot_product_attention(big, big, big).grad_fn()->name(),
            "ScaledDotProductFlashAttentionForCpuBackward0");
}

}  // namespace
}  // namespace functional
}  // namespace nn
}  // namespace ember
