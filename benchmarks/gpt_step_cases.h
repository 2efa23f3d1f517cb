#ifndef EMBER_BENCHMARKS_GPT_STEP_CASES_H_
#define EMBER_BENCHMARKS_GPT_STEP_CASES_H_

// One training step of a GPT-style language model (issue 19's "GPT-2-style
// step": 6 layers, 384 wide, 6 heads, context 256, batch 8; nanoGPT's
// character-level config, vocabulary 65), written once over a library
// namespace so that the same code measures ember and libtorch:
//   token + position embeddings, 6 TransformerEncoderLayers (GELU, feed-
//   forward 4x, dropout 0) under a causal mask, a final LayerNorm, the
//   vocabulary head, cross-entropy, backward, AdamW step.
// libtorch 1.13's C++ TransformerEncoderLayer is sequence-first and
// post-norm only, so both run that form ([T, N, E]); the work is the same
// as GPT-2's pre-norm blocks.
//
//   EMBER_GPT_STEP_BACKEND(EmberGpt, ember);  EMBER_GPT_STEP_BACKEND(TorchGpt, torch);
//   register_gpt_step_cases<EmberGpt>("ember/");

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "benchmarks/step_benchmark.h"

namespace ember::bench {

struct GptConfig {
  int64_t layers = 6, width = 384, heads = 6, context = 256, batch = 8, vocab = 65;
};

// Defines struct Name: the model and optimizer of `lib` (ember or torch),
// whose C++ frontends are spelled alike.
#define EMBER_GPT_STEP_BACKEND(Name, lib)                                                      \
  struct Name {                                                                                \
    using Tensor = lib::Tensor;                                                                \
    struct Model : lib::nn::Module {                                                           \
      explicit Model(const ::ember::bench::GptConfig& c)                                      \
          : wte(register_module("wte", lib::nn::Embedding(c.vocab, c.width))),                \
            wpe(register_module("wpe", lib::nn::Embedding(c.context, c.width))),              \
            ln_f(register_module("ln_f",                                                       \
                                 lib::nn::LayerNorm(lib::nn::LayerNormOptions({c.width})))),   \
            head(register_module("head", lib::nn::Linear(c.width, c.vocab))),                  \
            mask(lib::nn::TransformerImpl::generate_square_subsequent_mask(c.context)),       \
            positions(lib::arange(c.context).unsqueeze(1)) {                                   \
        for (int64_t i = 0; i < c.layers; ++i) {                                               \
          blocks.push_back(register_module(                                                    \
              "h" + std::to_string(i),                                                         \
              lib::nn::TransformerEncoderLayer(                                                \
                  lib::nn::TransformerEncoderLayerOptions(c.width, c.heads)                    \
                      .dim_feedforward(4 * c.width)                                            \
                      .dropout(0.0)                                                            \
                      .activation(lib::kGELU))));                                              \
        }                                                                                      \
      }                                                                                        \
      /* tokens [T, N] -> logits [T, N, vocab] */                                              \
      Tensor forward(const Tensor& tokens) {                                                   \
        Tensor x = wte->forward(tokens) + wpe->forward(positions);                             \
        for (auto& b : blocks) x = b->forward(x, mask);                                        \
        return head->forward(ln_f->forward(x));                                                \
      }                                                                                        \
      lib::nn::Embedding wte, wpe;                                                             \
      std::vector<lib::nn::TransformerEncoderLayer> blocks;                                    \
      lib::nn::LayerNorm ln_f;                                                                 \
      lib::nn::Linear head;                                                                    \
      Tensor mask, positions;                                                                  \
    };                                                                                         \
    struct Step {                                                                              \
      explicit Step(const ::ember::bench::GptConfig& c)                                       \
          : model((lib::manual_seed(0), std::make_shared<Model>(c))),                         \
            opt(model->parameters(), lib::optim::AdamWOptions(1e-3)),                          \
            tokens(lib::randint(c.vocab, {c.context, c.batch})),                               \
            targets(lib::randint(c.vocab, {c.context * c.batch})) {}                           \
      Tensor step() {                                                                          \
        opt.zero_grad();                                                                       \
        Tensor logits = model->forward(tokens);                                                \
        Tensor loss = lib::nn::functional::cross_entropy(                                      \
            logits.view({-1, logits.size(2)}), targets);                                       \
        loss.backward();                                                                       \
        opt.step();                                                                            \
        return loss;                                                                           \
      }                                                                                        \
      std::shared_ptr<Model> model;                                                            \
      lib::optim::AdamW opt;                                                                   \
      Tensor tokens, targets;                                                                  \
    };                                                                                         \
    static void set_threads(int n) { lib::set_num_threads(n); }                                \
  }

template <typename B>
void BM_GptStep(benchmark::State& state) {
  const GptConfig config;
  run_training_steps<B>(
      state, [&] { return typename B::Step(config); }, "tokens/s",
      static_cast<double>(config.context * config.batch));
}

template <typename B>
void register_gpt_step_cases(const std::string& prefix) {
  register_training_step(prefix + "gpt_step", BM_GptStep<B>);
}

}  // namespace ember::bench

#endif  // EMBER_BENCHMARKS_GPT_STEP_CASES_H_
