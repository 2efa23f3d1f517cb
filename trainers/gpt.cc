// //trainers:gpt: a character-level GPT (models::GPT2, 4 layers, 128 wide,
// context 64) trained on Debian's fortunes, or on any text (trainers/gpt_train.h).
//
//   ./bazelw run //trainers:gpt                            # 500 steps on fortunes
//   ./bazelw run //trainers:gpt -- --data=input.txt --steps=2000 --checkpoint_dir=/tmp/gpt
//   ./bazelw run //trainers:gpt -- --steps=3000 --resume=/tmp/gpt/step_2000.safetensors
//   ./bazelw run //trainers:gpt -- --sample=/tmp/gpt/step_3000.safetensors --prompt="Q: "
//
// Data-parallel as //trainers:mnist (trainers/program.h): --nproc=2, or under
// bazel-bin/distributed/launch; --batch_size is per rank.

#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "distributed/elastic.h"
#include "tensor/parallel.h"
#include "trainers/gpt_train.h"
#include "trainers/common.h"
#include "trainers/program.h"

namespace {
const ember::trainers::GptConfig kDefaults;
const ember::trainers::SampleConfig kSampleDefaults;
}  // namespace

ABSL_FLAG(std::string, data, kDefaults.data, "a text file, or a folder of them, to train on");
ABSL_FLAG(int64_t, n_layer, kDefaults.n_layer, "transformer blocks");
ABSL_FLAG(int64_t, n_embd, kDefaults.n_embd, "model width");
ABSL_FLAG(int64_t, n_head, kDefaults.n_head, "attention heads");
ABSL_FLAG(int64_t, block_size, kDefaults.block_size, "context length in characters");
ABSL_FLAG(double, dropout, kDefaults.dropout, "dropout probability");
ABSL_FLAG(int64_t, steps, kDefaults.steps, "steps to train (in all, counting a resumed run's)");
ABSL_FLAG(int64_t, batch_size, kDefaults.batch_size, "windows per batch (per rank)");
ABSL_FLAG(double, lr, kDefaults.lr, "peak AdamW learning rate");
ABSL_FLAG(double, min_lr, kDefaults.min_lr, "learning rate at the end of the cosine decay");
ABSL_FLAG(int64_t, warmup_steps, kDefaults.warmup_steps, "steps of linear warmup");
ABSL_FLAG(double, weight_decay, kDefaults.weight_decay, "AdamW weight decay (matrices only)");
ABSL_FLAG(double, grad_clip, kDefaults.grad_clip, "max gradient norm (0: no clipping)");
ABSL_FLAG(double, val_fraction, kDefaults.val_fraction, "the text's last part held out");
ABSL_FLAG(int64_t, eval_interval, kDefaults.eval_interval, "steps between validation losses");
ABSL_FLAG(int64_t, eval_batches, kDefaults.eval_batches, "batches of a validation loss");
ABSL_FLAG(int64_t, log_interval, kDefaults.log_interval, "steps between training-loss lines");
ABSL_FLAG(int, threads, kDefaults.threads, "compute threads (0: ember's default)");
ABSL_FLAG(uint64_t, seed, kDefaults.seed, "seed of the initialization, batches and sampling");
ABSL_FLAG(std::string, checkpoint_dir, "", "save checkpoints here (empty: none)");
ABSL_FLAG(int64_t, checkpoint_every, kDefaults.checkpoint_every, "steps between checkpoints");
ABSL_FLAG(int64_t, keep_checkpoints, kDefaults.keep_checkpoints,
          "keep only the newest N checkpoints in --checkpoint_dir (0: all)");
ABSL_FLAG(std::string, resume, "", "checkpoint to resume from");
ABSL_FLAG(std::string, auto_resume, "auto",
          "resume from --checkpoint_dir's latest checkpoint when --resume is not given: true, "
          "false, or auto (true under a launcher: torchrun or //distributed:launch)");
ABSL_FLAG(bool, verify_checksums, kDefaults.verify_checksums,
          "check the tensor checksums of the checkpoint read");
ABSL_FLAG(std::string, device, kDefaults.device, "where to run: cpu, cuda, cuda:N");
ABSL_FLAG(std::string, sample, "",
          "instead of training, generate text from this checkpoint and print it");
ABSL_FLAG(std::string, prompt, kSampleDefaults.prompt, "--sample: the text to continue");
ABSL_FLAG(int64_t, max_new_tokens, kSampleDefaults.max_new_tokens,
          "--sample: characters to generate");
ABSL_FLAG(double, temperature, kSampleDefaults.temperature, "--sample: 0 is greedy");
ABSL_FLAG(int64_t, top_k, kSampleDefaults.top_k,
          "--sample: draw from the k most likely characters (0: all)");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Trains a character-level GPT on a text, or samples from one (see trainers/gpt.cc).");
  absl::ParseCommandLine(argc, argv);
  ember::trainers::ProgramOptions program;
  program.name = "gpt";
  program.threads = absl::GetFlag(FLAGS_threads);
  if (!absl::GetFlag(FLAGS_sample).empty()) {
    ember::trainers::SampleConfig s;
    s.checkpoint = absl::GetFlag(FLAGS_sample);
    s.prompt = absl::GetFlag(FLAGS_prompt);
    s.max_new_tokens = absl::GetFlag(FLAGS_max_new_tokens);
    s.temperature = absl::GetFlag(FLAGS_temperature);
    s.top_k = absl::GetFlag(FLAGS_top_k);
    s.seed = absl::GetFlag(FLAGS_seed);
    s.verify_checksums = absl::GetFlag(FLAGS_verify_checksums);
    s.device = absl::GetFlag(FLAGS_device);
    // One process: through the same error reporting as training.
    return ember::distributed::record(
        [&] {
          if (program.threads > 0) ember::set_num_threads(program.threads);
          std::cout << ember::trainers::sample_gpt(s) << std::endl;
          return 0;
        },
        program.name);
  }
  ember::trainers::GptConfig c;
  c.data = absl::GetFlag(FLAGS_data);
  c.n_layer = absl::GetFlag(FLAGS_n_layer);
  c.n_embd = absl::GetFlag(FLAGS_n_embd);
  c.n_head = absl::GetFlag(FLAGS_n_head);
  c.block_size = absl::GetFlag(FLAGS_block_size);
  c.dropout = absl::GetFlag(FLAGS_dropout);
  c.steps = absl::GetFlag(FLAGS_steps);
  c.batch_size = absl::GetFlag(FLAGS_batch_size);
  c.lr = absl::GetFlag(FLAGS_lr);
  c.min_lr = absl::GetFlag(FLAGS_min_lr);
  c.warmup_steps = absl::GetFlag(FLAGS_warmup_steps);
  c.weight_decay = absl::GetFlag(FLAGS_weight_decay);
  c.grad_clip = absl::GetFlag(FLAGS_grad_clip);
  c.val_fraction = absl::GetFlag(FLAGS_val_fraction);
  c.eval_interval = absl::GetFlag(FLAGS_eval_interval);
  c.eval_batches = absl::GetFlag(FLAGS_eval_batches);
  c.log_interval = absl::GetFlag(FLAGS_log_interval);
  c.seed = absl::GetFlag(FLAGS_seed);
  c.checkpoint_dir = absl::GetFlag(FLAGS_checkpoint_dir);
  c.checkpoint_every = absl::GetFlag(FLAGS_checkpoint_every);
  c.keep_checkpoints = absl::GetFlag(FLAGS_keep_checkpoints);
  c.resume = absl::GetFlag(FLAGS_resume);
  c.verify_checksums = absl::GetFlag(FLAGS_verify_checksums);
  c.device = absl::GetFlag(FLAGS_device);
  return ember::trainers::run_training_program(program, [&](int threads) {
    c.threads = threads;
    c.resume = ember::trainers::resume_path(absl::GetFlag(FLAGS_auto_resume), c.resume,
                                            c.checkpoint_dir, "step");
    ember::trainers::train_gpt(c, std::cout);
  });
}
