// //distributed:launch, torchrun's role:
//
//   launch [--nproc_per_node N|auto|gpu|cpu] [--nnodes N] [--node_rank R]
//          [--master_addr A] [--master_port P] [--max_restarts K] [--standalone]
//          [--rdzv_backend static|c10d] [--rdzv_endpoint HOST[:PORT]] [--rdzv_id ID]
//          [--log_dir DIR] [--redirects STD] [--tee STD] program [args...]
//
// torchrun's flags, spelled with dashes or underscores, and their PET_*
// environment forms (PET_NPROC_PER_NODE...) are accepted, so a torchrun
// command line runs unchanged (--no_python is implied; -m is refused with
// the reason). --rdzv_backend=c10d over several nodes (--nnodes=MIN:MAX or
// N, --rdzv_endpoint HOST:PORT, --rdzv_conf last_call_timeout=S,
// join_timeout=S) gives node ranks by Note [Elastic rendezvous]
// (rendezvous.h): late nodes are admitted at the next round, a dead node is
// left out of it; the launcher on HOST hosts the store and must stay up. Under a Kubernetes
// PyTorchJob the pod's RANK / WORLD_SIZE / MASTER_ADDR / MASTER_PORT give
// the node rank, the number of nodes and the master unless flags say so.
//
// Runs `program` once per local rank with RANK, LOCAL_RANK, WORLD_SIZE,
// LOCAL_WORLD_SIZE, GROUP_RANK, GROUP_WORLD_SIZE, ROLE_NAME, MASTER_ADDR,
// MASTER_PORT, TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_MAX_RESTARTS,
// TORCHELASTIC_RUN_ID, TORCHELASTIC_ERROR_FILE and
// TORCHELASTIC_USE_AGENT_STORE=True set. Node 0's launcher runs the
// TCPStore server on MASTER_PORT (0 picks a free port), and
// init_process_group's env:// connects to it, each restart in its own key
// space (init.h). A worker that fails after writing its error file
// (elastic.h: ember::distributed::record, torch.distributed.elastic's
// @record) has that message in the launcher's failure line.
//
// Every output line of a worker is prefixed with "[rank<N>]: " (stdout to
// stdout, stderr to stderr); with --log_dir and --redirects / --tee it also
// (or only) goes to <log_dir>/<run id>/attempt_<k>/<local rank>/std{out,err}.log.
// When a worker fails, the others get SIGTERM, then SIGKILL 3 s later; with
// restarts left the whole local group starts again, otherwise the launcher
// exits with the first failure's exit code (128 + signal for a worker
// killed by a signal). SIGINT / SIGTERM / SIGHUP are forwarded to every
// worker; the launcher then exits 128 + signal.
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
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "distributed/elastic.h"
#include "distributed/rendezvous.h"
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
  // --rdzv_backend=c10d with several nodes (--nnodes=MIN:MAX or N): node
  // ranks come from Note [Elastic rendezvous] at --rdzv_endpoint.
  bool elastic = false;
  int min_nodes = 1;
  int max_nodes = 1;
  std::chrono::milliseconds last_call{30000};     // --rdzv_conf last_call_timeout=S
  std::chrono::milliseconds join_timeout{600000};  // --rdzv_conf join_timeout=S
  std::string run_id = "none";  // --rdzv_id: TORCHELASTIC_RUN_ID
  std::string role = "default";
  std::string log_dir;          // with --redirects / --tee: worker logs there
  std::string redirects = "0";  // torchrun's Std: 0 none, 1 out, 2 err, 3 both
  std::string tee = "0";
  std::vector<std::string> program;
};

constexpr const char* kUsage =
    "usage: launch [--nproc_per_node N|auto|gpu|cpu] [--nnodes N|MIN:MAX] [--node_rank R]\n"
    "              [--master_addr ADDR] [--master_port PORT] [--max_restarts K] [--standalone]\n"
    "              [--rdzv_backend static|c10d] [--rdzv_endpoint HOST[:PORT]] [--rdzv_id ID]\n"
    "              [--rdzv_conf last_call_timeout=S,join_timeout=S]\n"
    "              [--log_dir DIR] [--redirects STD] [--tee STD] [--no_python]\n"
    "              program [args...]\n"
    "torchrun's flags (dashes or underscores) and their PET_* environment forms;\n"
    "under a Kubernetes PyTorchJob, RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT\n"
    "give --node_rank/--nnodes/--master_addr/--master_port.\n";

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

int to_int(const std::string& flag, const std::string& v) {
  int x;
  if (!absl::SimpleAtoi(v, &x)) throw UsageError(absl::StrCat(flag, ": not an integer: '", v, "'"));
  return x;
}

// GPUs this machine shows (CUDA_VISIBLE_DEVICES's count when set), without
// loading CUDA: the launcher must not initialize it before forking.
int visible_gpus() {
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) {
    const std::string s = v;
    if (s.empty()) return 0;
    return static_cast<int>(std::count(s.begin(), s.end(), ',')) + 1;
  }
  int n = 0;
  while (::access(absl::StrCat("/dev/nvidia", n).c_str(), F_OK) == 0) ++n;
  return n;
}

// torchrun's --nproc_per_node: a number, or auto (the GPUs if there are
// any, else the CPUs), gpu, cpu.
int nproc_of(const std::string& v) {
  const int cpus = std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  if (v == "cpu") return cpus;
  if (v == "gpu") {
    const int gpus = visible_gpus();
    if (gpus == 0) throw UsageError("--nproc_per_node=gpu, but this machine has no GPU");
    return gpus;
  }
  if (v == "auto") {
    const int gpus = visible_gpus();
    return gpus > 0 ? gpus : cpus;
  }
  return to_int("--nproc_per_node", v);
}

// torchrun's Std for --redirects / --tee: "0".."3", or "local_rank:std,...".
std::string std_for(const std::string& spec, int local_rank) {
  if (spec.find(':') == std::string::npos) return spec;
  for (absl::string_view part : absl::StrSplit(spec, ',')) {
    std::vector<std::string> kv = absl::StrSplit(part, ':');
    if (kv.size() == 2 && kv[0] == std::to_string(local_rank)) return kv[1];
  }
  return "0";
}

Args parse_args(int argc, char** argv) {
  // Every option: its flag name (underscores; dashes work too), and whether
  // it takes a value. PET_<NAME> in the environment is its default, as
  // torchrun's.
  struct Option {
    const char* name;
    bool has_value;
  };
  static const Option kOptions[] = {
      {"nproc_per_node", true}, {"nnodes", true},        {"node_rank", true},
      {"master_addr", true},    {"master_port", true},   {"max_restarts", true},
      {"standalone", false},    {"rdzv_backend", true},  {"rdzv_endpoint", true},
      {"rdzv_id", true},        {"rdzv_conf", true},     {"monitor_interval", true},
      {"log_dir", true},        {"redirects", true},     {"tee", true},
      {"no_python", false},     {"role", true},          {"module", false},
      {"start_method", true},   {"run_path", false},     {"local_addr", true},
  };
  auto find = [](std::string name) -> const Option* {
    std::replace(name.begin(), name.end(), '-', '_');
    for (const Option& o : kOptions) {
      if (name == o.name) return &o;
    }
    return nullptr;
  };
  std::map<std::string, std::string> given;  // option -> value ("1" for switches)
  for (const Option& o : kOptions) {
    std::string env = "PET_";
    for (const char* c = o.name; *c; ++c) env.push_back(static_cast<char>(std::toupper(*c)));
    if (const char* v = std::getenv(env.c_str())) given[o.name] = v;
  }
  Args a;
  int i = 1;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "-h" || arg == "--help") throw UsageError("");
    if (arg == "-m") arg = "--module";
    if (arg == "-r") arg = "--redirects";
    if (arg == "-t") arg = "--tee";
    if (arg.rfind("--", 0) != 0) break;  // the program
    std::string name = arg.substr(2), value;
    bool has_value = false;
    const auto eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    const Option* o = find(name);
    if (o == nullptr) throw UsageError(absl::StrCat("unknown option --", name));
    if (!o->has_value) {
      if (has_value) throw UsageError(absl::StrCat("--", name, " takes no value"));
      value = "1";
    } else if (!has_value) {
      if (i + 1 >= argc) throw UsageError(absl::StrCat("--", name, " needs a value"));
      value = argv[++i];
    }
    given[o->name] = value;
  }
  for (; i < argc; ++i) a.program.push_back(argv[i]);

  // Kubernetes PyTorchJob: the pod's RANK and WORLD_SIZE are the node's
  // rank and the number of nodes, unless the command line says otherwise.
  const char* pod_rank = std::getenv("RANK");
  const char* pods = std::getenv("WORLD_SIZE");
  if (pod_rank != nullptr && pods != nullptr && !given.count("nnodes") &&
      !given.count("node_rank")) {
    given["nnodes"] = pods;
    given["node_rank"] = pod_rank;
    if (const char* m = std::getenv("MASTER_ADDR"); m && !given.count("master_addr")) {
      given["master_addr"] = m;
    }
    if (const char* m = std::getenv("MASTER_PORT"); m && !given.count("master_port")) {
      given["master_port"] = m;
    }
  }

  if (given.count("module") || given.count("run_path")) {
    throw UsageError("-m/--module and --run_path run Python; ember's launcher runs programs");
  }
  if (auto it = given.find("start_method"); it != given.end() && it->second != "spawn" &&
                                              it->second != "fork") {
    throw UsageError("--start_method must be spawn or fork");
  }
  if (given.count("nproc_per_node")) a.nproc_per_node = nproc_of(given["nproc_per_node"]);
  if (given.count("nnodes")) {
    const std::string v = given["nnodes"];
    const auto colon = v.find(':');
    if (colon == std::string::npos) {
      a.nnodes = to_int("--nnodes", v);
    } else {
      a.min_nodes = to_int("--nnodes", v.substr(0, colon));
      a.max_nodes = to_int("--nnodes", v.substr(colon + 1));
      if (a.min_nodes < 1 || a.min_nodes > a.max_nodes) {
        throw UsageError(absl::StrCat("--nnodes=", v, ": need 1 <= MIN <= MAX"));
      }
      a.nnodes = a.max_nodes;
    }
  }
  if (given.count("nnodes") && given["nnodes"].find(':') == std::string::npos) {
    a.min_nodes = a.max_nodes = a.nnodes;
  }
  if (given.count("node_rank")) a.node_rank = to_int("--node_rank", given["node_rank"]);
  if (given.count("master_addr")) a.master_addr = given["master_addr"];
  if (given.count("master_port")) a.master_port = to_int("--master_port", given["master_port"]);
  if (given.count("max_restarts")) {
    a.max_restarts = to_int("--max_restarts", given["max_restarts"]);
  }
  if (given.count("rdzv_id")) a.run_id = given["rdzv_id"];
  if (given.count("role")) a.role = given["role"];
  if (given.count("log_dir")) a.log_dir = given["log_dir"];
  if (given.count("redirects")) a.redirects = given["redirects"];
  if (given.count("tee")) a.tee = given["tee"];
  const std::string backend = given.count("rdzv_backend") ? given["rdzv_backend"] : "static";
  if (backend != "static" && backend != "c10d") {
    throw UsageError(absl::StrCat("--rdzv_backend=", backend, ": ember supports static and c10d"));
  }
  if (given.count("rdzv_endpoint")) {
    // HOST[:PORT]: where the store is (the master's address and port).
    const std::string ep = given["rdzv_endpoint"];
    const auto colon = ep.rfind(':');
    if (colon != std::string::npos && ep.find(']') == std::string::npos) {
      a.master_addr = ep.substr(0, colon);
      a.master_port = to_int("--rdzv_endpoint", ep.substr(colon + 1));
    } else {
      a.master_addr = ep;
    }
  }
  if (given.count("standalone")) {
    a.master_addr = "127.0.0.1";
    a.master_port = 0;
    a.nnodes = 1;
  }
  if (a.min_nodes < a.max_nodes && backend != "c10d") {
    throw UsageError(absl::StrCat("--nnodes=", a.min_nodes, ":", a.max_nodes,
                                  ": a range of nodes needs --rdzv_backend=c10d (and "
                                  "--rdzv_endpoint)"));
  }
  if (backend == "c10d" && a.max_nodes > 1) {
    // Note [Elastic rendezvous]: node ranks come from the rendezvous.
    a.elastic = true;
    if (!given.count("rdzv_endpoint")) {
      throw UsageError("--rdzv_backend=c10d with several nodes needs --rdzv_endpoint HOST:PORT");
    }
    if (given.count("node_rank")) {
      std::fprintf(stderr, "[launch] --node_rank is ignored with --rdzv_backend=c10d: the "
                           "rendezvous assigns node ranks\n");
      a.node_rank = 0;
    }
    if (given.count("rdzv_conf")) {
      for (absl::string_view kv : absl::StrSplit(given["rdzv_conf"], ',', absl::SkipEmpty())) {
        const auto eq = kv.find('=');
        const std::string k(kv.substr(0, eq));
        double seconds = 0;
        if (eq == absl::string_view::npos ||
            !absl::SimpleAtod(kv.substr(eq + 1), &seconds) || seconds < 0) {
          throw UsageError(absl::StrCat("--rdzv_conf: '", kv, "' is not KEY=SECONDS"));
        }
        const auto ms = std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
        if (k == "last_call_timeout") {
          a.last_call = ms;
        } else if (k == "join_timeout") {
          a.join_timeout = ms;
        } else {
          std::fprintf(stderr, "[launch] --rdzv_conf: ignoring '%s'\n", k.c_str());
        }
      }
    }
  }
  if (a.program.empty()) throw UsageError("no program to run");
  if (a.nproc_per_node < 1) throw UsageError("--nproc_per_node must be at least 1");
  if (a.nnodes < 1) throw UsageError("--nnodes must be at least 1");
  if (a.node_rank < 0 || a.node_rank >= a.nnodes) {
    throw UsageError(absl::StrCat("--node_rank must be in [0, ", a.nnodes - 1, "]"));
  }
  if (a.master_port < 0 || a.master_port > 65535) {
    throw UsageError("--master_port must be in [0, 65535]");
  }
  if (a.master_port == 0 && a.max_nodes > 1) {
    throw UsageError("--master_port 0 needs --nnodes 1 (other nodes could not learn the port)");
  }
  if (a.max_restarts < 0) throw UsageError("--max_restarts must be non-negative");
  for (const std::string* std_spec : {&a.redirects, &a.tee}) {
    for (int r = 0; r < a.nproc_per_node; ++r) {
      const std::string v = std_for(*std_spec, r);
      if (v != "0" && v != "1" && v != "2" && v != "3") {
        throw UsageError(absl::StrCat("--redirects/--tee: '", *std_spec,
                                      "' is not 0-3 or local_rank:0-3,..."));
      }
    }
  }
  if ((a.redirects != "0" || a.tee != "0") && a.log_dir.empty()) {
    throw UsageError("--redirects and --tee write worker logs under --log_dir: give one");
  }
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
  bool console = true;    // not redirected away (--redirects)
  FILE* file = nullptr;   // <log_dir>/.../stdout.log with --redirects / --tee
};

struct Worker {
  int local_rank;
  int rank;
  pid_t pid = -1;
  bool running = false;
  int wstatus = 0;
  Stream streams[2];
  std::string error_file;  // its TORCHELASTIC_ERROR_FILE
};

// Where a round's per-worker files go: torchrun's layout,
// <dir>/attempt_<restart>/<local_rank>/.
std::string worker_dir(const std::string& dir, int restart, int local_rank) {
  return absl::StrCat(dir, "/attempt_", restart, "/", local_rank);
}

void make_dirs(const std::string& path) {
  std::string partial;
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    partial += std::string(part) + "/";
    ::mkdir(partial.c_str(), 0755);
  }
}

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
  if (out.empty()) return;
  if (s.console) write_all(s.out, out);
  if (s.file != nullptr) write_all(s.file, out);
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// files_dir: where the round's error files (and logs) go.
void start_worker(Worker& w, const Args& a, int port, int restart, const std::string& files_dir) {
  std::vector<std::string> env;
  auto overridden = [](const std::string& kv) {
    for (const char* name :
         {"RANK=", "LOCAL_RANK=", "WORLD_SIZE=", "LOCAL_WORLD_SIZE=", "GROUP_RANK=",
          "ROLE_RANK=", "ROLE_WORLD_SIZE=", "MASTER_ADDR=", "MASTER_PORT=",
          "TORCHELASTIC_RESTART_COUNT=", "TORCHELASTIC_MAX_RESTARTS=",
          "TORCHELASTIC_USE_AGENT_STORE=", "GROUP_WORLD_SIZE=", "ROLE_NAME=",
          "TORCHELASTIC_RUN_ID=", "TORCHELASTIC_ERROR_FILE="}) {
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
  env.push_back(absl::StrCat("GROUP_WORLD_SIZE=", a.nnodes));
  env.push_back(absl::StrCat("ROLE_NAME=", a.role));
  env.push_back(absl::StrCat("TORCHELASTIC_RUN_ID=", a.run_id));
  // The worker writes its uncaught error here (elastic.h); the launcher
  // reports it when the worker fails.
  const std::string dir = worker_dir(files_dir, restart, w.local_rank);
  make_dirs(dir);
  w.error_file = dir + "/error.json";
  ::unlink(w.error_file.c_str());
  env.push_back(absl::StrCat("TORCHELASTIC_ERROR_FILE=", w.error_file));
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
  // torchrun's --redirects (to the log file only) and --tee (both): 1 is
  // stdout, 2 stderr, 3 both.
  const int redirect = std::stoi(std_for(a.redirects, w.local_rank));
  const int tee = std::stoi(std_for(a.tee, w.local_rank));
  for (int k = 0; k < 2; ++k) {
    const int bit = k == 0 ? 1 : 2;
    if ((redirect | tee) & bit) {
      w.streams[k].file = std::fopen((dir + (k == 0 ? "/stdout.log" : "/stderr.log")).c_str(), "w");
    }
    if (redirect & bit) w.streams[k].console = false;
  }
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
  bool stopped = false;     // should_stop ended it (another node's doing)
};

void signal_all(std::vector<Worker>& workers, int sig) {
  for (Worker& w : workers) {
    if (w.pid > 0) ::kill(-w.pid, sig);  // the worker's process group
  }
}

// Runs one round of workers until all exit; fail-fast on the first failure.
// Runs a round of this node's workers until they all end. `should_stop`
// (may be empty), asked about twice a second, ends it early: the workers
// are stopped and their failures are not this node's (Note [Elastic
// rendezvous]).
RoundResult run_round(const Args& a, int port, int restart, const std::string& files_dir,
                      const std::function<bool()>& should_stop = {}) {
  std::vector<Worker> workers(a.nproc_per_node);
  for (int i = 0; i < a.nproc_per_node; ++i) {
    workers[i].local_rank = i;
    workers[i].rank = a.node_rank * a.nproc_per_node + i;
    start_worker(workers[i], a, port, restart, files_dir);
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
  Clock::time_point next_ask = Clock::now() + std::chrono::milliseconds(500);
  for (;;) {
    if (should_stop && !stopping && Clock::now() >= next_ask) {
      next_ask = Clock::now() + std::chrono::milliseconds(500);
      bool stop_now = false;
      try {
        stop_now = should_stop();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "[launch] the rendezvous store failed: %s; stopping the workers\n",
                     e.what());
        stop_now = true;
      }
      if (stop_now) {
        result.stopped = true;
        stop(SIGTERM);
      }
    }
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
        if (s.file != nullptr) std::fclose(s.file);
        s.file = nullptr;
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
        // Its own account of the failure, when it left one (elastic.h).
        const std::string why = read_error_file(w.error_file);
        std::fprintf(stderr,
                     "[launch] rank %d (local_rank %d, pid %d) %s%s%s; stopping the other "
                     "workers\n",
                     w.rank, w.local_rank, static_cast<int>(w.pid), describe(st).c_str(),
                     why.empty() ? "" : ": ", why.c_str());
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

// Whether `host` names an address of this machine (one a socket can bind).
bool is_local_address(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), "0", &hints, &res) != 0) return false;
  bool local = false;
  for (addrinfo* ai = res; ai != nullptr && !local; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    local = ::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0;
    ::close(fd);
  }
  freeaddrinfo(res);
  return local;
}

bool signal_pending() {
  pollfd p{g_signal_pipe[0], POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

// Note [Elastic rendezvous]: --rdzv_backend=c10d over several nodes.
int run_elastic(const Args& a, const std::string& files_dir) {
  std::unique_ptr<TCPStoreServer> server;
  if (is_local_address(a.master_addr)) {
    try {
      server = std::make_unique<TCPStoreServer>(static_cast<uint16_t>(a.master_port),
                                                a.master_addr);
    } catch (const DistBackendError&) {
      // Another launcher on this machine hosts it.
    }
  }
  std::shared_ptr<TCPStore> store;
  try {
    TCPStoreOptions o;
    o.port = static_cast<uint16_t>(a.master_port);
    o.timeout = a.join_timeout;
    o.server_description = "the rendezvous host";
    store = std::make_shared<TCPStore>(a.master_addr, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "launch: cannot reach the rendezvous store at %s:%d: %s\n",
                 a.master_addr.c_str(), a.master_port, e.what());
    return 1;
  }
  RendezvousOptions ro;
  ro.min_nodes = a.min_nodes;
  ro.max_nodes = a.max_nodes;
  ro.last_call = a.last_call;
  ro.join_timeout = a.join_timeout;
  ro.prefix = "/rdzv/" + a.run_id;
  ElasticRendezvous rdzv(store, ro);
  int failures = 0;
  int from = -1;
  for (;;) {
    RendezvousRound rr;
    try {
      rr = rdzv.join(from, signal_pending, from - 1);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "launch: %s\n", e.what());
      return 1;
    }
    std::fprintf(stderr, "[launch] round %d: node %d of %d\n", rr.round, rr.node_rank,
                 rr.nnodes);
    Args ra = a;
    ra.nnodes = rr.nnodes;
    ra.node_rank = rr.node_rank;
    const RoundResult r = run_round(ra, a.master_port, rr.round, files_dir, [&] {
      return rdzv.failed(rr.round) ||
             (rdzv.waiting(rr.round) > 0 && rr.nnodes < a.max_nodes);
    });
    sweep_dead_shm_segments();
    if (r.signal_received) return r.exit_code;
    if (r.exit_code == 0 && !r.stopped) {
      // Exit barrier: the host's store serves until every node is done.
      try {
        rdzv.done(rr.round);
        const auto deadline = Clock::now() + std::chrono::seconds(300);
        while (server && rdzv.num_done(rr.round) < rr.nnodes && Clock::now() < deadline &&
               !signal_pending()) {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "[launch] exit barrier: %s\n", e.what());
      }
      return 0;
    }
    if (r.stopped) {
      std::fprintf(stderr,
                   "[launch] round %d ends: a node is waiting to join or another node's workers "
                   "failed; rejoining\n",
                   rr.round);
    } else {
      try {
        rdzv.mark_failed(rr.round);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "[launch] %s\n", e.what());
      }
      if (failures >= a.max_restarts) return r.exit_code;
      ++failures;
      std::fprintf(stderr, "[launch] restarting the workers (restart %d of %d)\n", failures,
                   a.max_restarts);
    }
    from = rr.round + 1;
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
  if (a.node_rank == 0 && !a.elastic) {
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
  // The workers' error files (and logs): under --log_dir/<run id> as
  // torchrun lays them out, else in a private folder removed at exit.
  std::string files_dir;
  if (!a.log_dir.empty()) {
    files_dir = absl::StrCat(a.log_dir, "/", a.run_id);
    make_dirs(files_dir);
  } else {
    const char* tmp = std::getenv("TMPDIR");
    files_dir = absl::StrCat(tmp && *tmp ? tmp : "/tmp", "/ember_launch_XXXXXX");
    if (::mkdtemp(files_dir.data()) == nullptr) {
      std::perror("launch: mkdtemp");
      return 1;
    }
  }
  struct RemoveAtExit {
    std::string dir;
    ~RemoveAtExit() {
      if (!dir.empty()) std::filesystem::remove_all(dir);
    }
  } cleanup{a.log_dir.empty() ? files_dir : ""};
  if (a.elastic) return run_elastic(a, files_dir);
  for (int restart = 0;; ++restart) {
    RoundResult r = run_round(a, port, restart, files_dir);
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
