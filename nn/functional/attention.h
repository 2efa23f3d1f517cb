#ifndef EMBER_NN_FUNCTIONAL_ATTENTION_H_
#define EMBER_NN_FUNCTIONAL_ATTENTION_H_

// scaled_dot_product_attention (PyTorch 2.x's F.scaled_dot_product_attention)
// and multi_head_attention_forward (F.multi_head_attention_forward, what
// nn::MultiheadAttention runs).

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace functional {

// softmax(query @ key^T * scale + mask) @ value over the last two dims:
// query [..., L, E], key [..., S, E], value [..., S, Ev] -> [..., L, Ev];
// leading dims broadcast. scale defaults to 1 / sqrt(E). attn_mask
// broadcasts to [..., L, S]: bool (true = takes part, PyTorch 2.x's
// convention, the opposite of MultiheadAttention's key_padding_mask) or
// float (added to the scores). is_causal masks key j > query i (the
// top-left aligned lower triangle) and excludes attn_mask. dropout_p drops
// attention weights whenever it is positive (there is no training flag,
// as in PyTorch: pass 0 in eval). enable_gqa lets key/value have fewer
// heads (dim -3) than query, each shared by query.size(-3) / key.size(-3)
// query heads.
//
// float16/bfloat16 inputs are computed in float32 and the result cast back;
// a row whose every key is masked yields zeros (PyTorch >= 2.5's
// _safe_softmax), not NaN. Where it applies, the fused kernel of
// SDPBackend::kFlashAttention runs (below); otherwise PyTorch's math path:
// q and k each scaled by sqrt(scale) before the product, the gradient
// flowing through the composite ops.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = {}, double dropout_p = 0.0,
                                    bool is_causal = false,
                                    std::optional<double> scale = std::nullopt,
                                    bool enable_gqa = false);

// Which implementations scaled_dot_product_attention may use (PyTorch's
// torch.nn.attention.SDPBackend / sdpa_kernel). kFlashAttention is Note
// [Fused attention] (tensor/attention.h): CPU, and CUDA with head dims up
// to 64 (by default only where the math path's score matrix would pass
// 2^28 elements: Note [CUDA fused attention by size]), float/double
// (float16/bfloat16 computed in float32), 3-D or 4-D inputs, no dropout, a
// mask that needs no gradient; its memory grows linearly with sequence
// length. kMath is the
// composite path, for everything. By default the fused kernel is used where
// it applies and the math path elsewhere.
enum class SDPBackend { kMath, kFlashAttention };

// Restricts scaled_dot_product_attention to `backends` on this thread while
// alive (torch.nn.attention.sdpa_kernel); when none of them applies to a
// call, it throws "No available kernel. Aborting execution.".
class SDPAKernelGuard {
 public:
  explicit SDPAKernelGuard(std::vector<SDPBackend> backends);
  explicit SDPAKernelGuard(SDPBackend backend) : SDPAKernelGuard(std::vector<SDPBackend>{backend}) {}
  ~SDPAKernelGuard();
  SDPAKernelGuard(const SDPAKernelGuard&) = delete;
  SDPAKernelGuard& operator=(const SDPAKernelGuard&) = delete;

 private:
  unsigned previous_;
};

// F.multi_head_attention_forward's arguments beyond the tensors of the
// call (libtorch's MultiheadAttentionForwardFuncOptions).
struct MultiheadAttentionForwardFuncOptions {
  MultiheadAttentionForwardFuncOptions(int64_t embed_dim_to_check, int64_t num_heads,
                                       Tensor in_proj_weight, Tensor in_proj_bias, Tensor bias_k,
                                       Tensor bias_v, bool add_zero_attn, double dropout_p,
                                       Tensor out_proj_weight, Tensor out_proj_bias)
      : embed_dim_to_check_(embed_dim_to_check),
        num_heads_(num_heads),
        in_proj_weight_(std::move(in_proj_weight)),
        in_proj_bias_(std::move(in_proj_bias)),
        bias_k_(std::move(bias_k)),
        bias_v_(std::move(bias_v)),
        add_zero_attn_(add_zero_attn),
        dropout_p_(dropout_p),
        out_proj_weight_(std::move(out_proj_weight)),
        out_proj_bias_(std::move(out_proj_bias)) {}
  EMBER_ARG(int64_t, embed_dim_to_check);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(Tensor, in_proj_weight);
  EMBER_ARG(Tensor, in_proj_bias);
  EMBER_ARG(Tensor, bias_k);
  EMBER_ARG(Tensor, bias_v);
  EMBER_ARG(bool, add_zero_attn);
  EMBER_ARG(double, dropout_p);
  EMBER_ARG(Tensor, out_proj_weight);
  EMBER_ARG(Tensor, out_proj_bias);
  EMBER_ARG(bool, training) = true;
  // True = this key is ignored (PyTorch's convention here); or float, added.
  EMBER_ARG(Tensor, key_padding_mask) = {};
  EMBER_ARG(bool, need_weights) = true;
  // [L, S] or [N * num_heads, L, S]; bool (true = masked out) or float.
  EMBER_ARG(Tensor, attn_mask) = {};
  // Separate projections, when key/value widths differ from embed_dim.
  EMBER_ARG(bool, use_separate_proj_weight) = false;
  EMBER_ARG(Tensor, q_proj_weight) = {};
  EMBER_ARG(Tensor, k_proj_weight) = {};
  EMBER_ARG(Tensor, v_proj_weight) = {};
  EMBER_ARG(Tensor, static_k) = {};
  EMBER_ARG(Tensor, static_v) = {};
  EMBER_ARG(bool, average_attn_weights) = true;
};

// query [L, N, E] (or unbatched [L, E]), key [S, N, kdim], value
// [S, N, vdim] -> (output [L, N, E], weights [N, L, S] averaged over heads
// or [N, num_heads, L, S]; undefined unless need_weights). Sequence-first,
// as PyTorch's functional form; MultiheadAttention handles batch_first.
// With need_weights the scores are computed explicitly (PyTorch 1.13's
// path: a row whose keys are all masked is NaN, as there; the weights
// returned are those applied, after dropout); without, the heads go
// through scaled_dot_product_attention.
std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value,
    const MultiheadAttentionForwardFuncOptions& options);

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_ATTENTION_H_
