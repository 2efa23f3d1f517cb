// //benchmarks:tensor_ops_vs_libtorch: the tensor_ops cases through ember and
// through Debian's libtorch (1.13) in one run, then the time ratios.
//
//   ./bazelw run //benchmarks:tensor_ops_vs_libtorch
//
// ratio = ember time / libtorch time (below 1: ember is faster).

#include <benchmark/benchmark.h>
#include "benchmarks/libtorch.h"

#include <tuple>
#include <vector>

#include "benchmarks/ember_backend.h"
#include "benchmarks/ratio_reporter.h"
#include "benchmarks/tensor_ops_cases.h"

namespace ember::bench {
namespace {

struct TorchBackend {
  using Tensor = torch::Tensor;
  static Tensor rand(std::vector<int64_t> sizes) { return torch::rand(sizes); }
  static Tensor add(const Tensor& a, const Tensor& b) { return a + b; }
  static Tensor sum(const Tensor& a) { return a.sum(); }
  static Tensor mean(const Tensor& a) { return a.mean(); }
  static Tensor mm(const Tensor& a, const Tensor& b) { return torch::mm(a, b); }
  static Tensor maybe_bf16(const Tensor& t, bool yes) { return yes ? t.to(torch::kBFloat16) : t; }
  static std::tuple<Tensor, Tensor, Tensor> conv_step(const Tensor& x, const Tensor& w,
                                                      const Tensor& b, const Tensor& gy,
                                                      int64_t stride, int64_t pad, bool want_gx) {
    Tensor y = at::convolution(x, w, b, {stride, stride}, {pad, pad}, {1, 1}, false, {0, 0}, 1);
    return at::convolution_backward(gy, x, w, at::IntArrayRef{w.size(0)}, {stride, stride},
                                    {pad, pad}, {1, 1}, false, {0, 0}, 1, {want_gx, true, true});
  }
  static Tensor channels_last(const Tensor& t) {
    return t.contiguous(at::MemoryFormat::ChannelsLast);
  }
  static std::vector<Tensor> bn_pool_step(const Tensor& x, const Tensor& w, const Tensor& b,
                                          const Tensor& gy) {
    const Tensor xs = x.detach().requires_grad_(), ws = w.detach().requires_grad_(),
                 bs = b.detach().requires_grad_();
    Tensor y = torch::batch_norm(xs, ws, bs, {}, {}, true, 0.1, 1e-5, false);
    Tensor z = torch::max_pool2d(y, {3, 3}, {2, 2}, {1, 1});
    return torch::autograd::grad({z}, {xs, ws, bs}, {gy});
  }
  static std::vector<Tensor> conv3d_step(const Tensor& x, const Tensor& w, const Tensor& b,
                                         const Tensor& gy) {
    const Tensor xs = x.detach().requires_grad_(), ws = w.detach().requires_grad_(),
                 bs = b.detach().requires_grad_();
    Tensor y = torch::conv3d(xs, ws, bs, 1, 1);
    return torch::autograd::grad({y}, {xs, ws, bs}, {gy});
  }
  static void set_threads(int n) { torch::set_num_threads(n); }
};

}  // namespace
}  // namespace ember::bench

int main(int argc, char** argv) {
  ember::bench::register_cases<ember::bench::EmberBackend>("ember/");
  ember::bench::register_cases<ember::bench::TorchBackend>("libtorch/");
  benchmark::Initialize(&argc, argv);
  ember::bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios();
  benchmark::Shutdown();
  return 0;
}
