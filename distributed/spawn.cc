#include "distributed/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <thread>

#include "absl/strings/str_cat.h"

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxErrorBytes = 16 * 1024;  // below a pipe's buffer: the child never blocks

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? absl::StrCat("SIG", abbrev) : absl::StrCat("signal ", sig);
}

[[noreturn]] void run_child(const std::function<void(int)>& fn, int index, int err_fd,
                            pid_t parent) {
  // Note [Forked children]
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);  // the parent died before prctl
  int code = 0;
  std::string error;
  try {
    fn(index);
  } catch (const std::exception& e) {
    error = e.what();
    code = 1;
  } catch (...) {
    error = "unknown exception";
    code = 1;
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  if (!error.empty()) {
    if (error.size() > kMaxErrorBytes) error.resize(kMaxErrorBytes);
    size_t off = 0;
    while (off < error.size()) {
      ssize_t n = ::write(err_fd, error.data() + off, error.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
  }
  _exit(code);
}

}  // namespace

std::string ChildExit::describe() const {
  if (running) return "is still running";
  if (term_signal != 0) return absl::StrCat("terminated with signal ", signal_name(term_signal));
  return absl::StrCat("terminated with exit code ", exit_code);
}

ProcessContext::ProcessContext(const std::function<void(int)>& fn, int nprocs) {
  EMBER_CHECK_VALUE(nprocs >= 1, "nprocs must be at least 1, got ", nprocs);
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);  // or the children print the parent's buffered output again
  const pid_t parent = getpid();
  children_.reserve(nprocs);
  for (int i = 0; i < nprocs; ++i) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      terminate_all(std::chrono::milliseconds(0));
      throw Error(absl::StrCat("spawn: pipe failed: ", std::strerror(errno)));
    }
    pid_t pid = fork();
    if (pid < 0) {
      int err = errno;
      ::close(fds[0]);
      ::close(fds[1]);
      terminate_all(std::chrono::milliseconds(0));
      throw Error(absl::StrCat("spawn: fork failed: ", std::strerror(err)));
    }
    if (pid == 0) {
      ::close(fds[0]);
      run_child(fn, i, fds[1], parent);
    }
    ::close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    Child c;
    c.pid = pid;
    c.err_fd = fds[0];
    children_.push_back(std::move(c));
  }
}

ProcessContext::ProcessContext(ProcessContext&& other) noexcept
    : children_(std::move(other.children_)) {
  other.children_.clear();
}

ProcessContext::~ProcessContext() { terminate_all(std::chrono::milliseconds(0)); }

pid_t ProcessContext::pid(int i) const { return children_.at(i).pid; }
const ChildExit& ProcessContext::status(int i) const { return children_.at(i).exit; }

void ProcessContext::finish(Child& c, int wstatus) {
  c.exit.running = false;
  if (WIFSIGNALED(wstatus)) {
    c.exit.term_signal = WTERMSIG(wstatus);
  } else {
    c.exit.exit_code = WEXITSTATUS(wstatus);
  }
  if (c.err_fd >= 0) {
    char buf[4096];
    for (;;) {
      ssize_t n = ::read(c.err_fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || c.exit.error.size() >= kMaxErrorBytes) break;
      c.exit.error.append(buf, static_cast<size_t>(n));
    }
    ::close(c.err_fd);
    c.err_fd = -1;
  }
}

int ProcessContext::reap() {
  int running = 0;
  for (Child& c : children_) {
    if (!c.exit.running) continue;
    int wstatus = 0;
    pid_t r = waitpid(c.pid, &wstatus, WNOHANG);
    if (r == c.pid) {
      finish(c, wstatus);
    } else if (r < 0 && errno == ECHILD) {
      c.exit.running = false;  // someone else reaped it
      c.exit.term_signal = 0;
      c.exit.exit_code = -1;
    } else {
      ++running;
    }
  }
  return running;
}

bool ProcessContext::wait_all(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (reap() == 0) return true;
    if (timeout.count() >= 0 && Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

void ProcessContext::kill(int i, int sig) {
  Child& c = children_.at(i);
  if (c.exit.running) ::kill(c.pid, sig);
}

void ProcessContext::terminate_all(std::chrono::milliseconds grace) {
  if (reap() == 0) return;
  if (grace.count() > 0) {
    for (Child& c : children_)
      if (c.exit.running) ::kill(c.pid, SIGTERM);
    if (wait_all(grace)) return;
  }
  for (Child& c : children_) {
    if (!c.exit.running) continue;
    ::kill(c.pid, SIGKILL);
    int wstatus = 0;
    while (waitpid(c.pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    finish(c, wstatus);
  }
}

void ProcessContext::raise_failure(int i) {
  const Child& c = children_[i];
  const ChildExit e = c.exit;
  const pid_t pid = c.pid;
  if (!e.error.empty()) {
    throw ProcessRaisedException(
        absl::StrCat("\n\n-- Process ", i, " terminated with the following error:\n", e.error),
        i, pid);
  }
  throw ProcessExitedException(absl::StrCat("process ", i, " ", e.describe()), i, pid,
                               e.term_signal ? -1 : e.exit_code, e.term_signal);
}

bool ProcessContext::join(std::chrono::milliseconds timeout, std::chrono::milliseconds grace) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    int running = reap();
    for (int i = 0; i < nprocs(); ++i) {
      const ChildExit& e = children_[i].exit;
      if (!e.running && !e.ok()) {
        // The first failure in index order among those seen in this round.
        terminate_all(grace);
        raise_failure(i);
      }
    }
    if (running == 0) return true;
    if (timeout.count() >= 0 && Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

ProcessContext start_processes(const std::function<void(int)>& fn, int nprocs) {
  return ProcessContext(fn, nprocs);
}

void spawn(const std::function<void(int)>& fn, int nprocs) {
  ProcessContext ctx(fn, nprocs);
  ctx.join();
}

}  // namespace ember::distributed
