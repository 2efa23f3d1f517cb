#ifndef EMBER_BENCHMARKS_STEP_BENCHMARK_H_
#define EMBER_BENCHMARKS_STEP_BENCHMARK_H_

// What the whole-model training-step benchmarks share (gpt_step_cases.h,
// resnet_step_cases.h): one warm-up step, then timed steps, a rate counter,
// and registration at 1 and 2 threads in wall time.

#include <benchmark/benchmark.h>

#include <string>

namespace ember::bench {

// Runs `step` of the fixture made by make() under state's thread count;
// `per_step` items (tokens, images) per step give the rate `unit`.
template <typename B, typename Make>
void run_training_steps(benchmark::State& state, const Make& make, const char* unit,
                        double per_step) {
  B::set_threads(static_cast<int>(state.range(0)));
  auto fixture = make();
  fixture.step();  // warm up: optimizer state, allocator caches
  for (auto _ : state) {
    auto loss = fixture.step();
    benchmark::DoNotOptimize(loss);
  }
  state.counters[unit] =
      benchmark::Counter(per_step * state.iterations(), benchmark::Counter::kIsRate);
}

inline void register_training_step(const std::string& name,
                                   void (*fn)(benchmark::State&)) {
  benchmark::RegisterBenchmark(name.c_str(), fn)
      ->Arg(1)
      ->Arg(2)
      ->ArgName("threads")
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->MinTime(3);
}

}  // namespace ember::bench

#endif  // EMBER_BENCHMARKS_STEP_BENCHMARK_H_
