#ifndef EMBER_TENSOR_NN_OPS_H_
#define EMBER_TENSOR_NN_OPS_H_

// The primitive nn ops (ATen's names and argument orders, PyTorch 1.13
// semantics) and their backward kernels. Users call them through
// nn::functional (nn/functional/functional.h), which adds PyTorch's
// argument handling (unbatched inputs, 'same' padding, reductions...).
// Each forward records itself under its ATen name (Note [Op recording]);
// derivatives are in autograd/derivatives/nn.cc. float and double only.
//
// Note [Differentiable backward kernels]: the *_backward kernels below that
// a derivative calls (convolution, pooling, nll_loss) are recorded ops too,
// under ATen's names ("convolution_backward", ...), as in PyTorch: a
// gradient computed with create_graph is then differentiable again (double
// backward: gradient penalties, Hessian-vector products), and their own
// derivatives are written with these ops, so triple backward works too.
// The pooling kernels take the input's sizes, not the input, so their
// results depend on the input only through grad_output: where PyTorch
// gives the input a zero second derivative, ember records no edge.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include "tensor/reduction.h"
#include "tensor/tensor.h"

namespace ember {

// --- convolution (conv.cc): im2col + one GEMM per group -------------------------
// input [N, C_in, L] or [N, C_in, H, W]; weight [C_out, C_in / groups, *k];
// bias [C_out] or undefined. stride/padding/dilation have one entry per
// spatial dim; padding is symmetric.
Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups);
// (grad_input, grad_weight, grad_bias); each computed only where mask says.
std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output,
                                                        const Tensor& input, const Tensor& weight,
                                                        IntArrayRef stride, IntArrayRef padding,
                                                        IntArrayRef dilation, int64_t groups,
                                                        std::array<bool, 3> mask);
// Note [Transposed convolution]: conv_transpose is the adjoint of
// convolution with respect to its input, computed by the same gemm + col2im
// as convolution_backward's grad_input. input [N, C_in, *]; weight [C_in,
// C_out / groups, *k]; bias [C_out] or undefined; output size per dim
// (L - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1.
// PyTorch records it as convolution(transposed=True); ember records it
// under its own name with the same node (ConvolutionBackward0), whose
// derivative is written with convolution and convolution_backward, so its
// double backward is theirs.
Tensor conv_transpose(const Tensor& input, const Tensor& weight, const Tensor& bias,
                      IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                      IntArrayRef dilation, int64_t groups);

// conv_tbc (conv_tbc.cc): input [time, batch, in], weight [kw, in, out],
// bias [out]; output [time - kw + 1 + 2 pad, batch, out], as 1.13's
// (pad may be negative). Integer dtypes work where addmm does. Deviations:
// a non-contiguous input is read as is (1.13 raises view's error), and
// conv_tbc_backward is made of differentiable ops, so its gradients can be
// differentiated again (1.13 has no derivative for it).
Tensor conv_tbc(const Tensor& self, const Tensor& weight, const Tensor& bias, int64_t pad = 0);
// (grad_input, grad_weight, grad_bias) for conv_tbc's grad_output `self`.
std::tuple<Tensor, Tensor, Tensor> conv_tbc_backward(const Tensor& self, const Tensor& input,
                                                     const Tensor& weight, const Tensor& bias,
                                                     int64_t pad);

// --- pooling (pool.cc): input [N, C, H, W] or [C, H, W] ------------------------
// kernel_size/stride/padding/dilation: one value or (H, W); stride empty:
// the kernel size. The defaults are ATen's, so libtorch's
// `torch::max_pool2d(x, 2)` reads the same here. Each backward comes twice:
// with ATen's signature, which takes the input (`self`) and gives the
// gradient self's memory format (suggest_memory_format, as PyTorch), and
// with the input's sizes, which the autograd derivatives call: its gradient
// is channels-last where grad_output (max pooling: the indices) is.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {}, IntArrayRef padding = 0,
                                                   IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
// The values of max_pool2d_with_indices.
Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false);
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, IntArrayRef input_sizes,
                                        const Tensor& indices);
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self,
                                        IntArrayRef kernel_size, IntArrayRef stride,
                                        IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                        const Tensor& indices);
Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor avg_pool2d_backward(const Tensor& grad_output, IntArrayRef input_sizes,
                           IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                           bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override);
Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                           IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                           bool count_include_pad, std::optional<int64_t> divisor_override);
Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size);
Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, IntArrayRef input_sizes);
// ATen's name and signature (at::_adaptive_avg_pool2d_backward).
Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self);

// --- activations (activation.cc) ---------------------------------------------------
// approximate: "none" (erf) or "tanh".
Tensor gelu(const Tensor& self, const std::string& approximate = "none");
Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope = 0.01);
// x > 0 ? x * scale : (exp(x * input_scale) - 1) * alpha * scale (selu is
// elu with its constants, as in PyTorch).
Tensor elu(const Tensor& self, const Scalar& alpha = 1, const Scalar& scale = 1,
           const Scalar& input_scale = 1);
// elu(x, alpha, 1, 1 / alpha), recorded as "celu" (CeluBackward0).
Tensor celu(const Tensor& self, const Scalar& alpha = 1);
Tensor silu(const Tensor& self);
Tensor mish(const Tensor& self);
// x where x * beta > threshold, else log1p(exp(x * beta)) / beta.
Tensor softplus(const Tensor& self, const Scalar& beta = 1, const Scalar& threshold = 20);
// ATen's log_sigmoid_forward without its buffer: min(x, 0) - log1p(exp(-|x|)).
Tensor log_sigmoid(const Tensor& self);
// clamp(x, min_val, max_val) with hardtanh's gradient (zero at the bounds).
Tensor hardtanh(const Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1);
Tensor hardsigmoid(const Tensor& self);
Tensor hardswish(const Tensor& self);
Tensor softshrink(const Tensor& self, const Scalar& lambd = 0.5);
Tensor hardshrink(const Tensor& self, const Scalar& lambd = 0.5);
// x <= threshold ? value : x.
Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value);
// x > 0 ? x : weight * x, weight of one element or one per channel (dim 1;
// a 1-D input has one channel).
Tensor prelu(const Tensor& self, const Tensor& weight);
namespace detail {
// prelu's weight shaped to broadcast against an input of `dim` dims.
Tensor prelu_weight(const Tensor& weight, int64_t dim);
}  // namespace detail

// --- normalization (normalization.cc) ------------------------------------------------
// (output, mean, invstd) over every dim but 1. Training: batch statistics,
// and running_mean / running_var (if defined) updated in place with
// momentum, the variance unbiased. Eval: the running statistics, which
// come back as mean and 1 / sqrt(running_var + eps).
std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const Tensor& weight,
                                                     const Tensor& bias, const Tensor& running_mean,
                                                     const Tensor& running_var, bool training,
                                                     double momentum, double eps);
// (output, mean, rstd) over the trailing normalized_shape dims; mean and
// rstd keep those dims as size 1.
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input,
                                                     IntArrayRef normalized_shape,
                                                     const Tensor& weight, const Tensor& bias,
                                                     double eps);

// (output, mean, rstd) of the group norm of input read as [N, C, HxW]
// (input.numel() == N * C * HxW; any shape, as 1.13), C channels in `group`
// groups; weight/bias [C] or undefined. mean and rstd are [N, group] in
// input's dtype. float, double and bfloat16 (and half off the CPU), as
// 1.13's kernels.
std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input, const Tensor& weight,
                                                     const Tensor& bias, int64_t N, int64_t C,
                                                     int64_t HxW, int64_t group, double eps);
// --- embedding (embedding.cc) ---------------------------------------------------------
// weight[indices]; padding_idx < 0: none. Rows at padding_idx get no gradient.
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1);
Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights,
                          int64_t padding_idx);

// --- losses (loss.cc) -----------------------------------------------------------------
// ATen's Reduction enum: the int64 reduction argument of the losses, which
// also takes ember::Reduction::Mean (Note [Reduction]). The defaults are
// ATen's: `ember::nll_loss(out, target)`, `ember::mse_loss(a, b)`.
namespace loss_reduction {
constexpr int64_t kNone = Reduction::None;
constexpr int64_t kMean = Reduction::Mean;
constexpr int64_t kSum = Reduction::Sum;
}  // namespace loss_reduction

// input [C], [N, C] or [N, C, d...] of log-probabilities; target int64
// [], [N] or [N, d...]. (loss, total_weight).
std::tuple<Tensor, Tensor> nll_loss_forward(const Tensor& input, const Tensor& target,
                                            const Tensor& weight, int64_t reduction,
                                            int64_t ignore_index);
Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& input, const Tensor& target,
                         const Tensor& weight, int64_t reduction, int64_t ignore_index,
                         const Tensor& total_weight);
// The loss of nll_loss_forward. weight: one per class, or undefined.
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                int64_t reduction = Reduction::Mean, int64_t ignore_index = -100);
Tensor mse_loss(const Tensor& input, const Tensor& target, int64_t reduction = Reduction::Mean);
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      int64_t reduction = Reduction::Mean, double beta = 1.0);
// libtorch 1.13's ops with their quirks (Note [Binary cross entropy as 1.13
// computes it] in loss.cc): binary_cross_entropy pairs squeeze(input) with
// squeeze(target), input in [0, 1], one floating dtype; weight (optional)
// broadcasts to input. binary_cross_entropy_with_logits' result has
// target's shape and dtype.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                            int64_t reduction = Reduction::Mean);
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight = {}, const Tensor& pos_weight = {},
                                        int64_t reduction = Reduction::Mean);

namespace detail {
// What 1.13 returns for an elementwise kernel run on squeeze(input) (and
// squeezed operands) into squeeze(empty_like(input)); binary_cross_entropy
// and its backward.
Tensor on_squeezed(const Tensor& input, const Tensor& squeezed_result);
}  // namespace detail

}  // namespace ember

#endif  // EMBER_TENSOR_NN_OPS_H_
