// ProcessGroupGloo: construction (one gloo context per interface), the
// worker thread, Work, and turning failures into errors that name the op,
// its sequence number and the peer. See Note [Gloo execution model].

#include "distributed/process_group_gloo.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/attr.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "distributed/gloo_store.h"
#include "distributed/process_group_gloo_impl.h"
#include "tensor/empty.h"

namespace ember::distributed {

// ---------------------------------------------------------------- Work

bool GlooWork::is_completed() {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

bool GlooWork::wait(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  if (timeout == Store::kNoTimeout) {
    // The op itself ends by its own timeout (plus the failure report), so
    // this wait is bounded too.
    cv_.wait(lock, [&] { return done_; });
  } else if (!cv_.wait_for(lock, timeout, [&] { return done_; })) {
    throw TimeoutError(absl::StrCat("ProcessGroupGloo: ", op_, " (sequence number ", seq_,
                                    ") did not complete within ", timeout.count(), " ms"));
  }
  if (ex_) std::rethrow_exception(ex_);
  return true;
}

std::exception_ptr GlooWork::exception() {
  std::lock_guard<std::mutex> lock(mu_);
  return ex_;
}

int GlooWork::source_rank() const {
  std::lock_guard<std::mutex> lock(mu_);
  return source_rank_;
}

void GlooWork::finish(std::exception_ptr ex, int source_rank) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (done_) return;
    done_ = true;
    ex_ = std::move(ex);
    source_rank_ = source_rank;
  }
  cv_.notify_all();
}

// ---------------------------------------------------------------- helpers

void gloo_check_tensor(const Tensor& t, const char* op) {
  EMBER_CHECK(t.defined(), "ProcessGroupGloo::", op, ": tensor is undefined");
  EMBER_CHECK(!t.is_quantized(), "ProcessGroupGloo::", op, ": unsupported dtype ",
              dtype_name(t.dtype()));
}

void gloo_check_devices(const Tensor& t, const Tensor& like, const char* op) {
  EMBER_CHECK(t.device() == like.device(), "ProcessGroupGloo::", op,
              ": tensors must all be on the same device (got ", like.device().str(), " and ",
              t.device().str(), ")");
}

// Note [Gloo and device tensors]: gloo moves host memory only, so a tensor
// on a device (CUDA) is staged through a dense host copy: copied in on the
// calling thread when the op reads it, and back (copy_back, on the worker
// thread) when the op writes it, as PyTorch's gloo backend does for CUDA
// tensors (there on a side stream; here the copies synchronize).
Staged gloo_stage(const Tensor& t, bool copy_in) {
  if (t.is_cpu() && t.is_contiguous()) return {t, t};
  const TensorOptions host = t.options().device(Device(kCPU));
  Tensor dense = copy_in ? t.to(Device(kCPU)).contiguous() : empty(t.sizes(), host);
  return {t, dense};
}

void Staged::copy_back() const {
  if (!dense.is_same(user)) Tensor(user).copy_(dense);
}

std::vector<std::string> ProcessGroupGloo::interfaces_from_env() {
  const char* env = std::getenv("GLOO_SOCKET_IFNAME");
  std::vector<std::string> out;
  if (env == nullptr) return out;
  for (absl::string_view s : absl::StrSplit(env, ',', absl::SkipWhitespace())) {
    out.emplace_back(s);
  }
  EMBER_CHECK(!out.empty() || *env == '\0', "GLOO_SOCKET_IFNAME='", env, "' names no interface");
  return out;
}

namespace {

std::string default_hostname() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) == 0 && buf[0] != '\0') return buf;
  return "127.0.0.1";
}

std::shared_ptr<gloo::transport::Device> make_device(const std::string& iface,
                                                     const std::string& hostname) {
  gloo::transport::tcp::attr attr;
  if (!iface.empty()) {
    attr.iface = iface;
    try {
      return gloo::transport::tcp::CreateDevice(attr);
    } catch (const std::exception& e) {
      throw Error(absl::StrCat("ProcessGroupGloo: cannot use network interface '", iface,
                               "' (GLOO_SOCKET_IFNAME): ", e.what()));
    }
  }
  if (!hostname.empty()) {
    attr.hostname = hostname;
    return gloo::transport::tcp::CreateDevice(attr);
  }
  // PyTorch's default: the address the hostname resolves to, else loopback.
  try {
    attr.hostname = default_hostname();
    return gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception&) {
    attr.hostname = "127.0.0.1";
    return gloo::transport::tcp::CreateDevice(attr);
  }
}

std::string join_ranks(const std::vector<int>& ranks) { return absl::StrJoin(ranks, ", "); }

}  // namespace

// ---------------------------------------------------------------- Impl

ProcessGroupGloo::Impl::Impl(ProcessGroupGloo* pg_, std::shared_ptr<Store> store_,
                             const Options& options_)
    : pg(pg_), rank(pg_->rank()), size(pg_->size()), store(std::move(store_)), options(options_) {
  std::vector<std::string> ifaces = options.interfaces;
  if (ifaces.empty() && options.hostname.empty()) ifaces = interfaces_from_env();
  if (ifaces.empty()) ifaces.push_back("");  // one device on the hostname
  for (size_t i = 0; i < ifaces.size(); ++i) {
    auto dev = make_device(ifaces[i], options.hostname);
    auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, size);
    ctx->setTimeout(options.timeout);
    GlooStore gs(store, store_key(absl::StrCat("ctx", i, "/")));
    try {
      ctx->connectFullMesh(gs, dev);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw DistBackendError(absl::StrCat("ProcessGroupGloo: rank ", rank,
                                          " could not connect to its peers: ", e.what()));
    }
    contexts.push_back(std::move(ctx));
  }
  // Publish the addresses of this rank's pairs so a survivor can map gloo's
  // "peer [ip]:port" to a rank even when the store is gone.
  std::vector<std::string> mine;
  for (auto& ctx : contexts) {
    for (int j = 0; j < size; ++j) {
      if (j != rank) mine.push_back(ctx->getPair(j)->address().str());
    }
  }
  store->set(store_key(absl::StrCat("addr/", rank)), absl::StrJoin(mine, ","));
  peer_addresses.resize(size);
  for (int r = 0; r < size; ++r) {
    if (r == rank) continue;
    std::string v = store->get_string(store_key(absl::StrCat("addr/", r)));
    peer_addresses[r] = absl::StrSplit(v, ',', absl::SkipEmpty());
  }
  shm = ShmAllreduce::create(*store, store_key(""), rank, size, options.shared_memory);
  // Note [Failure reports]
  auto report_timeout = options.failure_report_grace + std::chrono::seconds(1);
  if (options.timeout.count() >= 0) report_timeout = std::min(report_timeout, options.timeout);
  report_store = store->clone(report_timeout);
  monitor_store = store->clone(report_timeout);
  clones = report_store != nullptr && monitor_store != nullptr;
  if (!clones) report_store = monitor_store = store;
  worker = std::thread([this] { worker_loop(); });
  monitor = std::thread([this] { monitor_loop(); });
}

ProcessGroupGloo::Impl::~Impl() {
  {
    std::lock_guard<std::mutex> lock(mu);
    stopping = true;
  }
  cv.notify_all();
  monitor_cv.notify_all();
  if (worker.joinable()) worker.join();
  if (monitor.joinable()) monitor.join();
  // Pending sends/recvs end with an error rather than keep the process up.
  std::vector<Waiter> ws;
  {
    std::lock_guard<std::mutex> lock(waiters_mu);
    ws.swap(waiters);
  }
  for (auto& w : ws) {
    if (!*w.done) w.abort();
  }
  for (auto& w : ws) w.thread.join();
}

std::shared_ptr<GlooWork> ProcessGroupGloo::Impl::make_work(const std::string& op,
                                                            bool collective) {
  std::lock_guard<std::mutex> lock(mu);
  auto w = std::make_shared<GlooWork>(op, next_seq++);
  w->collective = collective;
  if (collective) w->tag = next_tag++;
  return w;
}

void ProcessGroupGloo::Impl::enqueue(const std::shared_ptr<GlooWork>& work) {
  {
    std::lock_guard<std::mutex> lock(mu);
    EMBER_CHECK(!stopping, "ProcessGroupGloo: ", work->op(), " issued while the group shuts down");
    queue.push_back(work);
  }
  cv.notify_one();
}

void ProcessGroupGloo::Impl::worker_loop() {
  for (;;) {
    std::shared_ptr<GlooWork> w;
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return stopping || !queue.empty(); });
      if (queue.empty()) return;  // stopping, and every queued op has run
      w = std::move(queue.front());
      queue.pop_front();
    }
    {
      std::lock_guard<std::mutex> lock(fail_mu);
      if (broken) {
        w->finish(std::make_exception_ptr(DistBackendError(absl::StrCat(
            "ProcessGroupGloo: ", w->op(), " (sequence number ", w->sequence_number(),
            ") on rank ", rank, " cannot run: the group failed earlier: ", broken_reason))));
        continue;
      }
    }
    try {
      // Point-to-point ops use the first context: both ends must agree.
      const auto& ctx = contexts[w->collective ? w->tag % contexts.size() : 0];
      op_running = w->collective;
      w->run(ctx, w->tag);
      op_running = false;
      if (!w->deferred) w->finish(nullptr);
    } catch (const Error& e) {
      // ember's own checks inside run (never a transport failure).
      op_running = false;
      w->finish(std::current_exception());
    } catch (const ShmPeerLost& e) {
      op_running = false;
      w->finish(on_failure(*w, e.what(), e.rank));
    } catch (const std::exception& e) {
      op_running = false;
      w->finish(on_failure(*w, e.what()));
    }
    w->run = nullptr;  // drop the tensors it captured
  }
}

void ProcessGroupGloo::Impl::monitor_loop() {
  const auto period = std::chrono::milliseconds(100);
  const std::string base = store_key("failed/");
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu);
      if (monitor_cv.wait_for(lock, period, [&] { return stopping; })) return;
    }
    if (!op_running) continue;
    {
      std::lock_guard<std::mutex> lock(fail_mu);
      if (broken) return;  // on_failure has closed the connections already
    }
    int reporter = -1;
    try {
      std::unique_lock<std::mutex> lock(store_mu, std::defer_lock);
      if (!clones) lock.lock();
      for (int r = 0; r < size && reporter < 0; ++r) {
        if (r != rank && monitor_store->check({base + std::to_string(r)})) reporter = r;
      }
    } catch (const std::exception&) {
      continue;  // the store is gone too: the op's own timeout will tell
    }
    if (reporter < 0 || !op_running) continue;
    for (auto& ctx : contexts) {
      try {
        ctx->closeConnections();
      } catch (const std::exception&) {
      }
    }
    return;
  }
}

void ProcessGroupGloo::Impl::defer(const std::shared_ptr<GlooWork>& work,
                                   std::function<int()> fn, std::function<void()> abort) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::lock_guard<std::mutex> lock(waiters_mu);
  // Reap waiters that are finished so the list stays short.
  for (auto it = waiters.begin(); it != waiters.end();) {
    if (*it->done) {
      it->thread.join();
      it = waiters.erase(it);
    } else {
      ++it;
    }
  }
  Waiter w;
  w.done = done;
  w.abort = std::move(abort);
  w.thread = std::thread([this, work, fn, done] {
    try {
      int src = fn();
      work->finish(nullptr, src);
    } catch (const std::exception& e) {
      work->finish(on_failure(*work, e.what()));
    }
    *done = true;
  });
  waiters.push_back(std::move(w));
}

std::exception_ptr ProcessGroupGloo::Impl::on_failure(const GlooWork& work,
                                                      const std::string& what, int lost_rank) {
  std::lock_guard<std::mutex> fail_lock(fail_mu);
  const std::string head = absl::StrCat("ProcessGroupGloo: ", work.op(), " (sequence number ",
                                        work.sequence_number(), ") failed on rank ", rank);
  if (broken) {
    return std::make_exception_ptr(
        DistBackendError(absl::StrCat(head, ": the group failed earlier: ", broken_reason)));
  }
  // 1. Peers blocked on this rank fail now rather than after their timeout.
  for (auto& ctx : contexts) {
    try {
      ctx->closeConnections();
    } catch (const std::exception&) {
    }
  }
  if (shm) shm->abort();
  // 2. The peer gloo's message names by address.
  std::vector<int> lost;
  for (int r = 0; r < size; ++r) {
    for (const auto& a : peer_addresses[r]) {
      if (!a.empty() && what.find(a) != std::string::npos) {
        lost.push_back(r);
        break;
      }
    }
  }
  if (lost_rank >= 0 && std::find(lost.begin(), lost.end(), lost_rank) == lost.end()) {
    lost.push_back(lost_rank);
  }
  // 3. Ranks that do not report a failure of the same op in the store within
  // the grace period are dead or stopped.
  std::vector<int> silent;
  std::string store_error;  // why the store could not be used, if it could not
  if (work.collective) {
    try {
      std::unique_lock<std::mutex> lock(store_mu, std::defer_lock);
      if (!clones) lock.lock();
      // Keyed by rank only: a group fails once, and ranks drift by an op or
      // so (a ring all_reduce lets a rank finish while its neighbour waits).
      const std::string base = store_key("failed/");
      report_store->set(base + std::to_string(rank), what);
      auto grace = std::min(options.failure_report_grace, options.timeout);
      auto deadline = std::chrono::steady_clock::now() + grace;
      std::vector<bool> seen(size, false);
      seen[rank] = true;
      for (;;) {
        bool all = true;
        for (int r = 0; r < size; ++r) {
          if (!seen[r]) seen[r] = report_store->check({base + std::to_string(r)});
          all = all && seen[r];
        }
        if (all || std::chrono::steady_clock::now() >= deadline) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      for (int r = 0; r < size; ++r) {
        if (!seen[r]) silent.push_back(r);
      }
    } catch (const std::exception& e) {
      // Note [A store that is gone]: a dead store host says so at once.
      store_error = e.what();
    }
  } else if (work.peer >= 0 && lost.empty()) {
    lost.push_back(work.peer);
  }
  std::string peers;
  if (!silent.empty()) {
    absl::StrAppend(&peers, silent.size() == 1 ? "peer rank " : "peer ranks ", join_ranks(silent),
                    " did not respond (dead or stopped)");
  }
  if (!lost.empty()) {
    absl::StrAppend(&peers, peers.empty() ? "" : "; ", "connection to peer rank ",
                    join_ranks(lost), " lost");
  }
  if (!store_error.empty()) {
    absl::StrAppend(&peers, peers.empty() ? "" : "; ", "the store is unreachable (", store_error,
                    ")");
  }
  if (peers.empty()) peers = "every peer reported the failure too";
  const bool timed_out = what.find("Timed out") != std::string::npos ||
                         what.find("timed out") != std::string::npos;
  broken_reason = absl::StrCat(work.op(), " (sequence number ", work.sequence_number(), "): ",
                               peers, ": ", what);
  std::string msg = absl::StrCat(head, ": ", peers, ": ", what);
  broken = timed_out ? std::make_exception_ptr(TimeoutError(msg))
                     : std::make_exception_ptr(DistBackendError(msg));
  return broken;
}

// ---------------------------------------------------------------- group

namespace {

// Note [SIGPIPE]: gloo's TCP pairs write with plain send(), so a write to a
// peer that just died raises SIGPIPE, whose default action kills the
// survivor before gloo can report the broken pair (seen: rank 0 "killed by
// signal 13" in the SIGKILL fault test). Python ignores SIGPIPE from startup,
// which is why PyTorch never meets this. A program that installed its own
// handler keeps it; only the default disposition is replaced.
void ignore_default_sigpipe() {
  struct sigaction old {};
  if (sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL &&
      !(old.sa_flags & SA_SIGINFO)) {
    signal(SIGPIPE, SIG_IGN);
  }
}

}  // namespace

ProcessGroupGloo::ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size)
    : ProcessGroupGloo(std::move(store), rank, size, Options()) {}

ProcessGroupGloo::ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size,
                                   Options options)
    : ProcessGroup(rank, size), options_(std::move(options)) {
  EMBER_CHECK(store != nullptr, "ProcessGroupGloo: store is null");
  EMBER_CHECK(size >= 1, "ProcessGroupGloo: world size must be positive, got ", size);
  EMBER_CHECK(rank >= 0 && rank < size, "ProcessGroupGloo: rank ", rank,
              " is out of range for world size ", size);
  EMBER_CHECK(options_.timeout.count() > 0, "ProcessGroupGloo: timeout must be positive");
  ignore_default_sigpipe();
  impl_ = std::make_unique<Impl>(this, std::move(store), options_);
}

ProcessGroupGloo::~ProcessGroupGloo() = default;

int ProcessGroupGloo::num_contexts() const { return static_cast<int>(impl_->contexts.size()); }

bool ProcessGroupGloo::uses_shared_memory() const { return impl_->shm != nullptr; }

}  // namespace ember::distributed
