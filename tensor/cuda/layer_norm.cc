// Note [Layer norm kernels] on CUDA: tensors to raw pointers for
// layer_norm.cu's launchers, registered in tensor/layer_norm_kernels.h's
// tables.

#include "tensor/layer_norm_kernels.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/launch.h"
#include "tensor/cuda/layer_norm_kernels.h"
#include "tensor/empty.h"

namespace ember {
namespace cuda {
namespace {

using detail::data_or_null;
using detail::mutable_data_or_null;

// [M, D]: the rows of x against the normalized numel.
std::pair<int64_t, int64_t> rows_of(const Tensor& x, const Tensor& mean) {
  const int64_t M = mean.numel();
  return {M, M > 0 ? x.numel() / M : 0};
}

void forward_cuda(const Tensor& x, const Tensor& w, const Tensor& b, double eps, Tensor& out,
                  Tensor& mean, Tensor& rstd) {
  detail::DeviceGuard guard(x.device().index());
  const auto [M, D] = rows_of(x, mean);
  detail::check_launch(kernels::launch_layer_norm(detail::kernel_dtype(x.dtype()), x.data_ptr(),
                                                  data_or_null(w), data_or_null(b), M, D, eps,
                                                  out.data_ptr(), mean.data_ptr(),
                                                  rstd.data_ptr()),
                       "layer_norm", x.dtype());
}

void backward_cuda(const Tensor& gy, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                   const Tensor& w, Tensor& gx, Tensor& gw, Tensor& gb) {
  detail::DeviceGuard guard(x.device().index());
  const auto [M, D] = rows_of(x, mean);
  Tensor work;
  if (gw.defined() || gb.defined()) {
    work = empty({2 * D * kernels::layer_norm_column_pieces(M, D)}, mean.options());
  }
  detail::check_launch(
      kernels::launch_layer_norm_backward(detail::kernel_dtype(x.dtype()), gy.data_ptr(),
                                          x.data_ptr(), mean.data_ptr(), rstd.data_ptr(),
                                          data_or_null(w), M, D, mutable_data_or_null(work),
                                          mutable_data_or_null(gx), mutable_data_or_null(gw),
                                          mutable_data_or_null(gb)),
      "layer_norm_backward", x.dtype());
}

}  // namespace
}  // namespace cuda

namespace detail {
EMBER_REGISTER_KERNEL(layer_norm_forward_kernel, kCUDA, &cuda::forward_cuda);
EMBER_REGISTER_KERNEL(layer_norm_backward_kernel, kCUDA, &cuda::backward_cuda);
}  // namespace detail

}  // namespace ember
