#include "distributed/spawn.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

TEST(SpawnTest, RunsEveryIndexInItsOwnProcess) {
  // Each child writes its index into a pipe; the parent reads them all.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t parent = getpid();
  spawn(
      [&](int i) {
        if (getpid() == parent) throw Error("ran in the parent");
        char c = static_cast<char>('0' + i);
        if (write(fds[1], &c, 1) != 1) throw Error("write failed");
      },
      4);
  close(fds[1]);
  std::string seen;
  char c;
  while (read(fds[0], &c, 1) == 1) seen += c;
  close(fds[0]);
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, "0123");
}

TEST(SpawnTest, ExceptionBecomesProcessRaisedException) {
  try {
    spawn(
        [](int i) {
          if (i == 1) throw ValueError("bad value in worker");
        },
        2);
    FAIL() << "spawn did not throw";
  } catch (const ProcessRaisedException& e) {
    EXPECT_EQ(e.error_index, 1);
    EXPECT_NE(std::string(e.what()).find("-- Process 1 terminated with the following error:"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("bad value in worker"), std::string::npos);
  }
}

TEST(SpawnTest, ExitCodeBecomesProcessExitedException) {
  try {
    spawn(
        [](int i) {
          if (i == 0) _exit(3);
        },
        2);
    FAIL() << "spawn did not throw";
  } catch (const ProcessExitedException& e) {
    EXPECT_EQ(e.error_index, 0);
    EXPECT_EQ(e.exit_code, 3);
    EXPECT_EQ(e.signal, 0);
    EXPECT_STREQ(e.what(), "process 0 terminated with exit code 3");
  }
}

TEST(SpawnTest, SignalBecomesProcessExitedException) {
  try {
    spawn([](int i) { raise(i == 1 ? SIGKILL : 0); }, 2);
    FAIL() << "spawn did not throw";
  } catch (const ProcessExitedException& e) {
    EXPECT_EQ(e.error_index, 1);
    EXPECT_EQ(e.signal, SIGKILL);
    EXPECT_EQ(e.exit_code, -1);
    EXPECT_STREQ(e.what(), "process 1 terminated with signal SIGKILL");
  }
}

TEST(SpawnTest, FailureTerminatesTheOthersQuickly) {
  // Process 0 would sleep for a minute; process 1's failure must end it.
  const auto t0 = Clock::now();
  ProcessContext ctx = start_processes(
      [](int i) {
        if (i == 0) std::this_thread::sleep_for(std::chrono::seconds(60));
        if (i == 1) throw Error("boom");
      },
      2);
  EXPECT_THROW(ctx.join(milliseconds(20000), milliseconds(2000)), ProcessRaisedException);
  EXPECT_LT(seconds_since(t0), 5.0);
  EXPECT_FALSE(ctx.status(0).running);
  EXPECT_EQ(ctx.status(0).term_signal, SIGTERM);  // the default action of SIGTERM
  EXPECT_EQ(kill(ctx.pid(0), 0), -1);             // reaped: the pid is gone
}

TEST(SpawnTest, SigtermIgnoredEscalatesToSigkill) {
  ProcessContext ctx = start_processes(
      [](int i) {
        signal(SIGTERM, SIG_IGN);
        if (i == 0) std::this_thread::sleep_for(std::chrono::seconds(60));
        // Late enough that process 0 already ignores SIGTERM.
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        if (i == 1) _exit(2);
      },
      2);
  const auto t0 = Clock::now();
  EXPECT_THROW(ctx.join(milliseconds(20000), milliseconds(300)), ProcessExitedException);
  EXPECT_LT(seconds_since(t0), 5.0);
  EXPECT_EQ(ctx.status(0).term_signal, SIGKILL);
}

TEST(SpawnTest, JoinTimesOutAndDestructorReaps) {
  pid_t pid;
  {
    ProcessContext ctx = start_processes(
        [](int) { std::this_thread::sleep_for(std::chrono::seconds(60)); }, 1);
    pid = ctx.pid(0);
    EXPECT_FALSE(ctx.join(milliseconds(50)));
    EXPECT_TRUE(ctx.status(0).running);
  }
  EXPECT_EQ(kill(pid, 0), -1);  // killed and reaped by the destructor
}

TEST(SpawnTest, RejectsNonPositiveNprocs) {
  EXPECT_THROW(spawn([](int) {}, 0), ValueError);
}

}  // namespace
}  // namespace ember::distributed
