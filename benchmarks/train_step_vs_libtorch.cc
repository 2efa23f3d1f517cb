// //benchmarks:train_step_vs_libtorch: train_step_cases.h,
// gpt_step_cases.h and resnet_step_cases.h through ember and through
// Debian's libtorch (1.13) in one run, the time ratios, then each library's peak RSS over 20 MNIST
// and 3 GPT training steps, each measured in a fresh child process of this same binary (so both
// start from the same loaded code; --no_rss skips them).
//
//   ./bazelw run //benchmarks:train_step_vs_libtorch   # needs libtorch-dev
//
// ratio = ember time / libtorch time (below 1: ember is faster).

#include <benchmark/benchmark.h>
#include "benchmarks/libtorch.h"
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "benchmarks/gpt_step_cases.h"
#include "benchmarks/peak_rss.h"
#include "benchmarks/resnet_step_cases.h"
#include "benchmarks/ratio_reporter.h"
#include "benchmarks/train_step_backends.h"
#include "benchmarks/train_step_cases.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "tensor/all.h"

namespace ember::bench {
namespace {

EMBER_TRAIN_STEP_BACKEND(EmberTrainBackend, ember, ember::nn, ember::optim);
EMBER_TRAIN_STEP_BACKEND(TorchTrainBackend, torch, torch::nn, torch::optim);
EMBER_GPT_STEP_BACKEND(EmberGpt, ember);
EMBER_GPT_STEP_BACKEND(TorchGpt, torch);
EMBER_RESNET_STEP_BACKEND(EmberResNet, ember);
EMBER_RESNET_STEP_BACKEND(TorchResNet, torch);

constexpr char kRssFlag[] = "--rss_child=";

// In a child: 20 steps on one thread, then on stdout the peak RSS and how
// much of it the training added to the loaded binary (both libraries).
template <typename B>
int rss_child() {
  B::set_threads(1);
  const double loaded = peak_rss_mib();
  TrainStepFixture<B> f;
  for (int i = 0; i < 20; ++i) f.step();
  const double peak = peak_rss_mib();
  std::printf("%.1f (+%.1f)\n", peak, peak - loaded);
  return 0;
}

template <typename G>
int gpt_rss_child() {
  G::set_threads(1);
  const double loaded = peak_rss_mib();
  typename G::Step s(GptConfig{});
  for (int i = 0; i < 3; ++i) s.step();
  const double peak = peak_rss_mib();
  std::printf("%.1f (+%.1f)\n", peak, peak - loaded);
  return 0;
}

// Runs this binary again as `--rss_child=<which>` and returns what it printed.
std::string peak_rss_of(const char* which) {
  std::string cmd = std::string("/proc/") + std::to_string(getpid()) + "/exe " + kRssFlag + which;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "?";
  char buf[128] = {0};
  if (std::fgets(buf, sizeof buf, p) == nullptr) buf[0] = '\0';
  pclose(p);
  std::string s(buf);
  while (!s.empty() && (s.back() == '\n')) s.pop_back();
  return s.empty() ? "?" : s;
}

}  // namespace
}  // namespace ember::bench

int main(int argc, char** argv) {
  using namespace ember::bench;
  bool rss = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no_rss") == 0) rss = false;
    if (std::strncmp(argv[i], kRssFlag, sizeof kRssFlag - 1) != 0) continue;
    std::string which = argv[i] + sizeof kRssFlag - 1;
    if (which == "ember_gpt") return gpt_rss_child<EmberGpt>();
    if (which == "libtorch_gpt") return gpt_rss_child<TorchGpt>();
    return which == "ember" ? rss_child<EmberTrainBackend>() : rss_child<TorchTrainBackend>();
  }
  // Every ember case before any libtorch one: once libtorch has run, its
  // OpenMP threads spin-wait beside whatever runs next (an ember ResNet step
  // on 2 threads measured 497 ms after libtorch's GPT cases, 259 ms alone).
  register_train_step_cases<EmberTrainBackend>("ember/");
  register_gpt_step_cases<EmberGpt>("ember/");
  register_resnet_step_cases<EmberResNet>("ember/");
  register_train_step_cases<TorchTrainBackend>("libtorch/");
  register_gpt_step_cases<TorchGpt>("libtorch/");
  register_resnet_step_cases<TorchResNet>("libtorch/");
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios();
  benchmark::Shutdown();
  if (!rss) return 0;  // --no_rss: the timings only
  std::printf("\npeak RSS over 20 steps in MiB (+ what training added): ember %s, libtorch %s\n",
              peak_rss_of("ember").c_str(), peak_rss_of("libtorch").c_str());
  std::printf("peak RSS over 3 GPT steps in MiB (+ what training added): ember %s, libtorch %s\n",
              peak_rss_of("ember_gpt").c_str(), peak_rss_of("libtorch_gpt").c_str());
  return 0;
}
