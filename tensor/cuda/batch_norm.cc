// Note [Batch norm kernels] on CUDA: tensors to raw pointers for
// batch_norm.cu's launchers, registered in tensor/batch_norm_kernels.h's
// tables.

#include <cuda_runtime_api.h>

#include <mutex>

#include "tensor/batch_norm_kernels.h"
#include "tensor/cuda/batch_norm_kernels.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/launch.h"
#include "tensor/empty.h"

namespace ember {
namespace cuda {
namespace {

constexpr int kMaxDevices = 64;

int multiprocessors(int device) {
  static int counts[kMaxDevices] = {};
  static std::once_flag once[kMaxDevices];
  if (device < 0 || device >= kMaxDevices) return 132;
  std::call_once(once[device], [&] {
    int n = 0;
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
      cudaGetLastError();
      n = 132;
    }
    counts[device] = n;
  });
  return counts[device];
}

kernels::BatchNormShape shape_of(const Tensor& x) {
  kernels::BatchNormShape s{};
  s.N = x.size(0);
  s.C = x.size(1);
  s.HW = s.N * s.C > 0 ? x.numel() / (s.N * s.C) : 0;
  return s;
}

using detail::data_or_null;

ScalarType acc_dtype(const Tensor& x) { return x.dtype() == kDouble ? kDouble : kFloat; }

void stats_cuda(const Tensor& x, Tensor& mean, Tensor& var) {
  detail::DeviceGuard guard(x.device().index());
  kernels::BatchNormShape s = shape_of(x);
  s.pieces = kernels::batch_norm_pieces(s.N, s.C, s.HW, multiprocessors(x.device().index()));
  Tensor work = empty({3 * s.C * s.pieces}, x.options().dtype(acc_dtype(x)));
  detail::check_launch(kernels::launch_batch_norm_stats(detail::kernel_dtype(x.dtype()),
                                                        x.data_ptr(), s, work.data_ptr(),
                                                        mean.data_ptr(), var.data_ptr()),
                       "batch_norm_stats", x.dtype());
}

void backward_reduce_cuda(const Tensor& gy, const Tensor& x, const Tensor& mean, Tensor& gsum,
                          Tensor& dotp) {
  detail::DeviceGuard guard(x.device().index());
  kernels::BatchNormShape s = shape_of(x);
  s.pieces = kernels::batch_norm_pieces(s.N, s.C, s.HW, multiprocessors(x.device().index()));
  Tensor work = empty({2 * s.C * s.pieces}, x.options().dtype(acc_dtype(x)));
  detail::check_launch(
      kernels::launch_batch_norm_backward_reduce(detail::kernel_dtype(x.dtype()), gy.data_ptr(),
                                                 x.data_ptr(), mean.data_ptr(), s,
                                                 work.data_ptr(), gsum.data_ptr(),
                                                 dotp.data_ptr()),
      "batch_norm_backward_reduce", x.dtype());
}

void affine_cuda(const Tensor& u, const Tensor& v, const Tensor& a, const Tensor& b,
                 const Tensor& m, const Tensor& d, Tensor& out) {
  detail::DeviceGuard guard(u.device().index());
  detail::check_launch(
      kernels::launch_batch_norm_affine(detail::kernel_dtype(u.dtype()), u.data_ptr(),
                                        data_or_null(v), a.data_ptr(), data_or_null(b),
                                        data_or_null(m), d.data_ptr(), shape_of(u),
                                        out.data_ptr()),
      "batch_norm_elemt", u.dtype());
}

}  // namespace
}  // namespace cuda

namespace detail {
EMBER_REGISTER_KERNEL(batch_norm_stats_kernel, kCUDA, &cuda::stats_cuda);
EMBER_REGISTER_KERNEL(batch_norm_affine_kernel, kCUDA, &cuda::affine_cuda);
EMBER_REGISTER_KERNEL(batch_norm_backward_reduce_kernel, kCUDA, &cuda::backward_reduce_cuda);
}  // namespace detail

}  // namespace ember
