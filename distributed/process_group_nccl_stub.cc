// ProcessGroupNCCL in a build without a CUDA toolkit: the class exists so
// that code naming it compiles everywhere, and its constructor says why it
// cannot run. "nccl" is not registered, so init_process_group("nccl")
// answers PyTorch's "Distributed package doesn't have NCCL built in".

#include "distributed/process_group_nccl.h"
#include "tensor/error.h"

namespace ember::distributed {

struct ProcessGroupNCCL::Impl {};

namespace {
[[noreturn]] void not_built() {
  throw Error("ProcessGroupNCCL: ember was built without CUDA (no CUDA toolkit was found)");
}
}  // namespace

ProcessGroupNCCL::ProcessGroupNCCL(std::shared_ptr<Store>, int rank, int size, Options options)
    : ProcessGroup(rank, size), options_(std::move(options)) {
  not_built();
}
ProcessGroupNCCL::ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size)
    : ProcessGroupNCCL(std::move(store), rank, size, Options()) {}
ProcessGroupNCCL::~ProcessGroupNCCL() = default;

std::vector<int> ProcessGroupNCCL::nccl_version() { return {0, 0, 0}; }

std::shared_ptr<Work> ProcessGroupNCCL::broadcast(std::vector<Tensor>&, const BroadcastOptions&) { not_built(); }
std::shared_ptr<Work> ProcessGroupNCCL::allreduce(std::vector<Tensor>&, const AllreduceOptions&) { not_built(); }
std::shared_ptr<Work> ProcessGroupNCCL::reduce(std::vector<Tensor>&, const ReduceOptions&) { not_built(); }
std::shared_ptr<Work> ProcessGroupNCCL::allgather(std::vector<std::vector<Tensor>>&, std::vector<Tensor>&) { not_built(); }
std::shared_ptr<Work> ProcessGroupNCCL::gather(std::vector<std::vector<Tensor>>&, std::vector<Tensor>&, int) { not_built(); }
std::shared_ptr<Work> ProcessGroupNCCL::scatter(std::vector<Tensor>&, std::vector<std::vector<Tensor>>&, int) { not_built(); }
std::shared_ptr<Work> ProcessGroupNCCL::reduce_scatter(std::vector<Tensor>&, std::vector<std::vector<Tensor>>&, ReduceOp) { not_built(); }
std::shared_ptr<Work> ProcessGroupNCCL::alltoall_base(Tensor&, Tensor&, std::vector<int64_t>, std::vector<int64_t>) { not_built(); }
std::shared_ptr<Work> ProcessGroupNCCL::send(std::vector<Tensor>&, int, int) { not_built(); }
std::shared_ptr<Work> ProcessGroupNCCL::recv(std::vector<Tensor>&, int, int) { not_built(); }
std::shared_ptr<Work> ProcessGroupNCCL::recv_anysource(std::vector<Tensor>&, int) { not_built(); }
std::shared_ptr<Work> ProcessGroupNCCL::barrier() { not_built(); }
void ProcessGroupNCCL::monitored_barrier(std::chrono::milliseconds, bool) { not_built(); }

}  // namespace ember::distributed
