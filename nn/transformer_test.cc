// The Transformer layers against PyTorch 1.13 (tools/golden/attention.py):
// initialization under manual_seed (the stacks' copies of their layer and
// Transformer's xavier re-draw included), names, printed forms, outputs and
// gradients with masks, both activations, pre- and post-norm, batch first.

#include "nn/transformer.h"

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "nn/test_golden_attention.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace nn {
namespace {

namespace ga = ::ember::nn::testing::attention;

// PyTorch's padding masks of the generator: true = ignore that key.
Tensor src_padding() {
  return ::ember::testing::from_values({2, 5}, {0, 0, 0, 1, 1, 0, 0, 0, 0, 0}, kBool);
}
Tensor tgt_padding() {
  return ::ember::testing::from_values({2, 4}, {0, 0, 1, 1, 0, 0, 0, 0}, kBool);
}
Tensor causal(int64_t n) { return TransformerImpl::generate_square_subsequent_mask(n); }

TEST(TransformerTest, SquareSubsequentMask) {
  EXPECT_TRUE(::ember::testing::matches_golden(causal(5), ga::golden("square_subsequent_mask")));
}

TEST(TransformerTest, EncoderLayers) {
  for (const char* act : {"relu", "gelu"}) {
    for (bool norm_first : {false, true}) {
      for (bool batch_first : {false, true}) {
        const std::string prefix = std::string("tf.enc_layer.") + act +
                                   (norm_first ? ".norm_first" : "") +
                                   (batch_first ? ".batch_first" : "");
        manual_seed(0);
        TransformerEncoderLayer layer(TransformerEncoderLayerOptions(8, 2)
                                          .dim_feedforward(16)
                                          .dropout(0.0)
                                          .activation(act)
                                          .norm_first(norm_first)
                                          .batch_first(batch_first));
        ga::expect_init(prefix, *layer);
        auto in = ga::inputs(prefix);
        Tensor out = layer(in["src"], causal(5), src_padding());
        ga::expect_forward_backward(prefix, *layer, in, out);
      }
    }
  }
}

TEST(TransformerTest, DecoderLayers) {
  for (bool norm_first : {false, true}) {
    const std::string prefix = std::string("tf.dec_layer") + (norm_first ? ".norm_first" : "");
    manual_seed(0);
    TransformerDecoderLayer layer(TransformerDecoderLayerOptions(8, 2)
                                      .dim_feedforward(16)
                                      .dropout(0.0)
                                      .activation(kGELU)
                                      .norm_first(norm_first));
    ga::expect_init(prefix, *layer);
    auto in = ga::inputs(prefix);
    Tensor out = layer(in["tgt"], in["memory"], causal(4), Tensor(), tgt_padding(), src_padding());
    ga::expect_forward_backward(prefix, *layer, in, out);
  }
}

// The stack holds copies of its layer (the same initial values in every
// copy, drawn once) and ends in its norm.
TEST(TransformerTest, EncoderStack) {
  manual_seed(0);
  TransformerEncoder encoder(
      TransformerEncoderOptions(
          TransformerEncoderLayer(
              TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0)),
          2)
          .norm(LayerNorm(LayerNormOptions({8}))));
  ga::expect_init("tf.encoder", *encoder);
  auto in = ga::inputs("tf.encoder");
  Tensor out = encoder(in["src"], causal(5), src_padding());
  ga::expect_forward_backward("tf.encoder", *encoder, in, out);
}

TEST(TransformerTest, DecoderStackBatchFirst) {
  manual_seed(0);
  TransformerDecoder decoder(TransformerDecoderOptions(
      TransformerDecoderLayer(
          TransformerDecoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0).batch_first(true)),
      2));
  ga::expect_init("tf.decoder", *decoder);
  auto in = ga::inputs("tf.decoder");
  Tensor out = decoder(in["tgt"], in["memory"], Tensor(), Tensor(), Tensor(), src_padding());
  ga::expect_forward_backward("tf.decoder", *decoder, in, out);
}

TEST(TransformerTest, Transformer) {
  manual_seed(0);
  Transformer model(TransformerOptions(8, 2, 2, 2).dim_feedforward(16).dropout(0.0));
  ga::expect_init("tf.transformer", *model);
  auto in = ga::inputs("tf.transformer");
  Tensor out = model(in["src"], in["tgt"], Tensor(), causal(4), Tensor(), src_padding(), Tensor(),
                     src_padding());
  ga::expect_forward_backward("tf.transformer", *model, in, out);
}

// A copy shares no storage with its original and draws no random numbers.
TEST(TransformerTest, LayerCopiesAreIndependentAndDrawNothing) {
  TransformerEncoderLayer layer(TransformerEncoderLayerOptions(8, 2).dim_feedforward(16));
  manual_seed(11);
  auto copy = layer->deep_copy();
  Tensor after_copy = rand({4});
  manual_seed(11);
  EXPECT_TRUE(equal(after_copy, rand({4})));
  EXPECT_TRUE(equal(copy->linear1->weight, layer->linear1->weight));
  {
    NoGradGuard no_grad;
    copy->linear1->weight.add_(1);
  }
  EXPECT_FALSE(equal(copy->linear1->weight, layer->linear1->weight));
}

TEST(TransformerTest, CallableActivation) {
  manual_seed(0);
  TransformerEncoderLayer by_name(
      TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0).activation("gelu"));
  manual_seed(0);
  TransformerEncoderLayer by_fn(TransformerEncoderLayerOptions(8, 2)
                                    .dim_feedforward(16)
                                    .dropout(0.0)
                                    .activation([](const Tensor& x) { return x.relu(); }));
  manual_seed(0);
  TransformerEncoderLayer by_enum(
      TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0).activation(kReLU));
  Tensor x = randn({3, 2, 8});
  EXPECT_TRUE(allclose(by_fn(x), by_enum(x)));
  EXPECT_FALSE(allclose(by_name(x), by_enum(x)));
}

TEST(TransformerTest, Errors) {
  Transformer model(TransformerOptions(8, 2, 1, 1).dim_feedforward(16));
  ga::expect_golden_error("transformer_batch", [&] { model(zeros({5, 2, 8}), zeros({4, 3, 8})); });
  ga::expect_golden_error("transformer_features",
                          [&] { model(zeros({5, 2, 6}), zeros({4, 2, 6})); });
  ga::expect_golden_error("encoder_layer_activation", [] {
    TransformerEncoderLayer(TransformerEncoderLayerOptions(8, 2).activation("tanh"));
  });
}

}  // namespace
}  // namespace nn
}  // namespace ember
