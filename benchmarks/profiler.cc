// What //profiler costs per op: a + b on 1-element tensors (the dispatch
// cost, as tensor_ops' tiny_add) with no profile running, inside a CPU
// profile, and inside one that also records shapes and memory. A fixed
// iteration count bounds the events a running profile keeps; stopping it
// (building the event list) is not timed.
//
//   bazel run -c opt //benchmarks:profiler

#include <benchmark/benchmark.h>

#include "profiler/profiler.h"
#include "tensor/all.h"

namespace ember {
namespace {

constexpr int64_t kIterations = 200000;

void run_adds(benchmark::State& state) {
  set_num_threads(1);
  Tensor a = rand({1});
  Tensor b = rand({1});
  for (auto _ : state) {
    Tensor c = a + b;
    benchmark::DoNotOptimize(c);
  }
}

void BM_TinyAddNotProfiling(benchmark::State& state) { run_adds(state); }

void BM_TinyAddProfiling(benchmark::State& state) {
  profiler::profile prof(profiler::ProfileOptions().activities({profiler::ProfilerActivity::CPU}));
  run_adds(state);
  prof.stop();  // after the loop: not timed
}

void BM_TinyAddProfilingShapesAndMemory(benchmark::State& state) {
  profiler::profile prof(profiler::ProfileOptions()
                             .activities({profiler::ProfilerActivity::CPU})
                             .record_shapes(true)
                             .profile_memory(true));
  run_adds(state);
  prof.stop();  // after the loop: not timed
}

BENCHMARK(BM_TinyAddNotProfiling)->Iterations(kIterations)->Repetitions(5);
BENCHMARK(BM_TinyAddProfiling)->Iterations(kIterations)->Repetitions(5);
BENCHMARK(BM_TinyAddProfilingShapesAndMemory)->Iterations(kIterations)->Repetitions(5);

}  // namespace
}  // namespace ember

BENCHMARK_MAIN();
