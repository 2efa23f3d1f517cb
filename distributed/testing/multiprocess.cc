#include "distributed/testing/multiprocess.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"

namespace ember::distributed::testing {
namespace {

using Clock = std::chrono::steady_clock;

std::function<void(int)> with_gtest_check(const std::function<void(int)>& fn) {
  return [fn](int rank) {
    fn(rank);
    // The child's copy of gtest recorded the failure; report it as an error.
    if (::testing::Test::HasFailure()) {
      throw Error(absl::StrCat("a gtest assertion failed in rank ", rank, " (see its output)"));
    }
  };
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const ChildResult& r) {
  os << "rank " << r.rank << ": ";
  if (r.timed_out) {
    os << "timed out after " << r.seconds << " s";
  } else if (r.term_signal != 0) {
    os << "killed by signal " << r.term_signal;
  } else {
    os << "exit code " << r.exit_code;
  }
  if (!r.error.empty()) os << ", error: " << r.error;
  return os;
}

Processes::Processes(int n, const std::function<void(int rank)>& fn)
    : ctx_(with_gtest_check(fn), n), start_(Clock::now()), ended_at_(n, -1.0) {}

Processes::~Processes() { ctx_.terminate_all(std::chrono::milliseconds(0)); }

std::vector<ChildResult> Processes::wait(std::chrono::milliseconds timeout,
                                         std::vector<int> ranks) {
  if (ranks.empty()) {
    for (int i = 0; i < size(); ++i) ranks.push_back(i);
  }
  const auto deadline = Clock::now() + timeout;
  auto record_ends = [&] {
    ctx_.poll();
    bool all_done = true;
    for (int r : ranks) {
      if (ctx_.status(r).running) {
        all_done = false;
      } else if (ended_at_[r] < 0) {
        ended_at_[r] = std::chrono::duration<double>(Clock::now() - start_).count();
      }
    }
    return all_done;
  };
  while (!record_ends() && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::vector<ChildResult> out;
  for (int r : ranks) {
    ChildResult res;
    res.rank = r;
    if (ctx_.status(r).running) {
      res.timed_out = true;
      res.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
      ctx_.kill(r, SIGKILL);
      while (ctx_.status(r).running) {
        ctx_.poll();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    } else {
      res.seconds = ended_at_[r];
    }
    const ChildExit& e = ctx_.status(r);
    res.exit_code = e.exit_code;
    res.term_signal = e.term_signal;
    res.error = e.error;
    out.push_back(res);
  }
  return out;
}

std::vector<ChildResult> run_processes(int n, const std::function<void(int rank)>& fn,
                                       std::chrono::milliseconds timeout) {
  Processes p(n, fn);
  return p.wait(timeout);
}

::testing::AssertionResult all_succeeded(const std::vector<ChildResult>& results) {
  std::string failures;
  for (const ChildResult& r : results) {
    if (r.ok()) continue;
    std::ostringstream os;
    os << r;
    absl::StrAppend(&failures, "\n  ", os.str());
  }
  if (failures.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "child processes failed:" << failures;
}

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EMBER_CHECK(fd >= 0, "free_port: socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw Error("free_port: bind failed");
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

int connect_loopback(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    const int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

std::string make_temp_dir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string templ = absl::StrCat(base && *base ? base : "/tmp", "/ember_dist_XXXXXX");
  EMBER_CHECK(::mkdtemp(templ.data()) != nullptr, "make_temp_dir: mkdtemp failed for ", templ);
  return templ;
}

void remove_tree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

ProgramRun run_program(std::vector<std::string> args, std::chrono::seconds deadline_after,
                       const ProgramOptions& options) {
  const std::string dir = make_temp_dir();
  const std::string out_path = dir + "/out";
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    int fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    setenv("GLOO_SOCKET_IFNAME", "lo", 1);
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(127);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(126);
  }
  ProgramRun run;
  EXPECT_GT(pid, 0);
  if (pid <= 0) return run;
  setpgid(pid, pid);
  const auto deadline = std::chrono::steady_clock::now() + deadline_after;
  while (waitpid(pid, &run.status, WNOHANG) != pid) {
    if (options.enough && options.enough(read_file(out_path))) {
      kill(-pid, SIGKILL);
      waitpid(pid, &run.status, 0);
      run.stopped = true;
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &run.status, 0);
      ADD_FAILURE() << args[0] << " did not finish in " << deadline_after.count() << " s";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  run.out = read_file(out_path);
  remove_tree(dir);
  return run;
}

}  // namespace ember::distributed::testing
