// //benchmarks:dp_step: one training step of seed 003's MNIST network
// (trainers/mnist_net.h) through nn::DataParallel over {kCPU, kCPU} (two
// replicas on two threads of one process), set beside the same step of the
// module alone and through parallel::data_parallel, which clones the
// replicas on every call as DataParallel did before it kept them (Note
// [DataParallel keeps its replicas]); then what making the two replicas
// costs alone: clone + link against link only.
//
//   ./bazelw build //benchmarks:dp_step
//   bazel-bin/benchmarks/dp_step --threads=1,2 --batch 64
//
// For each intra-op thread count (set_num_threads, one budget that every
// replica's thread shares): manual_seed(0), Net, SGD (lr 0.01, momentum
// 0.9), one fixed random batch; warm-up steps, then timed steps (zero_grad,
// forward, cross-entropy, backward, step). Prints the median and fastest
// step and images per second (batch / median).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "nn/nn.h"
#include "optim/sgd.h"
#include "tensor/all.h"
#include "trainers/mnist_net.h"

ABSL_FLAG(std::string, threads, "1,2", "intra-op thread counts to measure, comma-separated");
ABSL_FLAG(int64_t, batch, 64, "images per step (split across the replicas)");
ABSL_FLAG(int, warmup, 5, "untimed steps");
ABSL_FLAG(int, iters, 40, "timed steps");

namespace {

namespace F = ember::nn::functional;
using ember::Tensor;
using ember::trainers::NetImpl;
using Clock = std::chrono::steady_clock;

struct Timing {
  double median_ms = 0, min_ms = 0;
};

Timing time_calls(const std::function<void()>& fn) {
  for (int i = 0; i < absl::GetFlag(FLAGS_warmup); ++i) fn();
  std::vector<double> ms;
  for (int i = 0; i < absl::GetFlag(FLAGS_iters); ++i) {
    const auto t0 = Clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front()};
}

// A fresh Net (the same initial values each time), its optimizer and a
// fixed batch, stepped through forward(net, x).
Timing time_steps(const std::function<Tensor(ember::trainers::Net&, const Tensor&)>& forward) {
  ember::manual_seed(0);
  ember::trainers::Net net;
  ember::optim::SGD opt(net->parameters(), ember::optim::SGDOptions(0.01).momentum(0.9));
  const int64_t batch = absl::GetFlag(FLAGS_batch);
  const Tensor x = ember::randn({batch, 1, 28, 28});
  const Tensor y = ember::randint(0, 10, {batch});
  return time_calls([&] {
    opt.zero_grad();
    F::cross_entropy(forward(net, x), y).backward();
    opt.step();
  });
}

void report(const std::string& what, const Timing& t, bool images) {
  std::printf("%-60s median %7.2f ms  min %7.2f ms", what.c_str(), t.median_ms, t.min_ms);
  if (images) {
    std::printf("  %6.0f images/s",
                static_cast<double>(absl::GetFlag(FLAGS_batch)) / (t.median_ms / 1e3));
  }
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const std::vector<ember::Device> two_cpus = {ember::Device(ember::kCPU),
                                               ember::Device(ember::kCPU)};
  std::printf("# dp_step: seed 003's MNIST net, batch %lld, %d warm-up + %d timed steps\n",
              static_cast<long long>(absl::GetFlag(FLAGS_batch)), absl::GetFlag(FLAGS_warmup),
              absl::GetFlag(FLAGS_iters));
  for (const std::string& field :
       std::vector<std::string>(absl::StrSplit(absl::GetFlag(FLAGS_threads), ','))) {
    int threads = 0;
    if (!absl::SimpleAtoi(field, &threads) || threads < 1) {
      std::fprintf(stderr, "dp_step: --threads wants positive counts, not '%s'\n", field.c_str());
      return 1;
    }
    ember::set_num_threads(threads);
    const std::string t = ", " + std::to_string(threads) + " thread(s)";
    report("module alone" + t,
           time_steps([](ember::trainers::Net& net, const Tensor& x) { return net->forward(x); }),
           true);
    std::unique_ptr<ember::nn::DataParallel<NetImpl>> dp;
    report("DataParallel {cpu,cpu}, kept replicas" + t,
           time_steps([&](ember::trainers::Net& net, const Tensor& x) {
             if (dp == nullptr)
               dp = std::make_unique<ember::nn::DataParallel<NetImpl>>(net.ptr(), two_cpus);
             return (*dp)(x);
           }),
           true);
    if ((*dp)->replicas_built() != 1) {
      std::fprintf(stderr, "dp_step: DataParallel cloned its replicas %lld times\n",
                   static_cast<long long>((*dp)->replicas_built()));
      return 1;
    }
    report("parallel::data_parallel {cpu,cpu}, clone per step" + t,
           time_steps([&](ember::trainers::Net& net, const Tensor& x) {
             return ember::nn::parallel::data_parallel(net.ptr(), x, two_cpus);
           }),
           true);
    // Making the two replicas alone (no forward).
    ember::manual_seed(0);
    ember::trainers::Net net;
    report("  replicate: clone + link, 2 replicas" + t,
           time_calls([&] { ember::nn::parallel::replicate_modules(*net, two_cpus); }), false);
    const auto replicas = ember::nn::parallel::replicate_modules(*net, two_cpus);
    report("  link only, 2 replicas" + t, time_calls([&] {
             for (size_t i = 0; i < replicas.size(); ++i) {
               ember::nn::detail::link_replica(*replicas[i], *net, two_cpus[i], i == 0);
             }
           }),
           false);
  }
  return 0;
}
