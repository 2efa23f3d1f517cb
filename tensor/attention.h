#ifndef EMBER_TENSOR_ATTENTION_H_
#define EMBER_TENSOR_ATTENTION_H_

// Note [Fused attention]: scaled-dot-product attention without the [L, S]
// score matrix (FlashAttention's blocked online softmax, as PyTorch 2.x's
// _scaled_dot_product_flash_attention_for_cpu). Queries are taken in blocks;
// each block walks the keys in blocks, keeping per row the running maximum
// and sum of exp, and rescales its partial output when the maximum grows.
// Memory beyond q/k/v and the output is one block of scores per thread and
// one logsumexp per query row, so it grows linearly with sequence length.
// The backward recomputes each block's probabilities from the logsumexp.
// nn::functional::scaled_dot_product_attention calls it where it applies
// (CPU, float/double, no dropout) and its math path elsewhere.
//
// q [B, H, L, E], k [B, H, S, E], v [B, H, S, Ev] (any batch/head strides,
// stride 0 included: broadcast inputs need no copy); attn_mask undefined or
// a float tensor expanded to [B, H, L, S], added to the scores; is_causal
// masks key j > query i. Returns (out [B, H, L, Ev], logsumexp [B, H, L]);
// a row with every key masked gives zeros and logsumexp -inf.
// Recorded as "_scaled_dot_product_flash_attention" (derivative in
// autograd/derivatives/attention.cc); the mask gets no gradient.

#include <tuple>

#include "tensor/tensor.h"

namespace ember {

std::tuple<Tensor, Tensor> _scaled_dot_product_flash_attention(const Tensor& query,
                                                               const Tensor& key,
                                                               const Tensor& value,
                                                               const Tensor& attn_mask,
                                                               bool is_causal, double scale);

// (grad_query, grad_key, grad_value), each of its input's [B, H, *, *]
// shape (contiguous; the caller's expand sums broadcast dims back).
std::tuple<Tensor, Tensor, Tensor> _scaled_dot_product_flash_attention_backward(
    const Tensor& grad_out, const Tensor& query, const Tensor& key, const Tensor& value,
    const Tensor& out, const Tensor& logsumexp, const Tensor& attn_mask, bool is_causal,
    double scale);

}  // namespace ember

#endif  // EMBER_TENSOR_ATTENTION_H_
