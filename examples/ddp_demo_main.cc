// ./bazelw run //examples:ddp_demo : seed 004's two DDP programs in C++,
// each with 2 processes over gloo on the CPU.
//
// Program 1 runs as under torch.distributed.launch: this process plays the
// launcher, running the TCPStore server (on a port the kernel picks, so two
// runs never collide) and giving each worker RANK, WORLD_SIZE, MASTER_ADDR
// and MASTER_PORT; the workers join with env://. Program 2 runs as under
// mp.spawn, the ranks meeting through a FileStore in a temporary folder
// (the seed's fixed MASTER_PORT=12355 fails when the port is taken).
//
// Each rank prints its lines in one block when it ends, so that lines of
// ranks running at once never mix; which rank comes first varies, as in the
// seed ("the order does not matter, they run at the same time").

#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>

#include "distributed/init.h"
#include "distributed/spawn.h"
#include "distributed/tcp_store.h"
#include "examples/ddp_demo.h"
#include "tensor/cuda/cuda.h"
#include "tensor/error.h"

namespace {

namespace dist = ember::distributed;
namespace examples = ember::examples;

constexpr int kWorldSize = 2;
// Long enough for a loaded machine, short enough that a lost rank ends the
// demo with an error instead of PyTorch's 30-minute wait.
constexpr std::chrono::milliseconds kTimeout{60000};

// Writes `text` to stdout in as few write() calls as it takes, so that
// another process's output cannot land inside it.
void print_block(const std::string& text) {
  std::cout.flush();
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(STDOUT_FILENO, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// The seed's run_demo: demo_fn(rank, world_size) in world_size processes,
// joined; each rank's output goes to stdout in one block, also when it throws
// (spawn then reports the exception).
void run_demo(const std::function<void(int rank, int world_size, std::ostream& out)>& demo_fn,
              int world_size) {
  dist::spawn(
      [&](int rank) {
        std::ostringstream out;
        try {
          demo_fn(rank, world_size, out);
        } catch (...) {
          print_block(out.str());
          throw;
        }
        print_block(out.str());
      },
      world_size);
}

void program1() {
  dist::TCPStoreOptions o;
  o.port = 0;
  o.is_server = true;
  dist::TCPStore server("127.0.0.1", o);
  // What the launcher sets for its workers (distributed/launch.cc); with the
  // agent store, env:// connects to this server instead of making rank 0
  // start one.
  setenv("MASTER_ADDR", "127.0.0.1", 1);
  setenv("MASTER_PORT", std::to_string(server.port()).c_str(), 1);
  setenv("WORLD_SIZE", std::to_string(kWorldSize).c_str(), 1);
  setenv("TORCHELASTIC_USE_AGENT_STORE", "True", 1);
  run_demo(
      [](int rank, int, std::ostream& out) {
        setenv("RANK", std::to_string(rank).c_str(), 1);
        setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
        dist::InitOptions init;  // env://, as the seed's init_process_group(backend=...)
        init.timeout = kTimeout;
        examples::distributed_sampler_demo(init, out);
      },
      kWorldSize);
  for (const char* v : {"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "TORCHELASTIC_USE_AGENT_STORE"})
    unsetenv(v);
}

void program2() {
  std::cout << "got " << ember::cuda::device_count() << " gpus." << std::endl;
  char dir_template[] = "/tmp/ember_ddp_demo_XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) throw ember::Error("ddp_demo: cannot make a temporary folder");
  const std::string folder = dir;
  auto init_at = [&](const std::string& name) {
    dist::InitOptions init;
    init.init_method = "file://" + folder + "/" + name;  // a fresh store per run
    init.timeout = kTimeout;
    return init;
  };
  auto cleanup = [&] {
    for (const char* name : {"basic_store", "checkpoint_store", "model.checkpoint"})
      std::remove((folder + "/" + name).c_str());
    rmdir(folder.c_str());
  };
  try {
    run_demo(
        [&](int rank, int world_size, std::ostream& out) {
          examples::demo_basic(rank, world_size, init_at("basic_store"), out);
        },
        kWorldSize);
    run_demo(
        [&](int rank, int world_size, std::ostream& out) {
          examples::demo_checkpoint(rank, world_size, init_at("checkpoint_store"),
                                    folder + "/model.checkpoint", out);
        },
        kWorldSize);
  } catch (...) {
    cleanup();
    throw;
  }
  cleanup();
}

}  // namespace

int main() {
  // Every rank runs on this machine: talk over loopback rather than the
  // address the host name resolves to, which a container may not route.
  setenv("GLOO_SOCKET_IFNAME", "lo", /*overwrite=*/0);
  try {
    std::cout << "== NCCL + launch + DistributedSampler (here gloo on the CPU, " << kWorldSize
              << " processes) ==" << std::endl;
    program1();
    std::cout << "== Gloo + mp.spawn + checkpoint (" << kWorldSize << " processes) ==" << std::endl;
    program2();
  } catch (const std::exception& e) {
    std::cerr << "ddp_demo: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
