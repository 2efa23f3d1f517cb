#ifndef EMBER_DISTRIBUTED_PROCESS_GROUP_GLOO_H_
#define EMBER_DISTRIBUTED_PROCESS_GROUP_GLOO_H_

// ProcessGroupGloo: torch.distributed's "gloo" backend on CPU tensors, over
// gloo's TCP transport (Debian's libgloo). No gloo header is included here:
// gloo's headers are heavy, so they stay in the .cc files.
//
// Note [Gloo execution model]
// - Every operation gets the group's next sequence number and runs on the
//   group's one worker thread in issue order. Collectives also take the next
//   collective tag, identical on every rank because every rank issues the
//   same collectives in the same order; point-to-point ops are only posted
//   there (gloo sends and receives are asynchronous) and a waiter thread per
//   op completes their Work, so a pending recv never blocks later ops.
// - With several interfaces (GLOO_SOCKET_IFNAME=eth0,eth1 or
//   Options::interfaces) the group opens one gloo context per interface and
//   uses them round-robin, collective by collective.
// - A failure (a peer that died, a timeout) breaks the group: the rank that
//   sees it closes its connections so that peers blocked on it fail at once
//   instead of waiting out their own timeouts, then reports the failure in
//   the store and waits briefly for the other ranks' reports. The ranks that
//   never reported are the ones named as not responding (they died or are
//   stopped). The error names the op, its sequence number and the peer(s),
//   on every surviving rank; later ops fail at once with the same cause.
// - Work::wait() without a timeout waits for the op itself, which ends by
//   the group's timeout (plus the failure report's grace) at the latest.
// - Tensors may be non-contiguous: they are staged through a dense copy.
// - A single-source recv fails as soon as that peer's connection drops; an
//   any-source recv only by the timeout (gloo's any-source path watches no
//   connection).
// - all_reduce and broadcast between ranks on one host go through shared
//   memory, not TCP (Note [Same-host all-reduce] in shm_allreduce.h).
// - Beyond PyTorch's gloo: ReduceOp::AVG (sum, then divide; integers divide
//   truncating, like NCCL), reduce_scatter (allreduce of the concatenated
//   inputs, keeping this rank's part) and uneven all_to_all.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "distributed/store.h"

namespace ember::distributed {

class ProcessGroupGloo : public ProcessGroup {
 public:
  struct Options {
    // Per-operation timeout (PyTorch's default for process groups: 30 min).
    std::chrono::milliseconds timeout{std::chrono::minutes(30)};
    // Network interfaces to bind, used round-robin. Empty: GLOO_SOCKET_IFNAME
    // (one name or a comma-separated list); when that is unset too, the
    // address the hostname resolves to (127.0.0.1 where it does not resolve).
    std::vector<std::string> interfaces;
    // Bind to this host or address instead of an interface (tests use
    // "127.0.0.1"). Ignored when interfaces (or GLOO_SOCKET_IFNAME) are set.
    std::string hostname;
    // Store keys of this group live under "<group_name>/". Ranks of one group
    // must agree on it; different groups on one store must differ.
    std::string group_name = "default_pg";
    // How long a failing rank waits for the other ranks' failure reports
    // before naming the silent ones (capped by timeout).
    std::chrono::milliseconds failure_report_grace{std::chrono::seconds(2)};
    // All-reduce through shared memory when every rank is on this host
    // (Note [Same-host all-reduce] in shm_allreduce.h; EMBER_GLOO_SHM=0
    // turns it off too). Any rank saying no makes the group use TCP.
    bool shared_memory = true;
  };

  // Connects to every other rank through the store (blocking; all `size`
  // ranks must construct the group). Throws on a bad rank/size, a store
  // timeout or a connection failure.
  ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, Options options);
  ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size);
  ~ProcessGroupGloo() override;

  std::string backend_name() const override { return "gloo"; }
  const Options& options() const { return options_; }
  // The interface names GLOO_SOCKET_IFNAME lists (empty when unset).
  static std::vector<std::string> interfaces_from_env();
  // Number of gloo contexts (one per interface).
  int num_contexts() const;
  // Whether all_reduce and broadcast go through shared memory (every rank
  // on one host).
  bool uses_shared_memory() const;

  std::shared_ptr<Work> broadcast(std::vector<Tensor>& tensors,
                                  const BroadcastOptions& opts = {}) override;
  std::shared_ptr<Work> allreduce(std::vector<Tensor>& tensors,
                                  const AllreduceOptions& opts = {}) override;
  std::shared_ptr<Work> reduce(std::vector<Tensor>& tensors,
                               const ReduceOptions& opts = {}) override;
  std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& outputs,
                                  std::vector<Tensor>& inputs) override;
  std::shared_ptr<Work> gather(std::vector<std::vector<Tensor>>& outputs,
                               std::vector<Tensor>& inputs, int root = 0) override;
  std::shared_ptr<Work> scatter(std::vector<Tensor>& outputs,
                                std::vector<std::vector<Tensor>>& inputs, int root = 0) override;
  std::shared_ptr<Work> reduce_scatter(std::vector<Tensor>& outputs,
                                       std::vector<std::vector<Tensor>>& inputs,
                                       ReduceOp op = ReduceOp::SUM) override;
  std::shared_ptr<Work> alltoall_base(Tensor& output, Tensor& input,
                                      std::vector<int64_t> output_split_sizes,
                                      std::vector<int64_t> input_split_sizes) override;
  std::shared_ptr<Work> send(std::vector<Tensor>& tensors, int dst_rank, int tag) override;
  std::shared_ptr<Work> recv(std::vector<Tensor>& tensors, int src_rank, int tag) override;
  std::shared_ptr<Work> recv_anysource(std::vector<Tensor>& tensors, int tag) override;
  std::shared_ptr<Work> barrier() override;
  void monitored_barrier(std::chrono::milliseconds timeout, bool wait_all_ranks = false) override;

  struct Impl;  // process_group_gloo_impl.h

 private:
  Options options_;
  std::unique_ptr<Impl> impl_;
};

// Registers "gloo" with init_process_group's backend registry (init.h).
// Linking //distributed:gloo does it at static-initialization time too.
void register_gloo_backend();

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_PROCESS_GROUP_GLOO_H_
