// //benchmarks:autograd_libtorch: benchmarks/autograd.cc's loops through
// Debian's libtorch (1.13), for the comparison in BENCHMARKS.md.
//
//   ./bazelw run //benchmarks:autograd_libtorch   # needs libtorch-dev

#include <benchmark/benchmark.h>
#include "benchmarks/libtorch.h"

namespace {

void BM_TinyBackward(benchmark::State& state) {
  torch::set_num_threads(1);
  torch::Tensor a = torch::rand({1}).requires_grad_();
  torch::Tensor b = torch::rand({1}).requires_grad_();
  for (auto _ : state) {
    (a * b).sum().backward();
  }
  benchmark::DoNotOptimize(a.grad());
}
BENCHMARK(BM_TinyBackward);

void BM_TinyForwardRecorded(benchmark::State& state) {
  torch::set_num_threads(1);
  torch::Tensor a = torch::rand({1}).requires_grad_();
  torch::Tensor b = torch::rand({1}).requires_grad_();
  for (auto _ : state) {
    torch::Tensor s = (a * b).sum();
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_TinyForwardRecorded);

}  // namespace

BENCHMARK_MAIN();
