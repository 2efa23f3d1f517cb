// The worker of tools/launch_startup.py (issue 21's figures): under a
// launcher (//distributed:launch or torchrun), join the group over env://
// with gloo, run a first collective (a barrier) and print when it ended:
//
//   first_collective <rank> <restart> <unix time, seconds>
//
// With `kill` as the argument, rank 1 of the first attempt then prints
// "killed <unix time>" and SIGKILLs itself, so that the launcher restarts
// the group (--max_restarts); the restarted ranks print their first
// collective again. tools/launch_startup_torch.py is its PyTorch twin.

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "distributed/collectives.h"
#include "distributed/init.h"

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  namespace dist = ember::distributed;
  const bool kill_mode = argc > 1 && std::string(argv[1]) == "kill";
  const int restart = env_int("TORCHELASTIC_RESTART_COUNT");
  dist::init_process_group("gloo");
  dist::barrier();  // synchronous: returns no Work
  const int rank = dist::get_rank();
  std::printf("first_collective %d %d %.6f\n", rank, restart, now());
  std::fflush(stdout);
  if (kill_mode && restart == 0) {
    if (rank == 1) {
      std::printf("killed %.6f\n", now());
      std::fflush(stdout);
      ::kill(::getpid(), SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::seconds(60));  // until the launcher stops us
  }
  dist::destroy_process_group();
  return 0;
}
