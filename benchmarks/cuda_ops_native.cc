// Issue 17's "Measured" cases (cuda_ops_native.h). Every case is timed by
// median_us_within: synchronized calls, launches included, at most about
// kBudgetS seconds of timed calls per case, so the whole section stays well
// inside a minute at --iters=100 even where a kernel is far slower than
// PyTorch's. tools/cuda_ops_torch.py prints the same lines.
//
// The GB/s figures count the bytes an ideal kernel moves once, computed the
// same way on both sides (so they compare kernels, not formulas):
// index_select / embedding forward read and write the picked rows; the
// embedding backward writes the whole dense weight gradient (zeros
// included) and reads the output gradient; gather reads index and source
// and writes the result; scatter_add_ reads index and source and reads and
// writes the destination; topk / kthvalue read the input; nonzero reads the
// input and writes the int64 coordinates; masked_select reads input and
// mask and writes the selected values; dropout reads the input and writes
// the output and a one-byte mask (as PyTorch's native_dropout); randn / rand
// write their output; pooling reads the input and writes the output (the
// backward: the other way round). Sorting reports keys per second.

#include "benchmarks/cuda_ops_native.h"

#include <cstdint>
#include <cstdio>
#include <optional>

#include "autograd/engine.h"
#include "benchmarks/cuda_timing.h"
#include "nn/functional/dropout.h"
#include "nn/functional/embedding.h"
#include "nn/functional/pooling.h"
#include "tensor/all.h"

namespace ember {
namespace bench {
namespace {

namespace F = nn::functional;

constexpr double kBudgetS = 2.0;

double time_us(int iters, const std::function<void()>& f) {
  return median_us_within(iters, kBudgetS, f);
}

void report_gbps(const char* name, double us, double bytes) {
  std::printf("%-38s %10.1f  %.1f GB/s\n", name, us, bytes / us / 1e3);
}

TensorOptions longs(const Device& dev) { return TensorOptions(kLong).device(dev); }

}  // namespace

void run_embedding(int iters, const Device& dev) {
  const int64_t vocab = 50257, dim = 768, n = 8192;
  Tensor weight = randn({vocab, dim}, dev);
  Tensor indices = randint(0, vocab, {n}, longs(dev));
  const double rows_bytes = 2.0 * n * dim * 4 + 8.0 * n;
  double us = time_us(iters, [&] { Tensor r = weight.index_select(0, indices); });
  report_gbps("index_select_50257x768_8192", us, rows_bytes);
  // A trainable weight, as in a model: the forward records the graph.
  Tensor w = weight.detach().requires_grad_();
  us = time_us(iters, [&] { Tensor r = F::embedding(indices, w); });
  report_gbps("embedding_fwd_50257x768_8192", us, rows_bytes);
  Tensor out = F::embedding(indices, w);
  Tensor grad_out = randn({n, dim}, dev);
  us = time_us(iters, [&] { autograd::grad({out}, {w}, {grad_out}, /*retain_graph=*/true); });
  report_gbps("embedding_bwd_50257x768_8192", us, 4.0 * vocab * dim + 4.0 * n * dim + 8.0 * n);
}

void run_gather_scatter(int iters, const Device& dev) {
  const int64_t m = 4096;
  const double n = static_cast<double>(m) * m;
  Tensor src = randn({m, m}, dev);
  Tensor index = randint(0, m, {m, m}, longs(dev));
  double us = time_us(iters, [&] { Tensor r = src.gather(1, index); });
  report_gbps("gather_4096x4096_dim1", us, n * (8 + 4 + 4));
  Tensor dst = zeros({m, m}, dev);
  us = time_us(iters, [&] { dst.scatter_add_(1, index, src); });
  report_gbps("scatter_add_4096x4096_dim1", us, n * (8 + 4 + 8));
}

void run_sort(int iters, const Device& dev) {
  const int64_t n = int64_t{1} << 24;
  Tensor x = rand({n}, dev);
  auto keys = [&](const char* name, double us) {
    std::printf("%-38s %10.1f  %.2f Gkeys/s\n", name, us, n / us / 1e3);
  };
  keys("sort_16M_float", time_us(iters, [&] { auto r = x.sort(); }));
  keys("sort_stable_16M_float",
       time_us(iters, [&] { auto r = x.sort(std::optional<bool>(true)); }));
  keys("argsort_16M_float", time_us(iters, [&] { Tensor r = x.argsort(); }));
  Tensor logits = randn({4096, 1000}, dev);
  const double bytes = 4.0 * logits.numel();
  report_gbps("topk5_4096x1000", time_us(iters, [&] { auto r = logits.topk(5); }), bytes);
  report_gbps("kthvalue5_4096x1000", time_us(iters, [&] { auto r = logits.kthvalue(5); }), bytes);
}

void run_nonzero(int iters, const Device& dev) {
  const int64_t n = int64_t{1} << 24;
  Tensor x = rand({n}, dev);
  Tensor mask = x.gt(0.5);
  Tensor half_zero = x * mask;
  const double selected = static_cast<double>(half_zero.nonzero().size(0));
  double us = time_us(iters, [&] { Tensor r = half_zero.nonzero(); });
  report_gbps("nonzero_16M_float", us, 4.0 * n + 8.0 * selected);
  us = time_us(iters, [&] { Tensor r = x.masked_select(mask); });
  report_gbps("masked_select_16M_float", us, 5.0 * n + 4.0 * selected);
}

void run_random(int iters, const Device& dev) {
  const int64_t n = int64_t{64} << 20;
  Tensor x = randn({n}, dev);
  const auto options = F::DropoutFuncOptions().p(0.1).training(true);
  double us = time_us(iters, [&] { Tensor r = F::dropout(x, options); });
  report_gbps("dropout_64M_float_p0.1", us, 9.0 * n);
  us = time_us(iters, [&] { Tensor r = randn({n}, dev); });
  report_gbps("randn_64M_float", us, 4.0 * n);
  us = time_us(iters, [&] { Tensor r = rand({n}, dev); });
  report_gbps("rand_64M_float", us, 4.0 * n);
}

void run_avg_pool(int iters, const Device& dev) {
  auto fwd_bwd = [&](const char* fwd_name, const char* bwd_name, const Tensor& x,
                     const std::function<Tensor(const Tensor&)>& pool) {
    Tensor out = pool(x);
    const double bytes = 4.0 * (x.numel() + out.numel());
    report_gbps(fwd_name, time_us(iters, [&] { Tensor r = pool(x); }), bytes);
    Tensor grad_out = randn(out.sizes(), dev);
    report_gbps(
        bwd_name,
        time_us(iters, [&] { autograd::grad({out}, {x}, {grad_out}, /*retain_graph=*/true); }),
        bytes);
  };
  // ResNet's stem pooling (a max pool there; the average pool's cost at
  // that size is what the issue asks for) and its global average pool.
  fwd_bwd("avg_pool2d_64x64x112x112_k3s2p1_fwd", "avg_pool2d_64x64x112x112_k3s2p1_bwd",
          randn({64, 64, 112, 112}, dev).requires_grad_(), [](const Tensor& t) {
            return F::avg_pool2d(t, F::AvgPool2dFuncOptions(3).stride(2).padding(1));
          });
  fwd_bwd("adaptive_avg_pool2d_64x2048x7x7_fwd", "adaptive_avg_pool2d_64x2048x7x7_bwd",
          randn({64, 2048, 7, 7}, dev).requires_grad_(),
          [](const Tensor& t) { return F::adaptive_avg_pool2d(t, 1); });
}

}  // namespace bench
}  // namespace ember
