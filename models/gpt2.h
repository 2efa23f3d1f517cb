#ifndef EMBER_MODELS_GPT2_H_
#define EMBER_MODELS_GPT2_H_

// GPT-2 as Hugging Face's transformers defines it (GPT2LMHeadModel), with
// its parameter names, so that a GPT-2 checkpoint from the hub or from
// save_pretrained loads as it is:
//
//   models::GPT2 gpt(models::GPT2Config());      // GPT-2 small (124M)
//   gpt->load_hf_state_dict(safetensors::load_file("model.safetensors").tensors);
//   gpt->eval();
//   Tensor logits = gpt(input_ids);              // [B, T] int64 -> [B, T, vocab]
//   Tensor ids = gpt->generate(prompt, models::GenerateOptions().max_new_tokens(50));
//
// Names: transformer.wte / wpe (Embedding), transformer.h.N.{ln_1, attn.c_attn,
// attn.c_proj, ln_2, mlp.c_fc, mlp.c_proj}, transformer.ln_f, lm_head. The
// projections are HF's Conv1D (weight [in, out], x @ W + b), the activation
// is "gelu_new" (GELU's tanh approximation), attention is causal and runs
// through F::scaled_dot_product_attention. lm_head.weight *is*
// transformer.wte.weight (one tensor under two names, as HF ties them):
// state_dict() lists both, parameters() once.
//
// Initialization follows HF's distributions: weights N(0, initializer_range),
// the c_proj weights N(0, initializer_range / sqrt(2 * n_layer)), biases 0,
// LayerNorms 1 and 0. The draws are not HF's sequence (HF draws each weight
// twice, at construction and in post_init; ember scales the first draw).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nn/container.h"
#include "nn/dropout.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "nn/normalization.h"
#include "tensor/arg.h"
#include "tensor/named_tensors.h"
#include "tensor/tensor.h"

namespace ember {
namespace models {

// HF's GPT2Config fields that shape the model; the defaults are GPT-2 small.
struct GPT2Config {
  EMBER_ARG(int64_t, vocab_size) = 50257;
  EMBER_ARG(int64_t, n_positions) = 1024;  // the context length
  EMBER_ARG(int64_t, n_embd) = 768;
  EMBER_ARG(int64_t, n_layer) = 12;
  EMBER_ARG(int64_t, n_head) = 12;
  EMBER_ARG(std::optional<int64_t>, n_inner) = std::nullopt;  // the MLP's width; 4 * n_embd
  EMBER_ARG(double, resid_pdrop) = 0.1;
  EMBER_ARG(double, embd_pdrop) = 0.1;
  EMBER_ARG(double, attn_pdrop) = 0.1;
  EMBER_ARG(double, layer_norm_epsilon) = 1e-5;
  EMBER_ARG(double, initializer_range) = 0.02;
};

// transformers' Conv1D(nf, nx): a linear layer whose weight is stored
// [nx (in), nf (out)], the transpose of nn::Linear's, as GPT-2's original
// TensorFlow checkpoints were. weight N(0, 0.02), bias zeros.
class Conv1DImpl : public nn::Module {
 public:
  Conv1DImpl(int64_t nf, int64_t nx);
  // [..., nx] -> [..., nf]
  Tensor forward(const Tensor& x);
  std::string extra_repr() const override;

  int64_t nf, nx;
  Tensor weight, bias;
};
EMBER_MODULE(Conv1D);

// The keys and values of the tokens already seen, per layer (HF's
// past_key_values): a forward given a cache attends to them and appends
// the new tokens'. Positions continue from length().
struct GPT2Cache {
  std::vector<std::pair<Tensor, Tensor>> layers;  // [B, n_head, S, head_dim] each
  int64_t length() const { return layers.empty() ? 0 : layers[0].first.size(2); }
  void clear() { layers.clear(); }
};

class GPT2AttentionImpl : public nn::Module {
 public:
  explicit GPT2AttentionImpl(const GPT2Config& config);
  // x [B, T, n_embd]; `past` (may be null) holds this layer's cached keys
  // and values and receives the new ones.
  Tensor forward(const Tensor& x, std::pair<Tensor, Tensor>* past = nullptr);

  int64_t n_head;
  Conv1D c_attn{nullptr}, c_proj{nullptr};
  nn::Dropout attn_dropout{nullptr}, resid_dropout{nullptr};
};
EMBER_MODULE(GPT2Attention);

class GPT2MLPImpl : public nn::Module {
 public:
  GPT2MLPImpl(int64_t intermediate_size, const GPT2Config& config);
  Tensor forward(const Tensor& x);

  Conv1D c_fc{nullptr}, c_proj{nullptr};
  nn::Dropout dropout{nullptr};
};
EMBER_MODULE(GPT2MLP);

// Pre-LayerNorm residual block: x + attn(ln_1(x)), then + mlp(ln_2(.)).
class GPT2BlockImpl : public nn::Module {
 public:
  explicit GPT2BlockImpl(const GPT2Config& config);
  Tensor forward(const Tensor& x, std::pair<Tensor, Tensor>* past = nullptr);

  nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  GPT2Attention attn{nullptr};
  GPT2MLP mlp{nullptr};
};
EMBER_MODULE(GPT2Block);

// The transformer without its head (HF's GPT2Model): token ids -> the
// final LayerNorm's hidden states.
class GPT2ModelImpl : public nn::Module {
 public:
  explicit GPT2ModelImpl(const GPT2Config& config);
  // input_ids [B, T] (int64) -> [B, T, n_embd]. ValueError when the
  // cached and new tokens together exceed n_positions.
  Tensor forward(const Tensor& input_ids, GPT2Cache* cache = nullptr);

  GPT2Config config;
  nn::Embedding wte{nullptr}, wpe{nullptr};
  nn::Dropout drop{nullptr};
  nn::ModuleList h{nullptr};
  nn::LayerNorm ln_f{nullptr};
};
EMBER_MODULE(GPT2Model);

struct GenerateOptions {
  EMBER_ARG(int64_t, max_new_tokens) = 20;
  // false: greedy (argmax); true: sample from softmax(logits / temperature),
  // restricted to the top_k most likely tokens when top_k > 0.
  EMBER_ARG(bool, do_sample) = false;
  EMBER_ARG(double, temperature) = 1.0;
  EMBER_ARG(int64_t, top_k) = 0;
};

// GPT2LMHeadModel.
class GPT2Impl : public nn::Module {
 public:
  explicit GPT2Impl(const GPT2Config& config = {});
  // input_ids [B, T] -> logits [B, T, vocab_size].
  Tensor forward(const Tensor& input_ids, GPT2Cache* cache = nullptr);
  // HF's language-modelling loss: cross entropy of the logits at t against
  // labels at t + 1 (labels are usually input_ids).
  Tensor loss(const Tensor& logits, const Tensor& labels) const;

  // Appends max_new_tokens tokens to input_ids [B, T] and returns the whole
  // sequence [B, T + max_new_tokens]. Runs without autograd, in the
  // module's current mode (call eval() first, as HF's from_pretrained
  // leaves the model), with a key/value cache; once the sequence outgrows
  // n_positions, each step reads the last n_positions tokens afresh.
  // Sampling draws from the default generator (manual_seed repeats it).
  Tensor generate(const Tensor& input_ids, const GenerateOptions& options = {});

  // Loads a Hugging Face GPT-2 state dict, as from_pretrained reads one:
  // GPT2LMHeadModel's keys (transformer.*, lm_head.weight optional since it
  // is tied) or GPT2Model's (no "transformer." prefix, as the hub's "gpt2"
  // checkpoint); the causal-mask buffers older transformers saved
  // (h.N.attn.bias, h.N.attn.masked_bias) are skipped. Then
  // load_state_dict(strict): anything else that does not match is an error.
  nn::IncompatibleKeys load_hf_state_dict(const NamedTensors& state_dict, bool strict = true);

  GPT2Config config;
  GPT2Model transformer{nullptr};
  nn::Linear lm_head{nullptr};
};
EMBER_MODULE(GPT2);

}  // namespace models
}  // namespace ember

#endif  // EMBER_MODELS_GPT2_H_
