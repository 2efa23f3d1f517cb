// all_reduce bandwidth, printed as nccl-tests' all_reduce_perf prints it.
//
//   bazel run //benchmarks:allreduce -- --backend gloo --nproc 2 -b 8 -e 256M -f 2 -w 5 -n 20 -c 1
//   bazel run //benchmarks:allreduce -- --backend nccl --nproc 2 ...   # a GPU per rank
//
// Spawns --nproc ranks on 127.0.0.1 (or, run under //distributed:launch,
// joins through env:// as one of its ranks), sweeps sizes from -b to -e
// multiplying by -f, and for each size times -n all_reduces after -w warm-up
// ones, out-of-place (the input copied into the output, then reduced there:
// ProcessGroup's all_reduce is in place) and in-place. busbw = algbw *
// 2(n-1)/n; #wrong counts elements that differ from the exact sum after one
// more all_reduce of freshly initialised buffers (-c 1). Any wrong element
// makes the exit status non-zero.
//
// Before the sweep it measures loopback TCP in both directions at once (two
// processes, each sending and receiving 1 GiB), the way a 2-rank ring uses
// the link: the figure busbw is compared with.
//
// Backends come from init_process_group's registry; a backend whose tensors
// live on a device (NCCL: CUDA, rank r on cuda:r % device_count) only needs
// an entry in device_for() and its library linked in. Device timings end
// with a device synchronize (NCCL's wait() does not block the host).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "distributed/init.h"
#include "distributed/process_group_gloo.h"
#include "distributed/spawn.h"
#include "tensor/all.h"
#include "tensor/cuda/cuda.h"

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  std::string backend = "gloo";
  int nproc = 2;
  int64_t min_bytes = 32 << 20;
  int64_t max_bytes = 32 << 20;
  int64_t factor = 2;
  int warmup = 5;
  int iters = 20;
  int check = 1;
  std::string dtype = "float";
  std::string op = "sum";
  bool calibrate = true;
};

int64_t parse_size(const std::string& s) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  int64_t mul = 1;
  switch (*end) {
    case 'K': case 'k': mul = 1 << 10; break;
    case 'M': case 'm': mul = 1 << 20; break;
    case 'G': case 'g': mul = int64_t{1} << 30; break;
    case '\0': break;
    default:
      std::fprintf(stderr, "allreduce: bad size '%s'\n", s.c_str());
      std::exit(2);
  }
  return static_cast<int64_t>(v * mul);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "allreduce: %s needs a value\n", k.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (k == "--backend") a.backend = val();
    else if (k == "--nproc") a.nproc = std::stoi(val());
    else if (k == "-b" || k == "--minbytes") a.min_bytes = parse_size(val());
    else if (k == "-e" || k == "--maxbytes") a.max_bytes = parse_size(val());
    else if (k == "-f" || k == "--stepfactor") a.factor = std::stoll(val());
    else if (k == "-w" || k == "--warmup_iters") a.warmup = std::stoi(val());
    else if (k == "-n" || k == "--iters") a.iters = std::stoi(val());
    else if (k == "-c" || k == "--check") a.check = std::stoi(val());
    else if (k == "-d" || k == "--datatype") a.dtype = val();
    else if (k == "-o" || k == "--op") a.op = val();
    else if (k == "--no_calibration") a.calibrate = false;
    else {
      std::fprintf(stderr,
                   "usage: allreduce [--backend gloo] [--nproc N] [-b min] [-e max] [-f factor]\n"
                   "                 [-w warmup] [-n iters] [-c 0|1] [-d float|double|int32|int64]\n"
                   "                 [-o sum|prod|min|max|avg] [--no_calibration]\n");
      std::exit(2);
    }
  }
  if (a.nproc < 1 || a.factor < 2 || a.iters < 1 || a.min_bytes < 1 || a.max_bytes < a.min_bytes) {
    std::fprintf(stderr, "allreduce: bad arguments\n");
    std::exit(2);
  }
  return a;
}

ScalarType dtype_of(const std::string& d) {
  if (d == "float") return kFloat;
  if (d == "double") return kDouble;
  if (d == "int32" || d == "int") return kInt;
  if (d == "int64") return kLong;
  std::fprintf(stderr, "allreduce: unsupported -d %s\n", d.c_str());
  std::exit(2);
}

ReduceOp op_of(const std::string& o) {
  if (o == "sum") return ReduceOp::SUM;
  if (o == "prod") return ReduceOp::PRODUCT;
  if (o == "min") return ReduceOp::MIN;
  if (o == "max") return ReduceOp::MAX;
  if (o == "avg") return ReduceOp::AVG;
  std::fprintf(stderr, "allreduce: unsupported -o %s\n", o.c_str());
  std::exit(2);
}

// Where a backend's tensors live. NCCL: a GPU per rank.
Device device_for(const std::string& backend, int rank) {
  if (backend != "nccl") return Device(kCPU);
  const int n = static_cast<int>(cuda::device_count());
  if (n == 0) throw Error("allreduce: the nccl backend needs a GPU");
  const char* local = std::getenv("LOCAL_RANK");  // under the launcher
  return Device(kCUDA, static_cast<int8_t>((local != nullptr ? std::atoi(local) : rank) % n));
}

// Waits for `w` and, for device tensors, for the device itself.
void finish(const std::shared_ptr<Work>& w, Device dev) {
  w->wait();
  if (dev.is_cuda()) cuda::synchronize(dev.index());
}

// ---------------------------------------------------------------- calibration

// Sends and receives `bytes` over one loopback TCP connection at once.
void pump(int fd, int64_t bytes) {
  std::vector<char> out(1 << 20, 1), in(1 << 20);
  std::thread sender([&] {
    int64_t left = bytes;
    while (left > 0) {
      ssize_t n = ::send(fd, out.data(), std::min<int64_t>(left, out.size()), MSG_NOSIGNAL);
      if (n <= 0) return;
      left -= n;
    }
  });
  int64_t left = bytes;
  while (left > 0) {
    ssize_t n = ::recv(fd, in.data(), std::min<int64_t>(left, in.size()), 0);
    if (n <= 0) break;
    left -= n;
  }
  sender.join();
}

// GB/s per direction with both directions busy (best of 3).
double calibrate_loopback() {
  const int64_t kBytes = int64_t{1} << 30;
  int lfd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (lfd < 0 || ::bind(lfd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(lfd, 1) != 0 || ::getsockname(lfd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("calibration socket");
    return 0;
  }
  pid_t child = ::fork();
  if (child == 0) {
    ::close(lfd);
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) _exit(1);
    for (int i = 0; i < 3; ++i) pump(fd, kBytes);
    _exit(0);
  }
  int fd = ::accept(lfd, nullptr, nullptr);
  ::close(lfd);
  double best = 0;
  for (int i = 0; i < 3; ++i) {
    auto t0 = Clock::now();
    pump(fd, kBytes);
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::max(best, kBytes / s / 1e9);
  }
  ::close(fd);
  ::waitpid(child, nullptr, 0);
  return best;
}

// ---------------------------------------------------------------- the sweep

// Rank r's input: small integers, so every sum is exact in every dtype.
Tensor fill_input(int64_t count, ScalarType dt, int rank, Device dev) {
  return ((arange(count, kLong) % 7) + rank + 1).to(dt).to(dev);
}

Tensor expected_output(int64_t count, ScalarType dt, int world, ReduceOp op) {
  Tensor base = (arange(count, kLong) % 7).to(kDouble);
  Tensor acc;
  for (int r = 0; r < world; ++r) {
    Tensor v = base + (r + 1);
    if (!acc.defined()) {
      acc = v;
      continue;
    }
    switch (op) {
      case ReduceOp::PRODUCT: acc = acc * v; break;
      case ReduceOp::MIN: acc = minimum(acc, v); break;
      case ReduceOp::MAX: acc = maximum(acc, v); break;
      default: acc = acc + v; break;
    }
  }
  if (op == ReduceOp::AVG) {
    acc = is_floating_point(dt) ? acc / world : floor_divide(acc, world);
  }
  return acc.to(dt);
}

int64_t count_wrong(ProcessGroup& pg, int64_t count, ScalarType dt, ReduceOp op, Device dev) {
  std::vector<Tensor> v{fill_input(count, dt, pg.rank(), dev)};
  pg.allreduce(v, {op})->wait();
  Tensor want = expected_output(count, dt, pg.size(), op);
  return ne(v[0].cpu(), want).sum().item<int64_t>();
}

// Mean seconds per op over `iters`, the slowest rank's figure.
double time_ops(ProcessGroup& pg, int warmup, int iters, const Tensor& in, Tensor& out,
                bool in_place, ReduceOp op) {
  std::vector<Tensor> v{out};
  auto one = [&] {
    if (!in_place) out.copy_(in);
    return pg.allreduce(v, {op});
  };
  for (int i = 0; i < warmup; ++i) finish(one(), in.device());
  pg.barrier()->wait();
  auto t0 = Clock::now();
  std::shared_ptr<Work> last;
  for (int i = 0; i < iters; ++i) {
    // The copy of out-of-place has to follow the previous op's result.
    if (!in_place && last) last->wait();
    last = one();
  }
  finish(last, in.device());
  double s = std::chrono::duration<double>(Clock::now() - t0).count() / iters;
  std::vector<Tensor> t{full({1}, s, TensorOptions(kDouble).device(in.device()))};
  pg.allreduce(t, {ReduceOp::MAX})->wait();
  return t[0].item<double>();
}

int run_rank(const Args& a, ProcessGroup& pg, double calibration) {
  const ScalarType dt = dtype_of(a.dtype);
  const ReduceOp op = op_of(a.op);
  const Device dev = device_for(a.backend, pg.rank());
  const int world = pg.size();
  const int64_t esize = element_size(dt);
  const bool root = pg.rank() == 0;
  const double bus_factor = world > 1 ? 2.0 * (world - 1) / world : 0.0;
  if (root) {
    std::printf("# ember all_reduce: backend %s nranks %d minBytes %lld maxBytes %lld step: %lld(factor) "
                "warmup iters: %d iters: %d validation: %d\n#\n",
                a.backend.c_str(), world, static_cast<long long>(a.min_bytes),
                static_cast<long long>(a.max_bytes), static_cast<long long>(a.factor), a.warmup,
                a.iters, a.check);
    if (auto* gloo = dynamic_cast<ProcessGroupGloo*>(&pg)) {
      // Note [Same-host all-reduce]: EMBER_GLOO_SHM=0 measures the TCP ring.
      std::printf("# all_reduce transport: %s\n#\n",
                  gloo->uses_shared_memory() ? "shared memory (ranks on one host)" : "TCP");
    }
    if (calibration > 0) {
      std::printf("# Loopback TCP calibration (both directions at once): %.2f GB/s per direction\n#\n",
                  calibration);
    }
    std::printf("# %10s %12s %8s %6s %6s %27s %27s\n", "", "", "", "", "", "out-of-place", "in-place");
    std::printf("# %10s %12s %8s %6s %6s %8s %6s %6s %5s %8s %6s %6s %5s\n", "size", "count", "type",
                "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw",
                "#wrong");
    std::printf("# %10s %12s %8s %6s %6s %8s %6s %6s %5s %8s %6s %6s %5s\n", "(B)", "(elements)", "",
                "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
    std::fflush(stdout);
  }
  int64_t total_wrong = 0;
  double bus_sum = 0;
  int n_sizes = 0;
  for (int64_t bytes = a.min_bytes; bytes <= a.max_bytes; bytes *= a.factor) {
    const int64_t count = std::max<int64_t>(bytes / esize, 1);
    const int64_t real_bytes = count * esize;
    Tensor in = fill_input(count, dt, pg.rank(), dev);
    Tensor out = empty({count}, TensorOptions(dt).device(dev));
    double t_oop = time_ops(pg, a.warmup, a.iters, in, out, false, op);
    int64_t wrong_oop = a.check ? count_wrong(pg, count, dt, op, dev) : 0;
    Tensor inplace = in.clone();
    double t_ip = time_ops(pg, a.warmup, a.iters, inplace, inplace, true, op);
    int64_t wrong_ip = a.check ? count_wrong(pg, count, dt, op, dev) : 0;
    // Every rank's count: the table prints the sum over ranks.
    std::vector<Tensor> w{tensor({wrong_oop, wrong_ip}).to(dev)};
    pg.allreduce(w)->wait();
    wrong_oop = w[0][0].item<int64_t>();
    wrong_ip = w[0][1].item<int64_t>();
    total_wrong += wrong_oop + wrong_ip;
    const double alg_oop = real_bytes / t_oop / 1e9, alg_ip = real_bytes / t_ip / 1e9;
    bus_sum += (alg_oop + alg_ip) * bus_factor / 2;
    ++n_sizes;
    if (root) {
      std::printf("  %10lld %12lld %8s %6s %6d %8.1f %6.2f %6.2f %5lld %8.1f %6.2f %6.2f %5lld\n",
                  static_cast<long long>(real_bytes), static_cast<long long>(count), a.dtype.c_str(),
                  a.op.c_str(), -1, t_oop * 1e6, alg_oop, alg_oop * bus_factor,
                  static_cast<long long>(wrong_oop), t_ip * 1e6, alg_ip, alg_ip * bus_factor,
                  static_cast<long long>(wrong_ip));
      std::fflush(stdout);
    }
    if (a.max_bytes / a.factor < bytes) break;  // the next step would overflow past -e
  }
  if (root) {
    std::printf("# Out of bounds values : %lld %s\n", static_cast<long long>(total_wrong),
                total_wrong ? "FAILED" : "OK");
    std::printf("# Avg bus bandwidth    : %.4f \n#\n", n_sizes ? bus_sum / n_sizes : 0.0);
    std::fflush(stdout);
  }
  return total_wrong ? 1 : 0;
}

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

int main_impl(int argc, char** argv) {
  Args a = parse(argc, argv);
  const bool launched = std::getenv("RANK") != nullptr && std::getenv("WORLD_SIZE") != nullptr;
  double calibration = 0;
  // Loopback TCP is what gloo's busbw compares with; NCCL's ranks talk
  // over the GPUs' links.
  if (a.calibrate && a.backend != "nccl" &&
      (!launched || std::string(std::getenv("RANK")) == "0")) {
    calibration = calibrate_loopback();
  }
  if (launched) {  // one rank of //distributed:launch
    init_process_group(Backend(a.backend));
    int rc = run_rank(a, get_default_group().pg(), calibration);
    destroy_process_group();
    return rc;
  }
  const int port = free_port();
  try {
    spawn(
        [&](int rank) {
          InitOptions o;
          o.init_method = "tcp://127.0.0.1:" + std::to_string(port);
          o.world_size = a.nproc;
          o.rank = rank;
          init_process_group(Backend(a.backend), o);
          int rc = run_rank(a, get_default_group().pg(), calibration);
          destroy_process_group();
          if (rc != 0) throw Error("wrong elements in the all_reduce results");
        },
        a.nproc);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "allreduce: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace ember::distributed

int main(int argc, char** argv) { return ember::distributed::main_impl(argc, argv); }
