// The CUDA entry of tensor/reduce_ops_kernels.h's scatter_reduce_kernel
// (scatter_reduce_ and index_reduce_): scatter_reduce.cu's kernels on the
// op's IndexLoop, index values checked on the device (Note [Device-side
// index checks] in index_ops.cc).

#include "tensor/creation.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/index_launch.h"
#include "tensor/cuda/kernels.h"
#include "tensor/cuda/launch.h"
#include "tensor/reduce_ops_kernels.h"

namespace ember {
namespace cuda {
namespace {

using ember::detail::ScatterReduceOp;

void scatter_reduce_cuda(const ember::detail::IndexLoop& loop, Tensor& self, const Tensor& index,
                         const Tensor& src, ScatterReduceOp op, bool include_self) {
  kernels::IndexLoop l = detail::make_index_loop(loop);
  if (l.numel == 0) return;
  const int device = self.device().index();
  detail::DeviceGuard guard(device);
  l.dst = self.data_ptr();
  l.index = index.data_ptr<int64_t>();
  l.src = src.data_ptr();
  // Per position of self, how many values were reduced into it (mean).
  Tensor counts;
  if (op == ScatterReduceOp::kMean) counts = zeros({self.numel()}, self.options().dtype(kInt));
  const bool index_reduce = loop.check == ember::detail::IndexCheck::kOutOfRangeInSelf;
  detail::check_launch(kernels::launch_scatter_reduce(
                           detail::kernel_dtype(self.dtype()), static_cast<int>(op), include_self,
                           l, counts.defined() ? counts.data_ptr<int32_t>() : nullptr, self.numel(),
                           detail::record_for_launch(device)),
                       index_reduce ? "index_reduce_cuda" : "scatter_reduce_cuda", self.dtype());
}

}  // namespace
}  // namespace cuda

namespace detail {
EMBER_REGISTER_KERNEL(scatter_reduce_kernel, kCUDA, &cuda::scatter_reduce_cuda);
}  // namespace detail

}  // namespace ember
