#ifndef EMBER_EXAMPLES_DDP_DEMO_H_
#define EMBER_EXAMPLES_DDP_DEMO_H_

// Seed 004's two DistributedDataParallel programs, one rank per call; the
// caller runs one call per process (examples/ddp_demo_main.cc does, with
// ember::distributed::spawn in torch.multiprocessing.spawn's role).
//
// The seed runs program 1 on NCCL and moves everything to cuda:<rank>.
// ember has no CUDA kernels yet, so both programs run over gloo on the CPU:
// the seed's device_ids / output_device / .to(rank) have no counterpart
// (ember's modules run where their parameters are), and its map_location
// {"cuda:0": "cuda:<rank>"} becomes a CPU-to-CPU mapping.
//
// `init` is what init_process_group gets: {} reads everything from the
// environment as the seed's env:// does (RANK, WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT, which a launcher sets), or it names an init_method such as
// "file:///tmp/x/store". A store serves one initialization (Note
// [Store-based join] in distributed/init.h), so each run needs a fresh one.

#include <ostream>
#include <string>

#include "distributed/init.h"
#include "nn/module.h"

namespace ember {
namespace examples {

// Program 1 ("NCCL + launch + DistributedSampler"): RandomDataset(5, 90)
// read through a DistributedSampler in batches of 30, a Linear(5, 2) model
// wrapped in DDP, one forward per batch. Prints "the number of cpu threads:
// 1", "Let's use <world size> processes!" on rank 0, and per batch
// "Model <rank>, input size: torch.Size([30, 5]), output size:
// torch.Size([30, 2])". `init` may leave rank and world size to the
// environment, as the seed does under torch.distributed.launch.
void distributed_sampler_demo(const distributed::InitOptions& init, std::ostream& out);

// Program 2 ("Gloo + mp.spawn + checkpoint"), the seed's demo_basic: a
// ToyModel wrapped in DDP, one SGD step on an MSE loss. `init`'s rank and
// world size are replaced by the arguments (the seed's setup(rank,
// world_size)). Returns the DDP model's state_dict after the step
// ("module.net1.weight", ...), which every rank should hold alike.
nn::NamedTensors demo_basic(int rank, int world_size, const distributed::InitOptions& init,
                            std::ostream& out);

// The seed's demo_checkpoint: as demo_basic, but rank 0 saves the DDP
// model's state_dict to `checkpoint_path` first, every rank loads it after a
// barrier, and rank 0 removes the file at the end.
nn::NamedTensors demo_checkpoint(int rank, int world_size, const distributed::InitOptions& init,
                                 const std::string& checkpoint_path, std::ostream& out);

}  // namespace examples
}  // namespace ember

#endif  // EMBER_EXAMPLES_DDP_DEMO_H_
