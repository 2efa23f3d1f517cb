#ifndef EMBER_BENCHMARKS_TENSOR_OPS_CASES_H_
#define EMBER_BENCHMARKS_TENSOR_OPS_CASES_H_

// The //tensor benchmark cases, written once over a backend B so that the
// same code measures ember (tensor_ops.cc) and libtorch
// (tensor_ops_vs_libtorch.cc). B provides: Tensor, rand(sizes), add(a, b),
// sum(a), mean(a), mm(a, b), conv_step(x, w, b, gy, stride, pad, want_gx)
// (a 2-D convolution's forward and backward), maybe_bf16(t, yes) (t, or t
// in bfloat16), channels_last(t) (t in channels-last memory),
// bn_pool_step(x, w, b, gy) (training batch norm then a 3x3 stride-2 max
// pool, forward and backward to x, w and b), conv3d_step(x, w, b, gy) (a
// 3x3x3 padding-1 3-d convolution through autograd: forward, then the
// gradients of x, w and b), set_threads(n).
//
// Every case takes (size, threads) arguments and reports rates as counters:
//   tiny_add   a + b on 1-element tensors: time per op is the dispatch cost
//   add        a + b on n floats: "GB/s" counts 3 arrays (2 read, 1 written)
//   sum        a.sum() on n floats: "GB/s" counts 1 array
//   mean       a.mean() on n floats: "GB/s" counts 1 array
//   mm         n x n float matmul: "GFLOP/s" counts 2 n^3; a third argument
//              of 1: in bfloat16
//   conv       one float 2-D convolution layer's forward and backward (the
//              shapes of seed 003's MNIST net's and ResNet-18's layers, kConvShapes):
//              "GFLOP/s" counts 2 multiply-adds per weight use in each of
//              the three passes (two where the input needs no gradient);
//              a third argument of 1: in bfloat16; a fourth of 1: input,
//              weight and output gradient in channels-last memory
//   conv3d     a 3-d CNN layer through autograd: [4, 8, 12, 16, 16] input,
//              16 output channels, 3x3x3 kernel, padding 1, forward and
//              backward; "GFLOP/s" counts 2 multiply-adds per weight use in
//              each of the three passes
//   bn_pool    ResNet-18's stem after its first convolution: batch norm
//              (training) + max_pool2d(3, 2, 1) forward and backward on
//              [32, 64, 32, 32]; "GB/s" counts the input once; a third
//              argument of 1: channels-last

#include <benchmark/benchmark.h>

#include <cstdint>
#include <iterator>
#include <string>

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
  const bool bf16 = state.range(2) != 0;
  auto a = B::maybe_bf16(B::rand({n, n}), bf16);
  auto b = B::maybe_bf16(B::rand({n, n}), bf16);
  state.SetLabel(bf16 ? "bf16" : "");
  for (auto _ : state) {
    auto c = B::mm(a, b);
    benchmark::DoNotOptimize(c);
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * n * n * state.iterations() / 1e9,
                                                 benchmark::Counter::kIsRate);
}

// A layer: batch n, c -> co channels, h x w input, k x k kernel.
struct ConvCase {
  const char* name;
  int64_t n, c, h, w, co, k, stride, pad;
  bool want_gx;  // the input needs a gradient (not a network's first layer)
};
inline constexpr ConvCase kConvShapes[] = {
    {"mnist_conv1", 64, 1, 28, 28, 20, 5, 1, 0, false},  // seed 003's net (train_step)
    {"mnist_conv2", 64, 20, 12, 12, 50, 5, 1, 0, true},
    {"resnet18_conv1", 32, 3, 64, 64, 64, 7, 2, 3, false},
    {"resnet18_layer1", 32, 64, 16, 16, 64, 3, 1, 1, true},
    {"resnet18_layer2_down", 32, 64, 16, 16, 128, 3, 2, 1, true},
    {"resnet18_layer2", 32, 128, 8, 8, 128, 3, 1, 1, true},
    {"resnet18_layer2_1x1", 32, 64, 16, 16, 128, 1, 2, 0, true},
    {"resnet18_layer3", 32, 256, 4, 4, 256, 3, 1, 1, true},
    {"resnet18_layer4", 32, 512, 2, 2, 512, 3, 1, 1, true},
    {"resnet50_1x1_expand", 8, 64, 28, 28, 256, 1, 1, 0, true},  // a bottleneck's 1x1 pair
    {"resnet50_1x1_reduce", 8, 256, 28, 28, 64, 1, 1, 0, true},
};

template <typename B>
void BM_Conv(benchmark::State& state) {
  const ConvCase& c = kConvShapes[state.range(0)];
  B::set_threads(static_cast<int>(state.range(1)));
  const int64_t oh = (c.h + 2 * c.pad - c.k) / c.stride + 1;
  const int64_t ow = (c.w + 2 * c.pad - c.k) / c.stride + 1;
  const bool bf16 = state.range(2) != 0;  // every tensor in bfloat16
  const bool cl = state.range(3) != 0;    // channels-last (PyTorch's memory_format)
  auto layout = [cl](auto t) { return cl ? B::channels_last(t) : t; };
  auto x = layout(B::maybe_bf16(B::rand({c.n, c.c, c.h, c.w}), bf16));
  auto w = layout(B::maybe_bf16(B::rand({c.co, c.c, c.k, c.k}), bf16));
  auto b = B::maybe_bf16(B::rand({c.co}), bf16);
  auto gy = layout(B::maybe_bf16(B::rand({c.n, c.co, oh, ow}), bf16));
  for (auto _ : state) {
    auto grads = B::conv_step(x, w, b, gy, c.stride, c.pad, c.want_gx);
    benchmark::DoNotOptimize(grads);
  }
  const double macs = 1.0 * c.n * c.co * oh * ow * c.c * c.k * c.k;
  state.SetLabel(std::string(c.name) + (bf16 ? " bf16" : "") + (cl ? " channels_last" : ""));
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * macs * (c.want_gx ? 3 : 2) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

template <typename B>
void BM_Conv3d(benchmark::State& state) {
  B::set_threads(static_cast<int>(state.range(0)));
  const int64_t n = 4, c = 8, d = 12, h = 16, w = 16, co = 16, k = 3;
  auto x = B::rand({n, c, d, h, w});
  auto wt = B::rand({co, c, k, k, k});
  auto b = B::rand({co});
  auto gy = B::rand({n, co, d, h, w});
  for (auto _ : state) {
    auto grads = B::conv3d_step(x, wt, b, gy);
    benchmark::DoNotOptimize(grads);
  }
  const double macs = 1.0 * n * co * d * h * w * c * k * k * k;
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * macs * 3 * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

template <typename B>
void BM_BnPool(benchmark::State& state) {
  B::set_threads(static_cast<int>(state.range(0)));
  const bool cl = state.range(1) != 0;
  auto layout = [cl](auto t) { return cl ? B::channels_last(t) : t; };
  auto x = layout(B::rand({32, 64, 32, 32}));
  auto w = B::rand({64});
  auto b = B::rand({64});
  auto gy = layout(B::rand({32, 64, 16, 16}));
  for (auto _ : state) {
    auto grads = B::bn_pool_step(x, w, b, gy);
    benchmark::DoNotOptimize(grads);
  }
  state.SetLabel(cl ? "channels_last" : "contiguous");
  state.counters["GB/s"] = benchmark::Counter(32.0 * 64 * 32 * 32 * 4 * state.iterations() / 1e9,
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
    for (int bf16 : {0, 1}) {
      for (int n : {256, 1024}) {
        benchmark::RegisterBenchmark(name("mm").c_str(), BM_Mm<B>)
            ->Args({n, threads, bf16})
            ->UseRealTime();
      }
    }
    for (int64_t i = 0; i < static_cast<int64_t>(std::size(kConvShapes)); ++i) {
      benchmark::RegisterBenchmark(name("conv").c_str(), BM_Conv<B>)
          ->Args({i, threads, 0, 0})
          ->UseRealTime();
    }
    for (int64_t i : {3, 5}) {  // ResNet-18's 3x3 layers in bfloat16
      benchmark::RegisterBenchmark(name("conv").c_str(), BM_Conv<B>)
          ->Args({i, threads, 1, 0})
          ->UseRealTime();
    }
    // seed 003's second layer and ResNet-18's in channels-last memory
    // (PyTorch's memory_format=channels_last), float and two in bfloat16.
    for (int64_t i = 1; i <= 8; ++i) {
      benchmark::RegisterBenchmark(name("conv").c_str(), BM_Conv<B>)
          ->Args({i, threads, 0, 1})
          ->UseRealTime();
    }
    for (int64_t i : {3, 5}) {
      benchmark::RegisterBenchmark(name("conv").c_str(), BM_Conv<B>)
          ->Args({i, threads, 1, 1})
          ->UseRealTime();
    }
    for (int cl : {0, 1}) {
      benchmark::RegisterBenchmark(name("bn_pool").c_str(), BM_BnPool<B>)
          ->Args({threads, cl})
          ->UseRealTime();
    }
    benchmark::RegisterBenchmark(name("conv3d").c_str(), BM_Conv3d<B>)
        ->Args({threads})
        ->UseRealTime();
  }
}

}  // namespace ember::bench

#endif  // EMBER_BENCHMARKS_TENSOR_OPS_CASES_H_
