// //benchmarks:train_step: one training step of seed 003's MNIST network
// (train_step_cases.h), of a GPT-style model (gpt_step_cases.h), of ResNet-18
// (resnet_step_cases.h) and the
// tiny-backward overhead, through ember; then the process's peak RSS. The same cases through libtorch, in the same run,
// with ratios: //benchmarks:train_step_vs_libtorch.
//
//   ./bazelw run //benchmarks:train_step

#include <benchmark/benchmark.h>

#include <cstdio>

#include "benchmarks/gpt_step_cases.h"
#include "benchmarks/peak_rss.h"
#include "benchmarks/resnet_step_cases.h"
#include "benchmarks/train_step_backends.h"
#include "benchmarks/train_step_cases.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "tensor/all.h"

namespace ember::bench {
EMBER_TRAIN_STEP_BACKEND(EmberTrainBackend, ember, ember::nn, ember::optim);
EMBER_GPT_STEP_BACKEND(EmberGpt, ember);
EMBER_RESNET_STEP_BACKEND(EmberResNet, ember);
}  // namespace ember::bench

int main(int argc, char** argv) {
  ember::bench::register_train_step_cases<ember::bench::EmberTrainBackend>("ember/");
  ember::bench::register_gpt_step_cases<ember::bench::EmberGpt>("ember/");
  ember::bench::register_resnet_step_cases<ember::bench::EmberResNet>("ember/");
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::printf("peak RSS: %.1f MiB\n", ember::bench::peak_rss_mib());
  return 0;
}
