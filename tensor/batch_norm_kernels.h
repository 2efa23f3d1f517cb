#ifndef EMBER_TENSOR_BATCH_NORM_KERNELS_H_
#define EMBER_TENSOR_BATCH_NORM_KERNELS_H_

// Note [Batch norm kernels]: native_batch_norm and its backward run on
// these fused kernels where a device registers them (CPU, float and double:
// tensor/batch_norm_cpu.cc; CUDA: tensor/cuda/batch_norm.{cc,cu}), and are
// otherwise composed of public ops (tensor/normalization.cc,
// autograd/derivatives/nn.cc). The composed ops cost about ten passes over
// the activations, several of them strided reductions, and promote a
// half/bfloat16 input to float, where PyTorch's kernels read and write the
// input's dtype.
//
// Every tensor [N, C, *] is contiguous, or on the CPU every one is 4-D and
// channels-last (Note [Channels-last batch norm] in batch_norm_cpu.cc);
// per-channel vectors are [C] in the accumulation dtype (float; double for
// double inputs). Internal.

#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

namespace ember {
namespace detail {

// mean and biased variance of each channel.
using BatchNormStatsFn = void (*)(const Tensor& input, Tensor& mean, Tensor& var);
// out = u * a[c] + (v - m[c]) * b[c] + d[c]; v, b and m may be undefined
// (v undefined: no second term; m undefined: v not centered).
using BatchNormAffineFn = void (*)(const Tensor& u, const Tensor& v, const Tensor& a,
                                   const Tensor& b, const Tensor& m, const Tensor& d, Tensor& out);
// gsum[c] = sum(grad_out), dotp[c] = sum(grad_out * (input - mean[c])).
using BatchNormBackwardReduceFn = void (*)(const Tensor& grad_out, const Tensor& input,
                                           const Tensor& mean, Tensor& gsum, Tensor& dotp);
EMBER_DECLARE_KERNEL_TABLE(batch_norm_stats_kernel, BatchNormStatsFn);
EMBER_DECLARE_KERNEL_TABLE(batch_norm_affine_kernel, BatchNormAffineFn);
EMBER_DECLARE_KERNEL_TABLE(batch_norm_backward_reduce_kernel, BatchNormBackwardReduceFn);

// Whether the fused kernels take `input` on its device: registered,
// floating, contiguous (or channels-last on the CPU) and not empty.
bool batch_norm_kernels_apply(const Tensor& input);
// The layout of the kernels' tensors for `input` (one they apply to):
// ChannelsLast for a channels-last CPU input, else Contiguous.
MemoryFormat batch_norm_layout(const Tensor& input);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_BATCH_NORM_KERNELS_H_
