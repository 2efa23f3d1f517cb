#ifndef EMBER_DISTRIBUTED_PROCESS_GROUP_NCCL_H_
#define EMBER_DISTRIBUTED_PROCESS_GROUP_NCCL_H_

// ProcessGroupNCCL: torch.distributed's "nccl" backend on CUDA tensors. No
// CUDA or NCCL header is included here; in a build without a CUDA toolkit
// the class exists but its constructor throws, and "nccl" is not registered
// with init_process_group (is_nccl_available() is false).
//
// Note [NCCL execution model]
// - One communicator per group, on the device of the first tensor the group
//   sees (a barrier before any tensor uses cuda:(rank % device_count), as
//   PyTorch guesses). Rank 0 makes the NCCL unique id and publishes it in
//   the group's store; the others read it there.
// - Every operation is enqueued on the group's own CUDA stream, after the
//   work already queued on the calling thread's current stream of the
//   device (the stream ember's kernels and copies use; the legacy default
//   stream unless the program set one: Note [CUDA streams] in
//   tensor/cuda/stream.cc): an event recorded there is waited for first. So
//   a collective overlaps the compute queued after it, as DDP wants.
// - Work::wait() does not block the host: it makes the current stream wait
//   for the operation (PyTorch's semantics), so kernels queued after wait()
//   see its results, and reading them on the host (item(), to(kCPU)) waits
//   for it. With Options::blocking_wait, or a timeout given to wait(), the
//   host waits too, polling until the op finished or the time ran out.
//   barrier() always blocks the host.
// - The tensors of an operation stay referenced until the device finished
//   it, so the caching allocator never hands their memory to a kernel that
//   could run before the collective has read or written it.
// - A watchdog thread checks every in-flight operation. One that runs past
//   the group's timeout, or an asynchronous NCCL error, aborts the
//   communicator (ncclCommAbort ends the kernels that wait for a dead peer);
//   the error names the op and its sequence number, becomes every pending
//   Work's exception() and is thrown by every later call on the group.
// - One tensor per call (PyTorch 2's rule for NCCL); tensors must be CUDA,
//   contiguous, on the communicator's device, and of a type NCCL carries
//   (float16/32/64, bfloat16, int8, uint8, int32, int64, bool).
// - Reductions: SUM, PRODUCT, MIN, MAX, AVG (ncclAvg); bool SUM is MAX and
//   bool PRODUCT is MIN (logical or / and, as PyTorch maps them); BAND, BOR
//   and BXOR throw as in PyTorch. send/recv ignore the tag (NCCL matches
//   sends and receives in issue order per peer); recv_anysource and
//   monitored_barrier are not supported, as in PyTorch.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "distributed/store.h"

namespace ember::distributed {

class ProcessGroupNCCL : public ProcessGroup {
 public:
  struct Options {
    // Per-operation timeout (PyTorch's default for process groups: 30 min).
    std::chrono::milliseconds timeout{std::chrono::minutes(30)};
    // Work::wait() blocks the host until the op finished
    // (TORCH_NCCL_BLOCKING_WAIT=1; EMBER_NCCL_BLOCKING_WAIT=1 sets it too).
    bool blocking_wait = false;
    // Store keys of this group live under "<group_name>/".
    std::string group_name = "nccl";
  };

  // Builds the group; the communicator is made at the first operation
  // (blocking; every rank must issue it). Throws without a usable GPU:
  // "ProcessGroupNCCL is only supported with GPUs, no GPUs found!".
  ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size, Options options);
  ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size);
  ~ProcessGroupNCCL() override;

  std::string backend_name() const override { return "nccl"; }
  const Options& options() const { return options_; }

  // NCCL's version, e.g. {2, 28, 9} (torch.cuda.nccl.version()); {0, 0, 0}
  // in a build without CUDA.
  static std::vector<int> nccl_version();

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

  struct Impl;

 private:
  std::shared_ptr<Work> rooted(const char* op, const Tensor& mine,
                               std::vector<std::vector<Tensor>>& lists, int root, bool to_root);

  Options options_;
  std::shared_ptr<Impl> impl_;  // Works hold it weakly
};

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_PROCESS_GROUP_NCCL_H_
