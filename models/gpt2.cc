#include "models/gpt2.h"

#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "autograd/grad_mode.h"
#include "nn/functional/activation.h"
#include "nn/functional/attention.h"
#include "nn/functional/loss.h"
#include "nn/init.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/linalg.h"
#include "tensor/random.h"
#include "tensor/shape.h"

namespace ember {
namespace models {
namespace {

namespace F = nn::functional;

// The std of Conv1D's own init; GPT2Model rescales it to initializer_range.
constexpr double kConv1DStd = 0.02;

}  // namespace

Conv1DImpl::Conv1DImpl(int64_t nf, int64_t nx) : nf(nf), nx(nx) {
  weight = register_parameter("weight", nn::init::normal_(empty({nx, nf}), 0, kConv1DStd));
  bias = register_parameter("bias", zeros({nf}));
}

Tensor Conv1DImpl::forward(const Tensor& x) {
  std::vector<int64_t> out_sizes(x.sizes().begin(), x.sizes().end());
  out_sizes.back() = nf;
  return addmm(bias, x.reshape({-1, nx}), weight).view(out_sizes);
}

std::string Conv1DImpl::extra_repr() const { return absl::StrCat("nf=", nf, ", nx=", nx); }

GPT2AttentionImpl::GPT2AttentionImpl(const GPT2Config& config) : n_head(config.n_head()) {
  const int64_t embed_dim = config.n_embd();
  if (embed_dim % n_head != 0) {
    throw ValueError(absl::StrCat("`embed_dim` must be divisible by num_heads (got `embed_dim`: ",
                                  embed_dim, " and `num_heads`: ", n_head, ")."));
  }
  c_attn = register_module("c_attn", Conv1D(3 * embed_dim, embed_dim));
  c_proj = register_module("c_proj", Conv1D(embed_dim, embed_dim));
  attn_dropout = register_module("attn_dropout", nn::Dropout(config.attn_pdrop()));
  resid_dropout = register_module("resid_dropout", nn::Dropout(config.resid_pdrop()));
}

Tensor GPT2AttentionImpl::forward(const Tensor& x, std::pair<Tensor, Tensor>* past) {
  const int64_t batch = x.size(0), len = x.size(1), embed_dim = x.size(2);
  std::vector<Tensor> qkv = c_attn(x).split(embed_dim, 2);
  auto heads = [&](const Tensor& t) {  // [B, T, E] -> [B, n_head, T, head_dim]
    return t.view({batch, len, n_head, embed_dim / n_head}).transpose(1, 2);
  };
  Tensor q = heads(qkv[0]), k = heads(qkv[1]), v = heads(qkv[2]);
  int64_t past_len = 0;
  if (past != nullptr) {
    if (past->first.defined()) {
      past_len = past->first.size(2);
      k = cat({past->first, k}, 2);
      v = cat({past->second, v}, 2);
    }
    *past = {k, v};
  }
  // Query i (at position past_len + i) sees keys 0..past_len + i: SDPA's
  // is_causal is that triangle only without a cache (it aligns top-left).
  Tensor mask;
  if (past_len > 0 && len > 1) {
    mask = ones({len, past_len + len}, TensorOptions(kBool).device(x.device())).tril(past_len);
  }
  const double dropout_p = is_training() ? attn_dropout->options.p() : 0.0;
  Tensor y = F::scaled_dot_product_attention(q, k, v, mask, dropout_p,
                                             /*is_causal=*/past_len == 0 && len > 1);
  y = y.transpose(1, 2).reshape({batch, len, embed_dim});
  return resid_dropout(c_proj(y));
}

GPT2MLPImpl::GPT2MLPImpl(int64_t intermediate_size, const GPT2Config& config) {
  c_fc = register_module("c_fc", Conv1D(intermediate_size, config.n_embd()));
  c_proj = register_module("c_proj", Conv1D(config.n_embd(), intermediate_size));
  dropout = register_module("dropout", nn::Dropout(config.resid_pdrop()));
}

Tensor GPT2MLPImpl::forward(const Tensor& x) {
  // HF's "gelu_new" is GELU's tanh approximation.
  return dropout(c_proj(F::gelu(c_fc(x), F::GELUFuncOptions().approximate("tanh"))));
}

GPT2BlockImpl::GPT2BlockImpl(const GPT2Config& config) {
  const int64_t hidden = config.n_embd();
  const auto ln = [&] {
    return nn::LayerNorm(nn::LayerNormOptions({hidden}).eps(config.layer_norm_epsilon()));
  };
  ln_1 = register_module("ln_1", ln());
  attn = register_module("attn", GPT2Attention(config));
  ln_2 = register_module("ln_2", ln());
  mlp = register_module("mlp", GPT2MLP(config.n_inner().value_or(4 * hidden), config));
}

Tensor GPT2BlockImpl::forward(const Tensor& x, std::pair<Tensor, Tensor>* past) {
  Tensor h = x + attn->forward(ln_1(x), past);
  return h + mlp(ln_2(h));
}

GPT2ModelImpl::GPT2ModelImpl(const GPT2Config& config) : config(config) {
  wte = register_module("wte", nn::Embedding(config.vocab_size(), config.n_embd()));
  wpe = register_module("wpe", nn::Embedding(config.n_positions(), config.n_embd()));
  drop = register_module("drop", nn::Dropout(config.embd_pdrop()));
  h = register_module("h", nn::ModuleList());
  for (int64_t i = 0; i < config.n_layer(); ++i) h->push_back(GPT2Block(config));
  ln_f = register_module(
      "ln_f", nn::LayerNorm(nn::LayerNormOptions({config.n_embd()}).eps(config.layer_norm_epsilon())));

  // HF's _init_weights, by scaling what construction drew (N(0, 1) for the
  // embeddings, N(0, 0.02) for Conv1D) to the same distributions: every
  // weight N(0, initializer_range), the residual projections (c_proj)
  // N(0, initializer_range / sqrt(2 * n_layer)), GPT-2 paper's scaling.
  NoGradGuard no_grad;
  const double range = config.initializer_range();
  wte->weight.mul_(range);
  wpe->weight.mul_(range);
  for (const auto& [name, m] : named_modules()) {
    if (auto* conv = m->as<Conv1D>()) {
      const bool residual = absl::EndsWith(name, ".c_proj");
      conv->weight.mul_(range / kConv1DStd /
                        (residual ? std::sqrt(2.0 * config.n_layer()) : 1.0));
    }
  }
}

Tensor GPT2ModelImpl::forward(const Tensor& input_ids, GPT2Cache* cache) {
  const int64_t past = cache != nullptr ? cache->length() : 0;
  const int64_t len = input_ids.size(-1);
  if (past + len > config.n_positions()) {
    throw ValueError(absl::StrCat("GPT2: ", len, " tokens after ", past,
                                  " cached ones exceed the context of n_positions=",
                                  config.n_positions()));
  }
  Tensor positions = arange(past, past + len, TensorOptions(kLong).device(input_ids.device()));
  Tensor hidden = drop(wte(input_ids) + wpe(positions));
  if (cache != nullptr) cache->layers.resize(h->size());
  for (size_t i = 0; i < h->size(); ++i) {
    hidden = h->at<GPT2Block>(i).forward(hidden, cache != nullptr ? &cache->layers[i] : nullptr);
  }
  return ln_f(hidden);
}

GPT2Impl::GPT2Impl(const GPT2Config& config) : config(config) {
  transformer = register_module("transformer", GPT2Model(config));
  lm_head = register_module(
      "lm_head", nn::Linear(nn::LinearOptions(config.n_embd(), config.vocab_size()).bias(false)));
  // Tied: one tensor, two names (HF's tie_weights).
  lm_head->weight = lm_head->register_parameter("weight", transformer->wte->weight);
}

Tensor GPT2Impl::forward(const Tensor& input_ids, GPT2Cache* cache) {
  return lm_head(transformer->forward(input_ids, cache));
}

Tensor GPT2Impl::loss(const Tensor& logits, const Tensor& labels) const {
  const int64_t len = logits.size(1);
  Tensor shift_logits = logits.slice(1, 0, len - 1).reshape({-1, logits.size(-1)});
  return F::cross_entropy(shift_logits, labels.slice(1, 1, len).reshape({-1}));
}

namespace {

// The next token of each row of logits [B, V] -> [B, 1].
Tensor pick_token(Tensor logits, const GenerateOptions& options) {
  if (!options.do_sample()) return logits.argmax(-1, /*keepdim=*/true);
  logits = logits / options.temperature();
  if (options.top_k() > 0 && options.top_k() < logits.size(-1)) {
    Tensor kth = std::get<0>(logits.topk(options.top_k())).narrow(-1, options.top_k() - 1, 1);
    logits = logits.masked_fill(logits < kth, -std::numeric_limits<double>::infinity());
  }
  // Inverse-CDF sampling (torch.multinomial's draw, which ember lacks): the
  // first token whose cumulative probability exceeds u; tokens of
  // probability 0 are never chosen.
  Tensor cdf = F::softmax(logits.to(kFloat), -1).cumsum(-1);
  Tensor u = rand({cdf.size(0), 1}, TensorOptions(kFloat).device(cdf.device())) *
             cdf.narrow(-1, cdf.size(-1) - 1, 1);
  return (cdf <= u).sum({-1}, /*keepdim=*/true).clamp_max(cdf.size(-1) - 1);
}

}  // namespace

Tensor GPT2Impl::generate(const Tensor& input_ids, const GenerateOptions& options) {
  NoGradGuard no_grad;
  const int64_t context = config.n_positions();
  Tensor ids = input_ids;
  Tensor next_input = ids;
  GPT2Cache cache;
  for (int64_t step = 0; step < options.max_new_tokens(); ++step) {
    if (cache.length() + next_input.size(1) > context) {
      // Outgrown: positions restart at 0 for the last `context` tokens.
      cache.clear();
      next_input = ids.narrow(1, ids.size(1) - context, context);
    }
    Tensor logits = forward(next_input, &cache);
    next_input = pick_token(logits.select(1, -1), options);
    ids = cat({ids, next_input}, 1);
  }
  return ids;
}

nn::IncompatibleKeys GPT2Impl::load_hf_state_dict(const NamedTensors& state_dict, bool strict) {
  NamedTensors renamed;
  Tensor wte, head;  // handles: the values stay in state_dict
  for (const auto& [key, tensor] : state_dict) {
    // Causal-mask buffers that transformers < 4.31 kept in state_dict.
    if (absl::EndsWith(key, ".attn.bias") || absl::EndsWith(key, ".attn.masked_bias")) continue;
    std::string name = key;
    if (key != "lm_head.weight" && !absl::StartsWith(key, "transformer.")) {
      name = "transformer." + key;  // a GPT2Model's file (HF's base_model_prefix)
    }
    if (name == "lm_head.weight") {
      head = tensor;
      continue;
    }
    if (name == "transformer.wte.weight") wte = tensor;
    renamed.emplace_back(name, tensor);
  }
  // As HF ties them: the embedding's values when the file has both.
  if (wte.defined()) {
    renamed.emplace_back("lm_head.weight", wte);
  } else if (head.defined()) {
    renamed.emplace_back("transformer.wte.weight", head);
    renamed.emplace_back("lm_head.weight", head);
  }
  return load_state_dict(renamed, strict);
}

}  // namespace models
}  // namespace ember
