// The CUDA entry of tensor/multinomial_kernels.h's multinomial_kernel:
// multinomial.cu's kernels, then one read of the word that names the first
// invalid row (the CPU's error for it), the only synchronization.

#include "tensor/creation.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/kernels.h"
#include "tensor/cuda/launch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/multinomial_kernels.h"

namespace ember {
namespace cuda {
namespace {

void multinomial_cuda(const Tensor& probs, const Tensor& uniforms, Tensor& out) {
  detail::DeviceGuard guard(probs.device().index());
  const int64_t rows = probs.size(0), n = probs.size(1), samples = uniforms.size(1);
  Tensor cum = empty({rows, n}, probs.options().dtype(probs.dtype() == kDouble ? kDouble : kFloat));
  // ~0: no invalid row.
  Tensor bad = full({1}, int64_t{-1}, probs.options().dtype(kLong));
  detail::check_launch(kernels::launch_multinomial(
                           detail::kernel_dtype(probs.dtype()), probs.data_ptr(), cum.data_ptr(),
                           uniforms.data_ptr<double>(), out.data_ptr<int64_t>(), rows, n, samples,
                           reinterpret_cast<unsigned long long*>(bad.data_ptr())),
                       "multinomial_cuda", probs.dtype());
  const int64_t code = bad.item<int64_t>();
  if (code == -1) return;
  switch (code % 4) {
    case 1:
      throw Error("invalid multinomial distribution (encountering probability entry < 0)");
    case 2:
      throw Error(
          "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
    default:
      throw Error("invalid multinomial distribution (sum of probabilities <= 0)");
  }
}

}  // namespace
}  // namespace cuda

EMBER_REGISTER_KERNEL(multinomial_kernel, kCUDA, &cuda::multinomial_cuda);

}  // namespace ember
