// //tensorboard: what SummaryWriter::add_scalar costs the thread that calls
// it (Note [Event writing off the training thread]). PyTorch twin:
// tensorboard_torch.py (needs the `tensorboard` package).
//
//   ./bazelw run //benchmarks:tensorboard
//
// BM_AddScalar: calls back to back (max_queue 10, PyTorch's default, and
// 1000). "CPU" is the calling thread's own CPU time per call; "Time" (wall)
// also holds what sharing the cores with the writer thread costs, and the
// waits for it once the caller is 65536 entries ahead: back to back, the
// caller outruns the writer thread.
// BM_AddScalarInTrainingLoop: one call after every 20 us of busy work, as
// a training loop logs, each call timed alone (steady_clock; ~20 ns of
// that is the clock): the mean, and p50 / p99 / p99.9 / worst in ns.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "tensorboard/summary_writer.h"

namespace {

using ember::tensorboard::SummaryWriter;
using ember::tensorboard::SummaryWriterOptions;

std::string temp_log_dir() {
  return "/tmp/ember_tensorboard_bench-" + std::to_string(::getpid());
}

void BM_AddScalar(benchmark::State& state) {
  const std::string dir = temp_log_dir();
  {
    SummaryWriter w(SummaryWriterOptions().log_dir(dir).max_queue(state.range(0)));
    int64_t step = 0;
    for (auto _ : state) w.add_scalar("train/loss", 0.25, step++);
    w.close();  // everything reaches the file (after the timed loop)
  }
  std::filesystem::remove_all(dir);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AddScalar)->ArgName("max_queue")->Arg(10)->Arg(1000);

void BM_AddScalarInTrainingLoop(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  const std::string dir = temp_log_dir();
  std::vector<double> ns;
  {
    SummaryWriter w(SummaryWriterOptions().log_dir(dir).max_queue(state.range(0)));
    int64_t step = 0;
    for (auto _ : state) {
      const auto work_until = Clock::now() + std::chrono::microseconds(20);
      while (Clock::now() < work_until) {
      }
      const auto t0 = Clock::now();
      w.add_scalar("train/loss", 0.25, step++);
      const auto t1 = Clock::now();
      const double call = std::chrono::duration<double>(t1 - t0).count();
      state.SetIterationTime(call);
      ns.push_back(call * 1e9);
    }
  }
  std::filesystem::remove_all(dir);
  std::sort(ns.begin(), ns.end());
  auto at = [&](double q) {
    return ns.empty() ? 0.0 : ns[static_cast<size_t>(q * static_cast<double>(ns.size() - 1))];
  };
  state.counters["p50_ns"] = at(0.5);
  state.counters["p99_ns"] = at(0.99);
  state.counters["p999_ns"] = at(0.999);
  state.counters["max_ns"] = ns.empty() ? 0.0 : ns.back();
}
BENCHMARK(BM_AddScalarInTrainingLoop)
    ->ArgName("max_queue")
    ->Arg(10)
    ->Arg(1000)
    ->UseManualTime()
    ->Iterations(200000);

}  // namespace

BENCHMARK_MAIN();
