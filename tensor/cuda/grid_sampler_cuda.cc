// grid_sampler_2d/3d on CUDA: tensors to raw pointers for grid_sampler.cu's
// launchers, registered in tensor/grid_sampler_kernels.h's tables.

#include "tensor/grid_sampler_kernels.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/grid_sampler_kernels.h"
#include "tensor/cuda/launch.h"

namespace ember {
namespace cuda {
namespace {

using grid_sample::Geometry;

const char* kernel_name(const Geometry& g) {
  return g.three_d ? "grid_sampler3d_cuda" : "grid_sampler_2d_cuda";
}

void forward_cuda(const Geometry& g, const Tensor& input, const Tensor& grid, Tensor& out) {
  detail::DeviceGuard guard(input.device().index());
  detail::check_launch(
      kernels::launch_grid_sampler(detail::kernel_dtype(input.dtype()), g, input.data_ptr(),
                                   grid.data_ptr(), out.data_ptr()),
      kernel_name(g), input.dtype());
}

void backward_cuda(const Geometry& g, const Tensor& grad_output, const Tensor& input,
                   const Tensor& grid, Tensor& grad_input, Tensor& grad_grid) {
  detail::DeviceGuard guard(input.device().index());
  detail::check_launch(
      kernels::launch_grid_sampler_backward(
          detail::kernel_dtype(input.dtype()), g, grad_output.data_ptr(), input.data_ptr(),
          grid.data_ptr(), detail::mutable_data_or_null(grad_input), grad_grid.data_ptr()),
      g.three_d ? "grid_sampler_3d_backward_cuda" : "grid_sampler_2d_backward_cuda", input.dtype());
}

}  // namespace
}  // namespace cuda

namespace detail {
EMBER_REGISTER_KERNEL(grid_sampler_forward_stub, kCUDA, &cuda::forward_cuda);
EMBER_REGISTER_KERNEL(grid_sampler_backward_stub, kCUDA, &cuda::backward_cuda);
}  // namespace detail

}  // namespace ember
