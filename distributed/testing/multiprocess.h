#ifndef EMBER_DISTRIBUTED_TESTING_MULTIPROCESS_H_
#define EMBER_DISTRIBUTED_TESTING_MULTIPROCESS_H_

// Helpers for tests that run ranks as real processes (testonly).
//
//   TCPStoreOptions o;  // a server in the parent, before forking
//   o.port = 0;
//   o.is_server = true;
//   TCPStore server("127.0.0.1", o);
//   auto results = ember::distributed::testing::run_processes(
//       3,
//       [&](int rank) {
//         TCPStoreOptions c;
//         c.port = server.port();
//         TCPStore store("127.0.0.1", c);
//         EXPECT_EQ(store.add("n", 1) > 0, true);  // gtest assertions work in
//       },                                          // the child: a failed one
//       std::chrono::seconds(20));                  // makes it exit 1
//   EXPECT_TRUE(ember::distributed::testing::all_succeeded(results));
//
// Each child runs fn(rank) in a fork()ed copy of the test process (see
// Note [Forked children] in distributed/spawn.h: the parent's threads do not
// exist in a child, so a child must not use objects those threads serve,
// such as the parent's own TCPStore client, while a server the parent runs
// keeps serving the children; the children die with the parent). A child fails when fn throws
// (the message comes back in ChildResult::error), when a gtest assertion
// failed in it, when it exits non-zero or dies from a signal. Children still
// running at the timeout are SIGKILLed and marked timed_out; every child is
// reaped before run_processes returns, so no test leaves processes behind.
//
// For fault tests (kill a rank mid-collective, SIGSTOP one), use Processes:
// start, act on one child (kill(i, SIGKILL)), wait for the others with
// wait(timeout, ranks), and let the destructor kill and reap the rest.

#include <chrono>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "distributed/spawn.h"

namespace ember::distributed::testing {

struct ChildResult {
  int rank = -1;
  bool timed_out = false;  // still running at the timeout; SIGKILLed
  int exit_code = -1;      // when it exited
  int term_signal = 0;     // the signal that ended it (SIGKILL when timed out)
  std::string error;       // the exception fn threw, if any
  double seconds = 0;      // from start until it ended (or the timeout)
  bool ok() const { return !timed_out && term_signal == 0 && exit_code == 0; }
};
std::ostream& operator<<(std::ostream& os, const ChildResult& r);

// Runs fn(0..n-1) in n child processes; waits for all of them up to timeout.
std::vector<ChildResult> run_processes(int n, const std::function<void(int rank)>& fn,
                                       std::chrono::milliseconds timeout);

// Success when every child ended ok(); otherwise a message describing each
// failed child (exit code / signal / timeout / error text).
::testing::AssertionResult all_succeeded(const std::vector<ChildResult>& results);

// Started children with finer control, for fault-injection tests.
class Processes {
 public:
  Processes(int n, const std::function<void(int rank)>& fn);
  ~Processes();  // SIGKILLs and reaps any child still running

  int size() const { return ctx_.nprocs(); }
  pid_t pid(int rank) const { return ctx_.pid(rank); }
  void kill(int rank, int sig) { ctx_.kill(rank, sig); }
  // Waits up to timeout for `ranks` (empty: all) to end; those still running
  // after it are SIGKILLed and reported timed_out. Results follow `ranks`.
  std::vector<ChildResult> wait(std::chrono::milliseconds timeout, std::vector<int> ranks = {});

 private:
  ProcessContext ctx_;
  std::chrono::steady_clock::time_point start_;
  std::vector<double> ended_at_;
};

// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0, read
// it back, close). Prefer a store started with port 0 where one can be.
int free_port();

// A blocking TCP connection to 127.0.0.1:port, or -1 (errno set), for
// tests that speak a protocol by hand.
int connect_loopback(uint16_t port);

// A fresh empty directory under TEST_TMPDIR (or /tmp), removed by the caller
// with remove_tree.
std::string make_temp_dir();
void remove_tree(const std::string& path);

// The contents of `path` ("" when it cannot be read).
std::string read_file(const std::string& path);

// A program run to its end, as a user runs it from a shell.
struct ProgramRun {
  int status = 0;        // as waitpid reports it
  std::string out;       // stdout and stderr together
  bool stopped = false;  // ended by ProgramOptions::enough, not by itself
};

struct ProgramOptions {
  // The working directory ("": the test's).
  std::string cwd;
  // Polled with the output so far; once it returns true the program has
  // shown what the test needs and is killed (a long training run, say).
  std::function<bool(const std::string& out)> enough;
};

// Runs args[0] (a path, e.g. a runfiles one) in its own process group with
// a deadline, killing the group (and failing the test) when it passes; gloo
// talks over loopback (GLOO_SOCKET_IFNAME=lo).
ProgramRun run_program(std::vector<std::string> args, std::chrono::seconds deadline_after,
                       const ProgramOptions& options = {});

}  // namespace ember::distributed::testing

#endif  // EMBER_DISTRIBUTED_TESTING_MULTIPROCESS_H_
