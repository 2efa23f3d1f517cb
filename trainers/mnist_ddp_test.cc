// The MNIST trainer data-parallel (Note [Data-parallel MNIST]): two ranks
// in real processes over gloo, rank 0 reporting and checkpointing, its
// checkpoint resuming a single-process run, and the trainer binary under
// //distributed:launch.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "distributed/gloo_test_util.h"
#include "distributed/testing/multiprocess.h"
#include "serialize/checkpoint.h"
#include "tensor/cuda/cuda.h"
#include "trainers/mnist_train.h"

namespace ember {
namespace trainers {
namespace {

namespace dist = distributed;
using dist::testing::ProgramRun;
using dist::testing::read_file;
using dist::testing::run_program;
using std::chrono::milliseconds;

MnistConfig small() {
  MnistConfig c;
  c.train_limit = 1024;
  c.test_limit = 512;
  c.num_workers = 0;
  c.threads = 1;
  c.batch_size = 32;  // per rank
  c.epochs = 1;
  return c;
}

TEST(MnistDataParallelTest, TwoRanksTrainRankZeroReportsAndCheckpoints) {
  const std::string dir = dist::testing::make_temp_dir();
  dist::testing::run_world(
      2,
      [&](int rank, int) {
        MnistConfig c = small();
        c.checkpoint_dir = dir + "/ckpt";
        std::ostringstream out;
        auto epochs = train_mnist(c, out);
        ASSERT_EQ(epochs.size(), 1u);
        // 16 steps of 2 x 32 images are far above chance (10%); every rank
        // returns rank 0's figures.
        EXPECT_GT(epochs[0].accuracy, 35.0) << out.str();
        std::ofstream(dir + "/figures" + std::to_string(rank))
            << epochs[0].train_loss << " " << epochs[0].test_loss << " " << epochs[0].accuracy;
        if (rank == 0) {
          EXPECT_NE(out.str().find("Train Epoch: 1 \tLoss: "), std::string::npos) << out.str();
          EXPECT_NE(out.str().find("Test set: Average loss: "), std::string::npos) << out.str();
        } else {
          EXPECT_EQ(out.str(), "");
        }
      },
      milliseconds(120000));
  ASSERT_FALSE(::testing::Test::HasFailure());
  EXPECT_EQ(read_file(dir + "/figures0"), read_file(dir + "/figures1"));

  // Rank 0's checkpoint holds the plain model's keys: a single-process run
  // resumes from it.
  Checkpoint ckpt = Checkpoint::load(dir + "/ckpt/epoch_1.safetensors");
  ASSERT_TRUE(ckpt.has_state_dict("model"));
  EXPECT_EQ(ckpt.state_dict("model").front().first, "conv1.weight");
  MnistConfig r = small();
  r.epochs = 2;
  r.resume = dir + "/ckpt/epoch_1.safetensors";
  std::ostringstream out;
  auto resumed = train_mnist(r, out);
  ASSERT_EQ(resumed.size(), 1u);
  EXPECT_EQ(resumed[0].epoch, 2);
  EXPECT_NE(out.str().find("Resumed from"), std::string::npos) << out.str();
  dist::testing::remove_tree(dir);
}

// `launch --nproc_per_node=2 trainers/mnist ...`: both ranks train, rank 0
// alone prints the seed's lines (prefixed by the launcher), exit code 0.
// Two ranks on the GPU all-reduce over gloo through host copies (Note
// [Gloo and device tensors]) and end where two CPU ranks end, up to float
// rounding. The parent never touches CUDA (a forked child could not use a
// runtime its parent initialized): the ranks look for a device themselves.
TEST(MnistDataParallelTest, CudaRanksTrainLikeCpuRanks) {
  const std::string dir = dist::testing::make_temp_dir();
  for (const std::string device : {"cpu", "cuda"}) {
    dist::testing::run_world(
        2,
        [&](int rank, int) {
          if (device == "cuda" && !cuda::is_available()) {
            std::ofstream(dir + "/no_gpu");
            return;
          }
          MnistConfig c = small();
          c.device = device;
          std::ostringstream out;
          auto epochs = train_mnist(c, out);
          ASSERT_EQ(epochs.size(), 1u);
          if (rank == 0) {
            std::ofstream(dir + "/" + device)
                << epochs[0].train_loss << " " << epochs[0].test_loss << " " << epochs[0].accuracy;
          }
        },
        milliseconds(120000));
  }
  const bool skip = std::ifstream(dir + "/no_gpu").good();
  double cpu[3], gpu[3];
  if (!skip) {
    std::istringstream c(read_file(dir + "/cpu")), g(read_file(dir + "/cuda"));
    c >> cpu[0] >> cpu[1] >> cpu[2];
    g >> gpu[0] >> gpu[1] >> gpu[2];
  }
  dist::testing::remove_tree(dir);
  if (skip) GTEST_SKIP() << "no usable CUDA device on this machine";
  EXPECT_NEAR(gpu[0], cpu[0], 1e-3);
  EXPECT_NEAR(gpu[1], cpu[1], 1e-4);
  EXPECT_NEAR(gpu[2], cpu[2], 0.5);
}

TEST(MnistDataParallelTest, TimeoutFlagMustBePositive) {
  ProgramRun run = run_program({"trainers/mnist", "--nproc=2", "--timeout=0"},
                               std::chrono::seconds(30));
  ASSERT_TRUE(WIFEXITED(run.status)) << run.out;
  EXPECT_EQ(WEXITSTATUS(run.status), 1) << run.out;
  EXPECT_NE(run.out.find("--timeout must be a positive number of seconds, got 0"),
            std::string::npos)
      << run.out;
}

// Processes of process group `pgid` that are not zombies.
int live_members(pid_t pgid) {
  int n = 0;
  DIR* d = opendir("/proc");
  if (d == nullptr) return 0;
  while (dirent* e = readdir(d)) {
    std::ifstream f(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    if (!std::getline(f, line)) continue;
    const size_t paren = line.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream rest(line.substr(paren + 2));
    char state = 0;
    long ppid = 0, pgrp = 0;
    rest >> state >> ppid >> pgrp;
    if (pgrp == pgid && state != 'Z' && state != 'X') ++n;
  }
  closedir(d);
  return n;
}

// `mnist --nproc=2` interrupted by any signal (a SIGKILL included) leaves
// no process and no file behind: its ranks meet in a store the parent
// serves, not in a folder under TMPDIR.
TEST(MnistDataParallelTest, SignalledParentLeavesNothingBehind) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGKILL}) {
    const std::string tmp = dist::testing::make_temp_dir();
    pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      int fd = open("/dev/null", O_WRONLY);
      dup2(fd, 1);
      dup2(fd, 2);
      setenv("GLOO_SOCKET_IFNAME", "lo", 1);
      setenv("TMPDIR", tmp.c_str(), 1);
      execl("trainers/mnist", "trainers/mnist", "--nproc=2", "--epochs=1000",
            "--train_limit=256", "--test_limit=64", "--num_workers=0", "--batch_size=32",
            static_cast<char*>(nullptr));
      _exit(126);
    }
    ASSERT_GT(pid, 0);
    setpgid(pid, pid);
    std::this_thread::sleep_for(milliseconds(1500));  // the ranks are training
    kill(pid, sig);  // the parent only, as a terminal or a scheduler would
    int status = 0;
    waitpid(pid, &status, 0);
    // Its ranks follow it (PR_SET_PDEATHSIG); nothing of the group remains.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (live_members(pid) > 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(10));
    }
    EXPECT_EQ(live_members(pid), 0) << "processes of the run outlived it (signal " << sig << ")";
    kill(-pid, SIGKILL);
    std::vector<std::string> left;
    if (DIR* d = opendir(tmp.c_str())) {
      while (dirent* e = readdir(d)) {
        const std::string name = e->d_name;
        if (name != "." && name != "..") left.push_back(name);
      }
      closedir(d);
    }
    EXPECT_EQ(left, std::vector<std::string>{}) << "signal " << sig;
    dist::testing::remove_tree(tmp);
  }
}

TEST(MnistDataParallelTest, RunsUnderTheLauncher) {
  ProgramRun run = run_program(
      {"distributed/launch", "--nproc_per_node=2", "--master_port=0", "trainers/mnist",
       "--train_limit=256", "--test_limit=128", "--epochs=1", "--num_workers=0",
       "--batch_size=32"},
      std::chrono::seconds(120));
  const std::string& out = run.out;
  ASSERT_TRUE(WIFEXITED(run.status)) << out;
  EXPECT_EQ(WEXITSTATUS(run.status), 0) << out;
  EXPECT_NE(out.find("[rank0]: Train Epoch: 1 \tLoss: "), std::string::npos) << out;
  EXPECT_NE(out.find("[rank0]: Test set: Average loss: "), std::string::npos) << out;
  EXPECT_EQ(out.find("[rank1]: Train Epoch"), std::string::npos) << out;
}

// The pid of a running process whose command line has `cmd` and whose
// environment has every one of `env` ("NAME=value"), or -1 (found through
// /proc: the launchers' children are not this process's).
pid_t find_process(const std::string& cmd, const std::vector<std::string>& env = {}) {
  DIR* d = opendir("/proc");
  if (d == nullptr) return -1;
  pid_t found = -1;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string line = read_file("/proc/" + name + "/cmdline");
    std::replace(line.begin(), line.end(), '\0', ' ');
    if (line.find(cmd) == std::string::npos) continue;
    const std::string environ = '\0' + read_file("/proc/" + name + "/environ");
    bool all = true;
    for (const auto& kv : env) all = all && environ.find('\0' + kv + '\0') != std::string::npos;
    if (all) {
      found = static_cast<pid_t>(std::stol(name));
      break;
    }
  }
  closedir(d);
  return found;
}

pid_t find_worker(const std::string& rank, const std::string& restart) {
  return find_process("trainers/mnist", {"RANK=" + rank, "TORCHELASTIC_RESTART_COUNT=" + restart});
}

// issue 21: a rank killed mid-run makes the launcher restart the group
// (--max_restarts), the restarted trainers resume from the latest
// checkpoint by themselves (--auto_resume is on under a launcher), and the
// job ends with the parameters of an uninterrupted run.
TEST(MnistDataParallelTest, KilledRankRestartsAndResumesToTheSameParameters) {
  const std::string tmp = dist::testing::make_temp_dir();
  auto run = [&](const std::string& dir, bool kill_rank1) {
    std::string why;
    std::thread killer;
    std::atomic<bool> done{false};
    if (kill_rank1) {
      killer = std::thread([&] {
        // Once epoch 1 is saved, rank 1 dies somewhere in epoch 2 or 3.
        while (!done && access((dir + "/epoch_1.safetensors").c_str(), F_OK) != 0) {
          std::this_thread::sleep_for(milliseconds(2));
        }
        pid_t pid = -1;
        for (int i = 0; i < 2000 && !done && pid < 0; ++i) {
          pid = find_worker("1", "0");
          if (pid < 0) std::this_thread::sleep_for(milliseconds(1));
        }
        if (pid < 0) {
          why = "rank 1 was gone before it could be killed";
        } else {
          ::kill(pid, SIGKILL);
        }
      });
    }
    ProgramRun r = run_program(
        {"distributed/launch", "--nproc_per_node=2", "--master_port=0", "--max_restarts=1",
         "trainers/mnist", "--train_limit=512", "--test_limit=64", "--epochs=4",
         "--num_workers=0", "--batch_size=32", "--threads=1", "--progress=false",
         "--checkpoint_dir=" + dir, "--keep_checkpoints=0"},
        std::chrono::seconds(180));
    done = true;
    if (killer.joinable()) killer.join();
    EXPECT_EQ(why, "");
    return r;
  };
  const ProgramRun whole = run(tmp + "/whole", false);
  ASSERT_TRUE(WIFEXITED(whole.status) && WEXITSTATUS(whole.status) == 0) << whole.out;
  EXPECT_EQ(whole.out.find("Resumed from"), std::string::npos) << whole.out;
  const ProgramRun killed = run(tmp + "/killed", true);
  ASSERT_TRUE(WIFEXITED(killed.status) && WEXITSTATUS(killed.status) == 0) << killed.out;
  EXPECT_NE(killed.out.find("restarting the workers (restart 1 of 1)"), std::string::npos)
      << killed.out;
  EXPECT_NE(killed.out.find("[rank0]: Resumed from " + tmp + "/killed/epoch_"), std::string::npos)
      << killed.out;
  const NamedTensors a = Checkpoint::load(tmp + "/whole/epoch_4.safetensors").tensors();
  const NamedTensors b = Checkpoint::load(tmp + "/killed/epoch_4.safetensors").tensors();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first);
    EXPECT_TRUE(a[i].second.equal(b[i].second)) << a[i].first;
  }
  dist::testing::remove_tree(tmp);
}

// The highest N of the epoch_N.safetensors files in dir (0: none).
int last_checkpoint(const std::string& dir) {
  int last = 0;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      int n = 0;
      char tail[32] = {0};
      if (std::sscanf(e->d_name, "epoch_%d.%31s", &n, tail) == 2 &&
          std::string(tail) == "safetensors") {
        last = std::max(last, n);
      }
    }
    closedir(d);
  }
  return last;
}

// Note [Elastic rendezvous]: two launchers (--nnodes=1:2, c10d) run one
// job (node a alone until node b arrives, then 4 ranks, resuming from
// node a's checkpoints); node b's launcher is SIGKILLed once the 4 ranks
// have written a checkpoint (taking its workers with it); node a's workers
// fail, its launcher rejoins, the round closes with node a alone, and its
// trainers resume from the checkpoint and finish with 2 ranks.
//
// The kill waits for the 4-rank round's own checkpoint: killed before its
// workers join the process group, node b would leave node a's workers
// waiting in init_process_group until their timeout (as torchrun's would),
// which is not what this test is about. On a fast host node a finishes an
// epoch alone before node b's arrival stops it.
TEST(MnistDataParallelTest, SurvivingNodeGoesOnWhenAnotherNodesLauncherDies) {
  const std::string tmp = dist::testing::make_temp_dir();
  const std::string port = std::to_string(dist::testing::free_port());
  auto node = [&](const std::string& role) {
    return std::vector<std::string>{"distributed/launch",
                                    "--nnodes=1:2",
                                    "--rdzv_backend=c10d",
                                    "--rdzv_endpoint=127.0.0.1:" + port,
                                    "--rdzv_conf=last_call_timeout=0.5",
                                    "--nproc_per_node=2",
                                    "--max_restarts=1",
                                    "--role=" + role,
                                    "trainers/mnist",
                                    "--train_limit=512",
                                    "--test_limit=64",
                                    "--epochs=8",
                                    "--num_workers=0",
                                    "--batch_size=32",
                                    "--threads=1",
                                    "--progress=false",
                                    "--checkpoint_dir=" + tmp,
                                    "--keep_checkpoints=0"};
  };
  ProgramRun a, b;
  // Node a first, so that it hosts the store (the host must stay).
  std::thread ta([&] { a = run_program(node("a"), std::chrono::seconds(180)); });
  for (int i = 0; i < 5000 && find_process("trainers/mnist", {"ROLE_NAME=a"}) < 0; ++i) {
    std::this_thread::sleep_for(milliseconds(2));
  }
  std::thread tb([&] { b = run_program(node("b"), std::chrono::seconds(180)); });
  std::string why;
  {
    // Node b's workers run only in the 4-rank round (node a stopped its
    // own to join it): a checkpoint newer than any when they appeared is
    // that round's.
    int before = -1;
    for (int i = 0; i < 30000 && before < 0; ++i) {
      if (find_process("trainers/mnist", {"ROLE_NAME=b"}) >= 0) {
        before = last_checkpoint(tmp);
      } else {
        std::this_thread::sleep_for(milliseconds(2));
      }
    }
    for (int i = 0; i < 30000 && before >= 0 && last_checkpoint(tmp) <= before; ++i) {
      std::this_thread::sleep_for(milliseconds(2));
    }
    pid_t victim = -1;
    // The launcher whose command line says --role=b.
    for (int i = 0; i < 500 && victim < 0; ++i) {
      victim = find_process("--role=b");
      if (victim < 0) std::this_thread::sleep_for(milliseconds(2));
    }
    if (before < 0) {
      why = "node b's workers never started";
    } else if (victim < 0) {
      why = "node b's launcher was gone before it could be killed";
    } else {
      ::kill(victim, SIGKILL);
    }
  }
  ta.join();
  tb.join();
  EXPECT_EQ(why, "");
  ASSERT_TRUE(WIFEXITED(a.status)) << a.out;
  EXPECT_EQ(WEXITSTATUS(a.status), 0) << a.out;
  EXPECT_TRUE(WIFSIGNALED(b.status) && WTERMSIG(b.status) == SIGKILL) << b.out;
  EXPECT_NE(a.out.find("[launch] restarting the workers (restart 1 of 1)"), std::string::npos)
      << a.out;
  // After the restart, node a runs a round alone (which round depends on
  // whether node b arrived before node a's first round closed).
  const size_t restart = a.out.find("[launch] restarting the workers");
  EXPECT_NE(a.out.find(": node 0 of 1", restart == std::string::npos ? 0 : restart),
            std::string::npos)
      << a.out;
  EXPECT_NE(a.out.find("Resumed from " + tmp + "/epoch_"), std::string::npos) << a.out;
  EXPECT_EQ(access((tmp + "/epoch_8.safetensors").c_str(), F_OK), 0);
  dist::testing::remove_tree(tmp);
}

// `mnist --nproc=2 --device=cuda`: the binary forks its ranks, so its parent
// must not have touched CUDA (Note [CUDA after fork]); rank 0 prints the
// seed's first line once.
TEST(MnistDataParallelTest, ForkedRanksTrainOnTheGpu) {
  ProgramRun run = run_program({"trainers/mnist", "--nproc=2", "--device=cuda",
                                "--train_limit=256", "--test_limit=128", "--epochs=1",
                                "--num_workers=0", "--batch_size=32"},
                               std::chrono::seconds(120));
  const std::string& out = run.out;
  if (out.find("CUDA available: False") != std::string::npos) {
    GTEST_SKIP() << "no usable CUDA device on this machine";
  }
  ASSERT_TRUE(WIFEXITED(run.status)) << out;
  EXPECT_EQ(WEXITSTATUS(run.status), 0) << out;
  const size_t first = out.find("CUDA available: True\n");
  EXPECT_EQ(first, 0u) << out;
  EXPECT_EQ(out.find("CUDA available", first + 1), std::string::npos) << out;
  EXPECT_NE(out.find("Train Epoch: 1 \tLoss: "), std::string::npos) << out;
  EXPECT_NE(out.find("Test set: Average loss: "), std::string::npos) << out;
}

// `mnist --nproc=2 --device=cuda --backend=nccl`: one GPU per rank over
// NCCL. Without a GPU (or without NCCL) every rank fails with the reason;
// with one GPU it cannot run (NCCL refuses two ranks on one device).
TEST(MnistDataParallelTest, NcclRanks) {
  ProgramRun run = run_program({"trainers/mnist", "--nproc=2", "--device=cuda", "--backend=nccl",
                                "--train_limit=256", "--test_limit=128", "--epochs=1",
                                "--num_workers=0", "--batch_size=32"},
                               std::chrono::seconds(120));
  const std::string& out = run.out;
  ASSERT_TRUE(WIFEXITED(run.status)) << out;
  if (out.find("CUDA available: False") != std::string::npos) {
    EXPECT_NE(WEXITSTATUS(run.status), 0) << out;
    EXPECT_TRUE(out.find("ProcessGroupNCCL is only supported with GPUs, no GPUs found!") !=
                    std::string::npos ||
                out.find("Distributed package doesn't have NCCL built in") != std::string::npos)
        << out;
    return;
  }
  // Asking initializes CUDA here: keep this test after the ones that fork.
  if (cuda::device_count() < 2) GTEST_SKIP() << "NCCL needs a GPU per rank: two GPUs";
  EXPECT_EQ(WEXITSTATUS(run.status), 0) << out;
  EXPECT_NE(out.find("Train Epoch: 1 \tLoss: "), std::string::npos) << out;
  EXPECT_NE(out.find("Test set: Average loss: "), std::string::npos) << out;
}

}  // namespace
}  // namespace trainers
}  // namespace ember
