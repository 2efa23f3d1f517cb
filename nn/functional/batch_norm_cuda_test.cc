// Note [Batch norm kernels] on CUDA (tensor/cuda/batch_norm.cu) against the
// CPU's composed batch norm in float64: outputs, running statistics and the
// three gradients, training and eval, float, double and (with float
// parameters, as autocast leaves them) bfloat16 and float16, over shapes
// whose rows are shorter and longer than a block. Needs a GPU; skips
// without one.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "nn/functional/normalization.h"
#include "tensor/all.h"
#include "tensor/cuda/cuda.h"

namespace ember {
namespace nn {
namespace functional {
namespace {

struct Result {
  Tensor out, running_mean, running_var, gx, gw, gb;
};

// batch_norm of x on `device` in `dtype` (parameters float, or double for
// double), then backward of sum(out * w); everything returned as CPU double.
Result run(const Tensor& x0, const Tensor& w0, const Tensor& b0, const Tensor& gw0,
           bool training, Device device, ScalarType dtype) {
  const ScalarType param = dtype == kDouble ? kDouble : kFloat;
  Tensor x = x0.detach().to(device, dtype).requires_grad_();
  Tensor w = w0.detach().to(device, param).requires_grad_();
  Tensor b = b0.detach().to(device, param).requires_grad_();
  const int64_t c = x0.size(1);
  Tensor rm = linspace(-1, 1, c, TensorOptions(param).device(device));
  Tensor rv = linspace(0.5, 2, c, TensorOptions(param).device(device));
  Tensor out = batch_norm(x, rm, rv,
                          BatchNormFuncOptions().weight(w).bias(b).training(training).momentum(0.3));
  EXPECT_EQ(out.dtype(), dtype);
  (out.to(kDouble) * gw0.to(device, kDouble)).sum().backward();
  auto host = [](const Tensor& t) { return t.to(Device(kCPU), kDouble); };
  return {host(out), host(rm), host(rv), host(x.grad()), host(w.grad()), host(b.grad())};
}

TEST(BatchNormCudaTest, KernelsMatchTheCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const std::vector<std::vector<int64_t>> shapes = {
      {4, 3, 5, 7}, {2, 5}, {3, 4, 1000}, {1, 2, 3, 3}, {64, 8, 7, 7}, {8, 64, 30, 30}};
  manual_seed(11);
  for (const auto& shape : shapes) {
    Tensor x = randn(shape, kDouble) * 3 + 1.5;
    Tensor w = randn({shape[1]}, kDouble), b = randn({shape[1]}, kDouble);
    Tensor g = randn(shape, kDouble);
    for (bool training : {true, false}) {
      const Result want = run(x, w, b, g, training, Device(kCPU), kDouble);
      for (ScalarType dtype : {kDouble, kFloat, kBFloat16, kHalf}) {
        const Result got = run(x, w, b, g, training, Device("cuda"), dtype);
        // Inputs rounded to the dtype move the results by its precision.
        const double tol = dtype == kDouble ? 1e-9 : dtype == kFloat ? 2e-4
                                                 : dtype == kHalf ? 2e-2 : 1e-1;
        const std::string what = std::string(dtype_name(dtype)) + (training ? " train " : " eval ") +
                                 std::to_string(shape[0]) + "x" + std::to_string(shape[1]);
        const std::vector<std::pair<const char*, std::pair<Tensor, Tensor>>> pairs = {
            {"out", {got.out, want.out}},
            {"running_mean", {got.running_mean, want.running_mean}},
            {"running_var", {got.running_var, want.running_var}},
            {"grad input", {got.gx, want.gx}},
            {"grad weight", {got.gw, want.gw}},
            {"grad bias", {got.gb, want.gb}}};
        for (const auto& [name, p] : pairs) {
          // Reduced-precision inputs differ from the double input itself;
          // compare those relative to the values' scale.
          const double scale = std::max(1.0, p.second.abs().max().item<double>());
          EXPECT_LE((p.first - p.second).abs().max().item<double>(), tol * scale)
              << what << " " << name;
        }
      }
    }
  }
}

// A non-contiguous input takes the composed path on the device; same values.
TEST(BatchNormCudaTest, NonContiguousInputAgrees) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  manual_seed(12);
  Tensor x = randn({6, 4, 5}, kFloat).transpose(0, 2);  // [5, 4, 6], strided
  Tensor on_cpu = batch_norm(x, Tensor(), Tensor(), BatchNormFuncOptions().training(true));
  Tensor on_gpu = batch_norm(x.to(Device("cuda")), Tensor(), Tensor(),
                             BatchNormFuncOptions().training(true));
  EXPECT_TRUE(allclose(on_gpu.cpu(), on_cpu, 1e-5, 1e-5));
}

}  // namespace
}  // namespace functional
}  // namespace nn
}  // namespace ember
