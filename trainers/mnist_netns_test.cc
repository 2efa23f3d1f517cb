// Issue 21's multi-node case on one machine: two network namespaces joined
// by a veth pair stand for two hosts (distributed/testing/netns.h), each
// runs //distributed:launch with --nnodes=2 and its --node_rank, and the
// two launchers run one mnist job of 2 nodes x 2 processes over gloo
// across the veth pair (EMBER_GLOO_SHM=0: the namespaces share /dev/shm,
// two hosts would not). Needs root; skips saying why without it.

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

// The loss of "Train Epoch: 1 \tLoss: X" in out (NaN when absent).
double epoch_loss(const std::string& out) {
  const std::string tag = "Train Epoch: 1 \tLoss: ";
  const size_t at = out.find(tag);
  return at == std::string::npos ? NAN : std::stod(out.substr(at + tag.size()));
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
      std::vector<std::string> args = {dt::TwoHosts::ip_tool(),
                                       "netns",
                                       "exec",
                                       hosts.ns(h),
                                       "env",
                                       "GLOO_SOCKET_IFNAME=" + hosts.dev(h),
                                       "EMBER_GLOO_SHM=0",
                                       "distributed/launch",
                                       "--nnodes=2",
                                       "--node_rank=" + std::to_string(h),
                                       "--nproc_per_node=2",
                                       "--master_addr=" + hosts.addr(0),
                                       "--master_port=" + port};
      args.insert(args.end(), kJob.begin(), kJob.end());
      node[h] = dt::run_program(args, std::chrono::seconds(120));
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
  std::vector<std::string> one = {"distributed/launch", "--nproc_per_node=4", "--master_port=0"};
  one.insert(one.end(), kJob.begin(), kJob.end());
  const dt::ProgramRun single = dt::run_program(one, std::chrono::seconds(120));
  ASSERT_TRUE(WIFEXITED(single.status) && WEXITSTATUS(single.status) == 0) << single.out;
  EXPECT_NEAR(epoch_loss(node[0].out), epoch_loss(single.out), 1e-4)
      << node[0].out << "\n----\n" << single.out;
}

}  // namespace
}  // namespace ember::trainers
