// Note [Fused gelu] and [Fused relu backward] on CUDA: iterators to activation.cu's launchers,
// registered in tensor/activation_kernels.h's tables.

#include "tensor/activation_kernels.h"
#include "tensor/cuda/activation_kernels.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/launch.h"

namespace ember {
namespace cuda {
namespace {

void gelu_cuda(TensorIterator& iter, bool tanh_approximation) {
  if (iter.numel() == 0) return;
  detail::DeviceGuard guard(iter.device().index());
  const ScalarType t = iter.common_dtype();
  detail::check_launch(
      kernels::launch_gelu(detail::kernel_dtype(t), detail::make_elementwise(iter),
                           tanh_approximation),
      "GeluCUDAKernelImpl", t);
}

void gelu_backward_cuda(TensorIterator& iter, bool tanh_approximation) {
  if (iter.numel() == 0) return;
  detail::DeviceGuard guard(iter.device().index());
  const ScalarType t = iter.common_dtype();
  detail::check_launch(
      kernels::launch_gelu_backward(detail::kernel_dtype(t), detail::make_elementwise(iter),
                                    tanh_approximation),
      "GeluBackwardCUDAKernelImpl", t);
}

// Operands (out, grad_output, self); the threshold in self's dtype.
void threshold_backward_cuda(TensorIterator& iter, const Scalar& threshold) {
  if (iter.numel() == 0) return;
  detail::DeviceGuard guard(iter.device().index());
  const ScalarType t = iter.common_dtype();
  detail::check_launch(
      kernels::launch_threshold_backward(detail::kernel_dtype(t), detail::make_elementwise(iter),
                                         detail::scalar_bits(threshold, t)),
      "threshold_backward_cuda", t);
}

}  // namespace
}  // namespace cuda

namespace detail {
EMBER_REGISTER_KERNEL(gelu_kernel, kCUDA, &cuda::gelu_cuda);
EMBER_REGISTER_KERNEL(gelu_backward_kernel, kCUDA, &cuda::gelu_backward_cuda);
EMBER_REGISTER_KERNEL(threshold_backward_kernel, kCUDA, &cuda::threshold_backward_cuda);
}  // namespace detail

}  // namespace ember
