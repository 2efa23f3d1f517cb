// //distributed:launch run as a real process over real workers
// (testing/launch_test_worker.cc).

#include <fcntl.h>
#include <signal.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include "distributed/tcp_store.h"
#include "distributed/testing/multiprocess.h"

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

const char* kLaunch = "distributed/launch";
const char* kWorker = "distributed/launch_test_worker";

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct LaunchRun {
  int exit_code = -1;
  bool timed_out = false;
  std::string out, err;
  double seconds = 0;
};

class LaunchTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::make_temp_dir(); }
  void TearDown() override { testing::remove_tree(dir_); }

  // Starts the launcher with output to files; its own process group, so a
  // timeout kills everything it started.
  pid_t start(std::vector<std::string> args, const std::string& name = "") {
    args.insert(args.begin(), kLaunch);
    pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      int o = open((dir_ + "/out" + name).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int e = open((dir_ + "/err" + name).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(o, 1);
      dup2(e, 2);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(kLaunch, argv.data());
      _exit(126);
    }
    setpgid(pid, pid);
    start_ = Clock::now();
    return pid;
  }

  LaunchRun finish(pid_t pid, milliseconds timeout, const std::string& name = "") {
    LaunchRun r;
    const auto deadline = Clock::now() + timeout;
    int st = 0;
    for (;;) {
      if (waitpid(pid, &st, WNOHANG) == pid) break;
      if (Clock::now() >= deadline) {
        r.timed_out = true;
        kill(-pid, SIGKILL);
        waitpid(pid, &st, 0);
        break;
      }
      std::this_thread::sleep_for(milliseconds(5));
    }
    r.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r.out = slurp(dir_ + "/out" + name);
    r.err = slurp(dir_ + "/err" + name);
    return r;
  }

  LaunchRun run(std::vector<std::string> args, milliseconds timeout = milliseconds(20000)) {
    return finish(start(std::move(args)), timeout);
  }

  // The pids the workers (or their children) wrote into dir_.
  std::vector<pid_t> worker_pids(int n, const std::string& ext = ".pid") {
    std::vector<pid_t> pids;
    for (int r = 0; r < n; ++r) {
      std::ifstream f(dir_ + "/" + std::to_string(r) + ext);
      pid_t p;
      if (f >> p) pids.push_back(p);
    }
    return pids;
  }

  bool wait_for_pids(int n, milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      if (static_cast<int>(worker_pids(n).size()) == n) return true;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return false;
  }

  // Still there 2 s from now? (A killed orphan is a zombie until its new
  // parent reaps it.)
  static bool alive(pid_t pid) {
    const auto deadline = Clock::now() + std::chrono::seconds(2);
    while (kill(pid, 0) == 0) {
      if (Clock::now() >= deadline) return true;
      std::this_thread::sleep_for(milliseconds(5));
    }
    return false;
  }

  std::string dir_;
  Clock::time_point start_;
};

TEST_F(LaunchTest, SetsTheEnvironmentAndPrefixesLines) {
  LaunchRun r = run({"--nproc_per_node", "3", "--master_port", "0", kWorker, "env"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int rank = 0; rank < 3; ++rank) {
    std::string want = "[rank" + std::to_string(rank) + "]: RANK=" + std::to_string(rank) +
                       " LOCAL_RANK=" + std::to_string(rank) +
                       " WORLD_SIZE=3 LOCAL_WORLD_SIZE=3 GROUP_RANK=0 MASTER_ADDR=127.0.0.1 ";
    EXPECT_NE(r.out.find(want), std::string::npos) << r.out;
  }
  EXPECT_EQ(r.out.find("MASTER_PORT=0 "), std::string::npos) << r.out;  // a real port
  EXPECT_NE(r.out.find("RESTART=0 AGENT_STORE=True"), std::string::npos) << r.out;
}

TEST_F(LaunchTest, SecondNodeRanks) {
  const std::string port = std::to_string(testing::free_port());
  LaunchRun r = run({"--nnodes=2", "--node_rank=1", "--nproc_per_node=2", "--master_addr=10.1.2.3",
               "--master_port=" + port, kWorker, "env"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[rank2]: RANK=2 LOCAL_RANK=0 WORLD_SIZE=4 LOCAL_WORLD_SIZE=2 "
                       "GROUP_RANK=1 MASTER_ADDR=10.1.2.3 MASTER_PORT=" + port),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("[rank3]: RANK=3 LOCAL_RANK=1 WORLD_SIZE=4"), std::string::npos) << r.out;
}

TEST_F(LaunchTest, WorkersInitializeThroughTheLaunchersStore) {
  LaunchRun r = run({"--nproc_per_node", "3", "--master_port", "0", kWorker, "init"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_NE(r.out.find("[rank" + std::to_string(rank) + "]: joined rank " +
                         std::to_string(rank) + " of 3 (attempt 0)"),
              std::string::npos)
        << r.out;
  }
}

TEST_F(LaunchTest, TwoNodesFormOneWorld) {
  // Two launchers on this machine play two nodes of 2 workers each; node 0
  // runs the store, node 1's workers reach it through --master_addr/port.
  const std::string port = std::to_string(testing::free_port());
  auto node = [&](int rank) {
    return std::vector<std::string>{"--nnodes", "2", "--node_rank", std::to_string(rank),
                                    "--nproc_per_node", "2", "--master_addr", "127.0.0.1",
                                    "--master_port", port, kWorker, "init"};
  };
  pid_t second = start(node(1), "1");
  pid_t first = start(node(0), "0");
  LaunchRun r0 = finish(first, milliseconds(20000), "0");
  LaunchRun r1 = finish(second, milliseconds(20000), "1");
  ASSERT_EQ(r0.exit_code, 0) << r0.out << r0.err;
  ASSERT_EQ(r1.exit_code, 0) << r1.out << r1.err;
  EXPECT_NE(r0.out.find("[rank1]: joined rank 1 of 4 (attempt 0)"), std::string::npos) << r0.out;
  EXPECT_NE(r1.out.find("[rank2]: joined rank 2 of 4 (attempt 0)"), std::string::npos) << r1.out;
  EXPECT_NE(r1.out.find("[rank3]: joined rank 3 of 4 (attempt 0)"), std::string::npos) << r1.out;
}

// Note [Elastic rendezvous]: --rdzv_backend=c10d --nnodes=MIN:MAX. Two
// launchers on this machine play two nodes; the first to bind the endpoint
// hosts the store, and the rendezvous gives the node ranks.
std::vector<std::string> elastic_node(const std::string& port, const std::string& nnodes) {
  return {"--nnodes=" + nnodes, "--rdzv_backend=c10d", "--rdzv_endpoint=127.0.0.1:" + port,
          "--rdzv_id=job", "--rdzv_conf=last_call_timeout=0.3,join_timeout=20",
          "--nproc_per_node=2"};
}

TEST_F(LaunchTest, ElasticNodesFormOneWorld) {
  const std::string port = std::to_string(testing::free_port());
  std::vector<std::string> args = elastic_node(port, "2:2");
  args.insert(args.end(), {kWorker, "init"});
  pid_t a = start(args, "a");
  pid_t b = start(args, "b");
  LaunchRun ra = finish(a, milliseconds(30000), "a");
  LaunchRun rb = finish(b, milliseconds(30000), "b");
  ASSERT_EQ(ra.exit_code, 0) << ra.out << ra.err;
  ASSERT_EQ(rb.exit_code, 0) << rb.out << rb.err;
  const std::string all = ra.out + rb.out;
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_NE(all.find(absl::StrCat("[rank", rank, "]: joined rank ", rank, " of 4 (attempt 0)")),
              std::string::npos)
        << all;
  }
  EXPECT_NE((ra.err + rb.err).find("[launch] round 0: node 1 of 2"), std::string::npos)
      << ra.err << rb.err;
}

TEST_F(LaunchTest, ALateNodeIsAdmittedAtTheNextRound) {
  const std::string port = std::to_string(testing::free_port());
  std::vector<std::string> args = elastic_node(port, "1:2");
  args.insert(args.end(), {kWorker, "wait_file", dir_});
  pid_t a = start(args, "a");
  // Node a runs alone (ranks 0 and 1) until node b arrives.
  for (int i = 0; i < 1000 && access((dir_ + "/1.pid").c_str(), F_OK) != 0; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_EQ(access((dir_ + "/3.pid").c_str(), F_OK), -1);
  pid_t b = start(args, "b");
  // Round 1 has both: rank 3 exists only there.
  for (int i = 0; i < 2000 && access((dir_ + "/3.pid").c_str(), F_OK) != 0; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  std::ofstream(dir_ + "/go") << "go\n";
  LaunchRun ra = finish(a, milliseconds(30000), "a");
  LaunchRun rb = finish(b, milliseconds(30000), "b");
  ASSERT_EQ(ra.exit_code, 0) << ra.out << ra.err;
  ASSERT_EQ(rb.exit_code, 0) << rb.out << rb.err;
  EXPECT_NE(ra.err.find("[launch] round 0: node 0 of 1"), std::string::npos) << ra.err;
  EXPECT_NE(ra.err.find("[launch] round 0 ends: a node is waiting to join"), std::string::npos)
      << ra.err;
  EXPECT_NE(ra.err.find("[launch] round 1: node 1 of 2"), std::string::npos) << ra.err;
  EXPECT_NE(rb.err.find("[launch] round 1: node 0 of 2"), std::string::npos) << rb.err;
  // A membership change is no failure: no restart was used.
  EXPECT_EQ(ra.err.find("restarting the workers"), std::string::npos) << ra.err;
}

TEST_F(LaunchTest, PartialLinesAndStderr) {
  LaunchRun r = run({"--master_port", "0", kWorker, "lines"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "[rank0]: first\n[rank0]: second\n");
  EXPECT_EQ(r.err, "[rank0]: to stderr\n");
}

TEST_F(LaunchTest, FailFastWithTheFirstFailuresExitCode) {
  pid_t pid = start({"--nproc_per_node", "3", "--master_port", "0", kWorker, "fail", "1", "7",
                     dir_});
  LaunchRun r = finish(pid, milliseconds(20000));
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_NE(r.err.find("[rank1]: rank 1 failing on purpose"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rank 1 (local_rank 1, pid"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("exited with code 7; stopping the other workers"), std::string::npos);
  EXPECT_EQ(worker_pids(3).size(), 2u);
  for (pid_t p : worker_pids(3)) EXPECT_FALSE(alive(p)) << "orphan " << p;
  // The workers' own children (ignoring SIGTERM) are gone too.
  EXPECT_EQ(worker_pids(3, ".child").size(), 2u);
  for (pid_t p : worker_pids(3, ".child")) EXPECT_FALSE(alive(p)) << "orphan grandchild " << p;
}

TEST_F(LaunchTest, WorkersIgnoringSigtermAreKilled) {
  pid_t pid = start({"--nproc_per_node", "2", "--master_port", "0", kWorker, "fail", "0", "5",
                     dir_, "ignore_term"});
  LaunchRun r = finish(pid, milliseconds(20000));
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  for (pid_t p : worker_pids(2)) EXPECT_FALSE(alive(p)) << "orphan " << p;
}

TEST_F(LaunchTest, CtrlCIsForwarded) {
  pid_t pid = start({"--nproc_per_node", "2", "--master_port", "0", kWorker, "sleep", dir_});
  ASSERT_TRUE(wait_for_pids(2, milliseconds(10000)));
  kill(pid, SIGINT);
  LaunchRun r = finish(pid, milliseconds(10000));
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.err;
  EXPECT_NE(r.out.find("[rank0]: worker 0 got SIGINT"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[rank1]: worker 1 got SIGINT"), std::string::npos) << r.out;
  for (pid_t p : worker_pids(2)) EXPECT_FALSE(alive(p)) << "orphan " << p;
}

TEST_F(LaunchTest, KilledLauncherTakesItsWorkersWithIt) {
  pid_t pid = start({"--nproc_per_node", "2", "--master_port", "0", kWorker, "sleep", dir_});
  ASSERT_TRUE(wait_for_pids(2, milliseconds(10000)));
  kill(pid, SIGKILL);  // only the launcher: PR_SET_PDEATHSIG must end the workers
  int st;
  waitpid(pid, &st, 0);
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  auto pids = worker_pids(2);
  ASSERT_EQ(pids.size(), 2u);
  while (Clock::now() < deadline && (alive(pids[0]) || alive(pids[1]))) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  for (pid_t p : pids) EXPECT_FALSE(alive(p)) << "orphan " << p;
}

TEST_F(LaunchTest, MaxRestarts) {
  LaunchRun ok = run({"--nproc_per_node", "2", "--master_port", "0", "--max_restarts", "1", kWorker,
                "flaky"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.err.find("restarting the workers (restart 1 of 1)"), std::string::npos) << ok.err;
  EXPECT_NE(ok.out.find("[rank0]: attempt 1 ok"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("[rank1]: attempt 1 ok"), std::string::npos) << ok.out;
  LaunchRun fail = run({"--nproc_per_node", "2", "--master_port", "0", kWorker, "flaky"});
  EXPECT_EQ(fail.exit_code, 3) << fail.err;
}

TEST_F(LaunchTest, RestartInitializesInAFreshKeySpace) {
  // Attempt 0 dies after rank 0 claimed its rank in the store; attempt 1
  // must not see that claim (its keys live under /worker/attempt_1).
  LaunchRun r = run({"--nproc_per_node", "2", "--master_port", "0", "--max_restarts", "1",
                     kWorker, "flaky_init"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("[rank0]: joined rank 0 of 2 (attempt 1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[rank1]: joined rank 1 of 2 (attempt 1)"), std::string::npos) << r.out;
}

TEST_F(LaunchTest, MissingProgramExits127) {
  LaunchRun r = run({"--master_port", "0", "/nonexistent/program"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("cannot run '/nonexistent/program'"), std::string::npos) << r.err;
}

TEST_F(LaunchTest, UsageErrors) {
  LaunchRun none = run({"--nproc_per_node", "2"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no program to run"), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("usage: launch"), std::string::npos);
  LaunchRun zero = run({"--nproc_per_node", "0", kWorker, "env"});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("--nproc_per_node must be at least 1"), std::string::npos);
  LaunchRun unknown = run({"--bogus", "1", kWorker, "env"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown option --bogus"), std::string::npos);
  LaunchRun not_int = run({"--nnodes", "two", kWorker, "env"});
  EXPECT_EQ(not_int.exit_code, 2);
  LaunchRun port0 = run({"--nnodes", "2", "--master_port", "0", kWorker, "env"});
  EXPECT_EQ(port0.exit_code, 2);
  EXPECT_NE(port0.err.find("--master_port 0 needs --nnodes 1"), std::string::npos);
}

TEST_F(LaunchTest, MasterPortInUseNamesThePort) {
  TCPStoreServer taken(0);
  const std::string port = std::to_string(taken.port());
  LaunchRun r = run({"--master_port", port, kWorker, "env"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot start the store on port " + port), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Address already in use"), std::string::npos) << r.err;
}

// A single node's launcher exits as soon as its workers did: a client left
// connected to its store (idle, never greeting) does not hold it up.
TEST_F(LaunchTest, IdleStoreClientDoesNotKeepTheLauncherUp) {
  const int port = testing::free_port();
  pid_t pid = start(
      {"--nproc_per_node", "2", "--master_port", std::to_string(port), kWorker, "wait_file", dir_});
  ASSERT_TRUE(wait_for_pids(2, milliseconds(10000)));
  int idle = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(idle, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  const auto go = Clock::now();
  std::ofstream(dir_ + "/go") << "\n";
  LaunchRun r = finish(pid, milliseconds(20000));
  const double after_go = std::chrono::duration<double>(Clock::now() - go).count();
  close(idle);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(after_go, 3.0);
}

// Note [Signals between fork and exec]: many workers that fail at once
// make the launcher SIGTERM their siblings while some are still between
// fork and exec; that must never pass for a signal to the launcher, which
// would give up its restarts.
TEST_F(LaunchTest, RestartsSurviveSigtermsToWorkersNotYetExeced) {
  for (int run_index = 0; run_index < 10; ++run_index) {
    LaunchRun r =
        run({"--nproc_per_node", "8", "--master_port", "0", "--max_restarts", "3", "false"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("restarting the workers (restart 3 of 3)"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("received signal"), std::string::npos) << r.err;
  }
}

// Note [Line-buffered workers]: a line a worker printed reaches the
// launcher's output while the worker still runs, not when it exits.
TEST_F(LaunchTest, WorkerLinesArriveAsTheyArePrinted) {
  pid_t pid = start({"--master_port", "0", kWorker, "slow_lines"});
  std::string out;
  const auto deadline = Clock::now() + std::chrono::milliseconds(2500);
  while (Clock::now() < deadline && out.find("[rank0]: line 1\n") == std::string::npos) {
    std::this_thread::sleep_for(milliseconds(20));
    out = slurp(dir_ + "/out");
  }
  EXPECT_NE(out.find("[rank0]: line 1\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("line 2"), std::string::npos) << out;
  LaunchRun r = finish(pid, milliseconds(20000));
  EXPECT_EQ(r.out, "[rank0]: line 1\n[rank0]: line 2\n");
}

// torchrun's command line runs unchanged: its flags with dashes, PET_*
// forms, --nproc-per-node=auto, a fixed --nnodes=N:N, --rdzv-endpoint, and
// the variables it gives workers.
TEST_F(LaunchTest, TorchrunFlagsAndEnvironment) {
  LaunchRun r = run({"--nnodes=1:1", "--nproc-per-node=2", "--rdzv-backend=c10d",
                     "--rdzv-endpoint=127.0.0.1:0", "--rdzv-id=job7", "--no-python",
                     "--monitor-interval=1", kWorker, "elastic_env"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[rank1]: GROUP_WORLD_SIZE=1 ROLE_NAME=default RUN_ID=job7 "
                       "ERROR_FILE_SET=yes"),
            std::string::npos)
      << r.out;
  setenv("PET_NPROC_PER_NODE", "3", 1);
  LaunchRun pet = run({"--master_port", "0", kWorker, "env"});
  unsetenv("PET_NPROC_PER_NODE");
  EXPECT_NE(pet.out.find("[rank2]: RANK=2 LOCAL_RANK=2 WORLD_SIZE=3"), std::string::npos)
      << pet.out;
  LaunchRun autorun = run({"--nproc_per_node=auto", "--master_port", "0", kWorker, "env"});
  EXPECT_EQ(autorun.exit_code, 0) << autorun.err;
  EXPECT_NE(autorun.out.find("[rank0]: RANK=0"), std::string::npos) << autorun.out;
}

TEST_F(LaunchTest, WhatTorchrunDoesAndEmberDoesNotIsRefusedWithTheReason) {
  LaunchRun range = run({"--nnodes=1:2", kWorker, "env"});
  EXPECT_EQ(range.exit_code, 2);
  EXPECT_NE(range.err.find("a range of nodes needs --rdzv_backend=c10d"), std::string::npos)
      << range.err;
  LaunchRun module = run({"-m", "trainer"});
  EXPECT_EQ(module.exit_code, 2);
  EXPECT_NE(module.err.find("-m/--module and --run_path run Python"), std::string::npos);
  LaunchRun c10d = run({"--nnodes=2", "--rdzv_backend=c10d", kWorker, "env"});
  EXPECT_EQ(c10d.exit_code, 2);
  EXPECT_NE(c10d.err.find("needs --rdzv_endpoint HOST:PORT"), std::string::npos) << c10d.err;
  LaunchRun conf = run({"--nnodes=1:2", "--rdzv_backend=c10d", "--rdzv_endpoint=127.0.0.1:1",
                        "--rdzv_conf=last_call_timeout=soon", kWorker, "env"});
  EXPECT_EQ(conf.exit_code, 2);
  EXPECT_NE(conf.err.find("'last_call_timeout=soon' is not KEY=SECONDS"), std::string::npos)
      << conf.err;
  LaunchRun tee = run({"--tee=3", kWorker, "env"});
  EXPECT_EQ(tee.exit_code, 2);
  EXPECT_NE(tee.err.find("give one"), std::string::npos) << tee.err;
}

// A Kubernetes PyTorchJob gives each pod RANK (its index) and WORLD_SIZE
// (the number of pods): the launcher takes them as node rank and nodes.
TEST_F(LaunchTest, PyTorchJobPodVariablesNameTheNode) {
  const std::string port = std::to_string(testing::free_port());
  setenv("RANK", "1", 1);
  setenv("WORLD_SIZE", "2", 1);
  setenv("MASTER_ADDR", "10.1.2.3", 1);
  setenv("MASTER_PORT", port.c_str(), 1);
  LaunchRun r = run({"--nproc_per_node=2", kWorker, "env"});
  for (const char* v : {"RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"}) unsetenv(v);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[rank3]: RANK=3 LOCAL_RANK=1 WORLD_SIZE=4 LOCAL_WORLD_SIZE=2 "
                       "GROUP_RANK=1 MASTER_ADDR=10.1.2.3 MASTER_PORT=" + port),
            std::string::npos)
      << r.out;
}

// torch.distributed.elastic's @record: the failing worker's own message is
// in the launcher's failure line.
TEST_F(LaunchTest, AFailedWorkersErrorFileIsReported) {
  LaunchRun r = run({"--nproc_per_node=2", "--master_port=0", kWorker, "raise"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("[rank1]: launch_test_worker: bad value 42"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("exited with code 1: ember::ValueError: bad value 42; stopping the other "
                       "workers"),
            std::string::npos)
      << r.err;
}

TEST_F(LaunchTest, RedirectsAndTeeWriteWorkerLogsUnderLogDir) {
  const std::string logs = dir_ + "/logs";
  LaunchRun r = run({"--nproc_per_node=2", "--master_port=0", "--log_dir", logs,
                     "--rdzv_id=run1", "--redirects=0:1", "--tee=1:3", kWorker, "lines"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Rank 0's stdout went to its file only; rank 1's both ways.
  EXPECT_EQ(slurp(logs + "/run1/attempt_0/0/stdout.log"), "[rank0]: first\n[rank0]: second\n");
  EXPECT_EQ(slurp(logs + "/run1/attempt_0/1/stdout.log"), "[rank1]: first\n[rank1]: second\n");
  EXPECT_EQ(slurp(logs + "/run1/attempt_0/1/stderr.log"), "[rank1]: to stderr\n");
  EXPECT_EQ(r.out.find("[rank0]: first"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[rank1]: first"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace ember::distributed
