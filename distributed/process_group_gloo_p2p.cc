// ProcessGroupGloo's point-to-point ops (send, recv, recv from any source;
// user tags) and monitored_barrier. Sends and receives are posted in issue
// order on the worker thread and completed by a waiter thread each (see
// Note [Gloo execution model]).

#include <thread>

#include <gloo/context.h>
#include <gloo/transport/unbound_buffer.h>
#include <gloo/types.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/process_group_gloo_impl.h"

namespace ember::distributed {
namespace {

// Slot prefix of user send/recv traffic: distinct from every gloo
// collective's prefix (0x01..0x08), so a user tag never meets a collective.
constexpr uint8_t kP2PSlotPrefix = 0x10;

const Tensor& single(const std::vector<Tensor>& tensors, const char* op) {
  EMBER_CHECK(tensors.size() == 1, "ProcessGroupGloo::", op,
              ": requires a single-element tensor list, got ", tensors.size());
  gloo_check_tensor(tensors[0], op);
  return tensors[0];
}

void check_tag(int tag, const char* op) {
  EMBER_CHECK(tag >= 0, "ProcessGroupGloo::", op, ": tag must be non-negative, got ", tag);
}

void check_peer(int peer, int rank, int size, const char* op) {
  EMBER_CHECK(peer >= 0 && peer < size, "ProcessGroupGloo::", op, ": invalid rank ", peer,
              " (world size ", size, ")");
  EMBER_CHECK(peer != rank, "ProcessGroupGloo::", op, ": rank ", rank,
              " cannot send to or receive from itself");
}

}  // namespace

std::shared_ptr<Work> ProcessGroupGloo::send(std::vector<Tensor>& tensors, int dst_rank, int tag) {
  const Tensor& t = single(tensors, "send");
  check_peer(dst_rank, rank_, size_, "send");
  check_tag(tag, "send");
  Staged s = gloo_stage(t, true);
  auto w = impl_->make_work("send", false);
  w->deferred = true;
  w->peer = dst_rank;
  Impl* impl = impl_.get();
  const auto timeout = options_.timeout;
  std::weak_ptr<GlooWork> weak = w;
  w->run = [impl, weak, s, dst_rank, tag, timeout](const std::shared_ptr<gloo::Context>& ctx,
                                                   uint32_t) {
    std::shared_ptr<gloo::transport::UnboundBuffer> buf =
        ctx->createUnboundBuffer(s.dense.data_ptr(), s.dense.nbytes());
    buf->send(dst_rank, gloo::Slot::build(kP2PSlotPrefix, tag));
    impl->defer(
        weak.lock(),
        [buf, s, timeout] {
          if (!buf->waitSend(timeout)) throw Error("send aborted: the process group was destroyed");
          return -1;
        },
        [buf] { buf->abortWaitSend(); });
  };
  impl_->enqueue(w);
  return w;
}

namespace {

std::shared_ptr<Work> post_recv(ProcessGroupGloo::Impl* impl, const Tensor& t,
                                std::vector<int> sources, int tag, const char* op,
                                std::chrono::milliseconds timeout) {
  Staged s = gloo_stage(t, false);
  auto w = impl->make_work(op, false);
  w->deferred = true;
  w->peer = sources.size() == 1 ? sources[0] : -1;
  std::weak_ptr<GlooWork> weak = w;
  w->run = [impl, weak, s, sources, tag, timeout](const std::shared_ptr<gloo::Context>& ctx,
                                                  uint32_t) {
    std::shared_ptr<gloo::transport::UnboundBuffer> buf =
        ctx->createUnboundBuffer(s.dense.data_ptr(), s.dense.nbytes());
    // One source goes through its pair, which fails the recv when that peer
    // dies; gloo's any-source path only ends at the timeout.
    if (sources.size() == 1) {
      buf->recv(sources[0], gloo::Slot::build(kP2PSlotPrefix, tag));
    } else {
      buf->recv(sources, gloo::Slot::build(kP2PSlotPrefix, tag));
    }
    impl->defer(
        weak.lock(),
        [buf, s, timeout] {
          int src = -1;
          if (!buf->waitRecv(&src, timeout)) {
            throw Error("recv aborted: the process group was destroyed");
          }
          s.copy_back();
          return src;
        },
        [buf] { buf->abortWaitRecv(); });
  };
  impl->enqueue(w);
  return w;
}

}  // namespace

std::shared_ptr<Work> ProcessGroupGloo::recv(std::vector<Tensor>& tensors, int src_rank, int tag) {
  const Tensor& t = single(tensors, "recv");
  check_peer(src_rank, rank_, size_, "recv");
  check_tag(tag, "recv");
  return post_recv(impl_.get(), t, {src_rank}, tag, "recv", options_.timeout);
}

std::shared_ptr<Work> ProcessGroupGloo::recv_anysource(std::vector<Tensor>& tensors, int tag) {
  const Tensor& t = single(tensors, "recv_anysource");
  check_tag(tag, "recv_anysource");
  EMBER_CHECK(size_ > 1, "ProcessGroupGloo::recv_anysource: no other rank in a group of size 1");
  std::vector<int> sources;
  for (int r = 0; r < size_; ++r) {
    if (r != rank_) sources.push_back(r);
  }
  return post_recv(impl_.get(), t, std::move(sources), tag, "recv_anysource", options_.timeout);
}

// Through the store rather than gloo: a gloo wait that times out poisons the
// whole context, and a monitored barrier must survive naming a late rank.
void ProcessGroupGloo::monitored_barrier(std::chrono::milliseconds timeout, bool wait_all_ranks) {
  EMBER_CHECK(timeout.count() > 0, "ProcessGroupGloo::monitored_barrier: timeout must be positive");
  Impl* impl = impl_.get();
  uint64_t count;
  {
    std::lock_guard<std::mutex> lock(impl->mu);
    count = impl->monitored_barrier_count++;
  }
  auto w = impl->make_work("monitored_barrier", false);
  const int rank = rank_, size = size_;
  w->run = [impl, count, rank, size, timeout, wait_all_ranks](
               const std::shared_ptr<gloo::Context>&, uint32_t) {
    const std::string base = impl->store_key(absl::StrCat("monitored_barrier/", count, "/"));
    const auto poll = std::chrono::milliseconds(2);
    auto has = [&](const std::string& key) {
      std::lock_guard<std::mutex> lock(impl->store_mu);
      return impl->store->check({key});
    };
    if (rank != 0) {
      {
        std::lock_guard<std::mutex> lock(impl->store_mu);
        impl->store->set(base + std::to_string(rank), "1");
      }
      // Rank 0 decides within `timeout` of arriving; allow it that long
      // after we arrive, twice over, before calling rank 0 itself late.
      const auto deadline = std::chrono::steady_clock::now() + 2 * timeout;
      while (!has(base + "done")) {
        if (std::chrono::steady_clock::now() >= deadline) {
          throw TimeoutError(absl::StrCat("Rank 0 failed to pass monitoredBarrier in ",
                                          timeout.count(), " ms (seen from rank ", rank, ")"));
        }
        std::this_thread::sleep_for(poll);
      }
      std::string verdict;
      {
        std::lock_guard<std::mutex> lock(impl->store_mu);
        verdict = impl->store->get_string(base + "done");
      }
      if (!verdict.empty()) {
        throw Error(absl::StrCat("monitored_barrier failed (reported by rank 0): ", verdict));
      }
      return;
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::vector<bool> seen(size, false);
    seen[0] = true;
    for (;;) {
      bool all = true;
      for (int r = 1; r < size; ++r) {
        if (!seen[r]) seen[r] = has(base + std::to_string(r));
        all = all && seen[r];
      }
      if (all || std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(poll);
    }
    std::vector<int> missing;
    for (int r = 1; r < size; ++r) {
      if (!seen[r]) missing.push_back(r);
    }
    std::string verdict;
    if (!missing.empty()) {
      if (wait_all_ranks) {
        verdict = absl::StrCat(missing.size() == 1 ? "Rank " : "Ranks ",
                               absl::StrJoin(missing, ", "), " failed to pass monitoredBarrier in ",
                               timeout.count(), " ms");
      } else {
        verdict = absl::StrCat("Rank ", missing[0], " failed to pass monitoredBarrier in ",
                               timeout.count(), " ms");
      }
    }
    {
      std::lock_guard<std::mutex> lock(impl->store_mu);
      impl->store->set(base + "done", verdict);
    }
    if (!verdict.empty()) throw Error(verdict);
  };
  impl->enqueue(w);
  w->wait(Store::kNoTimeout);
}

}  // namespace ember::distributed
