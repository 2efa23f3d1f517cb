// The CUDA entries of tensor/sort_ops_kernels.h's tables: each launches
// sort_ops.cu's or mode_histc.cu's kernel on the contiguous operands the op
// prepared.

#include "absl/strings/str_cat.h"
#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/kernels.h"
#include "tensor/cuda/launch.h"
#include "tensor/error.h"
#include "tensor/sort_ops_kernels.h"

namespace ember {
namespace cuda {
namespace {

void cum_extreme_cuda(bool is_max, const Tensor& rows, Tensor& values, Tensor& indices) {
  detail::DeviceGuard guard(rows.device().index());
  const int64_t len = rows.size(-1);
  detail::check_launch(
      kernels::launch_cum_extreme(is_max, detail::kernel_dtype(rows.dtype()), rows.data_ptr(),
                                  values.data_ptr(), indices.data_ptr<int64_t>(),
                                  len == 0 ? 0 : rows.numel() / len, len),
      is_max ? "cummax_cuda" : "cummin_cuda", rows.dtype());
}

void logcumsumexp_cuda(const Tensor& rows, Tensor& out) {
  detail::DeviceGuard guard(rows.device().index());
  const int64_t len = rows.size(-1);
  detail::check_launch(
      kernels::launch_logcumsumexp(detail::kernel_dtype(rows.dtype()), rows.data_ptr(),
                                   out.data_ptr(), len == 0 ? 0 : rows.numel() / len, len),
      "logcumsumexp_cuda", rows.dtype());
}

void searchsorted_cuda(const Tensor& boundaries, const Tensor& input, const Tensor& sorter,
                       bool right, Tensor& out) {
  detail::DeviceGuard guard(input.device().index());
  const int64_t n = boundaries.size(-1);
  // (flag, index) of an out-of-range sorter entry, read back after the launch.
  Tensor bad = zeros({2}, TensorOptions(kLong).device(input.device()));
  detail::check_launch(
      kernels::launch_searchsorted(
          detail::kernel_dtype(input.dtype()), out.dtype() == kInt, boundaries.data_ptr(),
          input.data_ptr(), sorter.defined() ? sorter.data_ptr<int64_t>() : nullptr, out.data_ptr(),
          input.numel(), n, input.dim() == 0 ? 1 : input.size(-1), boundaries.dim() > 1, right,
          reinterpret_cast<unsigned long long*>(bad.data_ptr())),
      "searchsorted_cuda", input.dtype());
  if (sorter.defined() && input.numel() > 0) {
    const Tensor host = bad.to(kCPU);
    const int64_t* b = host.data_ptr<int64_t>();
    EMBER_CHECK_INDEX(b[0] == 0, "torch.searchsorted(): sorter index ", b[1],
                      " is out of range for a boundary of size ", n);
  }
}

void mode_cuda(const Tensor& rows, Tensor& values, Tensor& indices) {
  detail::DeviceGuard guard(rows.device().index());
  const int64_t len = rows.size(-1);
  // Each row's (key, index) pairs, sorted in place by its thread.
  const ScalarType key = rows.dtype() == kHalf || rows.dtype() == kBFloat16 ? kFloat : rows.dtype();
  Tensor keys = empty(rows.sizes(), rows.options().dtype(key));
  Tensor ix = empty(rows.sizes(), rows.options().dtype(kLong));
  detail::check_launch(
      kernels::launch_mode(detail::kernel_dtype(rows.dtype()), rows.data_ptr(), values.data_ptr(),
                           indices.data_ptr<int64_t>(), keys.data_ptr(), ix.data_ptr<int64_t>(),
                           len == 0 ? 0 : rows.numel() / len, len),
      "mode_cuda", rows.dtype());
}

void histc_cuda(const Tensor& x, const Tensor& edges, Tensor& hist) {
  detail::DeviceGuard guard(x.device().index());
  const int64_t bins = hist.numel(), numel = x.numel();
  // The CPU counts per chunk in x's dtype; where a count could reach the
  // dtype's last exact integer (256 in bfloat16, 2^24 in float), the
  // chunks are counted apart and summed as the CPU sums them.
  const int64_t exact = x.dtype() == kBFloat16 ? 256 : x.dtype() == kFloat ? (1 << 24) : -1;
  const int64_t n_blocks =
      exact >= 0 && numel > exact ? (numel + kernels::kHistcBlock - 1) / kernels::kHistcBlock : 1;
  Tensor counts = zeros({n_blocks, bins}, x.options().dtype(kInt));
  detail::check_launch(
      kernels::launch_histc(detail::kernel_dtype(x.dtype()), x.data_ptr(), edges.data_ptr(), numel,
                            bins, n_blocks, reinterpret_cast<unsigned int*>(counts.data_ptr()),
                            hist.data_ptr()),
      "histogram_cuda", x.dtype());
}

}  // namespace
}  // namespace cuda

EMBER_REGISTER_KERNEL(cum_extreme_kernel, kCUDA, &cuda::cum_extreme_cuda);
EMBER_REGISTER_KERNEL(logcumsumexp_kernel, kCUDA, &cuda::logcumsumexp_cuda);
EMBER_REGISTER_KERNEL(searchsorted_kernel, kCUDA, &cuda::searchsorted_cuda);
EMBER_REGISTER_KERNEL(mode_kernel, kCUDA, &cuda::mode_cuda);
EMBER_REGISTER_KERNEL(histc_kernel, kCUDA, &cuda::histc_cuda);

}  // namespace ember
