#include "distributed/process_group_mpi.h"

#include <numeric>
#include <utility>

#include "distributed/init.h"
#include "tensor/error.h"

namespace ember::distributed {

std::shared_ptr<ProcessGroupMPI> ProcessGroupMPI::createProcessGroupMPI(std::vector<int> ranks) {
  RendezvousResult rv = launcher_rendezvous("createProcessGroupMPI");
  std::vector<int> world(rv.world_size);
  std::iota(world.begin(), world.end(), 0);
  EMBER_CHECK_VALUE(ranks.empty() || ranks == world,
                    "createProcessGroupMPI: a group of some of the ranks is not supported by "
                    "ember (pass no ranks, or all of them)");
  ProcessGroupGloo::Options options;
  options.group_name = "mpi";
  return std::make_shared<ProcessGroupMPI>(std::move(rv.store), rv.rank, rv.world_size, options);
}

}  // namespace ember::distributed
