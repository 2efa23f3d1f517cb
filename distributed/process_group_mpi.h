#ifndef EMBER_DISTRIBUTED_PROCESS_GROUP_MPI_H_
#define EMBER_DISTRIBUTED_PROCESS_GROUP_MPI_H_

// c10d's ProcessGroupMPI, for programs written against it (pytorch/examples'
// distributed/dist-mnist):
//
//   auto pg = c10d::ProcessGroupMPI::createProcessGroupMPI();   // ember::c10d
//   pg->allreduce(tensors)->wait();
//
// ember links no MPI library. The group is ember's gloo group, and
// createProcessGroupMPI plays MPI_Init's part: it takes this process's rank
// and the world size from the environment the launcher gave it (mpirun's
// OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE, MPICH's and Slurm's
// PMI_RANK/PMI_SIZE, or RANK/WORLD_SIZE from ember's launcher and torchrun)
// and meets the other ranks at MASTER_ADDR:MASTER_PORT, as env:// does (the
// launchers set them; under mpirun, export them: `mpirun -x MASTER_ADDR=host0
// -x MASTER_PORT=29500 ...`). Started alone, it is a group of one. Every
// collective is gloo's (ProcessGroupGloo). init_process_group("mpi") still
// says MPI is not built in, as PyTorch's does without MPI.

#include <memory>
#include <vector>

#include "distributed/process_group_gloo.h"

namespace ember::distributed {

class ProcessGroupMPI : public ProcessGroupGloo {
 public:
  using ProcessGroupGloo::ProcessGroupGloo;

  // The world's group (see above). `ranks`, as c10d's, names a subgroup;
  // only the whole world (empty, or every rank) is supported.
  static std::shared_ptr<ProcessGroupMPI> createProcessGroupMPI(std::vector<int> ranks = {});
};

}  // namespace ember::distributed

// libtorch's c10d namespace (ProcessGroup, ProcessGroupMPI, Store...).
namespace ember {
namespace c10d = ::ember::distributed;
}  // namespace ember

#endif  // EMBER_DISTRIBUTED_PROCESS_GROUP_MPI_H_
