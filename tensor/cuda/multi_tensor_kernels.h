#ifndef EMBER_TENSOR_CUDA_MULTI_TENSOR_KERNELS_H_
#define EMBER_TENSOR_CUDA_MULTI_TENSOR_KERNELS_H_

// Launchers of the multi-tensor optimizer kernels (multi_tensor.cu; Note
// [Multi-tensor updates] in tensor/multi_tensor.h). Shared by nvcc and the
// host compiler, so it includes nothing of ember.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "tensor/cuda/kernels.h"

namespace ember {
namespace cuda {
namespace kernels {

// `depth` lists of `n` tensors each: ptrs[d * n + t] is list d's tensor t
// (all of numel[t] elements of one dtype, contiguous, on the current
// device); a[t] and b[t] are per-tensor scalars of the kernel.
struct TensorLists {
  int depth = 0;
  int n = 0;
  void* const* ptrs = nullptr;
  const int64_t* numel = nullptr;
  const double* a = nullptr;
  const double* b = nullptr;
  // Adam's capturable steps (float32, one element each, on the device), or
  // nullptr.
  float* const* steps = nullptr;
};

// Lists: param, grad, exp_avg, exp_avg_sq[, max_exp_avg_sq]; a: step size,
// b: sqrt of the second bias correction. With steps: each step is advanced
// by one first, and the kernels compute a and b from it on the device, in
// float64 as the host does (lr / (1 - beta1^step), sqrt(1 - beta2^step)).
struct AdamConsts {
  double beta1, beta2, eps, weight_decay, decay;  // decay: AdamW's 1 - lr * wd
  bool decoupled, maximize, amsgrad;
  double lr;
};
cudaError_t launch_multi_adam(DType dtype, const TensorLists& lists, const AdamConsts& c);

// Lists: param, grad[, momentum_buffer]; a: 1 where the buffer is fresh.
struct SgdConsts {
  double lr, weight_decay, momentum, dampening;
  bool nesterov, maximize, momentum_on;
};
cudaError_t launch_multi_sgd(DType dtype, const TensorLists& lists, const SgdConsts& c);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_MULTI_TENSOR_KERNELS_H_
