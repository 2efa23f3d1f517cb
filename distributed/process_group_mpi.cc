#include "distributed/process_group_mpi.h"

#include <cstdlib>
#include <numeric>
#include <utility>

#include "distributed/init.h"
#include "distributed/tcp_store.h"
#include "tensor/error.h"

namespace ember::distributed {

std::shared_ptr<ProcessGroupMPI> ProcessGroupMPI::createProcessGroupMPI(std::vector<int> ranks) {
  const LaunchedRank me = launched_rank_from_env();
  ProcessGroupGloo::Options options;
  options.group_name = "mpi";
  if (me.rank < 0 || me.world_size == 1) {
    // Started alone: a group of one around a private store.
    TCPStoreOptions so;
    so.port = 0;
    so.is_server = true;
    auto store = std::make_shared<TCPStore>("127.0.0.1", so);
    return std::make_shared<ProcessGroupMPI>(std::move(store), 0, 1, options);
  }
  std::vector<int> world(me.world_size);
  std::iota(world.begin(), world.end(), 0);
  EMBER_CHECK_VALUE(ranks.empty() || ranks == world,
                    "createProcessGroupMPI: a group of some of the ranks is not supported by "
                    "ember (pass no ranks, or all of them)");
  EMBER_CHECK_VALUE(std::getenv("MASTER_ADDR") != nullptr && std::getenv("MASTER_PORT") != nullptr,
                    "createProcessGroupMPI: rank ", me.rank, " of ", me.world_size,
                    " needs MASTER_ADDR and MASTER_PORT to meet the other ranks (ember's launcher "
                    "and torchrun set them; under mpirun, export them: mpirun -x MASTER_ADDR=... "
                    "-x MASTER_PORT=...)");
  RendezvousResult rv = rendezvous("env://", me.rank, me.world_size);
  return std::make_shared<ProcessGroupMPI>(std::move(rv.store), rv.rank, rv.world_size, options);
}

}  // namespace ember::distributed
