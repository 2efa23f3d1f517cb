// Issue 21's multi-node cases on one machine: two network namespaces joined
// by a veth pair stand for two hosts (distributed/testing/netns.h). Two
// launchers (--nnodes=2, one per node, started as Slurm's one task per node
// would be), or four Slurm tasks without a launcher, run one mnist job of 2
// nodes x 2 processes over gloo across the veth pair (EMBER_GLOO_SHM=0: the
// namespaces share /dev/shm, two hosts would not). Needs root; skips saying
// why without it.

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "distributed/testing/multiprocess.h"
#include "distributed/testing/netns.h"

namespace ember::trainers {
namespace {

namespace dt = ember::distributed::testing;

const std::vector<std::string> kJob = {"trainers/mnist",  "--train_limit=256", "--test_limit=64",
                                       "--epochs=1",      "--num_workers=0",   "--batch_size=32",
                                       "--threads=1",     "--progress=false"};

// The command line that runs `rest` on host h: in its namespace, gloo on
// its veth end, shared memory off (the namespaces share /dev/shm).
std::vector<std::string> on_host(const dt::TwoHosts& hosts, int h,
                                 std::initializer_list<std::string> env,
                                 const std::vector<std::string>& rest) {
  std::vector<std::string> args = {dt::TwoHosts::ip_tool(),
                                   "netns",
                                   "exec",
                                   hosts.ns(h),
                                   "env",
                                   "GLOO_SOCKET_IFNAME=" + hosts.dev(h),
                                   "EMBER_GLOO_SHM=0"};
  args.insert(args.end(), env.begin(), env.end());
  args.insert(args.end(), rest.begin(), rest.end());
  return args;
}

// The loss of "Train Epoch: 1 \tLoss: X" in out (NaN when absent).
double epoch_loss(const std::string& out) {
  const std::string tag = "Train Epoch: 1 \tLoss: ";
  const size_t at = out.find(tag);
  return at == std::string::npos ? NAN : std::stod(out.substr(at + tag.size()));
}

// The same job as four processes of one launcher on this host.
dt::ProgramRun four_processes_on_one_host() {
  std::vector<std::string> one = {"distributed/launch", "--nproc_per_node=4", "--master_port=0"};
  one.insert(one.end(), kJob.begin(), kJob.end());
  return dt::run_program(one, std::chrono::seconds(120));
}

TEST(MnistTwoNodes, TwoLaunchersInTwoNamespacesRunOneJob) {
  dt::TwoHosts hosts;
  if (!hosts.why_not().empty()) {
    GTEST_SKIP() << "two-host test skipped: " << hosts.why_not()
                 << " (needs root and network namespaces)";
  }
  // A fresh namespace has every port free.
  const std::string port = std::to_string(20000 + getpid() % 20000);
  dt::ProgramRun node[2];
  std::thread threads[2];
  for (int h = 0; h < 2; ++h) {
    threads[h] = std::thread([&, h] {
      std::vector<std::string> launch = {"distributed/launch",
                                         "--nnodes=2",
                                         "--node_rank=" + std::to_string(h),
                                         "--nproc_per_node=2",
                                         "--master_addr=" + hosts.addr(0),
                                         "--master_port=" + port};
      launch.insert(launch.end(), kJob.begin(), kJob.end());
      // As `srun --ntasks-per-node=1 launch ...` starts it: the workers'
      // RANK and WORLD_SIZE from the launcher win over the task's Slurm
      // variables.
      node[h] = dt::run_program(
          on_host(hosts, h,
                  {"SLURM_PROCID=" + std::to_string(h), "SLURM_NTASKS=2",
                   "SLURM_NODEID=" + std::to_string(h), "SLURM_JOB_NODELIST=" + hosts.addr(0)},
                  launch),
          std::chrono::seconds(120));
    });
  }
  for (auto& t : threads) t.join();
  for (int h = 0; h < 2; ++h) {
    ASSERT_TRUE(WIFEXITED(node[h].status)) << "node " << h << ":\n" << node[h].out;
    EXPECT_EQ(WEXITSTATUS(node[h].status), 0) << "node " << h << ":\n" << node[h].out;
  }
  // Global ranks 0, 1 on node 0 and 2, 3 on node 1; rank 0 reports.
  EXPECT_NE(node[0].out.find("[rank0]: Train Epoch: 1"), std::string::npos) << node[0].out;
  EXPECT_NE(node[1].out.find("[rank2]: "), std::string::npos) << node[1].out;
  EXPECT_NE(node[1].out.find("[rank3]: "), std::string::npos) << node[1].out;
  EXPECT_EQ(node[1].out.find("Train Epoch"), std::string::npos) << node[1].out;

  // The same job as four processes on one host: the same figures (up to
  // the order of gloo's sums).
  const dt::ProgramRun single = four_processes_on_one_host();
  ASSERT_TRUE(WIFEXITED(single.status) && WEXITSTATUS(single.status) == 0) << single.out;
  EXPECT_NEAR(epoch_loss(node[0].out), epoch_loss(single.out), 1e-4)
      << node[0].out << "\n----\n" << single.out;
}

// `srun ./mnist` on two hosts, two tasks each (Note [Slurm without a
// launcher]): four processes with Slurm's variables only; the master is the
// first host of SLURM_JOB_NODELIST (here node 0's address, in hostlist
// syntax) and the port comes from SLURM_JOB_ID.
TEST(MnistTwoNodes, SlurmTasksWithoutALauncher) {
  dt::TwoHosts hosts;
  if (!hosts.why_not().empty()) {
    GTEST_SKIP() << "two-host test skipped: " << hosts.why_not()
                 << " (needs root and network namespaces)";
  }
  const std::string a0 = hosts.addr(0);
  const std::string prefix = a0.substr(0, a0.rfind('.') + 1);  // "10.231.x."
  const std::string nodelist = prefix + "[1-2]";
  const std::string job_id = std::to_string(4000 + getpid() % 5000);
  dt::ProgramRun task[4];
  std::vector<std::thread> threads;
  for (int r = 0; r < 4; ++r) {
    threads.emplace_back([&, r] {
      const int h = r / 2;  // tasks 0, 1 on node 0; 2, 3 on node 1
      task[r] = dt::run_program(
          on_host(hosts, h,
                  {"SLURM_PROCID=" + std::to_string(r), "SLURM_NTASKS=4",
                   "SLURM_LOCALID=" + std::to_string(r % 2), "SLURM_NODEID=" + std::to_string(h),
                   "SLURM_NTASKS_PER_NODE=2", "SLURM_JOB_NODELIST=" + nodelist,
                   "SLURM_JOB_ID=" + job_id},
                  kJob),
          std::chrono::seconds(120));
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < 4; ++r) {
    ASSERT_TRUE(WIFEXITED(task[r].status)) << "task " << r << ":\n" << task[r].out;
    EXPECT_EQ(WEXITSTATUS(task[r].status), 0) << "task " << r << ":\n" << task[r].out;
  }
  // Task 0 reports; the job is the four-rank one of the launchers above.
  EXPECT_NE(task[0].out.find("Train Epoch: 1"), std::string::npos) << task[0].out;
  for (int r = 1; r < 4; ++r) {
    EXPECT_EQ(task[r].out.find("Train Epoch"), std::string::npos) << task[r].out;
  }
  const dt::ProgramRun single = four_processes_on_one_host();
  ASSERT_TRUE(WIFEXITED(single.status) && WEXITSTATUS(single.status) == 0) << single.out;
  EXPECT_NEAR(epoch_loss(task[0].out), epoch_loss(single.out), 1e-4);
}

// Note [Elastic rendezvous] across two hosts: node 0 starts alone
// (--nnodes=1:2, c10d at its own address), checkpoints, and when node 1
// arrives later both launchers meet in the next round: the job goes on with
// 4 ranks from the checkpoint and ends on both nodes.
TEST(MnistTwoNodes, ALateNodeJoinsAnElasticJob) {
  dt::TwoHosts hosts;
  if (!hosts.why_not().empty()) {
    GTEST_SKIP() << "two-host test skipped: " << hosts.why_not()
                 << " (needs root and network namespaces)";
  }
  const std::string tmp = dt::make_temp_dir();
  const std::string port = std::to_string(20000 + getpid() % 20000);
  std::vector<std::string> launch = {"distributed/launch",
                                     "--nnodes=1:2",
                                     "--rdzv_backend=c10d",
                                     "--rdzv_endpoint=" + hosts.addr(0) + ":" + port,
                                     "--rdzv_conf=last_call_timeout=0.5",
                                     "--nproc_per_node=2",
                                     "trainers/mnist",
                                     "--train_limit=512",
                                     "--test_limit=64",
                                     "--epochs=20",
                                     "--num_workers=0",
                                     "--batch_size=32",
                                     "--threads=1",
                                     "--progress=false",
                                     "--checkpoint_dir=" + tmp,
                                     "--keep_checkpoints=1"};
  dt::ProgramRun node[2];
  std::thread first([&] {
    node[0] = dt::run_program(on_host(hosts, 0, {}, launch), std::chrono::seconds(180));
  });
  // Node 1 once node 0 has saved a checkpoint alone.
  for (int i = 0; i < 30000 && access((tmp + "/epoch_1.safetensors").c_str(), F_OK) != 0 &&
                  access((tmp + "/epoch_2.safetensors").c_str(), F_OK) != 0;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::thread second([&] {
    node[1] = dt::run_program(on_host(hosts, 1, {}, launch), std::chrono::seconds(180));
  });
  first.join();
  second.join();
  for (int h = 0; h < 2; ++h) {
    ASSERT_TRUE(WIFEXITED(node[h].status)) << "node " << h << ":\n" << node[h].out;
    EXPECT_EQ(WEXITSTATUS(node[h].status), 0) << "node " << h << ":\n" << node[h].out;
  }
  EXPECT_NE(node[0].out.find("[launch] round 0: node 0 of 1"), std::string::npos) << node[0].out;
  EXPECT_NE(node[0].out.find("a node is waiting to join"), std::string::npos) << node[0].out;
  // Both nodes in one later round of 2, resuming from node 0's checkpoint.
  EXPECT_NE(node[1].out.find(" of 2\n"), std::string::npos) << node[1].out;
  EXPECT_NE((node[0].out + node[1].out).find("[rank0]: Resumed from " + tmp + "/epoch_"),
            std::string::npos)
      << node[0].out << node[1].out;
  EXPECT_EQ(access((tmp + "/epoch_20.safetensors").c_str(), F_OK), 0);
  dt::remove_tree(tmp);
}

}  // namespace
}  // namespace ember::trainers
