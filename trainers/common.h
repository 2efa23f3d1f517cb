#ifndef EMBER_TRAINERS_COMMON_H_
#define EMBER_TRAINERS_COMMON_H_

// What the training programs of //trainers share: who this process is in a
// data-parallel run, rank 0's output, the checkpoint folder and its
// numbered files, and saving and resuming model + optimizer + counter.
// Note [Data-parallel MNIST] in mnist_train.cc describes the arrangement
// both trainers follow.

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "nn/module.h"
#include "optim/optimizer.h"
#include "serialize/checkpoint.h"
#include "tensor/device.h"

namespace ember {
namespace trainers {

// This process's place in a run: data-parallel when a process group of
// several ranks is initialized, else rank 0 of 1.
struct RankInfo {
  bool parallel = false;
  int rank = 0;
  int world = 1;
};
RankInfo rank_info();

// `out` on rank 0; a stream that discards everything on the others.
std::ostream& rank_zero_stream(std::ostream& out, const RankInfo& ranks);

// The device a rank trains on. CUDA ranks all-reduce over gloo through host
// copies (Note [Gloo and device tensors]); "cuda" without an index puts
// rank r on GPU r % device_count, as the seeds' device_ids=[rank].
Device training_device(const std::string& device, const RankInfo& ranks);

// Makes `dir` (not its parents) and proves it writable by creating and
// removing a file in it, so that a path that cannot take checkpoints (a
// file, a missing parent, a read-only mount) fails before training.
void prepare_checkpoint_dir(const std::string& dir);

// Checkpoints of a run are <dir>/<prefix>_<n>.safetensors, n an epoch or a
// step; these name, recognize (-1 for other names) and prune them, keeping
// the `keep` highest n (all when keep <= 0).
std::string checkpoint_path(const std::string& dir, const std::string& prefix, int64_t n);
int64_t checkpoint_number(const std::string& filename, const std::string& prefix);
void prune_checkpoints(const std::string& dir, const std::string& prefix, int64_t keep);
// The checkpoint of `dir` with the highest n ("" when there is none).
std::string latest_checkpoint(const std::string& dir, const std::string& prefix);

// --auto_resume: "true", "false" or "auto" (true under a launcher, where
// TORCHELASTIC_RESTART_COUNT is set: torchrun's or //distributed:launch's
// workers). When on, a run given a checkpoint_dir and no explicit resume
// continues from that folder's latest checkpoint, so a group restarted
// after a failure (--max_restarts) loses at most one checkpoint interval.
// Returns the checkpoint to resume from: `resume` itself when given, else
// the latest one when on, else "". A mode other than the three is an Error.
std::string resume_path(const std::string& auto_resume, const std::string& resume,
                        const std::string& dir, const std::string& prefix);

// A training checkpoint: "model" and "optimizer" state dicts and the
// counter (`key`: "epoch", "step") at `n`; `extra` adds what else the
// program needs to read it back. Written to checkpoint_path(dir, key, n),
// then the folder is pruned to `keep`.
void save_training_checkpoint(const std::string& dir, int64_t keep, const std::string& key,
                              int64_t n, const nn::Module& model, const optim::Optimizer& optimizer,
                              const std::function<void(Checkpoint&)>& extra = {});

// Restores model and optimizer from `path` and returns its counter `key`,
// checked as a command line is: tensor checksums (when verify_checksums;
// Note [Tensor checksums]), finite parameters, the optimizer's option
// rules, a non-negative counter. `check` (may be empty) vets the rest of
// the checkpoint before anything loads. Every problem is an Error naming
// the file. The tensors are read onto the CPU whatever device saved them;
// load_state_dict copies them to the model's device.
int64_t resume_training(const std::string& path, bool verify_checksums, const std::string& key,
                        nn::Module& model, optim::Optimizer& optimizer,
                        const std::function<void(const Checkpoint&)>& check = {});

// Loads `path` onto the CPU (checksums verified when asked) and runs
// `body` on it; an Error of either reads "cannot <purpose> '<path>': ...".
void read_checkpoint(const std::string& path, bool verify_checksums, const std::string& purpose,
                     const std::function<void(const Checkpoint&)>& body);

// Throws when a floating tensor of `weights` holds NaN or inf.
void check_finite(const NamedTensors& weights);

}  // namespace trainers
}  // namespace ember

#endif  // EMBER_TRAINERS_COMMON_H_
