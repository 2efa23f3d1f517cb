// The program launch_test runs under //distributed:launch. The first
// argument picks what it does:
//   env                 print the variables the launcher set
//   fail R CODE DIR     rank R exits CODE after 200 ms; the others write
//                       DIR/<rank>.pid (and their own child's DIR/<rank>.child)
//                       and sleep (optionally ignoring SIGTERM
//                       when a 5th argument "ignore_term" is given)
//   sleep DIR           write DIR/<rank>.pid, then wait for SIGINT and say so
//   init                init_process_group("fake") over env://, barrier
//   flaky               on the first attempt rank 1 exits 3; later all succeed
//   flaky_init          on the first attempt rank 1 exits 3 while the others
//                       are initializing; later attempts initialize again
//   lines               two stdout lines (the last without '\n'), one stderr line
//   slow_lines          "line 1" (printf, no flush), 3 s of sleep, "line 2":
//                       the first must reach the launcher before the sleep
//                       ends (Note [Line-buffered workers] in init.cc)
//   wait_file DIR       write DIR/<rank>.pid, exit 0 once DIR/go exists
//   raise               rank 1 throws ember::ValueError("bad value 42") out of
//                       ember::distributed::record (elastic.h); others exit 0
//   elastic_env         print the variables torchrun adds for elastic agents

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "distributed/elastic.h"
#include "distributed/init.h"
#include "distributed/testing/fake_backend.h"

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "<unset>";
}

int rank() { return std::atoi(env("RANK").c_str()); }

void write_pid(const std::string& dir) {
  std::ofstream(dir + "/" + std::to_string(rank()) + ".pid") << getpid() << "\n";
}

volatile sig_atomic_t g_got_int = 0;
void on_int(int) { g_got_int = 1; }

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "env") {
    std::printf("RANK=%s LOCAL_RANK=%s WORLD_SIZE=%s LOCAL_WORLD_SIZE=%s GROUP_RANK=%s "
                "MASTER_ADDR=%s MASTER_PORT=%s RESTART=%s AGENT_STORE=%s\n",
                env("RANK").c_str(), env("LOCAL_RANK").c_str(), env("WORLD_SIZE").c_str(),
                env("LOCAL_WORLD_SIZE").c_str(), env("GROUP_RANK").c_str(),
                env("MASTER_ADDR").c_str(), env("MASTER_PORT").c_str(),
                env("TORCHELASTIC_RESTART_COUNT").c_str(),
                env("TORCHELASTIC_USE_AGENT_STORE").c_str());
    return 0;
  }
  if (mode == "fail" && argc >= 5) {
    if (rank() == std::atoi(argv[2])) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      std::fprintf(stderr, "rank %d failing on purpose\n", rank());
      return std::atoi(argv[3]);
    }
    if (argc > 5 && std::string(argv[5]) == "ignore_term") signal(SIGTERM, SIG_IGN);
    // A grandchild that would outlive a worker killed alone.
    pid_t child = fork();
    if (child == 0) {
      signal(SIGTERM, SIG_IGN);
      std::this_thread::sleep_for(std::chrono::seconds(60));
      _exit(0);
    }
    std::ofstream(std::string(argv[4]) + "/" + std::to_string(rank()) + ".child") << child << "\n";
    write_pid(argv[4]);
    std::this_thread::sleep_for(std::chrono::seconds(60));
    return 0;
  }
  if (mode == "sleep" && argc >= 3) {
    signal(SIGINT, on_int);
    write_pid(argv[2]);
    for (int i = 0; i < 6000 && !g_got_int; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::printf("worker %d got SIGINT\n", rank());
    return g_got_int ? 0 : 1;
  }
  if (mode == "flaky_init" && env("TORCHELASTIC_RESTART_COUNT") == "0" && rank() == 1) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return 3;
  }
  if (mode == "init" || mode == "flaky_init") {
    namespace dist = ember::distributed;
    dist::testing::register_fake_backend();
    dist::InitOptions o;
    o.timeout = std::chrono::seconds(20);
    dist::init_process_group("fake", o);
    dist::get_default_group()->barrier()->wait();
    std::printf("joined rank %d of %d (attempt %s)\n", dist::get_rank(), dist::get_world_size(),
                env("TORCHELASTIC_RESTART_COUNT").c_str());
    dist::destroy_process_group();
    return 0;
  }
  if (mode == "flaky") {
    if (env("TORCHELASTIC_RESTART_COUNT") == "0" && rank() == 1) return 3;
    if (env("TORCHELASTIC_RESTART_COUNT") == "0") {
      std::this_thread::sleep_for(std::chrono::seconds(60));  // stopped by the launcher
    }
    std::printf("attempt %s ok\n", env("TORCHELASTIC_RESTART_COUNT").c_str());
    return 0;
  }
  if (mode == "raise") {
    return ember::distributed::record(
        [] {
          if (rank() == 1) throw ember::ValueError("bad value 42");
          return 0;
        },
        "launch_test_worker");
  }
  if (mode == "elastic_env") {
    std::printf("GROUP_WORLD_SIZE=%s ROLE_NAME=%s RUN_ID=%s ERROR_FILE_SET=%s\n",
                env("GROUP_WORLD_SIZE").c_str(), env("ROLE_NAME").c_str(),
                env("TORCHELASTIC_RUN_ID").c_str(),
                env("TORCHELASTIC_ERROR_FILE") == "<unset>" ? "no" : "yes");
    return 0;
  }
  if (mode == "slow_lines") {
    std::printf("line 1\n");
    std::this_thread::sleep_for(std::chrono::seconds(3));
    std::printf("line 2\n");
    return 0;
  }
  if (mode == "wait_file" && argc >= 3) {
    write_pid(argv[2]);
    const std::string go = std::string(argv[2]) + "/go";
    for (int i = 0; i < 6000 && access(go.c_str(), F_OK) != 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return 0;
  }
  if (mode == "lines") {
    std::printf("first\nsecond");
    std::fflush(stdout);
    std::fprintf(stderr, "to stderr\n");
    return 0;
  }
  std::fprintf(stderr, "launch_test_worker: unknown mode '%s'\n", mode.c_str());
  return 64;
}
