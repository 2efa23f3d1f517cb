// ProcessGroupGloo against values computed by hand, with real processes on
// 127.0.0.1 for world sizes 2, 3 and 4: every collective and P2P op, every
// dtype, contiguous and not, async forms, subgroups, argument errors and
// GLOO_SOCKET_IFNAME. Faults are in process_group_gloo_fault_test.cc.

#include "distributed/process_group_gloo.h"

#include <cstdlib>

#include <gtest/gtest.h>

#include "distributed/gloo_test_util.h"
#include "distributed/init.h"
#include "distributed/testing/multiprocess.h"
#include "tensor/all.h"

namespace ember::distributed {
namespace {

using testing::make_group;
using testing::tensors_equal;
using Ranks = std::function<void(ProcessGroupGloo& pg)>;

constexpr auto kTimeout = std::chrono::seconds(60);

// Runs fn on a group of `size` ranks, one process each.
void run_group(int size, const Ranks& fn, ProcessGroupGloo::Options options = {}) {
  const std::string dir = testing::make_temp_dir();
  auto results = testing::run_processes(
      size,
      [&](int rank) {
        auto pg = make_group(dir, rank, size, options);
        fn(*pg);
      },
      kTimeout);
  testing::remove_tree(dir);
  EXPECT_TRUE(testing::all_succeeded(results));
}

void wait(const std::shared_ptr<Work>& w) {
  EXPECT_TRUE(w->wait());
  EXPECT_TRUE(w->is_completed());
  EXPECT_EQ(w->exception(), nullptr);
}

using testing::check_every_op;
const Ranks everything = check_every_op;

TEST(ProcessGroupGloo, EveryOpWorldSize2) { run_group(2, everything); }
TEST(ProcessGroupGloo, EveryOpWorldSize3) { run_group(3, everything); }
TEST(ProcessGroupGloo, EveryOpWorldSize4) { run_group(4, everything); }

// The same ops with all_reduce over TCP instead of shared memory (Note
// [Same-host all-reduce]): both transports stay covered.
ProcessGroupGloo::Options tcp_only() {
  ProcessGroupGloo::Options o;
  o.shared_memory = false;
  return o;
}
TEST(ProcessGroupGloo, EveryOpOverTcpWorldSize2) { run_group(2, everything, tcp_only()); }
TEST(ProcessGroupGloo, EveryOpOverTcpWorldSize3) { run_group(3, everything, tcp_only()); }

TEST(ProcessGroupGloo, SharedMemoryOnOneHostUnlessARankSaysNo) {
  if (!testing::shared_memory_usable()) GTEST_SKIP() << "no POSIX shared memory here";
  run_group(3, [](ProcessGroupGloo& pg) { EXPECT_TRUE(pg.uses_shared_memory()); });
  run_group(3, [](ProcessGroupGloo& pg) { EXPECT_FALSE(pg.uses_shared_memory()); },
            tcp_only());
  // One rank without it: the whole group goes over TCP, and still works.
  const std::string dir = testing::make_temp_dir();
  auto results = testing::run_processes(
      3,
      [&](int rank) {
        if (rank == 1) setenv("EMBER_GLOO_SHM", "0", 1);
        auto pg = make_group(dir, rank, 3);
        EXPECT_FALSE(pg->uses_shared_memory());
        std::vector<Tensor> v{full({5}, rank + 1, kInt)};
        wait(pg->allreduce(v));
        EXPECT_TRUE(tensors_equal(v[0], full({5}, 6, kInt)));
      },
      kTimeout);
  testing::remove_tree(dir);
  EXPECT_TRUE(testing::all_succeeded(results));
}

// Several chunks of the shared segment, with a remainder that does not
// split evenly across 3 ranks, back to back (the slot sets alternate), in
// place and through a non-contiguous tensor; every dtype class; broadcasts
// of several chunks between them.
TEST(ProcessGroupGloo, SharedMemoryAllreduceAndBroadcastAcrossChunks) {
  if (!testing::shared_memory_usable()) GTEST_SKIP() << "no POSIX shared memory here";
  run_group(3, [](ProcessGroupGloo& pg) {
    ASSERT_TRUE(pg.uses_shared_memory());
    const int r = pg.rank();
    const int64_t n = (int64_t{4} << 20) / 4 * 2 + 12345;  // 2 chunks of 4 MiB floats + a tail
    for (int rep = 0; rep < 3; ++rep) {
      std::vector<Tensor> v{(arange(n, kFloat).remainder(1000) + r + rep)};
      wait(pg.allreduce(v));
      EXPECT_TRUE(tensors_equal(v[0], arange(n, kFloat).remainder(1000) * 3 + 3 + 3 * rep));
    }
    std::vector<Tensor> d{full({1000003}, 0.5 * (r + 1), kDouble)};
    AllreduceOptions avg;
    avg.op = ReduceOp::AVG;
    wait(pg.allreduce(d, avg));
    EXPECT_TRUE(tensors_equal(d[0], full({1000003}, 1.0, kDouble)));
    Tensor wide = full({700, 900}, r, kLong).t();  // non-contiguous
    std::vector<Tensor> w{wide};
    AllreduceOptions mx;
    mx.op = ReduceOp::MAX;
    wait(pg.allreduce(w, mx));
    EXPECT_TRUE(tensors_equal(w[0], full({900, 700}, 2, kLong)));
    std::vector<Tensor> h{full({3000001}, 1.0, kHalf)};
    wait(pg.allreduce(h));
    EXPECT_TRUE(tensors_equal(h[0], full({3000001}, 3.0, kHalf)));
    for (int root = 0; root < 3; ++root) {
      const int64_t m = (int64_t{9} << 20) / 8 + 7;  // 9 MiB of doubles and a bit
      Tensor expected = arange(m, kDouble) * (root + 1);
      std::vector<Tensor> b{r == root ? expected.clone() : zeros({m}, kDouble)};
      BroadcastOptions bo;
      bo.root = root;
      wait(pg.broadcast(b, bo));
      EXPECT_TRUE(tensors_equal(b[0], expected)) << "root " << root;
      std::vector<Tensor> one{full({5}, 1, kInt)};
      wait(pg.allreduce(one));
      EXPECT_TRUE(tensors_equal(one[0], full({5}, 3, kInt)));
    }
  });
}

// Two groups of two on one store, by group name: ranks 0,1 and 2,3.
TEST(ProcessGroupGloo, Subgroups) {
  const std::string dir = testing::make_temp_dir();
  auto results = testing::run_processes(
      4,
      [&](int rank) {
        ProcessGroupGloo::Options o;
        o.group_name = rank < 2 ? "low" : "high";
        auto sub = make_group(dir, rank % 2, 2, o);
        std::vector<Tensor> v{full({3}, rank, kInt)};
        wait(sub->allreduce(v));
        EXPECT_TRUE(tensors_equal(v[0], full({3}, rank < 2 ? 1 : 5, kInt)));
        everything(*sub);
      },
      kTimeout);
  testing::remove_tree(dir);
  EXPECT_TRUE(testing::all_succeeded(results));
}

TEST(ProcessGroupGloo, MonitoredBarrierNamesTheMissingRank) {
  const std::string dir = testing::make_temp_dir();
  auto results = testing::run_processes(
      3,
      [&](int rank) {
        auto pg = make_group(dir, rank, 3);
        if (rank == 2) return;  // never arrives
        try {
          pg->monitored_barrier(std::chrono::milliseconds(300));
          ADD_FAILURE() << "monitored_barrier passed without rank 2";
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("Rank 2 failed to pass monitoredBarrier in 300 ms"),
                    std::string::npos)
              << e.what();
        }
      },
      kTimeout);
  testing::remove_tree(dir);
  EXPECT_TRUE(testing::all_succeeded(results));
}

TEST(ProcessGroupGloo, MonitoredBarrierWaitAllRanksNamesEveryMissingRank) {
  const std::string dir = testing::make_temp_dir();
  auto results = testing::run_processes(
      3,
      [&](int rank) {
        auto pg = make_group(dir, rank, 3);
        if (rank != 0) return;
        try {
          pg->monitored_barrier(std::chrono::milliseconds(300), true);
          ADD_FAILURE() << "monitored_barrier passed alone";
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("Ranks 1, 2 failed to pass monitoredBarrier"),
                    std::string::npos)
              << e.what();
        }
      },
      kTimeout);
  testing::remove_tree(dir);
  EXPECT_TRUE(testing::all_succeeded(results));
}

TEST(ProcessGroupGloo, WorkWaitTimesOutAndShutdownAbortsPendingRecv) {
  run_group(2, [](ProcessGroupGloo& pg) {
    if (pg.rank() == 0) {
      std::vector<Tensor> t{empty({2})};
      auto w = pg.recv(t, 1, 5);  // rank 1 never sends
      try {
        w->wait(std::chrono::milliseconds(100));
        ADD_FAILURE() << "wait returned";
      } catch (const TimeoutError& e) {
        EXPECT_NE(std::string(e.what()).find("recv (sequence number 0)"), std::string::npos)
            << e.what();
      }
      EXPECT_FALSE(w->is_completed());
    }
    // Later ops still run while the recv is pending.
    wait(pg.barrier());
    // Destroying the group (at the end of the child) with the recv still
    // pending must not hang.
  });
}

TEST(ProcessGroupGloo, SocketIfnameListUsedRoundRobin) {
  const std::string dir = testing::make_temp_dir();
  auto results = testing::run_processes(
      2,
      [&](int rank) {
        setenv("GLOO_SOCKET_IFNAME", "lo,lo", 1);
        EXPECT_EQ(ProcessGroupGloo::interfaces_from_env(), (std::vector<std::string>{"lo", "lo"}));
        ProcessGroupGloo pg(testing::make_store(dir), rank, 2);
        EXPECT_EQ(pg.num_contexts(), 2);
        for (int i = 0; i < 5; ++i) {  // alternating contexts
          std::vector<Tensor> v{full({64}, rank + i, kInt)};
          wait(pg.allreduce(v));
          EXPECT_TRUE(tensors_equal(v[0], full({64}, 1 + 2 * i, kInt)));
        }
      },
      kTimeout);
  testing::remove_tree(dir);
  EXPECT_TRUE(testing::all_succeeded(results));
}

TEST(ProcessGroupGloo, UnknownSocketIfnameIsAnError) {
  const std::string dir = testing::make_temp_dir();
  setenv("GLOO_SOCKET_IFNAME", "nosuchif0", 1);
  try {
    ProcessGroupGloo pg(testing::make_store(dir), 0, 1);
    ADD_FAILURE() << "constructed on a missing interface";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nosuchif0"), std::string::npos) << e.what();
  }
  unsetenv("GLOO_SOCKET_IFNAME");
  testing::remove_tree(dir);
}

// "gloo" through init_process_group's registry, and new_group on it.
TEST(ProcessGroupGloo, InitProcessGroupGloo) {
  const int port = testing::free_port();
  auto results = testing::run_processes(
      3,
      [&](int rank) {
        EXPECT_TRUE(is_gloo_available());
        InitOptions o;
        o.init_method = "tcp://127.0.0.1:" + std::to_string(port);
        o.world_size = 3;
        o.rank = rank;
        o.timeout = std::chrono::seconds(30);
        init_process_group(Backend("GLOO"), o);
        EXPECT_EQ(get_backend().str(), "gloo");
        std::vector<Tensor> v{full({4}, rank + 1, kInt)};
        get_default_group()->allreduce(v)->wait();
        EXPECT_TRUE(tensors_equal(v[0], full({4}, 6, kInt)));
        Group sub = new_group({0, 2});
        if (rank == 1) {
          EXPECT_FALSE(sub.is_member());
        } else {
          std::vector<Tensor> s{full({2}, rank, kLong)};
          sub->allreduce(s)->wait();
          EXPECT_TRUE(tensors_equal(s[0], full({2}, 2, kLong)));
        }
        destroy_process_group();
      },
      kTimeout);
  EXPECT_TRUE(testing::all_succeeded(results));
}

TEST(ProcessGroupGloo, BadRankOrSize) {
  const std::string dir = testing::make_temp_dir();
  auto store = testing::make_store(dir);
  EXPECT_THROW(ProcessGroupGloo(store, 2, 2), Error);
  EXPECT_THROW(ProcessGroupGloo(store, -1, 2), Error);
  EXPECT_THROW(ProcessGroupGloo(store, 0, 0), Error);
  EXPECT_THROW(ProcessGroupGloo(nullptr, 0, 1), Error);
  testing::remove_tree(dir);
}

}  // namespace
}  // namespace ember::distributed
