// Registers "nccl" with init_process_group's backend registry (builds with
// a CUDA toolkit only): linking //distributed:nccl is what makes
// is_nccl_available() true.

#include "distributed/init.h"
#include "distributed/process_group_nccl.h"

namespace ember::distributed {

namespace {
std::shared_ptr<ProcessGroup> make_nccl(std::shared_ptr<Store> store, int rank, int size,
                                        std::chrono::milliseconds timeout) {
  // The store is the group's own PrefixStore.
  ProcessGroupNCCL::Options options;
  options.timeout = timeout;
  return std::make_shared<ProcessGroupNCCL>(std::move(store), rank, size, options);
}
const bool kRegistered = (register_backend(Backend::NCCL, make_nccl), true);
}  // namespace

}  // namespace ember::distributed
