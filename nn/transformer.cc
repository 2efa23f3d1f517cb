#include "nn/transformer.h"

#include <limits>
#include <utility>

#include "nn/functional/activation.h"
#include "nn/init.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/shape.h"

namespace ember {
namespace nn {

TransformerActivation::TransformerActivation(const char* name) { set_by_name(name); }
TransformerActivation::TransformerActivation(const std::string& name) { set_by_name(name); }
TransformerActivation::TransformerActivation(RNNNonlinearity relu) {
  EMBER_CHECK(relu == kReLU, "activation should be relu/gelu, not tanh");
  set_by_name("relu");
}
TransformerActivation::TransformerActivation(GELUActivation) { set_by_name("gelu"); }
TransformerActivation::TransformerActivation(std::function<Tensor(const Tensor&)> fn)
    : fn_(std::move(fn)) {
  EMBER_CHECK(static_cast<bool>(fn_), "activation should be relu/gelu or a callable");
}

void TransformerActivation::set_by_name(const std::string& name) {
  if (name == "relu") {
    fn_ = [](const Tensor& x) { return functional::relu(x); };
  } else if (name == "gelu") {
    fn_ = [](const Tensor& x) { return functional::gelu(x); };
  } else {
    EMBER_CHECK(false, "activation should be relu/gelu, not ", name);
  }
  name_ = name;
}

namespace {

// The options both layer kinds share, for the blocks they share.
template <typename Options>
MultiheadAttention make_attention(const Options& o) {
  return MultiheadAttention(MultiheadAttentionOptions(o.d_model(), o.nhead())
                                .dropout(o.dropout())
                                .batch_first(o.batch_first()));
}

// A copy of `layer` built without drawing random numbers and then given
// the layer's values (Python's copy.deepcopy of a layer).
template <typename Impl>
std::shared_ptr<Impl> copy_layer(const Impl& layer) {
  std::shared_ptr<Impl> copy;
  {
    init::NoInitGuard no_init;
    copy = std::make_shared<Impl>(layer.options);
  }
  copy->load_state_dict(layer.state_dict());
  copy->train(layer.is_training());
  return copy;
}

Tensor ff_block(const Tensor& x, const TransformerActivation& activation, Linear& linear1,
                Dropout& dropout, Linear& linear2, Dropout& out_dropout) {
  return out_dropout(linear2(dropout(activation(linear1(x)))));
}

Tensor attention_block(MultiheadAttention& attn, Dropout& out_dropout, const Tensor& x,
                       const Tensor& mem, const Tensor& mask, const Tensor& key_padding_mask) {
  return out_dropout(std::get<0>(attn(x, mem, mem, key_padding_mask, /*need_weights=*/false,
                                      mask)));
}

}  // namespace

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(
    const TransformerEncoderLayerOptions& options)
    : options(options) {
  // Construction order is PyTorch's: it fixes the random draws of each
  // parameter under manual_seed.
  self_attn = register_module("self_attn", make_attention(options));
  linear1 = register_module("linear1", Linear(options.d_model(), options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), options.d_model()));
  norm1 = register_module(
      "norm1", LayerNorm(LayerNormOptions({options.d_model()}).eps(options.layer_norm_eps())));
  norm2 = register_module(
      "norm2", LayerNorm(LayerNormOptions({options.d_model()}).eps(options.layer_norm_eps())));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) {
  Tensor x = src;
  const TransformerActivation& act = options.activation();
  if (options.norm_first()) {
    Tensor h = norm1(x);
    x = x + attention_block(self_attn, dropout1, h, h, src_mask, src_key_padding_mask);
    x = x + ff_block(norm2(x), act, linear1, dropout, linear2, dropout2);
  } else {
    x = norm1(x + attention_block(self_attn, dropout1, x, x, src_mask, src_key_padding_mask));
    x = norm2(x + ff_block(x, act, linear1, dropout, linear2, dropout2));
  }
  return x;
}

std::shared_ptr<TransformerEncoderLayerImpl> TransformerEncoderLayerImpl::deep_copy() const {
  return copy_layer(*this);
}

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(
    const TransformerDecoderLayerOptions& options)
    : options(options) {
  self_attn = register_module("self_attn", make_attention(options));
  multihead_attn = register_module("multihead_attn", make_attention(options));
  linear1 = register_module("linear1", Linear(options.d_model(), options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), options.d_model()));
  const LayerNormOptions norm_options =
      LayerNormOptions({options.d_model()}).eps(options.layer_norm_eps());
  norm1 = register_module("norm1", LayerNorm(norm_options));
  norm2 = register_module("norm2", LayerNorm(norm_options));
  norm3 = register_module("norm3", LayerNorm(norm_options));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
  dropout3 = register_module("dropout3", Dropout(options.dropout()));
}

Tensor TransformerDecoderLayerImpl::forward(const Tensor& tgt, const Tensor& memory,
                                            const Tensor& tgt_mask, const Tensor& memory_mask,
                                            const Tensor& tgt_key_padding_mask,
                                            const Tensor& memory_key_padding_mask) {
  Tensor x = tgt;
  const TransformerActivation& act = options.activation();
  if (options.norm_first()) {
    Tensor h = norm1(x);
    x = x + attention_block(self_attn, dropout1, h, h, tgt_mask, tgt_key_padding_mask);
    x = x + attention_block(multihead_attn, dropout2, norm2(x), memory, memory_mask,
                            memory_key_padding_mask);
    x = x + ff_block(norm3(x), act, linear1, dropout, linear2, dropout3);
  } else {
    x = norm1(x + attention_block(self_attn, dropout1, x, x, tgt_mask, tgt_key_padding_mask));
    x = norm2(x + attention_block(multihead_attn, dropout2, x, memory, memory_mask,
                                  memory_key_padding_mask));
    x = norm3(x + ff_block(x, act, linear1, dropout, linear2, dropout3));
  }
  return x;
}

std::shared_ptr<TransformerDecoderLayerImpl> TransformerDecoderLayerImpl::deep_copy() const {
  return copy_layer(*this);
}

namespace {

// A stack's children: `layers` (num_layers deep copies of `layer`, as
// PyTorch's _get_clones) and `norm` when given.
template <typename Layer>
void build_stack(Module& stack, const Layer& layer, int64_t num_layers, const LayerNorm& norm_in,
                 ModuleList& layers, LayerNorm& norm, const char* what) {
  EMBER_CHECK(!layer.is_empty(), what, " needs a layer to copy");
  layers = stack.register_module("layers", ModuleList());
  for (int64_t i = 0; i < num_layers; ++i) layers->push_back(layer->deep_copy());
  if (!norm_in.is_empty()) norm = stack.register_module("norm", norm_in);
}

}  // namespace

TransformerEncoderImpl::TransformerEncoderImpl(const TransformerEncoderOptions& options)
    : options(options) {
  build_stack(*this, options.encoder_layer(), options.num_layers(), options.norm(), layers, norm,
              "TransformerEncoder");
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& mask,
                                       const Tensor& src_key_padding_mask) {
  Tensor x = src;
  for (const auto& layer : *layers) {
    x = layer->as<TransformerEncoderLayer>()->forward(x, mask, src_key_padding_mask);
  }
  return norm.is_empty() ? x : norm(x);
}

TransformerDecoderImpl::TransformerDecoderImpl(const TransformerDecoderOptions& options)
    : options(options) {
  build_stack(*this, options.decoder_layer(), options.num_layers(), options.norm(), layers, norm,
              "TransformerDecoder");
}

Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory,
                                       const Tensor& tgt_mask, const Tensor& memory_mask,
                                       const Tensor& tgt_key_padding_mask,
                                       const Tensor& memory_key_padding_mask) {
  Tensor x = tgt;
  for (const auto& layer : *layers) {
    x = layer->as<TransformerDecoderLayer>()->forward(x, memory, tgt_mask, memory_mask,
                                                      tgt_key_padding_mask,
                                                      memory_key_padding_mask);
  }
  return norm.is_empty() ? x : norm(x);
}

TransformerImpl::TransformerImpl(const TransformerOptions& o) : options(o) {
  const LayerNormOptions norm_options = LayerNormOptions({o.d_model()}).eps(o.layer_norm_eps());
  const TransformerLayerOptions layer_options = TransformerLayerOptions(o.d_model(), o.nhead())
                                                    .dim_feedforward(o.dim_feedforward())
                                                    .dropout(o.dropout())
                                                    .activation(o.activation())
                                                    .layer_norm_eps(o.layer_norm_eps())
                                                    .batch_first(o.batch_first())
                                                    .norm_first(o.norm_first());
  // Built in PyTorch's order (encoder layer, its norm, decoder layer, its
  // norm): the random draws of each follow.
  TransformerEncoderLayer encoder_layer(layer_options);
  encoder = register_module(
      "encoder", TransformerEncoder(TransformerEncoderOptions(encoder_layer, o.num_encoder_layers())
                                        .norm(LayerNorm(norm_options))));
  TransformerDecoderLayer decoder_layer(layer_options);
  decoder = register_module(
      "decoder", TransformerDecoder(TransformerDecoderOptions(decoder_layer, o.num_decoder_layers())
                                        .norm(LayerNorm(norm_options))));
  for (Tensor& p : parameters()) {
    if (p.dim() > 1) init::xavier_uniform_(p);
  }
}

Tensor TransformerImpl::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask,
                                const Tensor& tgt_mask, const Tensor& memory_mask,
                                const Tensor& src_key_padding_mask,
                                const Tensor& tgt_key_padding_mask,
                                const Tensor& memory_key_padding_mask) {
  if (src.dim() == 3) {
    const int64_t batch_dim = options.batch_first() ? 0 : 1;
    EMBER_CHECK(tgt.dim() == 3 && src.size(batch_dim) == tgt.size(batch_dim),
                "the batch number of src and tgt must be equal");
  }
  EMBER_CHECK(src.size(-1) == options.d_model() && tgt.size(-1) == options.d_model(),
              "the feature number of src and tgt must be equal to d_model");
  Tensor memory = encoder(src, src_mask, src_key_padding_mask);
  return decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                 memory_key_padding_mask);
}

Tensor TransformerImpl::generate_square_subsequent_mask(int64_t sz, const TensorOptions& options) {
  return triu(full({sz, sz}, -std::numeric_limits<double>::infinity(), options), 1);
}

}  // namespace nn
}  // namespace ember
