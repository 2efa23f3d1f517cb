// //serialize: safetensors save/load throughput for a state dict of N MiB
// (64 float32 tensors of N/64 MiB each), to a file (atomic: temp file,
// fsync, rename, directory fsync) and in memory. The PyTorch twin is
// benchmarks/serialize_torch.py (torch.save / torch.load of the same dict).
//
//   ./bazelw run -c opt //benchmarks:serialize -- --benchmark_min_time=1

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "benchmark/benchmark.h"
#include "serialize/checkpoint.h"
#include "serialize/safetensors.h"
#include "tensor/creation.h"
#include "tensor/random.h"

namespace {

ember::NamedTensors state_dict(int64_t mib) {
  ember::NamedTensors sd;
  int64_t per = (mib << 20) / 64 / 4;
  for (int i = 0; i < 64; ++i) {
    sd.emplace_back("layer" + std::to_string(i) + ".weight", ember::rand({per}));
  }
  return sd;
}

std::string bench_path() {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/ember_serialize_bench.safetensors";
}

void BM_SaveFile(benchmark::State& state) {
  ember::NamedTensors sd = state_dict(state.range(0));
  std::string path = bench_path();
  for (auto _ : state) ember::save(sd, path);
  ::unlink(path.c_str());
  state.SetBytesProcessed(state.iterations() * (state.range(0) << 20));
}

void BM_LoadFile(benchmark::State& state) {
  std::string path = bench_path();
  ember::save(state_dict(state.range(0)), path);
  for (auto _ : state) benchmark::DoNotOptimize(ember::load(path));
  ::unlink(path.c_str());
  state.SetBytesProcessed(state.iterations() * (state.range(0) << 20));
}

void BM_SaveBytes(benchmark::State& state) {
  ember::NamedTensors sd = state_dict(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(ember::safetensors::save(sd));
  state.SetBytesProcessed(state.iterations() * (state.range(0) << 20));
}

void BM_LoadBytes(benchmark::State& state) {
  std::string bytes = ember::safetensors::save(state_dict(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(ember::safetensors::load(bytes));
  state.SetBytesProcessed(state.iterations() * (state.range(0) << 20));
}

BENCHMARK(BM_SaveFile)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LoadFile)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SaveBytes)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LoadBytes)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
