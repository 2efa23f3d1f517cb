#ifndef EMBER_NN_FUNCTIONAL_ATEN_H_
#define EMBER_NN_FUNCTIONAL_ATEN_H_

// Note [Top-level nn ops]: libtorch programs call many nn ops at top level
// with ATen's positional arguments and defaults (`torch::max_pool2d(x, 2)`,
// `torch::dropout(x, 0.5, is_training())`, `torch::nll_loss(out, target)`),
// beside nn::functional's option structs. ember declares such an op where
// it is implemented: ops whose kernels are in //tensor have their ATen form
// in tensor/nn_ops.h (max_pool2d, avg_pool2d, adaptive_avg_pool2d,
// nll_loss, mse_loss, smooth_l1_loss, binary_cross_entropy[_with_logits])
// and reduce.h / math.h / shape.h (log_softmax, relu, reshape); the ops
// nn::functional composes (the 1-d and 3-d poolings, the adaptive max
// poolings, dropout, cross_entropy_loss) have theirs here, in namespace
// ember, as thin calls of nn::functional (//tensor cannot depend on //nn).
//
// As in libtorch, an unqualified call that could mean either spelling
// (`nll_loss(a, b)` with both namespaces in scope) is ambiguous: qualify it.

#include <cstdint>
#include <optional>
#include <tuple>

#include "tensor/array_ref.h"
#include "tensor/reduction.h"
#include "tensor/tensor.h"

namespace ember {

// kernel_size, stride, padding, dilation: one int, or one per spatial dim;
// stride empty: the kernel size.
Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false);
Tensor max_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {},
                                                   IntArrayRef padding = 0,
                                                   IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {},
                                                   IntArrayRef padding = 0,
                                                   IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true);
Tensor avg_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size);
Tensor adaptive_avg_pool3d(const Tensor& input, IntArrayRef output_size);
// (values, indices), as ATen's.
std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input, IntArrayRef output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, IntArrayRef output_size);

// In training, zeroes each element with probability p and scales the rest
// by 1 / (1 - p) (nn::functional::dropout); otherwise the input itself.
Tensor dropout(const Tensor& input, double p, bool train);

// torch::huber_loss (aten): HuberLossBackward0; nn::functional::huber_loss
// calls it. reduction: Reduction::Mean / Sum / None.
Tensor huber_loss(const Tensor& input, const Tensor& target, int64_t reduction = Reduction::Mean,
                  double delta = 1.0);

// torch::one_hot: nn::functional::one_hot.
Tensor one_hot(const Tensor& self, int64_t num_classes = -1);

// log_softmax over dim 1 (dim 0 for a 1-d input), then nll_loss; target
// holds class indices or, floating and of input's shape, probabilities.
Tensor cross_entropy_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                          int64_t reduction = Reduction::Mean, int64_t ignore_index = -100,
                          double label_smoothing = 0.0);

}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_ATEN_H_
