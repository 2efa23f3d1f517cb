#include "nn/attention.h"

#include "nn/functional/attention.h"
#include "nn/init.h"
#include "tensor/empty.h"
#include "tensor/error.h"

namespace ember {
namespace nn {

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options)
    : options(options) {
  const int64_t E = options.embed_dim();
  EMBER_CHECK(E > 0 && options.num_heads() > 0,
              "embed_dim and num_heads must be greater than 0, got embed_dim=", E,
              " and num_heads=", options.num_heads(), " instead");
  head_dim = E / options.num_heads();
  EMBER_CHECK(head_dim * options.num_heads() == E, "embed_dim must be divisible by num_heads");
  qkv_same_embed_dim_ = options.kdim() == E && options.vdim() == E;
  // Registration order is PyTorch's, so named_parameters() and
  // state_dict() list the same names in the same order.
  if (qkv_same_embed_dim_) {
    in_proj_weight = register_parameter("in_proj_weight", empty({3 * E, E}));
  } else {
    q_proj_weight = register_parameter("q_proj_weight", empty({E, E}));
    k_proj_weight = register_parameter("k_proj_weight", empty({E, options.kdim()}));
    v_proj_weight = register_parameter("v_proj_weight", empty({E, options.vdim()}));
  }
  if (options.bias()) in_proj_bias = register_parameter("in_proj_bias", empty({3 * E}));
  // Built (and so initialized, drawing random numbers) before the
  // projections are, as in PyTorch.
  out_proj = register_module("out_proj", std::make_shared<NonDynamicallyQuantizableLinearImpl>(
                                             LinearOptions(E, E).bias(options.bias())));
  if (options.add_bias_kv()) {
    bias_k = register_parameter("bias_k", empty({1, 1, E}));
    bias_v = register_parameter("bias_v", empty({1, 1, E}));
  }
  reset_parameters();
}

void MultiheadAttentionImpl::reset_parameters() {
  if (qkv_same_embed_dim_) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::constant_(in_proj_bias, 0);
    init::constant_(out_proj->bias, 0);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(const Tensor& query, const Tensor& key,
                                                           const Tensor& value,
                                                           const Tensor& key_padding_mask,
                                                           bool need_weights,
                                                           const Tensor& attn_mask,
                                                           bool average_attn_weights) {
  const bool batched = query.dim() == 3;
  Tensor q = query, k = key, v = value;
  if (options.batch_first() && batched) {
    // Keep "the same tensor" visible to the packed projection's fast path.
    q = query.transpose(1, 0);
    k = key.is_same(query) ? q : key.transpose(1, 0);
    v = value.is_same(key) ? k : value.transpose(1, 0);
  }
  functional::MultiheadAttentionForwardFuncOptions o(
      options.embed_dim(), options.num_heads(), in_proj_weight, in_proj_bias, bias_k, bias_v,
      options.add_zero_attn(), options.dropout(), out_proj->weight, out_proj->bias);
  o.training(is_training())
      .key_padding_mask(key_padding_mask)
      .need_weights(need_weights)
      .attn_mask(attn_mask)
      .average_attn_weights(average_attn_weights);
  if (!qkv_same_embed_dim_) {
    o.use_separate_proj_weight(true)
        .q_proj_weight(q_proj_weight)
        .k_proj_weight(k_proj_weight)
        .v_proj_weight(v_proj_weight);
  }
  auto [out, weights] = functional::multi_head_attention_forward(q, k, v, o);
  if (options.batch_first() && batched) out = out.transpose(1, 0);
  return {out, weights};
}

}  // namespace nn
}  // namespace ember
