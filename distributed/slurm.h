#ifndef EMBER_DISTRIBUTED_SLURM_H_
#define EMBER_DISTRIBUTED_SLURM_H_

// Note [Slurm without a launcher]: `srun ./trainer` starts one process per
// task with Slurm's variables and none of torch.distributed's. env://
// rendezvous (init.h) then takes, for each of RANK, WORLD_SIZE,
// MASTER_ADDR and MASTER_PORT that is unset:
//   RANK         SLURM_PROCID
//   WORLD_SIZE   SLURM_NTASKS
//   MASTER_ADDR  the first host of SLURM_JOB_NODELIST (Slurm's hostlist
//                syntax: "node[01-04,07],gpu3" expanded)
//   MASTER_PORT  15000 + the last four digits of SLURM_JOB_ID (as PyTorch
//                Lightning derives it), so every task of a job agrees
// and LOCAL_RANK / LOCAL_WORLD_SIZE from SLURM_LOCALID /
// SLURM_NTASKS_PER_NODE for whoever asks (slurm_local_rank()).

#include <optional>
#include <string>
#include <vector>

namespace ember::distributed {

// Slurm's hostlist expression as the host names it stands for, in order:
// "node[01-03,07]" -> node01 node02 node03 node07; several bracket groups
// multiply ("r[1-2]n[1-2]" -> r1n1 r1n2 r2n1 r2n2); top-level commas
// separate entries. Throws ValueError on a malformed expression.
std::vector<std::string> expand_hostlist(const std::string& hostlist);

// What Slurm says about this process, where it is set.
struct SlurmEnv {
  std::optional<int> rank;         // SLURM_PROCID
  std::optional<int> world_size;   // SLURM_NTASKS
  std::optional<int> local_rank;   // SLURM_LOCALID
  std::optional<std::string> master_addr;  // first host of SLURM_JOB_NODELIST
  std::optional<int> master_port;  // from SLURM_JOB_ID
};
// Empty (no field set) outside a Slurm task (SLURM_PROCID unset).
SlurmEnv slurm_env();

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_SLURM_H_
