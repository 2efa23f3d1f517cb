#include "trainers/program.h"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "distributed/elastic.h"
#include "distributed/init.h"
#include "distributed/spawn.h"
#include "distributed/tcp_store.h"
#include "tensor/error.h"

ABSL_FLAG(int, nproc, 1, "train data-parallel on this many local processes");
ABSL_FLAG(std::string, backend, "gloo",
          "process group of data-parallel runs: gloo (CPU or CUDA tensors through host "
          "copies) or nccl (CUDA, one GPU per rank)");
ABSL_FLAG(double, timeout, 1800,
          "seconds any rendezvous or collective of a data-parallel run may wait (the process "
          "group's timeout; PyTorch's default is 30 minutes)");

namespace ember {
namespace trainers {

namespace {

namespace dist = distributed;

// --timeout as the process group's timeout.
std::chrono::milliseconds group_timeout() {
  const double seconds = absl::GetFlag(FLAGS_timeout);
  if (!(seconds > 0) || seconds > 1e9) {
    throw ValueError(absl::StrCat("--timeout must be a positive number of seconds, got ", seconds));
  }
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

// One rank of a data-parallel run: joins the group, trains, leaves.
void train_rank(const std::function<void(int)>& train, int threads, dist::InitOptions init) {
  init.timeout = group_timeout();
  dist::init_process_group(absl::GetFlag(FLAGS_backend), init);
  train(threads);
  dist::destroy_process_group();
}

void spawn_ranks(const ProgramOptions& p, const std::function<void(int)>& train, int nproc) {
  const int threads =
      p.threads != 0 ? p.threads
                     : std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / nproc);
  // The ranks share this host: gloo talks over loopback unless told otherwise.
  setenv("GLOO_SOCKET_IFNAME", "lo", /*overwrite=*/0);
  const std::chrono::milliseconds timeout = group_timeout();
  dist::TCPStoreServer server(0, "127.0.0.1");
  const uint16_t port = server.port();
  dist::spawn(
      [&](int rank) {
        dist::TCPStoreOptions o;
        o.port = port;
        o.timeout = timeout;
        o.server_description = absl::StrCat("the ", p.name, " parent process");
        dist::InitOptions init;
        init.store = std::make_shared<dist::TCPStore>("127.0.0.1", o);
        init.world_size = nproc;
        init.rank = rank;
        if (rank == 0 && p.first_line) p.first_line();
        train_rank(train, threads, init);
      },
      nproc);
}

}  // namespace

int run_training_program(const ProgramOptions& p, const std::function<void(int)>& train) {
  // torch.distributed.elastic's @record: an error also goes to
  // TORCHELASTIC_ERROR_FILE for the launcher's report (elastic.h).
  return dist::record(
      [&] {
        const int nproc = absl::GetFlag(FLAGS_nproc);
        const char* slurm_tasks = getenv("SLURM_NTASKS");
        const bool launched = getenv("WORLD_SIZE") != nullptr ||
                              (getenv("SLURM_PROCID") != nullptr && slurm_tasks != nullptr &&
                               std::atoi(slurm_tasks) > 1);
        if (launched) {
          if (p.first_line) p.first_line();
          train_rank(train, p.threads, {});
        } else if (nproc > 1) {
          spawn_ranks(p, train, nproc);
        } else {
          if (p.first_line) p.first_line();
          train(p.threads);
        }
        return 0;
      },
      p.name);
}

}  // namespace trainers
}  // namespace ember
