// //trainers:mnist: seed 003's MNIST classifier, trained in C++.
//
//   ./bazelw run //trainers:mnist                          # 2 epochs of Fashion-MNIST
//   ./bazelw run //trainers:mnist -- --epochs=10 --checkpoint_dir=/tmp/ckpt
//   ./bazelw run //trainers:mnist -- --epochs=12 --resume=/tmp/ckpt/epoch_10.safetensors
//
// Data-parallel (Note [Data-parallel MNIST] in mnist_train.cc), gloo between
// local processes:
//   ./bazelw run //trainers:mnist -- --nproc=2             # spawns 2 ranks
//   ./bazelw run //trainers:mnist -- --device=cuda         # on the GPU
//   ./bazelw run //trainers:mnist -- --nproc=2 --device=cuda --backend=nccl  # 2 GPUs
//   bazel-bin/distributed/launch --nproc_per_node=2 bazel-bin/trainers/mnist
// Under the launcher (RANK and WORLD_SIZE set) it joins the group env://
// describes (trainers/program.h); --batch_size is per rank, as in PyTorch.

#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "tensor/config.h"
#include "tensor/cuda/cuda.h"
#include "trainers/common.h"
#include "trainers/mnist_train.h"
#include "trainers/program.h"

namespace {
const ember::trainers::MnistConfig kDefaults;
}  // namespace

ABSL_FLAG(std::string, data_root, kDefaults.data_root, "folder with the MNIST IDX files");
ABSL_FLAG(int64_t, epochs, kDefaults.epochs, "epochs to train (in all, counting a resumed run's)");
ABSL_FLAG(int64_t, batch_size, kDefaults.batch_size, "images per batch");
ABSL_FLAG(double, lr, kDefaults.lr, "SGD learning rate");
ABSL_FLAG(double, momentum, kDefaults.momentum, "SGD momentum");
ABSL_FLAG(int64_t, num_workers, kDefaults.num_workers, "DataLoader worker threads");
ABSL_FLAG(int, threads, kDefaults.threads, "compute threads (0: ember's default)");
ABSL_FLAG(int64_t, train_limit, 0, "train on the first N images only (0: all)");
ABSL_FLAG(int64_t, test_limit, 0, "test on the first N images only (0: all)");
ABSL_FLAG(uint64_t, seed, kDefaults.seed, "seed of the initialization and the shuffle");
ABSL_FLAG(std::string, checkpoint_dir, "", "save checkpoints here (empty: none)");
ABSL_FLAG(int64_t, checkpoint_every, kDefaults.checkpoint_every, "epochs between checkpoints");
ABSL_FLAG(int64_t, keep_checkpoints, kDefaults.keep_checkpoints,
          "keep only the newest N checkpoints in --checkpoint_dir (0: all)");
ABSL_FLAG(std::string, resume, "", "checkpoint to resume from");
ABSL_FLAG(std::string, auto_resume, "auto",
          "resume from --checkpoint_dir's latest checkpoint when --resume is not given: true, "
          "false, or auto (true under a launcher: torchrun or //distributed:launch)");
ABSL_FLAG(bool, verify_checksums, kDefaults.verify_checksums,
          "check the tensor checksums of the --resume checkpoint");
ABSL_FLAG(bool, progress, true, "a progress bar on stderr while an epoch trains (rank 0)");
ABSL_FLAG(std::string, logdir, "",
          "write TensorBoard event files here (rank 0): training loss, test loss and accuracy, "
          "learning rate, sample images");
ABSL_FLAG(int64_t, log_interval, kDefaults.log_interval,
          "steps between the training-loss points of --logdir");
ABSL_FLAG(int64_t, profile_steps, 0,
          "profile the first N training steps and print the profiler's table (0: off)");
ABSL_FLAG(std::string, profile_trace, "",
          "with --profile_steps: also write a Chrome trace (Perfetto) to this file");
ABSL_FLAG(std::string, device, kDefaults.device, "where to train: cpu, cuda, cuda:N");
ABSL_FLAG(std::string, amp, "",
          "mixed precision: bf16 (autocast) or fp16 (autocast and a GradScaler); empty: float32");
ABSL_FLAG(bool, show_config, false,
          "print ember::show_config() (the CPU's features and the libraries chosen for it) and "
          "exit");
namespace {

// The seed's first line. Asking initializes CUDA, which a process must not
// do before it forks ranks that use it (Note [CUDA after fork]): under
// --nproc, rank 0 asks in its own process.
void print_cuda_available() {
  std::cout << "CUDA available: " << (ember::cuda::is_available() ? "True" : "False") << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Trains seed 003's MNIST classifier (see trainers/mnist.cc).");
  absl::ParseCommandLine(argc, argv);
  if (absl::GetFlag(FLAGS_show_config)) {
    std::cout << ember::show_config();
    return 0;
  }
  ember::trainers::MnistConfig c;
  c.data_root = absl::GetFlag(FLAGS_data_root);
  c.epochs = absl::GetFlag(FLAGS_epochs);
  c.batch_size = absl::GetFlag(FLAGS_batch_size);
  c.lr = absl::GetFlag(FLAGS_lr);
  c.momentum = absl::GetFlag(FLAGS_momentum);
  c.num_workers = absl::GetFlag(FLAGS_num_workers);
  c.threads = absl::GetFlag(FLAGS_threads);
  c.train_limit = absl::GetFlag(FLAGS_train_limit);
  c.test_limit = absl::GetFlag(FLAGS_test_limit);
  c.seed = absl::GetFlag(FLAGS_seed);
  c.checkpoint_dir = absl::GetFlag(FLAGS_checkpoint_dir);
  c.checkpoint_every = absl::GetFlag(FLAGS_checkpoint_every);
  c.keep_checkpoints = absl::GetFlag(FLAGS_keep_checkpoints);
  c.resume = absl::GetFlag(FLAGS_resume);
  c.verify_checksums = absl::GetFlag(FLAGS_verify_checksums);
  c.progress = absl::GetFlag(FLAGS_progress);
  c.device = absl::GetFlag(FLAGS_device);
  c.amp = absl::GetFlag(FLAGS_amp);
  c.logdir = absl::GetFlag(FLAGS_logdir);
  c.profile_steps = absl::GetFlag(FLAGS_profile_steps);
  c.profile_trace = absl::GetFlag(FLAGS_profile_trace);
  c.log_interval = absl::GetFlag(FLAGS_log_interval);
  ember::trainers::ProgramOptions program;
  program.name = "mnist";
  program.threads = c.threads;
  program.first_line = print_cuda_available;
  return ember::trainers::run_training_program(program, [&](int threads) {
    c.threads = threads;
    c.resume = ember::trainers::resume_path(absl::GetFlag(FLAGS_auto_resume), c.resume,
                                            c.checkpoint_dir, "epoch");
    ember::trainers::train_mnist(c, std::cout);
  });
}
