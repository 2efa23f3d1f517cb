#ifndef EMBER_TENSOR_CTC_LOSS_H_
#define EMBER_TENSOR_CTC_LOSS_H_

// The CTC loss primitive that nn::functional::ctc_loss wraps (ATen's
// _ctc_loss), beside tensor/nn_ops.h's losses.

#include <cstdint>
#include <tuple>

#include "tensor/tensor.h"

namespace ember {

// log_probs [T, N, C] (float or double, CPU); targets int64 / int32, [N, S]
// padded or 1-D concatenated; one input and one target length per sample.
// (neg_log_likelihood [N], log_alpha [N, T, 2 * max target length + 1]);
// an impossible alignment's loss is inf. The backward's gradient is ATen's
// (Note [CTC gradient] in ctc_loss.cc); zero_infinity zeroes it for
// infinite losses.
std::tuple<Tensor, Tensor> _ctc_loss(const Tensor& log_probs, const Tensor& targets,
                                     IntArrayRef input_lengths, IntArrayRef target_lengths,
                                     int64_t blank = 0, bool zero_infinity = false);
Tensor _ctc_loss_backward(const Tensor& grad, const Tensor& log_probs, const Tensor& targets,
                          IntArrayRef input_lengths, IntArrayRef target_lengths,
                          const Tensor& neg_log_likelihood, const Tensor& log_alpha, int64_t blank,
                          bool zero_infinity);

}  // namespace ember

#endif  // EMBER_TENSOR_CTC_LOSS_H_
