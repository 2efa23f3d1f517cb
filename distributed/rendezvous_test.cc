// Note [Elastic rendezvous]: nodes (threads here, each with its own store
// client) meeting in rounds over a real TCPStore.

#include "distributed/rendezvous.h"

#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "distributed/tcp_store.h"

namespace ember::distributed {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

class RendezvousTest : public ::testing::Test {
 protected:
  RendezvousTest() {
    TCPStoreOptions o;
    o.port = 0;
    o.is_server = true;
    server_ = std::make_unique<TCPStore>("127.0.0.1", o);
  }
  // A node: its own client of the store.
  ElasticRendezvous node(int min_nodes, int max_nodes, milliseconds last_call = milliseconds(300)) {
    TCPStoreOptions o;
    o.port = server_->port();
    o.timeout = milliseconds(10000);
    RendezvousOptions r;
    r.min_nodes = min_nodes;
    r.max_nodes = max_nodes;
    r.last_call = last_call;
    r.join_timeout = milliseconds(5000);
    r.prefix = "/rdzv/test";
    return ElasticRendezvous(std::make_shared<TCPStore>("127.0.0.1", o), r);
  }
  std::unique_ptr<TCPStore> server_;
};

TEST_F(RendezvousTest, MaxNodesCloseTheRoundAtOnce) {
  auto a = node(1, 2, milliseconds(60000));
  auto b = node(1, 2, milliseconds(60000));
  const auto t0 = Clock::now();
  auto fa = std::async(std::launch::async, [&] { return a.join(); });
  auto fb = std::async(std::launch::async, [&] { return b.join(); });
  const RendezvousRound ra = fa.get(), rb = fb.get();
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(5));  // not the 60 s last call
  EXPECT_EQ(ra.round, 0);
  EXPECT_EQ(rb.round, 0);
  EXPECT_EQ(ra.nnodes, 2);
  EXPECT_EQ(rb.nnodes, 2);
  EXPECT_EQ(ra.node_rank + rb.node_rank, 1);  // 0 and 1, in join order
}

TEST_F(RendezvousTest, MinNodesCloseAfterTheLastCall) {
  auto a = node(1, 2, milliseconds(300));
  const auto t0 = Clock::now();
  const RendezvousRound r = a.join();
  EXPECT_GE(Clock::now() - t0, milliseconds(250));
  EXPECT_EQ(r.round, 0);
  EXPECT_EQ(r.node_rank, 0);
  EXPECT_EQ(r.nnodes, 1);
}

TEST_F(RendezvousTest, ALateNodeWaitsInTheNextRoundAndIsAdmittedWhenTheOthersRejoin) {
  auto a = node(1, 2);
  const RendezvousRound first = a.join();
  ASSERT_EQ(first.nnodes, 1);
  auto b = node(1, 2);
  auto fb = std::async(std::launch::async, [&] { return b.join(); });  // round 1
  // The running node sees it waiting, stops, and joins the next round.
  for (int i = 0; i < 200 && a.waiting(first.round) == 0; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_EQ(a.waiting(first.round), 1);
  const RendezvousRound second = a.join(first.round + 1);
  const RendezvousRound rb = fb.get();
  EXPECT_EQ(second.round, 1);
  EXPECT_EQ(rb.round, 1);
  EXPECT_EQ(second.nnodes, 2);
  EXPECT_EQ(rb.nnodes, 2);
  EXPECT_EQ(rb.node_rank, 0);  // it joined round 1 first
  EXPECT_EQ(second.node_rank, 1);
}

TEST_F(RendezvousTest, NodesPastMaxGoOnToTheNextRound) {
  auto a = node(2, 2);
  auto b = node(2, 2);
  auto c = node(2, 2);
  auto fa = std::async(std::launch::async, [&] { return a.join(); });
  auto fb = std::async(std::launch::async, [&] { return b.join(); });
  const RendezvousRound ra = fa.get(), rb = fb.get();
  EXPECT_EQ(ra.round, 0);
  EXPECT_EQ(rb.round, 0);
  // The third node cannot be in round 0: it waits in round 1 (and times out
  // there, the others never rejoining).
  EXPECT_THROW(c.join(0), TimeoutError);
  EXPECT_EQ(a.waiting(0), 1);
}

TEST_F(RendezvousTest, FailuresAndDoneAreRecordedPerRound) {
  auto a = node(1, 1);
  EXPECT_FALSE(a.failed(0));
  a.mark_failed(0);
  EXPECT_TRUE(a.failed(0));
  EXPECT_FALSE(a.failed(1));
  a.done(1);
  a.done(1);
  EXPECT_EQ(a.num_done(1), 2);
  EXPECT_EQ(a.num_done(0), 0);
}

TEST_F(RendezvousTest, BadBoundsAreRefused) {
  EXPECT_THROW(node(2, 1), Error);
  EXPECT_THROW(node(0, 1), Error);
}

}  // namespace
}  // namespace ember::distributed
