// //distributed:launch, torchrun's role:
//
//   launch [--nproc_per_node N] [--nnodes N] [--node_rank R]
//          [--master_addr A] [--master_port P] [--max_restarts K] [--standalone]
//          program [args...]
//
// Runs `program` once per local rank with RANK, LOCAL_RANK, WORLD_SIZE,
// LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT,
// TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_MAX_RESTARTS and
// TORCHELASTIC_USE_AGENT_STORE=True set. Node 0's launcher runs the TCPStore
// server on MASTER_PORT (0 picks a free port), and init_process_group's
// env:// connects to it, each restart in its own key space (init.h).
//
// Every output line of a worker is prefixed with "[rank<N>]: " (stdout to
// stdout, stderr to stderr). When a worker fails, the others get SIGTERM,
// then SIGKILL 3 s later; with restarts left the whole local group starts
// again, otherwise the launcher exits with the first failure's exit code
// (128 + signal for a worker killed by a signal). SIGINT / SIGTERM / SIGHUP
// are forwarded to every worker; the launcher then exits 128 + signal.
// After its workers succeed, node 0's launcher keeps the store up until the
// other nodes' launchers report their workers done (exit_barrier); a single
// node's launcher exits at once. The store listens on --master_addr's
// address only (EMBER_TCPSTORE_BIND_ALL=1: every interface).
//
// Note [No orphans]: each worker leads its own process group (so a signal
// reaches the worker's own children too, and the terminal's Ctrl-C reaches
// only the launcher, which forwards it), and asks the kernel for SIGKILL
// when the launcher dies (PR_SET_PDEATHSIG). At the end of each round the
// launcher SIGKILLs every worker's process group, so nothing a worker
// started outlives it.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "distributed/shm_segments.h"
#include "distributed/tcp_store.h"

extern char** environ;

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kGrace = std::chrono::milliseconds(3000);

struct Args {
  int nproc_per_node = 1;
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  int max_restarts = 0;
  std::vector<std::string> program;
};

constexpr const char* kUsage =
    "usage: launch [--nproc_per_node N] [--nnodes N] [--node_rank R] [--master_addr ADDR]\n"
    "              [--master_port PORT] [--max_restarts K] [--standalone] program [args...]\n";

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

int to_int(const std::string& flag, const std::string& v) {
  int x;
  if (!absl::SimpleAtoi(v, &x)) throw UsageError(absl::StrCat(flag, ": not an integer: '", v, "'"));
  return x;
}

Args parse_args(int argc, char** argv) {
  Args a;
  int i = 1;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.rfind("--", 0) != 0) break;  // the program
    std::string name = arg, value;
    bool has_value = false;
    auto eq = arg.find('=');
    if (eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    if (name == "--standalone") {
      if (has_value) throw UsageError("--standalone takes no value");
      a.master_addr = "127.0.0.1";
      a.master_port = 0;
      a.nnodes = 1;
      continue;
    }
    if (name == "--help" || name == "-h") throw UsageError("");
    if (!has_value) {
      if (i + 1 >= argc) throw UsageError(absl::StrCat(name, " needs a value"));
      value = argv[++i];
    }
    if (name == "--nproc_per_node" || name == "--nproc-per-node") {
      a.nproc_per_node = to_int(name, value);
    } else if (name == "--nnodes") {
      a.nnodes = to_int(name, value);
    } else if (name == "--node_rank" || name == "--node-rank") {
      a.node_rank = to_int(name, value);
    } else if (name == "--master_addr" || name == "--master-addr") {
      a.master_addr = value;
    } else if (name == "--master_port" || name == "--master-port") {
      a.master_port = to_int(name, value);
    } else if (name == "--max_restarts" || name == "--max-restarts") {
      a.max_restarts = to_int(name, value);
    } else {
      throw UsageError(absl::StrCat("unknown option ", name));
    }
  }
  for (; i < argc; ++i) a.program.push_back(argv[i]);
  if (a.program.empty()) throw UsageError("no program to run");
  if (a.nproc_per_node < 1) throw UsageError("--nproc_per_node must be at least 1");
  if (a.nnodes < 1) throw UsageError("--nnodes must be at least 1");
  if (a.node_rank < 0 || a.node_rank >= a.nnodes) {
    throw UsageError(absl::StrCat("--node_rank must be in [0, ", a.nnodes - 1, "]"));
  }
  if (a.master_port < 0 || a.master_port > 65535) {
    throw UsageError("--master_port must be in [0, 65535]");
  }
  if (a.master_port == 0 && a.nnodes > 1) {
    throw UsageError("--master_port 0 needs --nnodes 1 (other nodes could not learn the port)");
  }
  if (a.max_restarts < 0) throw UsageError("--max_restarts must be non-negative");
  return a;
}

// ---- signals: the handler only writes to a pipe ----

int g_signal_pipe[2] = {-1, -1};

void on_signal(int sig) {
  int saved = errno;
  unsigned char s = static_cast<unsigned char>(sig);
  ssize_t n = ::write(g_signal_pipe[1], &s, 1);
  (void)n;
  errno = saved;
}

void install_signal_handlers() {
  if (pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    perror("launch: pipe");
    std::exit(1);
  }
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

// ---- workers ----

struct Stream {
  int fd = -1;
  std::string partial;  // a line not yet ended
  FILE* out;
};

struct Worker {
  int local_rank;
  int rank;
  pid_t pid = -1;
  bool running = false;
  int wstatus = 0;
  Stream streams[2];
};

void write_all(FILE* out, const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), out);
  std::fflush(out);
}

// Forwards whole lines, each prefixed; at EOF the last partial line too.
void forward(Stream& s, const std::string& prefix, const char* data, size_t n, bool eof) {
  s.partial.append(data, n);
  std::string out;
  size_t start = 0;
  for (size_t nl; (nl = s.partial.find('\n', start)) != std::string::npos; start = nl + 1) {
    absl::StrAppend(&out, prefix, absl::string_view(s.partial).substr(start, nl + 1 - start));
  }
  s.partial.erase(0, start);
  if (eof && !s.partial.empty()) {
    absl::StrAppend(&out, prefix, s.partial, "\n");
    s.partial.clear();
  }
  if (!out.empty()) write_all(s.out, out);
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void start_worker(Worker& w, const Args& a, int port, int restart) {
  std::vector<std::string> env;
  auto overridden = [](const std::string& kv) {
    for (const char* name :
         {"RANK=", "LOCAL_RANK=", "WORLD_SIZE=", "LOCAL_WORLD_SIZE=", "GROUP_RANK=",
          "ROLE_RANK=", "ROLE_WORLD_SIZE=", "MASTER_ADDR=", "MASTER_PORT=",
          "TORCHELASTIC_RESTART_COUNT=", "TORCHELASTIC_MAX_RESTARTS=",
          "TORCHELASTIC_USE_AGENT_STORE="}) {
      if (kv.rfind(name, 0) == 0) return true;
    }
    return false;
  };
  bool has_omp = false;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (kv.rfind("OMP_NUM_THREADS=", 0) == 0) has_omp = true;
    if (!overridden(kv)) env.push_back(kv);
  }
  const int world = a.nnodes * a.nproc_per_node;
  env.push_back(absl::StrCat("RANK=", w.rank));
  env.push_back(absl::StrCat("LOCAL_RANK=", w.local_rank));
  env.push_back(absl::StrCat("WORLD_SIZE=", world));
  env.push_back(absl::StrCat("LOCAL_WORLD_SIZE=", a.nproc_per_node));
  env.push_back(absl::StrCat("GROUP_RANK=", a.node_rank));
  env.push_back(absl::StrCat("ROLE_RANK=", w.rank));
  env.push_back(absl::StrCat("ROLE_WORLD_SIZE=", world));
  env.push_back(absl::StrCat("MASTER_ADDR=", a.master_addr));
  env.push_back(absl::StrCat("MASTER_PORT=", port));
  env.push_back(absl::StrCat("TORCHELASTIC_RESTART_COUNT=", restart));
  env.push_back(absl::StrCat("TORCHELASTIC_MAX_RESTARTS=", a.max_restarts));
  env.push_back("TORCHELASTIC_USE_AGENT_STORE=True");
  // torchrun's default: one thread per worker when several share a node.
  if (!has_omp && a.nproc_per_node > 1) env.push_back("OMP_NUM_THREADS=1");
  std::vector<std::string> argv = a.program;
  std::vector<char*> c_argv = c_strings(argv);
  std::vector<char*> c_env = c_strings(env);

  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    perror("launch: pipe");
    std::exit(1);
  }
  // Note [Signals between fork and exec]: a signal that reaches the child
  // before it execs (the launcher's SIGTERM to a round's workers, right
  // after a quick failure) would run the launcher's handler there and write
  // into the launcher's signal pipe, which the launcher would then take for
  // a signal of its own and give up its restarts. So signals stay blocked
  // across fork; the child resets the handlers and closes the pipe before it
  // unblocks them (a pending SIGTERM then ends it as it should).
  sigset_t all, old_mask;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old_mask);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    perror("launch: fork");
    std::exit(1);
  }
  if (pid == 0) {
    // Note [No orphans]
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) signal(sig, SIG_DFL);
    ::close(g_signal_pipe[0]);
    ::close(g_signal_pipe[1]);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execvpe(c_argv[0], c_argv.data(), c_env.data());
    std::string msg = absl::StrCat("launch: cannot run '", argv[0], "': ", std::strerror(errno),
                                   "\n");
    ssize_t n = ::write(STDERR_FILENO, msg.data(), msg.size());
    (void)n;
    _exit(127);
  }
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  setpgid(pid, pid);  // also here: no race with the child's own call
  ::close(out[1]);
  ::close(err[1]);
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);
  w.pid = pid;
  w.running = true;
  w.wstatus = 0;
  w.streams[0] = Stream{out[0], "", stdout};
  w.streams[1] = Stream{err[0], "", stderr};
}

int exit_code_of(int wstatus) {
  if (WIFSIGNALED(wstatus)) return 128 + WTERMSIG(wstatus);
  return WEXITSTATUS(wstatus);
}

std::string describe(int wstatus) {
  if (WIFSIGNALED(wstatus)) {
    const char* abbrev = sigabbrev_np(WTERMSIG(wstatus));
    return absl::StrCat("was killed by signal ", WTERMSIG(wstatus), abbrev ? " (SIG" : "",
                        abbrev ? abbrev : "", abbrev ? ")" : "");
  }
  return absl::StrCat("exited with code ", WEXITSTATUS(wstatus));
}

struct RoundResult {
  int exit_code = 0;        // 0: every worker succeeded
  int signal_received = 0;  // a signal ended the round
};

void signal_all(std::vector<Worker>& workers, int sig) {
  for (Worker& w : workers) {
    if (w.pid > 0) ::kill(-w.pid, sig);  // the worker's process group
  }
}

// Runs one round of workers until all exit; fail-fast on the first failure.
RoundResult run_round(const Args& a, int port, int restart) {
  std::vector<Worker> workers(a.nproc_per_node);
  for (int i = 0; i < a.nproc_per_node; ++i) {
    workers[i].local_rank = i;
    workers[i].rank = a.node_rank * a.nproc_per_node + i;
    start_worker(workers[i], a, port, restart);
  }
  RoundResult result;
  bool stopping = false;
  bool kill_pending = false;  // SIGKILL everyone at kill_at
  Clock::time_point kill_at;
  auto stop = [&](int sig) {
    if (stopping) return;
    stopping = true;
    signal_all(workers, sig);
    kill_pending = true;
    kill_at = Clock::now() + kGrace;
  };
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<Stream*> streams;
    std::vector<const Worker*> owners;
    fds.push_back({g_signal_pipe[0], POLLIN, 0});
    for (Worker& w : workers) {
      for (Stream& s : w.streams) {
        if (s.fd < 0) continue;
        fds.push_back({s.fd, POLLIN, 0});
        streams.push_back(&s);
        owners.push_back(&w);
      }
    }
    bool any_running = false;
    for (const Worker& w : workers) any_running |= w.running;
    if (!any_running && streams.empty()) break;
    ::poll(fds.data(), fds.size(), 50);
    if (fds[0].revents & POLLIN) {
      unsigned char sig;
      while (::read(g_signal_pipe[0], &sig, 1) == 1) {
        if (!result.signal_received) {
          result.signal_received = sig;
          std::fprintf(stderr, "[launch] received signal %d; forwarding it to the workers\n",
                       sig);
        }
        signal_all(workers, sig);
        if (!stopping) {
          stopping = true;
          kill_pending = true;
          kill_at = Clock::now() + kGrace;
        }
      }
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      Stream& s = *streams[i - 1];
      const std::string prefix = absl::StrCat("[rank", owners[i - 1]->rank, "]: ");
      char buf[65536];
      ssize_t n = ::read(s.fd, buf, sizeof(buf));
      if (n > 0) {
        forward(s, prefix, buf, static_cast<size_t>(n), false);
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        forward(s, prefix, "", 0, true);
        ::close(s.fd);
        s.fd = -1;
      }
    }
    for (Worker& w : workers) {
      if (!w.running) continue;
      int st;
      if (waitpid(w.pid, &st, WNOHANG) != w.pid) continue;
      w.running = false;
      w.wstatus = st;
      const bool failed = !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
      if (failed && result.exit_code == 0 && !stopping) {
        result.exit_code = exit_code_of(st);
        std::fprintf(stderr,
                     "[launch] rank %d (local_rank %d, pid %d) %s; stopping the other "
                     "workers\n",
                     w.rank, w.local_rank, static_cast<int>(w.pid), describe(st).c_str());
        stop(SIGTERM);
      }
      // Its children must not outlive it, nor hold its output open.
      ::kill(-w.pid, SIGKILL);
    }
    if (kill_pending && Clock::now() >= kill_at) {
      signal_all(workers, SIGKILL);
      kill_pending = false;
    }
  }
  signal_all(workers, SIGKILL);  // Note [No orphans]
  if (result.signal_received && result.exit_code == 0) {
    result.exit_code = 128 + result.signal_received;
  }
  return result;
}

// torchrun's exit barrier: with several nodes, node 0's store serves until
// every other node's launcher says its workers are done (their last
// requests would fail otherwise), at most 300 s (torchrun's
// exit_barrier_timeout), or until a signal. A single node has no one to
// wait for: its launcher exits as soon as its workers did, whatever else
// is connected to the store.
constexpr const char* kDoneKey = "/launch/done/";

void exit_barrier(const Args& a, int port) {
  if (a.nnodes == 1) return;
  try {
    TCPStoreOptions o;
    o.port = static_cast<uint16_t>(port);
    o.timeout = std::chrono::seconds(10);
    TCPStore store(a.master_addr, o);
    const auto deadline = Clock::now() + std::chrono::seconds(300);
    for (int node = 1; node < a.nnodes && Clock::now() < deadline;) {
      if (store.check({absl::StrCat(kDoneKey, node)})) {
        ++node;
        continue;
      }
      pollfd p{g_signal_pipe[0], POLLIN, 0};
      if (::poll(&p, 1, 10) > 0) return;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[launch] exit barrier: %s\n", e.what());
  }
}

// The other side of exit_barrier: a node other than 0 whose workers
// succeeded tells node 0's store so (briefly: the store was there a moment
// ago for the workers; a store that is gone is only a warning).
void report_done(const Args& a, int port) {
  try {
    TCPStoreOptions o;
    o.port = static_cast<uint16_t>(port);
    o.timeout = std::chrono::seconds(3);
    TCPStore store(a.master_addr, o);
    store.set(absl::StrCat(kDoneKey, a.node_rank), std::string("1"));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[launch] could not tell node 0 that this node is done: %s\n", e.what());
  }
}

int launch_main(int argc, char** argv) {
  Args a;
  try {
    a = parse_args(argc, argv);
  } catch (const UsageError& e) {
    if (*e.what()) std::fprintf(stderr, "launch: %s\n", e.what());
    std::fputs(kUsage, stderr);
    return 2;
  }
  install_signal_handlers();
  std::unique_ptr<TCPStoreServer> server;
  int port = a.master_port;
  if (a.node_rank == 0) {
    try {
      // On --master_addr's address only, unless asked (tcp_store.h).
      const char* all = std::getenv("EMBER_TCPSTORE_BIND_ALL");
      const bool everywhere = all != nullptr && std::string(all) == "1";
      server = std::make_unique<TCPStoreServer>(static_cast<uint16_t>(a.master_port),
                                                everywhere ? "" : a.master_addr);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "launch: cannot start the store on port %d: %s\n", a.master_port,
                   e.what());
      return 1;
    }
    port = server->port();
  }
  for (int restart = 0;; ++restart) {
    RoundResult r = run_round(a, port, restart);
    // Shared-memory segments of workers killed while setting them up.
    sweep_dead_shm_segments();
    if (r.exit_code == 0) {
      if (server) {
        exit_barrier(a, port);
      } else {
        report_done(a, port);
      }
      return 0;
    }
    if (r.signal_received || restart >= a.max_restarts) return r.exit_code;
    std::fprintf(stderr, "[launch] restarting the workers (restart %d of %d)\n", restart + 1,
                 a.max_restarts);
  }
}

}  // namespace
}  // namespace ember::distributed

int main(int argc, char** argv) { return ember::distributed::launch_main(argc, argv); }
