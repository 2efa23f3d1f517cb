#ifndef EMBER_BENCHMARKS_TENSOR_OPS_CASES_H_
#define EMBER_BENCHMARKS_TENSOR_OPS_CASES_H_

// The //tensor benchmark cases, written once over a backend B so that the
// same code measures ember (tensor_ops.cc) and libtorch
// (tensor_ops_vs_libtorch.cc). B provides: Tensor, rand(sizes), add(a, b),
// sum(a), mean(a), mm(a, b), set_threads(n), sync(t) (forces evaluation).
//
// Every case takes (size, threads) arguments and reports rates as counters:
//   tiny_add   a + b on 1-element tensors: time per op is the dispatch cost
//   add        a + b on n floats: "GB/s" counts 3 arrays (2 read, 1 written)
//   sum        a.sum() on n floats: "GB/s" counts 1 array
//   mean       a.mean() on n floats: "GB/s" counts 1 array
//   mm         n x n float matmul: "GFLOP/s" counts 2 n^3

#include <benchmark/benchmark.h>

#include <cstdint>

namespace ember::bench {

template <typename B>
void BM_TinyAdd(benchmark::State& state) {
  B::set_threads(static_cast<int>(state.range(1)));
  auto a = B::rand({1});
  auto b = B::rand({1});
  for (auto _ : state) {
    auto c = B::add(a, b);
    benchmark::DoNotOptimize(c);
  }
}

template <typename B>
void BM_Add(benchmark::State& state) {
  const int64_t n = state.range(0);
  B::set_threads(static_cast<int>(state.range(1)));
  auto a = B::rand({n});
  auto b = B::rand({n});
  for (auto _ : state) {
    auto c = B::add(a, b);
    benchmark::DoNotOptimize(c);
  }
  state.counters["GB/s"] = benchmark::Counter(3.0 * n * 4 * state.iterations() / 1e9,
                                              benchmark::Counter::kIsRate);
}

template <typename B>
void BM_Sum(benchmark::State& state) {
  const int64_t n = state.range(0);
  B::set_threads(static_cast<int>(state.range(1)));
  auto a = B::rand({n});
  for (auto _ : state) {
    auto s = B::sum(a);
    benchmark::DoNotOptimize(s);
  }
  state.counters["GB/s"] =
      benchmark::Counter(1.0 * n * 4 * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

template <typename B>
void BM_Mean(benchmark::State& state) {
  const int64_t n = state.range(0);
  B::set_threads(static_cast<int>(state.range(1)));
  auto a = B::rand({n});
  for (auto _ : state) {
    auto s = B::mean(a);
    benchmark::DoNotOptimize(s);
  }
  state.counters["GB/s"] =
      benchmark::Counter(1.0 * n * 4 * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

template <typename B>
void BM_Mm(benchmark::State& state) {
  const int64_t n = state.range(0);
  B::set_threads(static_cast<int>(state.range(1)));
  auto a = B::rand({n, n});
  auto b = B::rand({n, n});
  for (auto _ : state) {
    auto c = B::mm(a, b);
    benchmark::DoNotOptimize(c);
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * n * n * state.iterations() / 1e9,
                                                 benchmark::Counter::kIsRate);
}

// Registers every case for backend B under names prefixed with `prefix`.
template <typename B>
void register_cases(const char* prefix) {
  auto name = [&](const char* c) { return std::string(prefix) + c; };
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark(name("tiny_add").c_str(), BM_TinyAdd<B>)->Args({1, threads});
    benchmark::RegisterBenchmark(name("add").c_str(), BM_Add<B>)->Args({1 << 24, threads})
        ->UseRealTime();
    benchmark::RegisterBenchmark(name("sum").c_str(), BM_Sum<B>)->Args({1 << 24, threads})
        ->UseRealTime();
    benchmark::RegisterBenchmark(name("mean").c_str(), BM_Mean<B>)
        ->Args({1 << 24, threads})
        ->UseRealTime();
    benchmark::RegisterBenchmark(name("mm").c_str(), BM_Mm<B>)->Args({256, threads})
        ->UseRealTime();
    benchmark::RegisterBenchmark(name("mm").c_str(), BM_Mm<B>)->Args({1024, threads})
        ->UseRealTime();
  }
}

}  // namespace ember::bench

#endif  // EMBER_BENCHMARKS_TENSOR_OPS_CASES_H_
