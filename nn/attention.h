#ifndef EMBER_NN_ATTENTION_H_
#define EMBER_NN_ATTENTION_H_

// nn::MultiheadAttention (torch.nn.MultiheadAttention).
//
//   nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(64, 8).batch_first(true));
//   auto [out, weights] = mha(x, x, x);   // self-attention, x [N, L, 64]

#include <cstdint>
#include <tuple>

#include "nn/functional/options.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  EMBER_ARG(int64_t, embed_dim);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(double, dropout) = 0.0;  // on the attention weights, in training
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, add_bias_kv) = false;  // learned bias_k/bias_v appended to the keys
  EMBER_ARG(bool, add_zero_attn) = false;  // a zero key/value appended
  EMBER_ARG(int64_t, kdim);  // key width (default embed_dim)
  EMBER_ARG(int64_t, vdim);  // value width (default embed_dim)
  EMBER_ARG(bool, batch_first) = false;  // [N, L, E] instead of [L, N, E]
};

// The out projection's class, as PyTorch names it (it prints and pickles
// under this name; it is a Linear).
class NonDynamicallyQuantizableLinearImpl : public LinearImpl {
 public:
  using LinearImpl::LinearImpl;
};

// PyTorch's parameters and their names: in_proj_weight [3E, E] (or
// q_proj_weight, k_proj_weight [E, kdim], v_proj_weight [E, vdim] when
// kdim or vdim differ from E), in_proj_bias [3E], bias_k/bias_v [1, 1, E],
// out_proj.weight/bias; initialized as PyTorch does under manual_seed
// (out_proj as a Linear, then xavier_uniform_ on the input projections,
// zero biases, xavier_normal_ on bias_k/bias_v).
class MultiheadAttentionImpl : public Module {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);

  // query [L, N, E] (or [N, L, E] with batch_first; [L, E] unbatched), key
  // [S, N, kdim], value [S, N, vdim]. key_padding_mask [N, S]: true (or a
  // float added) for keys to ignore. attn_mask [L, S] or [N * heads, L, S]:
  // true = may not attend, or float added. Returns (output like query,
  // weights [N, L, S] averaged over heads or [N, heads, L, S]; undefined
  // unless need_weights).
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {},
                                     bool need_weights = true, const Tensor& attn_mask = {},
                                     bool average_attn_weights = true);
  void reset_parameters();

  MultiheadAttentionOptions options;
  Tensor in_proj_weight, in_proj_bias, q_proj_weight, k_proj_weight, v_proj_weight;
  Tensor bias_k, bias_v;
  std::shared_ptr<NonDynamicallyQuantizableLinearImpl> out_proj;
  int64_t head_dim;

 private:
  bool qkv_same_embed_dim_;
};
EMBER_MODULE(MultiheadAttention);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_ATTENTION_H_
