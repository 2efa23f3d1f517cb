#ifndef EMBER_BENCHMARKS_TRAIN_STEP_CASES_H_
#define EMBER_BENCHMARKS_TRAIN_STEP_CASES_H_

// One training step of the MNIST network of seed 003 (conv 1->20 5x5, max
// pool 2, conv 20->50 5x5, max pool 2, fc 800->500, fc 500->10; ReLU after
// each but the last), written once over a backend B so that the same code
// measures ember (train_step.cc) and libtorch (train_step_vs_libtorch.cc).
//
// B provides the libtorch-shaped pieces both libraries share: Module,
// Conv2d, Linear, conv_options(in, out, k), relu(x), max_pool2d(x, k),
// cross_entropy(out, target), Sgd (constructed from parameters(), lr,
// momentum), randn/randint, manual_seed, set_threads.
//
//   train_step       zero_grad, forward, cross-entropy, backward, SGD
//                    (momentum 0.9) step, batch 64 of 1x28x28; args: threads
//   tiny_backward    (a * b).sum().backward() on 1-element leaves: the fixed
//                    cost of recording and running a graph

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>

namespace ember::bench {

template <typename B>
struct MnistNetImpl : B::Module {
  MnistNetImpl()
      : conv1(this->register_module("conv1", typename B::Conv2d(B::conv_options(1, 20, 5)))),
        conv2(this->register_module("conv2", typename B::Conv2d(B::conv_options(20, 50, 5)))),
        fc1(this->register_module("fc1", typename B::Linear(4 * 4 * 50, 500))),
        fc2(this->register_module("fc2", typename B::Linear(500, 10))) {}

  typename B::Tensor forward(typename B::Tensor x) {
    x = B::max_pool2d(B::relu(conv1->forward(x)), 2);
    x = B::max_pool2d(B::relu(conv2->forward(x)), 2);
    x = x.view({-1, 4 * 4 * 50});
    x = B::relu(fc1->forward(x));
    return fc2->forward(x);
  }

  typename B::Conv2d conv1, conv2;
  typename B::Linear fc1, fc2;
};

// A model, its optimizer and one fixed batch, ready to step.
template <typename B>
struct TrainStepFixture {
  explicit TrainStepFixture(int64_t batch = 64)
      : net((B::manual_seed(0), std::make_shared<MnistNetImpl<B>>())),
        opt(net->parameters(), /*lr=*/0.01, /*momentum=*/0.9),
        x(B::randn({batch, 1, 28, 28})),
        y(B::randint(10, {batch})) {}

  // Returns the loss.
  typename B::Tensor step() {
    opt.zero_grad();
    auto loss = B::cross_entropy(net->forward(x), y);
    loss.backward();
    opt.step();
    return loss;
  }

  std::shared_ptr<MnistNetImpl<B>> net;
  typename B::Sgd opt;
  typename B::Tensor x, y;
};

template <typename B>
void BM_TrainStep(benchmark::State& state) {
  B::set_threads(static_cast<int>(state.range(0)));
  TrainStepFixture<B> f;
  f.step();  // warm up: optimizer state, allocator caches
  for (auto _ : state) {
    auto loss = f.step();
    benchmark::DoNotOptimize(loss);
  }
  state.counters["images/s"] =
      benchmark::Counter(64.0 * state.iterations(), benchmark::Counter::kIsRate);
}

template <typename B>
void BM_TinyBackward(benchmark::State& state) {
  B::set_threads(1);
  auto a = B::randn({1}).requires_grad_();
  auto b = B::randn({1}).requires_grad_();
  for (auto _ : state) {
    (a * b).sum().backward();
  }
  benchmark::DoNotOptimize(a.grad());
}

// Registers every case under `prefix` ("ember/", "libtorch/").
template <typename B>
void register_train_step_cases(const std::string& prefix) {
  benchmark::RegisterBenchmark((prefix + "train_step").c_str(), BM_TrainStep<B>)
      ->Arg(1)
      ->Arg(2)
      ->ArgName("threads")
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark((prefix + "tiny_backward").c_str(), BM_TinyBackward<B>);
}

}  // namespace ember::bench

#endif  // EMBER_BENCHMARKS_TRAIN_STEP_CASES_H_
