// The CUDA kernels of cumsum / cumprod (scan.cu) and softmax / log_softmax
// (scan_stub, scan_kernels.h),
// nll_loss (loss_kernels.h), max_pool2d (pool_kernels.h), launched from
// here (nn.cu), and avg_pool2d / adaptive_avg_pool2d with their backwards
// (pool_kernels.h; pool.cu). With them, convolution (conv.cc) and the elementwise ops, a
// LeNet-style classifier trains on the device.
//
// nll_loss's forward reads back two int64 (a flag and an offending target)
// to raise "Target 12 is out of bounds." as the CPU does: one
// synchronization per loss, where PyTorch uses an asynchronous device-side
// assert.

#include "absl/strings/str_cat.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/index_launch.h"
#include "tensor/cuda/kernels.h"
#include "tensor/cuda/launch.h"
#include "tensor/empty.h"
#include "tensor/loss_kernels.h"
#include "tensor/nn_ops.h"
#include "tensor/pool_kernels.h"
#include "tensor/reduce.h"
#include "tensor/scan_kernels.h"

namespace ember {
namespace cuda {
namespace {

using ember::detail::NllGeometry;
using ember::detail::ScanKind;
using ember::detail::ScanShape;

void scan_cuda(ScanKind kind, const Tensor& in, const ScanShape& s, Tensor& out) {
  detail::DeviceGuard guard(in.device().index());
  if (kind == ScanKind::kCumsum || kind == ScanKind::kCumprod) {
    const bool prod = kind == ScanKind::kCumprod;
    detail::check_launch(
        kernels::launch_cumulative(prod, detail::kernel_dtype(in.dtype()), in.data_ptr(),
                                   out.data_ptr(), s.outer, s.len, s.inner),
        prod ? "cumprod_cuda" : "cumsum_cuda", in.dtype());
    return;
  }
  const bool log = kind == ScanKind::kLogSoftmax;
  detail::check_launch(
      kernels::launch_softmax(log, detail::kernel_dtype(in.dtype()), in.data_ptr(),
                              out.data_ptr(), s.outer, s.len, s.inner),
      log ? "log_softmax_cuda" : "softmax_cuda", in.dtype());
}

void nll_forward_cuda(const NllGeometry& g, const Tensor& x, const Tensor& t, const Tensor& w,
                      int64_t reduction, int64_t ignore_index, Tensor& out, Tensor& total) {
  detail::DeviceGuard guard(x.device().index());
  const bool none = reduction == loss_reduction::kNone;
  Tensor loss = none ? out : empty({g.n * g.k}, x.options());
  Tensor weight = empty({g.n * g.k}, x.options());
  // The target check stays on the device (Note [Device-side index checks]):
  // no synchronization, so a training step can be captured in a CUDA graph.
  kernels::IndexErrorRecord* bad = detail::record_for_launch(x.device().index());
  detail::check_launch(kernels::launch_nll_forward(
                           detail::kernel_dtype(x.dtype()), x.data_ptr(), t.data_ptr<int64_t>(),
                           w.defined() ? w.data_ptr() : nullptr, loss.data_ptr(), weight.data_ptr(),
                           bad, g.n, g.c, g.k, ignore_index),
                       "nll_loss", x.dtype());
  total.copy_(weight.sum());
  if (reduction == loss_reduction::kSum) out.copy_(loss.sum());
  if (reduction == loss_reduction::kMean) out.copy_(loss.sum() / total);
}

void nll_backward_cuda(const NllGeometry& g, const Tensor& gy, const Tensor& t, const Tensor& w,
                       const Tensor& total, int64_t reduction, int64_t ignore_index, Tensor& gx) {
  detail::DeviceGuard guard(gx.device().index());
  Tensor divisor;
  if (reduction == loss_reduction::kMean) divisor = total.to(gx.dtype()).to(gx.device());
  detail::check_launch(
      kernels::launch_nll_backward(detail::kernel_dtype(gx.dtype()), gy.data_ptr(),
                                   reduction == loss_reduction::kNone,
                                   divisor.defined() ? divisor.data_ptr() : nullptr,
                                   t.data_ptr<int64_t>(), w.defined() ? w.data_ptr() : nullptr,
                                   gx.data_ptr(), g.n, g.c, g.k, ignore_index),
      "nll_loss_backward", gx.dtype());
}

void max_pool_forward_cuda(const ember::detail::PoolGeometry& p, const Tensor& x, Tensor& out,
                           Tensor& idx) {
  detail::DeviceGuard guard(x.device().index());
  const kernels::PoolWindow w{p.planes, p.h, p.w, p.oh, p.ow, p.kh, p.kw,
                              p.sh,     p.sw, p.ph, p.pw, p.dh, p.dw};
  detail::check_launch(kernels::launch_max_pool(detail::kernel_dtype(x.dtype()), x.data_ptr(),
                                                out.data_ptr(), idx.data_ptr<int64_t>(), w),
                       "max_pool2d_with_indices_out_cuda_frame", x.dtype());
}

void max_pool_backward_cuda(int64_t planes, int64_t hw, int64_t ohw, const Tensor& gy,
                            const Tensor& idx, Tensor& gx) {
  detail::DeviceGuard guard(gy.device().index());
  detail::check_launch(
      kernels::launch_max_pool_backward(detail::kernel_dtype(gy.dtype()), gy.data_ptr(),
                                        idx.data_ptr<int64_t>(), gx.data_ptr(), planes, hw, ohw),
      "max_pool2d_with_indices_backward_out_cuda_frame", gy.dtype());
}

kernels::PoolWindow avg_window(const ember::detail::PoolGeometry& p) {
  return kernels::PoolWindow{p.planes, p.h, p.w, p.oh, p.ow, p.kh, p.kw,
                             p.sh,     p.sw, p.ph, p.pw, 1,    1};
}

void avg_pool_forward_cuda(const ember::detail::PoolGeometry& p, bool count_include_pad,
                           std::optional<int64_t> divisor, const Tensor& x, Tensor& out) {
  detail::DeviceGuard guard(x.device().index());
  detail::check_launch(kernels::launch_avg_pool(detail::kernel_dtype(x.dtype()), x.data_ptr(),
                                                out.data_ptr(), avg_window(p), count_include_pad,
                                                divisor ? *divisor : 0),
                       "avg_pool2d", x.dtype());
}

void avg_pool_backward_cuda(const ember::detail::PoolGeometry& p, bool count_include_pad,
                            std::optional<int64_t> divisor, const Tensor& gy, Tensor& gx) {
  detail::DeviceGuard guard(gy.device().index());
  detail::check_launch(
      kernels::launch_avg_pool_backward(detail::kernel_dtype(gy.dtype()), gy.data_ptr(),
                                        gx.data_ptr(), avg_window(p), count_include_pad,
                                        divisor ? *divisor : 0),
      "avg_pool2d_backward", gy.dtype());
}

template <bool kBackward>
void adaptive_avg_pool_cuda(const ember::detail::AdaptiveGeometry& g, const Tensor& in,
                            Tensor& out) {
  detail::DeviceGuard guard(in.device().index());
  detail::check_launch(
      kernels::launch_adaptive_avg_pool(kBackward, detail::kernel_dtype(in.dtype()), in.data_ptr(),
                                        out.data_ptr(), g.planes, g.h, g.w, g.oh, g.ow),
      kBackward ? "adaptive_avg_pool2d_backward" : "adaptive_avg_pool2d", in.dtype());
}

}  // namespace
}  // namespace cuda

namespace detail {
EMBER_REGISTER_KERNEL(avg_pool_forward_stub, kCUDA, &cuda::avg_pool_forward_cuda);
EMBER_REGISTER_KERNEL(avg_pool_backward_stub, kCUDA, &cuda::avg_pool_backward_cuda);
EMBER_REGISTER_KERNEL(adaptive_avg_pool_forward_stub, kCUDA, &cuda::adaptive_avg_pool_cuda<false>);
EMBER_REGISTER_KERNEL(adaptive_avg_pool_backward_stub, kCUDA, &cuda::adaptive_avg_pool_cuda<true>);
EMBER_REGISTER_KERNEL(scan_stub, kCUDA, &cuda::scan_cuda);
EMBER_REGISTER_KERNEL(nll_forward_stub, kCUDA, &cuda::nll_forward_cuda);
EMBER_REGISTER_KERNEL(nll_backward_stub, kCUDA, &cuda::nll_backward_cuda);
EMBER_REGISTER_KERNEL(max_pool_forward_stub, kCUDA, &cuda::max_pool_forward_cuda);
EMBER_REGISTER_KERNEL(max_pool_backward_stub, kCUDA, &cuda::max_pool_backward_cuda);
}  // namespace detail

}  // namespace ember
