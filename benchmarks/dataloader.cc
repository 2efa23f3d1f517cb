// //data's DataLoader over Fashion-MNIST's training set (60000 images):
// batch 64, ToTensor + Normalize, shuffled, for 0, 1 and 2 worker threads.
// Reports batches/s, images/s and the process's peak RSS.
//
// The loader must never be what a training step waits for: the CPU train
// step of the MNIST trainer (issue 3) runs at ~36-38 ms per batch of 64 in
// libtorch on these machines (~1.7k images/s), so the target is >= 10x that,
// 17k images/s. Figures and the command are in BENCHMARKS.md.
//
//   ./bazelw run //benchmarks:dataloader

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <memory>

#include "data/dataloader.h"
#include "data/mnist.h"
#include "data/transforms.h"

namespace {

using ember::data::DataLoader;
using ember::data::DataLoaderOptions;
using ember::data::Example;
using ember::data::MNIST;
namespace T = ember::data::transforms;

double peak_rss_mib() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;  // ru_maxrss is in KiB on Linux
}

std::shared_ptr<MNIST> train_set() {
  // Fashion-MNIST's mean and std (torchvision recipes use 0.2860, 0.3530).
  static auto ds = std::make_shared<MNIST>(
      ember::data::kDefaultMnistRoot, true,
      T::Compose({T::ToTensor(), T::Normalize({0.2860}, {0.3530})}));
  return ds;
}

void BM_FashionMnistEpoch(benchmark::State& state) {
  auto ds = train_set();
  DataLoader loader(ds, DataLoaderOptions()
                            .batch_size(64)
                            .shuffle(true)
                            .num_workers(state.range(0))
                            .generator(ember::Generator(0)));
  int64_t images = 0, batches = 0;
  for (auto _ : state) {
    for (Example<>& b : loader) {
      images += b.data.size(0);
      ++batches;
      benchmark::DoNotOptimize(b.data.data_ptr());
    }
  }
  state.counters["images/s"] = benchmark::Counter(images, benchmark::Counter::kIsRate);
  state.counters["batches/s"] = benchmark::Counter(batches, benchmark::Counter::kIsRate);
  state.counters["peak_rss_MiB"] = peak_rss_mib();
  state.SetLabel("workers=" + std::to_string(state.range(0)));
}
BENCHMARK(BM_FashionMnistEpoch)
    ->ArgName("workers")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Loading the dataset itself (gunzip + IDX parse of 47 MB).
void BM_LoadFashionMnistTrain(benchmark::State& state) {
  for (auto _ : state) {
    MNIST m(ember::data::kDefaultMnistRoot, true);
    benchmark::DoNotOptimize(m.size());
  }
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}
BENCHMARK(BM_LoadFashionMnistTrain)->Iterations(3)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
