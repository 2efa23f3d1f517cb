// //benchmarks:ddp_step: one data-parallel training step of seed 003's MNIST
// network (trainers/mnist_net.h) under DistributedDataParallel over gloo,
// set beside the same step in one process without DDP. tools/ddp_torch.py
// times PyTorch's DDP the same way.
//
//   bazel run //benchmarks:ddp_step -- --nproc 2 --threads 1 --batch 64
//
// Each rank: manual_seed(0), Net, DDP, SGD (lr 0.01, momentum 0.9), one
// fixed random batch of its own; warm-up steps, a barrier, then timed steps
// (zero_grad, forward, cross-entropy, backward with the all-reduces, step).
// Prints rank 0's median and fastest step and the images per second of all
// ranks together (nproc * batch / median). Then the same step with
// hvd::DistributedOptimizer (Horovod's API) in place of DDP, without and
// with fp16 compression.

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "distributed/collectives.h"
#include "distributed/ddp.h"
#include "distributed/hvd.h"
#include "distributed/init.h"
#include "distributed/spawn.h"
#include "nn/nn.h"
#include "optim/sgd.h"
#include "tensor/all.h"
#include "trainers/mnist_net.h"

ABSL_FLAG(int, nproc, 2, "ranks (local processes)");
ABSL_FLAG(int, threads, 1, "compute threads per rank");
ABSL_FLAG(int64_t, batch, 64, "images per rank and step");
ABSL_FLAG(int, warmup, 5, "untimed steps");
ABSL_FLAG(int, iters, 40, "timed steps");
ABSL_FLAG(double, bucket_cap_mb, 25, "DDP bucket size (MiB)");
ABSL_FLAG(std::string, comm_hook, "none", "DDP communication hook: none, fp16 or bf16");

namespace {

namespace dist = ember::distributed;
namespace F = ember::nn::functional;
using ember::Tensor;
using Clock = std::chrono::steady_clock;

struct Timing {
  double median_ms = 0, min_ms = 0;
};

// Times `iters` calls of step() after `warmup` untimed ones.
template <typename Step, typename Sync>
Timing time_steps(Step step, Sync sync) {
  for (int i = 0; i < absl::GetFlag(FLAGS_warmup); ++i) step();
  sync();
  std::vector<double> ms;
  for (int i = 0; i < absl::GetFlag(FLAGS_iters); ++i) {
    const auto t0 = Clock::now();
    step();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front()};
}

// One model, its optimizer and a fixed batch, stepped through `forward`.
template <typename Forward>
Timing run(ember::trainers::Net& model, Forward forward, const std::function<void()>& sync) {
  ember::optim::SGD opt(model->parameters(), ember::optim::SGDOptions(0.01).momentum(0.9));
  const int64_t batch = absl::GetFlag(FLAGS_batch);
  Tensor x = ember::randn({batch, 1, 28, 28});
  Tensor y = ember::randint(0, 10, {batch});
  return time_steps(
      [&] {
        opt.zero_grad();
        F::cross_entropy(forward(x), y).backward();
        opt.step();
      },
      sync);
}

// The same step with Horovod's API (ember::hvd) instead of DDP: the
// gradients' all-reduces start from their accumulation hooks, one per
// parameter, and step() waits for them.
Timing run_hvd(ember::hvd::Compression compression, const std::function<void()>& sync) {
  ember::manual_seed(0);
  ember::trainers::Net model;
  ember::optim::SGD sgd(model->parameters(), ember::optim::SGDOptions(0.01).momentum(0.9));
  ember::hvd::DistributedOptimizer opt(sgd, model->named_parameters(), compression);
  ember::hvd::broadcast_parameters(model->state_dict(), 0);
  const int64_t batch = absl::GetFlag(FLAGS_batch);
  ember::manual_seed(1 + ember::hvd::rank());
  Tensor x = ember::randn({batch, 1, 28, 28});
  Tensor y = ember::randint(0, 10, {batch});
  return time_steps(
      [&] {
        opt.zero_grad();
        F::cross_entropy(model->forward(x), y).backward();
        opt.step();
      },
      sync);
}

void report(const char* what, const Timing& t, int ranks) {
  const double images = static_cast<double>(ranks * absl::GetFlag(FLAGS_batch));
  std::printf("%-34s median %8.2f ms  min %8.2f ms  %9.0f images/s\n", what, t.median_ms,
              t.min_ms, images / (t.median_ms / 1e3));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const int nproc = absl::GetFlag(FLAGS_nproc);
  ember::set_num_threads(absl::GetFlag(FLAGS_threads));
  std::printf("# ddp_step: seed 003's MNIST net, batch %lld per rank, %d thread(s) per rank, "
              "%d warm-up + %d timed steps\n",
              static_cast<long long>(absl::GetFlag(FLAGS_batch)), absl::GetFlag(FLAGS_threads),
              absl::GetFlag(FLAGS_warmup), absl::GetFlag(FLAGS_iters));
  {
    ember::manual_seed(0);
    ember::trainers::Net model;
    report("one process, no DDP", run(model, [&](const Tensor& x) { return model->forward(x); },
                                      [] {}),
           1);
  }
  setenv("GLOO_SOCKET_IFNAME", "lo", 0);
  std::string dir = (std::filesystem::temp_directory_path() / "ember_ddp_step_XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) return 1;
  int rc = 0;
  try {
    dist::spawn(
        [&](int rank) {
          dist::InitOptions o;
          o.init_method = "file://" + dir + "/store";
          o.world_size = nproc;
          o.rank = rank;
          dist::init_process_group("gloo", o);
          ember::manual_seed(0);
          ember::trainers::Net model;
          dist::DistributedDataParallel ddp(
              model, dist::DistributedDataParallelOptions().bucket_cap_mb(
                         absl::GetFlag(FLAGS_bucket_cap_mb)));
          const std::string hook = absl::GetFlag(FLAGS_comm_hook);
          if (hook == "fp16") {
            ddp->register_comm_hook(nullptr, dist::comm_hooks::fp16_compress_hook);
          } else if (hook == "bf16") {
            ddp->register_comm_hook(nullptr, dist::comm_hooks::bf16_compress_hook);
          } else if (hook != "none") {
            throw std::invalid_argument("--comm_hook: none, fp16 or bf16, not " + hook);
          }
          ember::manual_seed(1 + rank);
          Timing t = run(model, [&](const Tensor& x) { return ddp(x); }, [] { dist::barrier(); });
          if (rank == 0) {
            std::string what = "DDP over gloo, " + std::to_string(nproc) + " ranks";
            if (hook != "none") what += ", " + hook + " hook";
            report(what.c_str(), t, nproc);
          }
          ember::hvd::init();  // the group made above
          for (auto c : {ember::hvd::Compression::none, ember::hvd::Compression::fp16}) {
            Timing h = run_hvd(c, [] { dist::barrier(); });
            if (rank == 0) {
              std::string what = "hvd::DistributedOptimizer, " + std::to_string(nproc) + " ranks";
              if (c == ember::hvd::Compression::fp16) what += ", fp16";
              report(what.c_str(), h, nproc);
            }
          }
          dist::barrier();
          dist::destroy_process_group();
        },
        nproc);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ddp_step: %s\n", e.what());
    rc = 1;
  }
  std::filesystem::remove_all(dir);
  return rc;
}
