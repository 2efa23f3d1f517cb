// //benchmarks:autograd: the fixed cost of a backward pass. libtorch's
// figure for the same loop is in BENCHMARKS.md (issue 3 quotes ~24 us).
//
//   ./bazelw run //benchmarks:autograd
//
// tiny_backward: (a * b).sum().backward() on 1-element leaves: two recorded
// nodes, the engine's graph walk and two AccumulateGrad steps.

#include <benchmark/benchmark.h>

#include "autograd/autograd.h"
#include "tensor/all.h"

namespace {

void BM_TinyBackward(benchmark::State& state) {
  ember::set_num_threads(1);
  ember::Tensor a = ember::rand({1}).requires_grad_();
  ember::Tensor b = ember::rand({1}).requires_grad_();
  for (auto _ : state) {
    (a * b).sum().backward();
  }
  benchmark::DoNotOptimize(a.grad());
}
BENCHMARK(BM_TinyBackward);

// The forward alone, to separate recording from the backward pass.
void BM_TinyForwardRecorded(benchmark::State& state) {
  ember::set_num_threads(1);
  ember::Tensor a = ember::rand({1}).requires_grad_();
  ember::Tensor b = ember::rand({1}).requires_grad_();
  for (auto _ : state) {
    ember::Tensor s = (a * b).sum();
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_TinyForwardRecorded);

}  // namespace

BENCHMARK_MAIN();
