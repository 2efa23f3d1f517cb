#ifndef EMBER_TENSOR_MULTI_TENSOR_H_
#define EMBER_TENSOR_MULTI_TENSOR_H_

// Note [Multi-tensor updates]: the optimizers' foreach/fused path (PyTorch
// 2.x's _foreach_* and _fused_adam_/_fused_adamw_ on CUDA). A parameter
// group is updated by a few kernel launches in all, each covering up to a
// few dozen tensors in 64K-element chunks, instead of several launches per
// parameter. Every list holds tensors of one floating dtype, contiguous, on
// one CUDA device, element for element the same sizes as params; float16
// and bfloat16 compute in float32. The formulas are //optim's single-tensor
// ones in the same order (optim/adam.cc, optim/sgd.cc), so results agree to
// float rounding. Only CUDA registers kernels (tensor/cuda/multi_tensor.cc):
// the CPU's per-parameter loops are already one pass each (Note [Fused
// updates] in optim/fused.h). Internal.

#include <vector>

#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

namespace ember {
namespace detail {

struct MultiAdamArgs {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad, maximize, decoupled;  // decoupled: AdamW's decay of the parameter
  // Per tensor: lr / (1 - beta1^step) and sqrt(1 - beta2^step).
  std::vector<double> step_size, bias_correction2_sqrt;
  // capturable (PyTorch's capturable=True) when not empty: per tensor its
  // step count, a float32 tensor of one element on the params' device. The
  // kernels advance each by one and compute the corrections above from it
  // on the device (in float64), so nothing is read on the host and a CUDA
  // graph replay takes the step it is at; step_size and
  // bias_correction2_sqrt are then unused.
  std::vector<Tensor> state_steps;
};
// exp_avg, exp_avg_sq (and max_exp_avg_sq when amsgrad) are updated with
// params; grads are read.
using MultiAdamFn = void (*)(const MultiAdamArgs& args, TensorList params, TensorList grads,
                             TensorList exp_avgs, TensorList exp_avg_sqs,
                             TensorList max_exp_avg_sqs);
EMBER_DECLARE_KERNEL_TABLE(multi_tensor_adam_kernel, MultiAdamFn);

struct MultiSgdArgs {
  double lr, weight_decay, momentum, dampening;
  bool nesterov, maximize;
  // Per tensor (when momentum != 0): the buffer was just created and takes
  // the gradient as it is (PyTorch's clone on the first step).
  std::vector<bool> fresh;
};
// bufs empty: no momentum.
using MultiSgdFn = void (*)(const MultiSgdArgs& args, TensorList params, TensorList grads,
                            TensorList bufs);
EMBER_DECLARE_KERNEL_TABLE(multi_tensor_sgd_kernel, MultiSgdFn);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_MULTI_TENSOR_H_
