// models::GPT2 against tools/golden/gpt2.py, Hugging Face's GPT-2 rewritten
// in plain PyTorch: a tiny config's safetensors files as save_pretrained and
// the hub lay them out, its logits, one training step, greedy generation
// past the context, the state_dict's names, HF's init and errors.

#include "models/gpt2.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "autograd/grad_mode.h"
#include "models/testing.h"
#include "nn/test_golden.h"
#include "serialize/checkpoint.h"
#include "tensor/creation.h"
#include "tensor/cuda/cuda.h"
#include "tensor/random.h"
#include "tensor/shape.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace models {
namespace {

using ::ember::testing::GoldenEntry;
using ::ember::testing::golden_tensor;
using ::ember::testing::near_golden;

const GoldenEntry kGolden[] = {
#include "models/testdata/gpt2_golden.inc"
};
const ::ember::testing::GoldenError kErrors[] = {
#include "models/testdata/gpt2_errors_golden.inc"
};
const nn::testing::GoldenString kStrings[] = {
#include "models/testdata/gpt2_strings_golden.inc"
};
constexpr nn::testing::GoldenTables kTables(kGolden, kErrors, kStrings);

const GoldenEntry& golden(const std::string& name) { return kTables.golden(name); }

// TINY in tools/golden/gpt2.py.
GPT2Config tiny_config() {
  return GPT2Config()
      .vocab_size(64)
      .n_positions(16)
      .n_embd(32)
      .n_layer(2)
      .n_head(4)
      .resid_pdrop(0)
      .embd_pdrop(0)
      .attn_pdrop(0)
      .initializer_range(0.25);
}

// As a user reads a checkpoint (serialize/checkpoint.h).
NamedTensors load_file(const std::string& name) { return load("models/testdata/" + name); }

// The tiny model with the script's weights, from save_pretrained's file.
GPT2 load_tiny() {
  GPT2 gpt(tiny_config());
  nn::IncompatibleKeys keys = gpt->load_hf_state_dict(load_file("gpt2_tiny.safetensors"));
  EXPECT_TRUE(keys.empty()) << keys;
  return gpt;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  return (a.to(kDouble) - b.to(kDouble)).abs().max().item<double>();
}

TEST(GPT2Test, StateDictNamesAndShapesAreHuggingFaces) {
  EXPECT_EQ(testing::state_dict_shapes(*GPT2(tiny_config())),
            kTables.golden_string("names.tiny"));
}

TEST(GPT2Test, SavePretrainedFileLoadsStrictlyAndGivesHuggingFacesLogits) {
  GPT2 gpt = load_tiny();
  gpt->eval();
  NoGradGuard no_grad;
  const Tensor logits = gpt(golden_tensor(golden("input_ids")));
  const GoldenEntry& want = golden("logits");
  EXPECT_EQ(std::vector<int64_t>(logits.sizes().begin(), logits.sizes().end()), want.sizes);
  EXPECT_LT(max_abs_diff(logits, golden_tensor(want)), 1e-4);
}

// PyTorch's own strict load_state_dict refuses save_pretrained's file too:
// the tied lm_head.weight is not in it. load_hf_state_dict is
// from_pretrained's reading.
TEST(GPT2Test, PlainStrictLoadMissesTheTiedHead) {
  GPT2 gpt(tiny_config());
  EXPECT_THROW(gpt->load_state_dict(load_file("gpt2_tiny.safetensors")), Error);
  nn::IncompatibleKeys keys =
      gpt->load_state_dict(load_file("gpt2_tiny.safetensors"), /*strict=*/false);
  EXPECT_EQ(keys.missing_keys, std::vector<std::string>{"lm_head.weight"});
  EXPECT_TRUE(keys.unexpected_keys.empty());
}

TEST(GPT2Test, HubLayoutLoadsTheSameWeights) {
  GPT2 gpt(tiny_config());
  nn::IncompatibleKeys keys = gpt->load_hf_state_dict(load_file("gpt2_tiny_base.safetensors"));
  EXPECT_TRUE(keys.empty()) << keys;
  NamedTensors want = load_tiny()->state_dict();
  NamedTensors got = gpt->state_dict();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].first, want[i].first);
    EXPECT_TRUE(got[i].second.equal(want[i].second)) << got[i].first;
  }
}

TEST(GPT2Test, UnknownKeysAreStillErrors) {
  GPT2 gpt(tiny_config());
  NamedTensors sd = load_file("gpt2_tiny.safetensors");
  sd.emplace_back("transformer.h.0.attn.c_attn.extra", zeros({1}));
  EXPECT_THROW(gpt->load_hf_state_dict(sd), Error);
}

TEST(GPT2Test, TrainingStepMatchesHuggingFace) {
  GPT2 gpt = load_tiny();
  gpt->train();
  const Tensor ids = golden_tensor(golden("input_ids"));
  const Tensor loss = gpt->loss(gpt(ids), ids);
  loss.backward();
  EXPECT_TRUE(near_golden(loss, golden("train_loss"), kFloat, 1e-5));
  // wte's gradient sums the embedding's part and the tied head's.
  EXPECT_TRUE(near_golden(gpt->transformer->wte->weight.grad().slice(0, 0, 8),
                          golden("wte.grad_head"), kFloat, 1e-4));
  testing::expect_gradient_summaries(*gpt, kTables, "", 1e-4);
}

// Logits, a training step and greedy generation on a GPU (TF32 is off by
// default for float32 products, as in PyTorch).
TEST(GPT2CudaTest, MatchesHuggingFaceOnTheDevice) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  GPT2 gpt = load_tiny();
  gpt->to(Device(kCUDA));
  const Tensor ids = golden_tensor(golden("input_ids")).to(Device(kCUDA));
  gpt->eval();
  {
    NoGradGuard no_grad;
    EXPECT_LT(max_abs_diff(gpt(ids).cpu(), golden_tensor(golden("logits"))), 1e-4);
  }
  const Tensor generated =
      gpt->generate(ids.narrow(0, 0, 1).narrow(1, 0, 4), GenerateOptions().max_new_tokens(16));
  EXPECT_TRUE(generated.is_cuda());
  EXPECT_TRUE(::ember::testing::matches_golden(generated.cpu(), golden("greedy")));

  gpt->train();
  const Tensor loss = gpt->loss(gpt(ids), ids);
  loss.backward();
  EXPECT_TRUE(near_golden(loss.cpu(), golden("train_loss"), kFloat, 1e-5));
  testing::expect_gradient_summaries(*gpt, kTables, "", 1e-4);
}

TEST(GPT2Test, HeadIsTiedToTheEmbedding) {
  GPT2 gpt = load_tiny();
  Tensor& wte = gpt->transformer->wte->weight;
  EXPECT_TRUE(gpt->lm_head->weight.is_same(wte));
  // Both names in state_dict (as HF's), one parameter.
  const NamedTensors sd = gpt->state_dict();
  EXPECT_TRUE(sd.contains("lm_head.weight") && sd.contains("transformer.wte.weight"));
  EXPECT_FALSE(gpt->named_parameters().contains("lm_head.weight"));
  EXPECT_EQ(gpt->parameters().size(), sd.size() - 1);

  // Zeroing token 5's embedding zeroes its logit everywhere.
  gpt->eval();
  NoGradGuard no_grad;
  wte[5].zero_();
  const Tensor logits = gpt(golden_tensor(golden("input_ids")));
  EXPECT_EQ(logits.select(-1, 5).abs().max().item<double>(), 0.0);

  gpt->to(kDouble);  // Note [Module::to keeps identity]: still one tensor
  EXPECT_TRUE(gpt->lm_head->weight.is_same(gpt->transformer->wte->weight));
  EXPECT_EQ(gpt->lm_head->weight.scalar_type(), kDouble);
}

TEST(GPT2Test, CachedForwardIsTheFullForward) {
  GPT2 gpt = load_tiny();
  gpt->eval();
  NoGradGuard no_grad;
  const Tensor ids = golden_tensor(golden("input_ids"));
  const Tensor full = gpt(ids);
  GPT2Cache cache;
  const Tensor first = gpt->forward(ids.narrow(1, 0, 5), &cache);  // a prompt, then...
  const Tensor second = gpt->forward(ids.narrow(1, 5, 3), &cache);  // ...several tokens...
  EXPECT_EQ(cache.length(), 8);
  std::vector<Tensor> parts = {first, second};
  for (int64_t t = 8; t < ids.size(1); ++t) {  // ...and one at a time
    parts.push_back(gpt->forward(ids.narrow(1, t, 1), &cache));
  }
  EXPECT_LT(max_abs_diff(cat(parts, 1), full), 1e-5);
}

TEST(GPT2Test, GreedyGenerationPastTheContextIsHuggingFaces) {
  GPT2 gpt = load_tiny();
  gpt->eval();
  const Tensor prompt = golden_tensor(golden("input_ids")).narrow(0, 0, 1).narrow(1, 0, 4);
  const Tensor ids = gpt->generate(prompt, GenerateOptions().max_new_tokens(16));
  EXPECT_TRUE(::ember::testing::matches_golden(ids, golden("greedy")));
}

TEST(GPT2Test, SamplingIsSeededAndRespectsTopK) {
  GPT2 gpt = load_tiny();
  gpt->eval();
  const Tensor prompt = golden_tensor(golden("input_ids")).narrow(1, 0, 3);  // two rows
  const auto sample = [&](int64_t top_k) {
    manual_seed(7);
    return gpt->generate(
        prompt, GenerateOptions().max_new_tokens(20).do_sample(true).temperature(1.5).top_k(top_k));
  };
  const Tensor a = sample(0);
  EXPECT_EQ(a.sizes(), (std::vector<int64_t>{2, 23}));
  EXPECT_TRUE(a.equal(sample(0)));
  EXPECT_GE(a.min().item<int64_t>(), 0);
  EXPECT_LT(a.max().item<int64_t>(), 64);
  // top_k = 1 leaves only the argmax.
  const Tensor greedy = gpt->generate(prompt, GenerateOptions().max_new_tokens(20));
  EXPECT_TRUE(sample(1).equal(greedy));
  EXPECT_FALSE(a.equal(greedy));
}

// HF's init: N(0, initializer_range) weights, residual projections scaled
// by 1/sqrt(2 n_layer), zero biases, unit LayerNorms; the default config
// is GPT-2 small's 124,439,808 parameters.
TEST(GPT2Test, InitializationIsHuggingFaces) {
  manual_seed(0);
  GPT2 gpt(GPT2Config().vocab_size(1000).n_positions(256).n_embd(128).n_layer(4).n_head(4));
  const auto std_of = [](const Tensor& t) { return t.to(kDouble).std().item<double>(); };
  for (const auto& [name, p] : gpt->named_parameters()) {
    if (absl::EndsWith(name, "c_proj.weight")) {
      EXPECT_NEAR(std_of(p), 0.02 / std::sqrt(8.0), 0.05 * 0.02 / std::sqrt(8.0)) << name;
    } else if (p.dim() == 2) {
      EXPECT_NEAR(std_of(p), 0.02, 0.05 * 0.02) << name;
    } else if (absl::EndsWith(name, "ln_1.weight") || absl::EndsWith(name, "ln_2.weight") ||
               absl::EndsWith(name, "ln_f.weight")) {
      EXPECT_TRUE(p.equal(ones_like(p))) << name;
    } else {
      EXPECT_TRUE(p.equal(zeros_like(p))) << name;
    }
  }
  int64_t count = 0;
  for (const Tensor& p : GPT2()->parameters()) count += p.numel();
  EXPECT_EQ(count, 124439808);
}

TEST(GPT2Test, ErrorsAreHuggingFaces) {
  kTables.expect_golden_error("heads_divide", [] {
    GPT2(GPT2Config().n_embd(30).n_head(4).n_layer(1).vocab_size(8));
  });
  GPT2 gpt(tiny_config());
  ::ember::testing::expect_error<ValueError>(
      [&] { gpt(zeros({1, 17}, kLong)); },
      "GPT2: 17 tokens after 0 cached ones exceed the context of n_positions=16");
}

}  // namespace
}  // namespace models
}  // namespace ember
