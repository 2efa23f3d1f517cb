#ifndef EMBER_NN_TRANSFORMER_H_
#define EMBER_NN_TRANSFORMER_H_

// torch.nn's Transformer family: TransformerEncoderLayer,
// TransformerEncoder, TransformerDecoderLayer, TransformerDecoder and
// Transformer, with PyTorch 1.13's options, parameter names and
// initialization.
//
//   nn::TransformerEncoder enc(nn::TransformerEncoderOptions(
//       nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(512, 8)
//                                       .batch_first(true).activation("gelu")),
//       6));
//   Tensor y = enc(x, nn::Transformer::Impl::generate_square_subsequent_mask(L));

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

#include "nn/attention.h"
#include "nn/container.h"
#include "nn/dropout.h"
#include "nn/functional/options.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "nn/normalization.h"
#include "nn/rnn_cell.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

// The feed-forward block's activation: relu or gelu, by name ("relu",
// "gelu", as Python), by libtorch's enum (ember::kReLU, ember::kGELU), or
// any callable.
struct GELUActivation {};
}  // namespace nn
inline constexpr nn::GELUActivation kGELU{};
namespace nn {

class TransformerActivation {
 public:
  TransformerActivation(const char* name);         // NOLINT(runtime/explicit)
  TransformerActivation(const std::string& name);  // NOLINT(runtime/explicit)
  TransformerActivation(RNNNonlinearity relu);     // NOLINT(runtime/explicit): kReLU only
  TransformerActivation(GELUActivation);           // NOLINT(runtime/explicit)
  TransformerActivation(std::function<Tensor(const Tensor&)> fn);  // NOLINT(runtime/explicit)
  // Any other callable (a lambda) Tensor(const Tensor&).
  template <typename F,
            typename = std::enable_if_t<
                std::is_invocable_r_v<Tensor, F&, const Tensor&> &&
                !std::is_convertible_v<F, std::string> &&
                !std::is_same_v<std::decay_t<F>, std::function<Tensor(const Tensor&)>> &&
                !std::is_same_v<std::decay_t<F>, TransformerActivation>>>
  TransformerActivation(F fn)  // NOLINT(runtime/explicit)
      : TransformerActivation(std::function<Tensor(const Tensor&)>(std::move(fn))) {}

  Tensor operator()(const Tensor& x) const { return fn_(x); }
  // "relu", "gelu" or "" for a callable.
  const std::string& name() const { return name_; }

 private:
  void set_by_name(const std::string& name);
  std::string name_;
  std::function<Tensor(const Tensor&)> fn_;
};

// The options of both layer kinds (libtorch's TransformerEncoderLayerOptions
// and TransformerDecoderLayerOptions, which hold the same fields).
struct TransformerLayerOptions {
  TransformerLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(TransformerActivation, activation) = "relu";
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(bool, norm_first) = false;  // pre-norm instead of post-norm
};
using TransformerEncoderLayerOptions = TransformerLayerOptions;
using TransformerDecoderLayerOptions = TransformerLayerOptions;

// Self-attention then a feed-forward block, each with dropout, a residual
// and a LayerNorm (after the residual, or before the block with
// norm_first).
class TransformerEncoderLayerImpl : public Module {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options);

  // src [S, N, E] ([N, S, E] with batch_first); src_mask [S, S] or
  // [N * nhead, S, S]; src_key_padding_mask [N, S] (true = ignore).
  Tensor forward(const Tensor& src, const Tensor& src_mask = {},
                 const Tensor& src_key_padding_mask = {});
  // A copy with the same parameter values, drawing no random numbers.
  std::shared_ptr<TransformerEncoderLayerImpl> deep_copy() const;

  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr, norm2 = nullptr;
  Dropout dropout1 = nullptr, dropout2 = nullptr;
};
EMBER_MODULE(TransformerEncoderLayer);

// Self-attention, attention over the encoder's output (memory), then a
// feed-forward block; each with dropout, a residual and a LayerNorm.
class TransformerDecoderLayerImpl : public Module {
 public:
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}
  explicit TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options);

  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  std::shared_ptr<TransformerDecoderLayerImpl> deep_copy() const;

  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn = nullptr, multihead_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr, norm2 = nullptr, norm3 = nullptr;
  Dropout dropout1 = nullptr, dropout2 = nullptr, dropout3 = nullptr;
};
EMBER_MODULE(TransformerDecoderLayer);

struct TransformerEncoderOptions {
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  EMBER_ARG(TransformerEncoderLayer, encoder_layer);
  EMBER_ARG(int64_t, num_layers);
  EMBER_ARG(LayerNorm, norm) = nullptr;  // applied after the last layer when given
};

// num_layers copies of encoder_layer (deep copies: each starts with the
// given layer's values, as PyTorch's _get_clones; the given layer itself is
// not a child), then norm.
class TransformerEncoderImpl : public Module {
 public:
  explicit TransformerEncoderImpl(const TransformerEncoderOptions& options);
  Tensor forward(const Tensor& src, const Tensor& mask = {},
                 const Tensor& src_key_padding_mask = {});

  TransformerEncoderOptions options;
  ModuleList layers = nullptr;
  LayerNorm norm = nullptr;
};
EMBER_MODULE(TransformerEncoder);

struct TransformerDecoderOptions {
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
  EMBER_ARG(TransformerDecoderLayer, decoder_layer);
  EMBER_ARG(int64_t, num_layers);
  EMBER_ARG(LayerNorm, norm) = nullptr;
};

class TransformerDecoderImpl : public Module {
 public:
  explicit TransformerDecoderImpl(const TransformerDecoderOptions& options);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});

  TransformerDecoderOptions options;
  ModuleList layers = nullptr;
  LayerNorm norm = nullptr;
};
EMBER_MODULE(TransformerDecoder);

struct TransformerOptions {
  TransformerOptions() = default;
  TransformerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TransformerOptions(int64_t d_model, int64_t nhead, int64_t num_encoder_layers,
                     int64_t num_decoder_layers)
      : d_model_(d_model),
        nhead_(nhead),
        num_encoder_layers_(num_encoder_layers),
        num_decoder_layers_(num_decoder_layers) {}
  EMBER_ARG(int64_t, d_model) = 512;
  EMBER_ARG(int64_t, nhead) = 8;
  EMBER_ARG(int64_t, num_encoder_layers) = 6;
  EMBER_ARG(int64_t, num_decoder_layers) = 6;
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(TransformerActivation, activation) = "relu";
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(bool, norm_first) = false;
};

// The encoder-decoder of "Attention Is All You Need": encoder and decoder
// stacks each ending in a LayerNorm; every parameter with more than one
// dim re-drawn with xavier_uniform_ (PyTorch's _reset_parameters).
class TransformerImpl : public Module {
 public:
  explicit TransformerImpl(const TransformerOptions& options = {});
  // src [S, N, E], tgt [T, N, E] (batch first with batch_first) -> [T, N, E].
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {},
                 const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& src_key_padding_mask = {},
                 const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  // [sz, sz] float: 0 on and below the diagonal, -inf above (position i
  // may attend to positions <= i).
  static Tensor generate_square_subsequent_mask(int64_t sz, const TensorOptions& options = {});

  TransformerOptions options;
  TransformerEncoder encoder = nullptr;
  TransformerDecoder decoder = nullptr;
};
EMBER_MODULE(Transformer);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_TRANSFORMER_H_
