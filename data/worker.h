#ifndef EMBER_DATA_WORKER_H_
#define EMBER_DATA_WORKER_H_

// What a DataLoader worker thread knows about itself
// (torch.utils.data.get_worker_info()).
//
// Note [Worker seeds]: each epoch the loader draws a 64-bit base seed from
// its generator (the default one unless DataLoaderOptions::generator is
// set), as PyTorch does, and worker w gets a Generator seeded with
// base_seed + w. Batch b is always built by worker b % num_workers, so random
// transforms that draw from current_generator() give the same batches run
// after run for the same seed, whatever the threads' timing.

#include <cstdint>

#include "tensor/random.h"

namespace ember {
namespace data {

struct WorkerInfo {
  int64_t id = 0;
  int64_t num_workers = 0;
  uint64_t seed = 0;
  Generator generator;  // seeded with `seed`
};

// The calling worker's info, or nullptr outside a DataLoader worker.
const WorkerInfo* get_worker_info();

// The generator random transforms draw from when given none: the worker's
// inside a worker thread, the default generator elsewhere.
Generator current_generator();

namespace internal {
// Installs `info` as the calling thread's worker info (nullptr clears it).
void set_worker_info(const WorkerInfo* info);
}  // namespace internal

}  // namespace data
}  // namespace ember

#endif  // EMBER_DATA_WORKER_H_
