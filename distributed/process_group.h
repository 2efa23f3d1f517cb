#ifndef EMBER_DISTRIBUTED_PROCESS_GROUP_H_
#define EMBER_DISTRIBUTED_PROCESS_GROUP_H_

// torch.distributed's ProcessGroup in C++. Every collective is issued in
// order on the group's own worker thread(s), carries a sequence number, and
// returns a Work; a timeout or a dead peer becomes an error naming the op,
// its sequence number and the peer, on every surviving rank. Backends:
// ProcessGroupGloo (process_group_gloo.h) and ProcessGroupNCCL
// (process_group_nccl.h).

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "distributed/store.h"
#include "tensor/tensor.h"

namespace ember::distributed {

enum class ReduceOp { SUM, PRODUCT, MIN, MAX, AVG, BAND, BOR, BXOR };
inline const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM: return "SUM";
    case ReduceOp::PRODUCT: return "PRODUCT";
    case ReduceOp::MIN: return "MIN";
    case ReduceOp::MAX: return "MAX";
    case ReduceOp::AVG: return "AVG";
    case ReduceOp::BAND: return "BAND";
    case ReduceOp::BOR: return "BOR";
    case ReduceOp::BXOR: return "BXOR";
  }
  return "UNKNOWN";
}

// A pending (or finished) operation.
class Work {
 public:
  virtual ~Work() = default;
  virtual bool is_completed() = 0;
  // Blocks until done (at most `timeout`; kNoTimeout means the group's
  // timeout), rethrows the operation's error, and returns true. Running out
  // of time throws TimeoutError.
  virtual bool wait(std::chrono::milliseconds timeout = Store::kNoTimeout) = 0;
  // The error the operation ended with, or nullptr.
  virtual std::exception_ptr exception() = 0;
  // For recv from any source: the rank that sent.
  virtual int source_rank() const { return -1; }
  virtual uint64_t sequence_number() const = 0;
};

struct AllreduceOptions {
  ReduceOp op = ReduceOp::SUM;
};
struct ReduceOptions {
  ReduceOp op = ReduceOp::SUM;
  int root = 0;
};
struct BroadcastOptions {
  int root = 0;
};

class ProcessGroup {
 public:
  // c10d's spelling of the handle type: std::shared_ptr<ProcessGroup::Work>.
  using Work = ::ember::distributed::Work;

  ProcessGroup(int rank, int size) : rank_(rank), size_(size) {}
  virtual ~ProcessGroup() = default;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // c10d's C++ names for rank() and size().
  int getRank() const { return rank_; }
  int getSize() const { return size_; }
  // c10d's ProcessGroupMPI::abort, which ends the job with MPI_Abort, for a
  // rank that cannot go on (pytorch/examples' dist-mnist.cpp calls it when a
  // Work fails). ember cannot end the other ranks' processes, so it ends
  // this one at once (exit status 1, no destructors: the group's threads
  // may be stuck on a dead peer); the other ranks' collectives with it then
  // fail, naming this rank, as for any rank that dies.
  [[noreturn]] void abort();
  virtual std::string backend_name() const = 0;

  virtual std::shared_ptr<Work> broadcast(std::vector<Tensor>& tensors,
                                          const BroadcastOptions& opts = {}) = 0;
  virtual std::shared_ptr<Work> allreduce(std::vector<Tensor>& tensors,
                                          const AllreduceOptions& opts = {}) = 0;
  virtual std::shared_ptr<Work> reduce(std::vector<Tensor>& tensors,
                                       const ReduceOptions& opts = {}) = 0;
  // outputs[0][r] receives rank r's inputs[0].
  virtual std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& outputs,
                                          std::vector<Tensor>& inputs) = 0;
  // On root, outputs[0][r] receives rank r's inputs[0]; elsewhere outputs is empty.
  virtual std::shared_ptr<Work> gather(std::vector<std::vector<Tensor>>& outputs,
                                       std::vector<Tensor>& inputs, int root = 0) = 0;
  // Rank r receives root's inputs[0][r] into outputs[0].
  virtual std::shared_ptr<Work> scatter(std::vector<Tensor>& outputs,
                                        std::vector<std::vector<Tensor>>& inputs,
                                        int root = 0) = 0;
  // outputs[0] = op over ranks of inputs[0][rank].
  virtual std::shared_ptr<Work> reduce_scatter(std::vector<Tensor>& outputs,
                                               std::vector<std::vector<Tensor>>& inputs,
                                               ReduceOp op = ReduceOp::SUM) = 0;
  // Splits along dim 0 (empty split sizes: equal splits).
  virtual std::shared_ptr<Work> alltoall_base(Tensor& output, Tensor& input,
                                              std::vector<int64_t> output_split_sizes,
                                              std::vector<int64_t> input_split_sizes) = 0;
  virtual std::shared_ptr<Work> send(std::vector<Tensor>& tensors, int dst_rank, int tag) = 0;
  virtual std::shared_ptr<Work> recv(std::vector<Tensor>& tensors, int src_rank, int tag) = 0;
  virtual std::shared_ptr<Work> recv_anysource(std::vector<Tensor>& tensors, int tag) = 0;
  virtual std::shared_ptr<Work> barrier() = 0;
  // Like barrier, but names the ranks that did not arrive within timeout.
  virtual void monitored_barrier(std::chrono::milliseconds timeout, bool wait_all_ranks = false) = 0;

 protected:
  int rank_;
  int size_;
};

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_PROCESS_GROUP_H_
