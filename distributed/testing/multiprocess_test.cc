#include "distributed/testing/multiprocess.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace ember::distributed::testing {
namespace {

using std::chrono::milliseconds;

TEST(MultiprocessTest, AllSucceed) {
  auto results = run_processes(3, [](int rank) { EXPECT_GE(rank, 0); }, milliseconds(10000));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(all_succeeded(results));
  for (int r = 0; r < 3; ++r) EXPECT_EQ(results[r].rank, r);
}

TEST(MultiprocessTest, GtestFailureInChildFailsIt) {
  auto results = run_processes(
      2,
      [](int rank) {
        // Expected to fail in rank 1 only; the failure stays in the child.
        if (rank == 1) ADD_FAILURE() << "deliberate failure in the child (this is expected)";
      },
      milliseconds(10000));
  EXPECT_TRUE(results[0].ok());
  EXPECT_FALSE(results[1].ok());
  EXPECT_EQ(results[1].exit_code, 1);
  EXPECT_NE(results[1].error.find("gtest assertion failed in rank 1"), std::string::npos);
  EXPECT_FALSE(all_succeeded(results));
}

TEST(MultiprocessTest, ExceptionMessageComesBack) {
  auto results =
      run_processes(1, [](int) { throw Error("the peer is gone"); }, milliseconds(10000));
  EXPECT_EQ(results[0].error, "the peer is gone");
  EXPECT_EQ(results[0].exit_code, 1);
}

TEST(MultiprocessTest, TimeoutKillsAndReaps) {
  const auto t0 = std::chrono::steady_clock::now();
  Processes p(2, [](int rank) {
    if (rank == 1) std::this_thread::sleep_for(std::chrono::seconds(60));
  });
  const pid_t slow = p.pid(1);
  auto results = p.wait(milliseconds(300));
  EXPECT_TRUE(results[0].ok());
  EXPECT_TRUE(results[1].timed_out);
  EXPECT_EQ(results[1].term_signal, SIGKILL);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(kill(slow, 0), -1);
}

TEST(MultiprocessTest, KillOneAndWaitForTheOthers) {
  Processes p(3, [](int rank) {
    if (rank == 2) std::this_thread::sleep_for(std::chrono::seconds(60));
  });
  p.kill(2, SIGKILL);
  auto results = p.wait(milliseconds(10000), {0, 1});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(all_succeeded(results));
  auto killed = p.wait(milliseconds(10000), {2});
  EXPECT_EQ(killed[0].term_signal, SIGKILL);
  EXPECT_FALSE(killed[0].timed_out);
}

TEST(MultiprocessTest, StoppedChildIsKilledByTheDestructor) {
  pid_t pid;
  {
    Processes p(1, [](int) { raise(SIGSTOP); });
    pid = p.pid(0);
    auto r = p.wait(milliseconds(100));
    EXPECT_TRUE(r[0].timed_out);
  }
  EXPECT_EQ(kill(pid, 0), -1);
}

TEST(MultiprocessTest, FreePortAndTempDir) {
  int port = free_port();
  EXPECT_GT(port, 0);
  EXPECT_LT(port, 65536);
  std::string dir = make_temp_dir();
  EXPECT_FALSE(dir.empty());
  EXPECT_EQ(access(dir.c_str(), W_OK), 0);
  remove_tree(dir);
  EXPECT_NE(access(dir.c_str(), F_OK), 0);
}

}  // namespace
}  // namespace ember::distributed::testing
