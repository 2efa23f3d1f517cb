#ifndef EMBER_TRAINERS_GPT_TRAIN_H_
#define EMBER_TRAINERS_GPT_TRAIN_H_

// A character-level GPT language model (models::GPT2, a small config) on a
// text, as a library: //trainers:gpt is its command line, the tests call it
// directly. AdamW with linear warmup then cosine decay to min_lr, gradient
// clipping, a validation loss on the text's last val_fraction every
// eval_interval steps, checkpoints (model, optimizer, step, vocabulary and
// model shape) every checkpoint_every steps, resume, and sample_gpt to
// generate from a checkpoint. Under a process group of several ranks it
// trains data-parallel as the MNIST trainer does (Note [Data-parallel MNIST]
// in mnist_train.cc): DDP, batch_size windows per rank, rank 0 prints,
// evaluates and checkpoints.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "trainers/gpt_text.h"

namespace ember {
namespace trainers {

struct GptConfig {
  // A text file, or a folder of them (read_text).
  std::string data = kDefaultFortunesDir;
  // The model: models::GPT2Config with vocab_size from the text and
  // n_positions = block_size (the context, in characters).
  int64_t n_layer = 4;
  int64_t n_embd = 128;
  int64_t n_head = 4;
  int64_t block_size = 64;
  double dropout = 0.0;  // every dropout of GPT2Config
  // Optimization: `steps` in all, counting a resumed run's.
  int64_t steps = 500;
  int64_t batch_size = 32;  // windows of block_size characters, per rank
  double lr = 6e-3;         // the peak, reached after warmup_steps
  double min_lr = 6e-4;     // where the cosine ends, at `steps`
  int64_t warmup_steps = 30;
  double weight_decay = 0.1;
  double beta1 = 0.9, beta2 = 0.99;
  double grad_clip = 1.0;  // max global gradient norm (0: none)
  // The last val_fraction of the text is held out; its loss is measured
  // every eval_interval steps and at the end, on up to eval_batches
  // batches of consecutive windows from its start (the same every time).
  double val_fraction = 0.1;
  int64_t eval_interval = 100;
  int64_t eval_batches = 8;
  int64_t log_interval = 50;  // steps between training-loss lines
  int threads = 0;            // ember::set_num_threads when > 0
  // Seeds the initialization and the batches: step s of rank r draws its
  // windows from a generator of (seed, s, r), so a resumed run sees the
  // batches the uninterrupted run saw.
  uint64_t seed = 0;
  // Checkpoints: <checkpoint_dir>/step_<n>.safetensors every
  // checkpoint_every steps and at the last step ("": none), the newest
  // keep_checkpoints kept (0: all).
  std::string checkpoint_dir;
  int64_t checkpoint_every = 100;
  int64_t keep_checkpoints = 3;
  // A checkpoint to continue from; its vocabulary must be the text's and
  // its model shape the config's. Without dropout a resumed run repeats the
  // uninterrupted one exactly; dropout draws from the default generator,
  // whose state checkpoints do not hold.
  std::string resume;
  bool verify_checksums = true;
  std::string device = "cpu";  // "cpu", "cuda", "cuda:1"...
};

struct GptResult {
  int64_t step = 0;                // the steps done in all (counting a resumed run's)
  double unigram_baseline = 0;     // nats, of the training split
  double train_loss = 0;           // of the last batch (NaN when no step ran)
  double val_loss = 0;             // at the end
  std::vector<double> val_losses;  // every evaluation, in order
};

// Trains; prints (rank 0, flushed)
//   unigram baseline: 3.32 nats (vocabulary 114, 2319007 train / 257667 val characters)
//   step 50/500 | loss 2.9012 | lr 5.94e-03 | 312 ms/step
//   step 100/500 | val loss 2.6585
// Bad settings are ember::Errors before anything trains: numbers out of
// range, a missing or empty text, a split shorter than the context, an
// unusable checkpoint_dir or resume.
GptResult train_gpt(const GptConfig& config, std::ostream& out);

struct SampleConfig {
  std::string checkpoint;  // written by train_gpt
  std::string prompt = "\n";
  int64_t max_new_tokens = 300;
  // 0: greedy; else softmax(logits / temperature), from the top_k most
  // likely characters when top_k > 0.
  double temperature = 0.8;
  int64_t top_k = 0;
  uint64_t seed = 0;  // the same seed and checkpoint give the same text
  bool verify_checksums = true;
  std::string device = "cpu";
};

// The prompt followed by max_new_tokens generated characters. A prompt
// longer than the model's context conditions on its last block_size
// characters. Errors: an unusable checkpoint (naming it), a prompt with a
// character the checkpoint's vocabulary lacks, numbers out of range.
std::string sample_gpt(const SampleConfig& config);

// The learning rate at `step` (0-based): linear warmup from lr / warmup to
// lr over warmup_steps, then cosine decay to min_lr at `steps`.
double gpt_lr_at(const GptConfig& config, int64_t step);

}  // namespace trainers
}  // namespace ember

#endif  // EMBER_TRAINERS_GPT_TRAIN_H_
