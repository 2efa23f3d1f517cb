#include "trainers/gpt_train.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "autograd/grad_mode.h"
#include "distributed/collectives.h"
#include "distributed/ddp.h"
#include "models/gpt2.h"
#include "optim/adam.h"
#include "optim/clip_grad.h"
#include "serialize/checkpoint.h"
#include "tensor/all.h"
#include "trainers/common.h"

namespace ember {
namespace trainers {

namespace {

// What a checkpoint records beside model, optimizer and step, so that
// sample_gpt can rebuild the model and read its tokens.
constexpr char kVocab[] = "vocab";
constexpr const char* kShape[] = {"n_layer", "n_embd", "n_head", "block_size"};

void check_config(const GptConfig& c) {
  EMBER_CHECK_VALUE(c.n_layer > 0 && c.n_embd > 0 && c.n_head > 0,
                    "n_layer, n_embd and n_head must be positive, got ", c.n_layer, ", ", c.n_embd,
                    ", ", c.n_head);
  EMBER_CHECK_VALUE(c.n_embd % c.n_head == 0, "n_embd (", c.n_embd,
                    ") must be a multiple of n_head (", c.n_head, ")");
  // The loss predicts each character from those before it: one needs two.
  EMBER_CHECK_VALUE(c.block_size >= 2, "block_size must be at least 2, got ", c.block_size);
  EMBER_CHECK_VALUE(c.dropout >= 0 && c.dropout < 1, "dropout must be in [0, 1), got ", c.dropout);
  EMBER_CHECK_VALUE(c.steps >= 0, "steps must be non-negative, got ", c.steps);
  EMBER_CHECK_VALUE(c.batch_size > 0, "batch_size must be positive, got ", c.batch_size);
  EMBER_CHECK_VALUE(c.lr > 0 && std::isfinite(c.lr), "lr must be positive, got ", c.lr);
  EMBER_CHECK_VALUE(c.min_lr >= 0 && c.min_lr <= c.lr, "min_lr must be in [0, lr], got ", c.min_lr);
  EMBER_CHECK_VALUE(c.warmup_steps >= 0, "warmup_steps must be non-negative, got ", c.warmup_steps);
  EMBER_CHECK_VALUE(c.weight_decay >= 0, "weight_decay must be non-negative, got ", c.weight_decay);
  EMBER_CHECK_VALUE(c.grad_clip >= 0, "grad_clip must be non-negative (0: none), got ",
                    c.grad_clip);
  EMBER_CHECK_VALUE(c.val_fraction > 0 && c.val_fraction < 1,
                    "val_fraction must be in (0, 1), got ", c.val_fraction);
  EMBER_CHECK_VALUE(c.eval_interval > 0, "eval_interval must be positive, got ", c.eval_interval);
  EMBER_CHECK_VALUE(c.eval_batches > 0, "eval_batches must be positive, got ", c.eval_batches);
  EMBER_CHECK_VALUE(c.log_interval > 0, "log_interval must be positive, got ", c.log_interval);
  EMBER_CHECK_VALUE(c.checkpoint_every >= 0, "checkpoint_every must be non-negative, got ",
                    c.checkpoint_every);
  EMBER_CHECK_VALUE(c.keep_checkpoints >= 0, "keep_checkpoints must be non-negative, got ",
                    c.keep_checkpoints);
}

models::GPT2Config model_config(int64_t vocab_size, int64_t n_layer, int64_t n_embd, int64_t n_head,
                                int64_t block_size, double dropout) {
  return models::GPT2Config()
      .vocab_size(vocab_size)
      .n_positions(block_size)
      .n_layer(n_layer)
      .n_embd(n_embd)
      .n_head(n_head)
      .resid_pdrop(dropout)
      .embd_pdrop(dropout)
      .attn_pdrop(dropout);
}

Tensor as_tensor(std::vector<int64_t> ids) {
  return from_blob(ids.data(), {static_cast<int64_t>(ids.size())}, kLong).clone();
}

// Rows of `data` [N] starting at `starts` [B]: [B, block_size].
Tensor windows(const Tensor& data, const Tensor& starts, int64_t block_size) {
  Tensor idx = starts.unsqueeze(1) + arange(block_size, kLong).unsqueeze(0);
  return data.index_select(0, idx.reshape({-1})).reshape({starts.size(0), block_size});
}

// AdamW with nanoGPT's split: weight decay on the matrices (embeddings and
// projections), none on biases and LayerNorms.
std::unique_ptr<optim::AdamW> make_optimizer(const GptConfig& c, const models::GPT2& model) {
  std::vector<Tensor> decay, no_decay;
  for (const Tensor& p : model->parameters()) (p.dim() >= 2 ? decay : no_decay).push_back(p);
  optim::AdamWOptions options = optim::AdamWOptions(c.lr)
                                    .betas(std::make_tuple(c.beta1, c.beta2))
                                    .weight_decay(c.weight_decay);
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay);
  groups.emplace_back(no_decay, std::make_unique<optim::AdamWOptions>(
                                    optim::AdamWOptions(options).weight_decay(0)));
  return std::make_unique<optim::AdamW>(std::move(groups), options);
}

// The mean loss over the validation windows eval_loss reads: consecutive
// windows from the split's start, eval_batches batches at most.
double eval_loss(models::GPT2& model, const Tensor& val, const GptConfig& c, const Device& device) {
  NoGradGuard no_grad;
  model->eval();
  const int64_t n = std::min(val.size(0) / c.block_size, c.eval_batches * c.batch_size);
  double sum = 0;
  for (int64_t first = 0; first < n; first += c.batch_size) {
    const int64_t b = std::min(c.batch_size, n - first);
    Tensor x =
        windows(val, arange(first, first + b, kLong) * c.block_size, c.block_size).to(device);
    sum += model->loss(model->forward(x), x).item<double>() * static_cast<double>(b);
  }
  model->train();
  return sum / static_cast<double>(n);
}

}  // namespace

double gpt_lr_at(const GptConfig& c, int64_t step) {
  if (step < c.warmup_steps) {
    return c.lr * static_cast<double>(step + 1) / static_cast<double>(c.warmup_steps);
  }
  const int64_t decay_steps = c.steps - c.warmup_steps;
  if (decay_steps <= 0) return c.lr;
  const double progress =
      std::min(1.0, static_cast<double>(step - c.warmup_steps) / static_cast<double>(decay_steps));
  return c.min_lr + 0.5 * (1.0 + std::cos(M_PI * progress)) * (c.lr - c.min_lr);
}

GptResult train_gpt(const GptConfig& c, std::ostream& out_all) {
  check_config(c);
  if (c.threads > 0) set_num_threads(c.threads);
  const RankInfo ranks = rank_info();
  std::ostream& out = rank_zero_stream(out_all, ranks);
  if (ranks.rank == 0 && !c.checkpoint_dir.empty()) prepare_checkpoint_dir(c.checkpoint_dir);

  const std::string text = read_text(c.data);
  EMBER_CHECK_VALUE(!text.empty(), "'", c.data, "' is empty: there is nothing to train on");
  const CharVocab vocab = CharVocab::from_text(text);
  const std::vector<int64_t> ids = vocab.encode(text);
  const int64_t n_val = static_cast<int64_t>(static_cast<double>(ids.size()) * c.val_fraction);
  const int64_t n_train = static_cast<int64_t>(ids.size()) - n_val;
  EMBER_CHECK_VALUE(n_train >= c.block_size && n_val >= c.block_size, "the text of '", c.data,
                    "' (", ids.size(), " characters) is too short for a context of ", c.block_size,
                    ": its training split has ", n_train, " characters and its validation split ",
                    n_val, ", and each needs at least ", c.block_size);
  const std::vector<int64_t> train_ids(ids.begin(), ids.begin() + n_train);
  GptResult result;
  result.unigram_baseline = unigram_entropy(train_ids, vocab.size());
  out << absl::StrFormat(
             "unigram baseline: %.2f nats (vocabulary %d, %d train / %d val characters)\n",
             result.unigram_baseline, vocab.size(), n_train, n_val)
      << std::flush;
  const Tensor train_data = as_tensor(train_ids);
  const Tensor val_data = as_tensor(std::vector<int64_t>(ids.begin() + n_train, ids.end()));

  const Device device = training_device(c.device, ranks);
  manual_seed(c.seed);  // the same initialization on every rank
  models::GPT2 model(
      model_config(vocab.size(), c.n_layer, c.n_embd, c.n_head, c.block_size, c.dropout));
  model->to(device);  // before the optimizer takes the parameters, as in PyTorch
  std::unique_ptr<optim::AdamW> optimizer = make_optimizer(c, model);

  int64_t step = 0;
  if (!c.resume.empty()) {
    step = resume_training(
        c.resume, c.verify_checksums, "step", *model, *optimizer, [&](const Checkpoint& ckpt) {
          EMBER_CHECK_VALUE(CharVocab::from_tensor(ckpt.get_tensor(kVocab)) == vocab,
                            "its vocabulary is not the one of '", c.data, "'");
        });
    out << "Resumed from " << c.resume << " at step " << step << std::endl;
  }
  result.step = step;
  result.train_loss = std::numeric_limits<double>::quiet_NaN();
  result.val_loss = std::numeric_limits<double>::quiet_NaN();

  // After resuming: DDP starts every rank from rank 0's state.
  distributed::DistributedDataParallel<models::GPT2> ddp(nullptr);
  if (ranks.parallel) ddp = distributed::DistributedDataParallel<models::GPT2>(model);
  const std::vector<Tensor> params = model->parameters();

  model->train();
  auto since = std::chrono::steady_clock::now();
  int64_t timed_steps = 0;
  for (; step < c.steps; ++step) {
    const double lr = gpt_lr_at(c, step);
    for (auto& group : optimizer->param_groups()) group.options().set_lr(lr);
    // Each (step, rank) has its own generator, so that the batches depend
    // on neither the run's history nor a resume.
    Generator gen(c.seed * 1000003 + static_cast<uint64_t>(step * ranks.world + ranks.rank));
    Tensor starts = randint(n_train - c.block_size + 1, {c.batch_size}, gen);
    Tensor x = windows(train_data, starts, c.block_size).to(device);
    Tensor logits = ranks.parallel ? ddp(x) : model->forward(x);
    Tensor loss = model->loss(logits, x);
    optimizer->zero_grad();
    loss.backward();
    if (c.grad_clip > 0) nn::utils::clip_grad_norm_(params, c.grad_clip);
    optimizer->step();
    result.train_loss = loss.item<double>();
    result.step = step + 1;
    ++timed_steps;

    if (result.step % c.log_interval == 0 || result.step == c.steps) {
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
              .count() /
          static_cast<double>(timed_steps);
      out << absl::StrFormat("step %d/%d | loss %.4f | lr %.2e | %.0f ms/step\n", result.step,
                             c.steps, result.train_loss, lr, ms)
          << std::flush;
      since = std::chrono::steady_clock::now();
      timed_steps = 0;
    }
    if (result.step % c.eval_interval == 0 || result.step == c.steps) {
      double val = ranks.rank == 0 ? eval_loss(model, val_data, c, device) : 0.0;
      if (ranks.parallel) {
        // On the training device: NCCL carries CUDA tensors only.
        Tensor figures = tensor({result.train_loss, val}, kDouble).to(device);
        distributed::broadcast(figures, 0);
        result.train_loss = figures[0].item<double>();
        val = figures[1].item<double>();
      }
      result.val_loss = val;
      result.val_losses.push_back(val);
      out << absl::StrFormat("step %d/%d | val loss %.4f\n", result.step, c.steps, val)
          << std::flush;
      since = std::chrono::steady_clock::now();  // evaluation is not a step's time
    }
    if (ranks.rank == 0 && !c.checkpoint_dir.empty() &&
        ((c.checkpoint_every > 0 && result.step % c.checkpoint_every == 0) ||
         result.step == c.steps)) {
      save_training_checkpoint(
          c.checkpoint_dir, c.keep_checkpoints, "step", result.step, *model, *optimizer,
          [&](Checkpoint& ckpt) {
            ckpt.set(kVocab, vocab.to_tensor());
            const int64_t shape[] = {c.n_layer, c.n_embd, c.n_head, c.block_size};
            for (int i = 0; i < 4; ++i) ckpt.set(kShape[i], shape[i]);
          });
    }
  }
  return result;
}

std::string sample_gpt(const SampleConfig& c) {
  EMBER_CHECK_VALUE(c.max_new_tokens >= 0, "max_new_tokens must be non-negative, got ",
                    c.max_new_tokens);
  EMBER_CHECK_VALUE(c.temperature >= 0 && std::isfinite(c.temperature),
                    "temperature must be non-negative (0: greedy), got ", c.temperature);
  EMBER_CHECK_VALUE(c.top_k >= 0, "top_k must be non-negative (0: all), got ", c.top_k);
  EMBER_CHECK_VALUE(!c.prompt.empty(),
                    "the prompt is empty: generation needs a character "
                    "to start from");
  std::optional<CharVocab> vocab;
  models::GPT2 model(nullptr);
  read_checkpoint(c.checkpoint, c.verify_checksums, "sample from", [&](const Checkpoint& ckpt) {
    vocab = CharVocab::from_tensor(ckpt.get_tensor(kVocab));
    int64_t shape[4];
    for (int i = 0; i < 4; ++i) {
      shape[i] = ckpt.get_int(kShape[i]);
      EMBER_CHECK_VALUE(shape[i] > 0, "its ", kShape[i], " is ", shape[i]);
    }
    EMBER_CHECK_VALUE(shape[1] % shape[2] == 0, "its n_embd (", shape[1],
                      ") is not a multiple of its n_head (", shape[2], ")");
    model = models::GPT2(
        model_config(vocab->size(), shape[0], shape[1], shape[2], shape[3], /*dropout=*/0.0));
    const NamedTensors weights = ckpt.state_dict("model");
    check_finite(weights);
    model->load_state_dict(weights);
  });
  const Device device(c.device);
  model->to(device);
  model->eval();
  std::vector<int64_t> prompt;
  try {
    prompt = vocab->encode(c.prompt);
  } catch (const ValueError& e) {
    throw ValueError(
        absl::StrCat("the prompt does not fit the checkpoint's vocabulary: ", e.what()));
  }
  const int64_t context = model->config.n_positions();
  if (static_cast<int64_t>(prompt.size()) > context) {
    prompt.erase(prompt.begin(), prompt.end() - context);
  }
  manual_seed(c.seed);
  Tensor input = as_tensor(prompt).unsqueeze(0).to(device);
  Tensor out = model
                   ->generate(input, models::GenerateOptions()
                                         .max_new_tokens(c.max_new_tokens)
                                         .do_sample(c.temperature > 0)
                                         .temperature(c.temperature > 0 ? c.temperature : 1.0)
                                         .top_k(c.top_k))
                   .to(Device(kCPU))
                   .contiguous();
  const int64_t* p = out.data_ptr<int64_t>() + prompt.size();
  return c.prompt + vocab->decode(std::vector<int64_t>(p, p + c.max_new_tokens));
}

}  // namespace trainers
}  // namespace ember
