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
// On CUDA (tensor/cuda/attention.cu) the same algorithm runs one thread per
// query row (and per key row for the key/value gradients), tiles staged in
// shared memory, head dims up to 64; checked against the math path on an
// H200 (nn/functional:attention_cuda_test), slower than cuBLAS's math path
// at GPT-2's sizes, so scaled_dot_product_attention takes it by default
// only for large score matrices (Note [CUDA fused attention by size] in
// nn/functional/attention.cc).
//
// q [B, H, L, E], k [B, H, S, E], v [B, H, S, Ev] (any batch/head strides,
// stride 0 included: broadcast inputs need no copy); attn_mask undefined or
// a float tensor expanded to [B, H, L, S], added to the scores; is_causal
// masks key j > query i. Returns (out [B, H, L, Ev], logsumexp [B, H, L]);
// a row with every key masked gives zeros and logsumexp -inf.
// Recorded as "_scaled_dot_product_flash_attention" (derivative in
// autograd/derivatives/attention.cc); the mask gets no gradient.

#include <tuple>

#include "tensor/kernel_table.h"
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

// softmax over the last dim where a row of only -inf gives zeros instead of
// NaN, and zero gradient (PyTorch >= 2.5's _safe_softmax). Composite: the
// all-masked rows are zeroed before the softmax too, so that its backward
// sees finite values. The math path of scaled_dot_product_attention and the
// fused op's differentiable backward share it.
Tensor _safe_softmax(const Tensor& scores);

namespace detail {

// The kernels per device (Note [Kernel tables]): the CPU's in attention.cc,
// CUDA's in tensor/cuda/attention.{cc,cu} (//tensor/cuda:attention, linked
// by //nn/functional). Inputs are checked and rows made contiguous before;
// out/lse and the gradients are allocated, contiguous.
using FlashForwardFn = void (*)(const Tensor& q, const Tensor& k, const Tensor& v,
                                const Tensor& mask, bool is_causal, double scale, Tensor& out,
                                Tensor& lse);
using FlashBackwardFn = void (*)(const Tensor& grad_out, const Tensor& q, const Tensor& k,
                                 const Tensor& v, const Tensor& out, const Tensor& lse,
                                 const Tensor& mask, bool is_causal, double scale, Tensor& gq,
                                 Tensor& gk, Tensor& gv);
EMBER_DECLARE_KERNEL_TABLE(flash_attention_forward_kernel, FlashForwardFn);
EMBER_DECLARE_KERNEL_TABLE(flash_attention_backward_kernel, FlashBackwardFn);

// The largest head dim (E and Ev) the CUDA kernels take.
constexpr int64_t kCudaFlashMaxHeadDim = 64;

}  // namespace detail

// Whether the fused kernel can run q/k/v of `device` with head dims e, ev:
// the CPU always; CUDA when //tensor/cuda:attention is linked and both are
// at most detail::kCudaFlashMaxHeadDim.
bool flash_attention_supported(Device device, int64_t e, int64_t ev);

}  // namespace ember

#endif  // EMBER_TENSOR_ATTENTION_H_
