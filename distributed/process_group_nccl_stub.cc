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

using Lists = std::vector<std::vector<Tensor>>;
using Tensors = std::vector<Tensor>;
using WorkPtr = std::shared_ptr<Work>;

WorkPtr ProcessGroupNCCL::broadcast(Tensors&, const BroadcastOptions&) { not_built(); }
WorkPtr ProcessGroupNCCL::allreduce(Tensors&, const AllreduceOptions&) { not_built(); }
WorkPtr ProcessGroupNCCL::reduce(Tensors&, const ReduceOptions&) { not_built(); }
WorkPtr ProcessGroupNCCL::allgather(Lists&, Tensors&) { not_built(); }
WorkPtr ProcessGroupNCCL::gather(Lists&, Tensors&, int) { not_built(); }
WorkPtr ProcessGroupNCCL::scatter(Tensors&, Lists&, int) { not_built(); }
WorkPtr ProcessGroupNCCL::reduce_scatter(Tensors&, Lists&, ReduceOp) { not_built(); }
WorkPtr ProcessGroupNCCL::alltoall_base(Tensor&, Tensor&, std::vector<int64_t>,
                                        std::vector<int64_t>) {
  not_built();
}
WorkPtr ProcessGroupNCCL::send(Tensors&, int, int) { not_built(); }
WorkPtr ProcessGroupNCCL::recv(Tensors&, int, int) { not_built(); }
WorkPtr ProcessGroupNCCL::recv_anysource(Tensors&, int) { not_built(); }
WorkPtr ProcessGroupNCCL::barrier() { not_built(); }
void ProcessGroupNCCL::monitored_barrier(std::chrono::milliseconds, bool) { not_built(); }
WorkPtr ProcessGroupNCCL::rooted(const char*, const Tensor&, Lists&, int, bool) { not_built(); }

}  // namespace ember::distributed
