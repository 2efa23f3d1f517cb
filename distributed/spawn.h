#ifndef EMBER_DISTRIBUTED_SPAWN_H_
#define EMBER_DISTRIBUTED_SPAWN_H_

// torch.multiprocessing.spawn in C++: run fn(i) in nprocs forked processes.
//
//   ember::distributed::spawn([](int rank) { ... }, 4);
//
// spawn() joins: when one process fails (throws, exits non-zero, or dies
// from a signal), the others are terminated (SIGTERM, then SIGKILL after a
// grace period) and spawn throws ProcessRaisedException (fn threw; what()
// carries the child's message) or ProcessExitedException (non-zero exit or
// signal), naming the process index as PyTorch does.
//
// Note [Forked children]: children are fork()ed, not exec()ed, so they share
// the parent's code and see a copy of its memory; fork before starting
// threads that hold locks fn needs. A child asks the kernel to SIGKILL it
// when the parent dies (PR_SET_PDEATHSIG), never returns into the parent's
// code (it _exit()s after fn, skipping atexit handlers and static
// destructors, after flushing stdio), and reports an exception's message
// through a pipe. The parent reaps every child it started, also when
// ProcessContext is destroyed early. As with torch.multiprocessing's fork
// start method, a parent that has used CUDA (cuda::is_available() included)
// cannot hand it to its children: their first CUDA use throws "Cannot
// re-initialize CUDA in forked subprocess" (Note [CUDA after fork]); touch
// CUDA only inside fn, or start the ranks with //distributed:launch.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "tensor/error.h"

namespace ember::distributed {

// fn threw in process `error_index`; what() includes the child's message.
class ProcessRaisedException : public Error {
 public:
  ProcessRaisedException(const std::string& msg, int error_index, pid_t pid)
      : Error(msg), error_index(error_index), pid(pid) {}
  int error_index;
  pid_t pid;
};

// Process `error_index` exited with a non-zero code or was killed.
class ProcessExitedException : public Error {
 public:
  ProcessExitedException(const std::string& msg, int error_index, pid_t pid, int exit_code,
                         int signal)
      : Error(msg), error_index(error_index), pid(pid), exit_code(exit_code), signal(signal) {}
  int error_index;
  pid_t pid;
  int exit_code;  // -1 when killed by a signal
  int signal;     // 0 when it exited
};

// How one child ended.
struct ChildExit {
  bool running = true;
  int exit_code = -1;   // valid when exited normally
  int term_signal = 0;  // the signal that killed it, or 0
  std::string error;    // the exception message fn threw, if any
  bool ok() const { return !running && term_signal == 0 && exit_code == 0; }
  std::string describe() const;  // "exited with code 3", "killed by SIGKILL", ...
};

// The running children of start_processes (torch's ProcessContext).
class ProcessContext {
 public:
  ProcessContext(const std::function<void(int)>& fn, int nprocs);
  ProcessContext(ProcessContext&&) noexcept;
  ProcessContext(const ProcessContext&) = delete;
  ProcessContext& operator=(const ProcessContext&) = delete;
  ProcessContext& operator=(ProcessContext&&) = delete;
  // Kills (SIGKILL) and reaps every child still running.
  ~ProcessContext();

  int nprocs() const { return static_cast<int>(children_.size()); }
  pid_t pid(int i) const;
  const ChildExit& status(int i) const;

  // torch's join(): waits up to timeout (negative: no limit). Returns true
  // once every process exited successfully, false on timeout. On the first
  // failure, terminates the others (SIGTERM, `grace`, SIGKILL) and throws
  // ProcessRaisedException / ProcessExitedException.
  bool join(std::chrono::milliseconds timeout = std::chrono::milliseconds(-1),
            std::chrono::milliseconds grace = std::chrono::milliseconds(3000));

  // Waits up to timeout for every child to exit, whatever its outcome
  // (no fail-fast). Returns true when none is left running.
  bool wait_all(std::chrono::milliseconds timeout);
  // Reaps the children that have exited (no waiting); returns how many
  // still run.
  int poll() { return reap(); }
  // Sends sig to child i if it still runs.
  void kill(int i, int sig);
  // SIGTERM to every running child, SIGKILL to those alive after grace;
  // reaps them all.
  void terminate_all(std::chrono::milliseconds grace);

 private:
  struct Child {
    pid_t pid = -1;
    int err_fd = -1;
    ChildExit exit;
  };
  // Reaps children that have exited; returns how many are still running.
  int reap();
  void finish(Child& c, int wstatus);
  [[noreturn]] void raise_failure(int i);

  std::vector<Child> children_;
};

// Starts fn(0..nprocs-1) in forked processes and returns without waiting.
ProcessContext start_processes(const std::function<void(int)>& fn, int nprocs);

// Starts and joins; throws on the first failure (see above).
void spawn(const std::function<void(int)>& fn, int nprocs);

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_SPAWN_H_
