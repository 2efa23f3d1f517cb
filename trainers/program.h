#ifndef EMBER_TRAINERS_PROGRAM_H_
#define EMBER_TRAINERS_PROGRAM_H_

// The command-line side the trainer binaries share: how a run becomes one
// process or several ranks. It defines the flags
//   --nproc    train data-parallel on this many forked local processes
//   --backend  gloo or nccl, for the data-parallel process group
//   --timeout  seconds a rendezvous or collective may wait
// and runs the program's training function in the right place:
//   - under a launcher (RANK and WORLD_SIZE set, or srun with several
//     tasks: Note [Slurm without a launcher]) it joins the group env://
//     describes;
//   - with --nproc=N > 1, N forked ranks meeting in a TCPStore this process
//     serves on loopback; nothing is left on disk however the run ends, and
//     the ranks die with this process (Note [Forked children]);
//   - otherwise it trains in this process.

#include <functional>
#include <string>

namespace ember {
namespace trainers {

struct ProgramOptions {
  std::string name;  // the program's name in errors and the elastic error file
  // Compute threads of a rank (0: ember's default); forked ranks split the
  // machine's cores when it is 0.
  int threads = 0;
  // Runs once per process that trains, before it trains; under --nproc in
  // rank 0 only. A line that initializes CUDA must go here, not before
  // the program forks its ranks (Note [CUDA after fork]).
  std::function<void()> first_line;
};

// Trains: train(threads) in each process as above, inside
// distributed::record (the launcher's error file). Returns the exit code.
int run_training_program(const ProgramOptions& options,
                         const std::function<void(int threads)>& train);

}  // namespace trainers
}  // namespace ember

#endif  // EMBER_TRAINERS_PROGRAM_H_
