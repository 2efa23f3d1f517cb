// Note [Fused gelu] and [Fused relu backward] on CUDA: the launchers of activation.cu, called from
// activation.cc. Internal to //tensor/cuda.

#ifndef EMBER_TENSOR_CUDA_ACTIVATION_KERNELS_H_
#define EMBER_TENSOR_CUDA_ACTIVATION_KERNELS_H_

#include <cuda_runtime.h>

#include "tensor/cuda/kernels.h"

namespace ember {
namespace cuda {
namespace kernels {

// e: (out, self) for gelu, (out, grad_output, self) for its backward; all
// operands in `dtype` (floating).
cudaError_t launch_gelu(DType dtype, const Elementwise& e, bool tanh_approximation);
cudaError_t launch_gelu_backward(DType dtype, const Elementwise& e, bool tanh_approximation);
// Note [Fused relu backward]: e is (out, grad_output, self), all in dtype
// (numeric); out = self <= threshold ? 0 : grad_output.
cudaError_t launch_threshold_backward(DType dtype, const Elementwise& e, ScalarBits threshold);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_ACTIVATION_KERNELS_H_
