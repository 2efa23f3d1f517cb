#ifndef EMBER_TRAINERS_MNIST_TRAIN_H_
#define EMBER_TRAINERS_MNIST_TRAIN_H_

// Seed 003's MNIST training program as a library: train the classifier of
// mnist_net.h with cross-entropy and SGD, test after every epoch, print
// what the seed prints, save a checkpoint (model, optimizer, epoch) every
// `checkpoint_every` epochs and resume from one. //trainers:mnist is its
// command line; the test calls it directly on a few batches. Called on the
// ranks of a process group (init_process_group ran, world size > 1) it
// trains data-parallel: Note [Data-parallel MNIST] in mnist_train.cc.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "data/mnist.h"

namespace ember {
namespace trainers {

struct MnistConfig {
  // IDX files of MNIST or Fashion-MNIST (Debian's dataset-fashion-mnist).
  std::string data_root = data::kDefaultMnistRoot;
  int64_t epochs = 2;
  int64_t batch_size = 64;
  double lr = 0.01;
  double momentum = 0.9;
  int64_t num_workers = 1;
  // ember::set_num_threads when > 0.
  int threads = 0;
  // Use only the first N training / test images (0: all of them).
  int64_t train_limit = 0;
  int64_t test_limit = 0;
  // Seeds the model's initialization and the shuffle order.
  uint64_t seed = 0;
  // Where checkpoints go ("" : none): <dir>/epoch_<n>.safetensors. The
  // folder is made (its parent must exist) and checked for writing before
  // the first epoch, so that a bad path fails at once, not an epoch later.
  std::string checkpoint_dir;
  int64_t checkpoint_every = 1;
  // After each save, only the newest N epoch_<n>.safetensors of
  // checkpoint_dir are kept (0: all of them).
  int64_t keep_checkpoints = 3;
  // A checkpoint to start from: model, optimizer and epoch. It is checked
  // as a command line is: tensor checksums (Note [Tensor checksums]),
  // finite parameters, the optimizer's option rules, a non-negative epoch;
  // errors name the file.
  std::string resume;
  // Verify the resumed checkpoint's tensor checksums.
  bool verify_checksums = true;
  // A tqdm-style progress bar on stderr while an epoch trains (rank 0 only;
  // data/progress.h), beside the seed's per-epoch lines.
  bool progress = false;
  // TensorBoard event files go here ("": none), written by rank 0 only:
  // the training loss every log_interval steps, the test loss, accuracy and
  // learning rate every epoch, and a grid of training images once.
  std::string logdir;
  int64_t log_interval = 10;
  // Where the model and batches live: "cpu", "cuda", "cuda:1"...
  // Checkpoints are device-independent (they load on either).
  std::string device = "cpu";
  // Mixed precision: "" (float32), "bf16" (autocast to bfloat16) or "fp16"
  // (autocast to float16 with a GradScaler), on either device, for the
  // training and the test forward passes. The scaler starts afresh on
  // resume (its scale is not in the checkpoint).
  std::string amp;
  // Profile the run's first profile_steps training steps (0: none) with
  // //profiler on rank 0: print PyTorch's key_averages table (by self CPU
  // time) when they are done, and write a Chrome trace to profile_trace
  // when it is set. Each step is a "ProfilerStep#N" range, as
  // torch.profiler's schedule names them.
  int64_t profile_steps = 0;
  std::string profile_trace;
};

struct EpochResult {
  int64_t epoch = 0;        // 1-based
  double train_loss = 0;    // of the epoch's last batch, as the seed prints
  double test_loss = 0;     // summed batch-mean losses / test set size, as the seed
  double accuracy = 0;      // percent
};

// Runs the training; each epoch prints (and flushes)
//   Train Epoch: 1 	Loss: 2.263870
//   Test set: Average loss: 0.0358, Accuracy: 12.71%
// to `out`. Returns the epochs run (none when `resume` is past `epochs`).
// Bad settings are ember::Errors before anything trains: an empty training
// or test set, numbers out of range, an unusable checkpoint_dir or resume.
std::vector<EpochResult> train_mnist(const MnistConfig& config, std::ostream& out);

}  // namespace trainers
}  // namespace ember

#endif  // EMBER_TRAINERS_MNIST_TRAIN_H_
