// The CUDA entries of tensor/distributions_kernels.h: poisson and binomial
// drawn on the device (distributions.cu). A bad Poisson rate is raised at
// the next synchronization, as a bad index is (Note [Device-side index
// checks] in index_ops.cc), so a sampling step adds no synchronization.

#include "tensor/cuda/context.h"
#include "tensor/cuda/distributions_launch.h"
#include "tensor/cuda/index_launch.h"
#include "tensor/cuda/launch.h"
#include "tensor/cuda/random_launch.h"
#include "tensor/distributions_kernels.h"
#include "tensor/error.h"

namespace ember {
namespace cuda {
namespace {

kernels::RandomArgs philox_for(const ember::detail::RandomFill& draw, const Tensor& out) {
  EMBER_CHECK(out.numel() < kernels::kMaxSamplerElements, "CUDA poisson and binomial take at most ",
              kernels::kMaxSamplerElements, " elements, got ", out.numel());
  kernels::RandomArgs a;
  detail::set_philox(a, draw, out.device().index());
  return a;
}

void poisson_cuda(const Tensor& rates, Tensor& out, const ember::detail::RandomFill& draw) {
  const int device = rates.device().index();
  detail::DeviceGuard guard(device);
  const kernels::RandomArgs a = philox_for(draw, out);
  detail::check_launch(
      kernels::launch_poisson(detail::kernel_dtype(rates.dtype()), rates.data_ptr(), out.data_ptr(),
                              out.numel(), a, detail::record_for_launch(device)),
      "poisson_cuda", rates.dtype());
}

void binomial_cuda(const Tensor& count, const Tensor& prob, Tensor& out,
                   const ember::detail::RandomFill& draw) {
  detail::DeviceGuard guard(count.device().index());
  const kernels::RandomArgs a = philox_for(draw, out);
  detail::check_launch(
      kernels::launch_binomial(detail::kernel_dtype(count.dtype()), count.data_ptr(),
                               prob.data_ptr(), out.data_ptr(), out.numel(), a),
      "binomial_cuda", count.dtype());
}

}  // namespace
}  // namespace cuda

EMBER_REGISTER_KERNEL(poisson_kernel, kCUDA, &cuda::poisson_cuda);
EMBER_REGISTER_KERNEL(binomial_kernel, kCUDA, &cuda::binomial_cuda);

}  // namespace ember
