// Seed 004's DDP programs with 2 real processes: what each rank prints (the
// lines of the seed's output, per rank, since the ranks run at once), the
// 45 + 45 split of the 90 samples, and identical parameters on both ranks
// after the DDP steps.

#include "examples/ddp_demo.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "data/sampler.h"
#include "distributed/tcp_store.h"
#include "distributed/testing/multiprocess.h"
#include "examples/expected_output.h"
#include "serialize/checkpoint.h"
#include "tensor/all.h"

namespace ember::examples {
namespace {

namespace dist = distributed;
using std::chrono::milliseconds;

constexpr int kWorldSize = 2;
// Well inside the test's 60 s: a lost rank fails its collective first.
constexpr milliseconds kStoreTimeout{15000};
constexpr milliseconds kProcessTimeout{25000};

// What one rank printed and, when its demo returned one, its state dict.
struct RankResult {
  std::vector<std::string> lines;
  nn::NamedTensors state;
};

// Runs fn(rank, out) in kWorldSize processes. A forked child's memory dies
// with it, so each child leaves its output and state dict in files under
// `dir` for the parent to read back.
std::vector<RankResult> run_ranks(
    const std::string& dir,
    const std::function<nn::NamedTensors(int rank, std::ostream& out)>& fn) {
  auto out_path = [&](int rank) { return dir + "/rank" + std::to_string(rank) + ".out"; };
  auto state_path = [&](int rank) { return dir + "/rank" + std::to_string(rank) + ".safetensors"; };
  auto results = dist::testing::run_processes(
      kWorldSize,
      [&](int rank) {
        setenv("GLOO_SOCKET_IFNAME", "lo", 1);
        std::ostringstream out;
        nn::NamedTensors state = fn(rank, out);
        std::ofstream(out_path(rank)) << out.str();
        if (!state.empty()) save(state, state_path(rank));
      },
      kProcessTimeout);
  EXPECT_TRUE(dist::testing::all_succeeded(results));
  std::vector<RankResult> ranks(kWorldSize);
  for (int r = 0; r < kWorldSize; ++r) {
    std::ifstream in(out_path(r));
    ranks[r].lines = lines_of(in);
    if (access(state_path(r).c_str(), F_OK) == 0) ranks[r].state = load(state_path(r));
  }
  return ranks;
}

::testing::AssertionResult identical(const nn::NamedTensors& a, const nn::NamedTensors& b) {
  if (a.empty() || a.size() != b.size()) {
    return ::testing::AssertionFailure() << a.size() << " vs " << b.size() << " tensors";
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].first != b[i].first) {
      return ::testing::AssertionFailure() << a[i].first << " vs " << b[i].first;
    }
    if (!equal(a[i].second, b[i].second)) {
      return ::testing::AssertionFailure() << a[i].first << ":\n"
                                           << a[i].second << "\nvs\n" << b[i].second;
    }
  }
  return ::testing::AssertionSuccess();
}

class DdpDemoTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = dist::testing::make_temp_dir(); }
  void TearDown() override { dist::testing::remove_tree(dir_); }
  std::string dir_;
};

// Each rank reads half of the 90 samples: 45 in the order of one shared
// permutation, with no sample read twice.
TEST(DistributedSamplerSplit, FortyFivePlusFortyFive) {
  std::set<int64_t> seen;
  for (int rank = 0; rank < kWorldSize; ++rank) {
    std::vector<int64_t> indices = data::DistributedSampler(90, kWorldSize, rank).indices();
    EXPECT_EQ(indices.size(), 45u);
    seen.insert(indices.begin(), indices.end());
  }
  EXPECT_EQ(seen.size(), 90u);
}

// As under torch.distributed.launch: the test plays the launcher, running
// the store on a free port, and the ranks join through env://.
TEST_F(DdpDemoTest, DistributedSamplerDemoPrintsTheSeedsBatches) {
  dist::TCPStoreOptions o;
  o.port = 0;
  o.is_server = true;
  dist::TCPStore server("127.0.0.1", o);
  const std::string port = std::to_string(server.port());

  std::vector<RankResult> ranks = run_ranks(dir_, [&](int rank, std::ostream& out) {
    setenv("MASTER_ADDR", "127.0.0.1", 1);
    setenv("MASTER_PORT", port.c_str(), 1);
    setenv("WORLD_SIZE", std::to_string(kWorldSize).c_str(), 1);
    setenv("RANK", std::to_string(rank).c_str(), 1);
    setenv("TORCHELASTIC_USE_AGENT_STORE", "True", 1);
    dist::InitOptions init;
    init.timeout = kStoreTimeout;
    distributed_sampler_demo(init, out);
    return nn::NamedTensors{};
  });

  // 45 samples per rank in batches of 30: one of 30, then the other 15.
  EXPECT_EQ(ranks[0].lines,
            (std::vector<std::string>{
                "the number of cpu threads: 1",
                "Let's use 2 processes!",
                "Model 0, input size: torch.Size([30, 5]), output size: torch.Size([30, 2])",
                "Model 0, input size: torch.Size([15, 5]), output size: torch.Size([15, 2])",
            }));
  EXPECT_EQ(ranks[1].lines,
            (std::vector<std::string>{
                "the number of cpu threads: 1",
                "Model 1, input size: torch.Size([30, 5]), output size: torch.Size([30, 2])",
                "Model 1, input size: torch.Size([15, 5]), output size: torch.Size([15, 2])",
            }));
}

dist::InitOptions file_init(const std::string& path) {
  dist::InitOptions init;
  init.init_method = "file://" + path;
  init.timeout = kStoreTimeout;
  return init;
}

TEST_F(DdpDemoTest, DemoBasicTrainsOneModel) {
  std::vector<RankResult> ranks = run_ranks(dir_, [&](int rank, std::ostream& out) {
    return demo_basic(rank, kWorldSize, file_init(dir_ + "/store"), out);
  });
  for (int r = 0; r < kWorldSize; ++r) {
    EXPECT_EQ(ranks[r].lines, (std::vector<std::string>{"Running basic DDP example on rank " +
                                                        std::to_string(r) + "."}));
  }
  EXPECT_EQ(ranks[0].state.size(), 4u);  // module.net1.weight, .bias, module.net2.weight, .bias
  EXPECT_TRUE(identical(ranks[0].state, ranks[1].state));
}

TEST_F(DdpDemoTest, DemoCheckpointTrainsOneModelAndRemovesTheFile) {
  const std::string checkpoint = dir_ + "/model.checkpoint";
  std::vector<RankResult> ranks = run_ranks(dir_, [&](int rank, std::ostream& out) {
    return demo_checkpoint(rank, kWorldSize, file_init(dir_ + "/store"), checkpoint, out);
  });
  for (int r = 0; r < kWorldSize; ++r) {
    EXPECT_EQ(ranks[r].lines, (std::vector<std::string>{"Running DDP checkpoint example on rank " +
                                                        std::to_string(r) + "."}));
  }
  ASSERT_EQ(ranks[0].state.size(), 4u);
  EXPECT_EQ(ranks[0].state[0].first, "module.net1.weight");
  EXPECT_TRUE(identical(ranks[0].state, ranks[1].state));
  EXPECT_NE(access(checkpoint.c_str(), F_OK), 0) << "rank 0 did not remove " << checkpoint;
}

}  // namespace
}  // namespace ember::examples
