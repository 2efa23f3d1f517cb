// The CUDA entries of tensor/special_kernels.h's tables (Note [CUDA compute
// kernels] in ops.cc): each takes the iterator the op built and launches
// special.cu's kernel over its loop.

#include "tensor/cuda/context.h"
#include "tensor/cuda/kernels.h"
#include "tensor/cuda/launch.h"
#include "tensor/special_kernels.h"

namespace ember {
namespace cuda {
namespace {

using kernels::DType;
using kernels::Elementwise;
using kernels::SpecialBinaryOp;
using kernels::SpecialOp;

// f(kernel dtype, loop) for the iterator's input dtype; a refused dtype
// raises PyTorch's "not implemented" under `name`.
template <typename F>
void launch(TensorIterator& iter, const char* name, F&& f) {
  if (iter.numel() == 0) return;
  detail::DeviceGuard guard(iter.device().index());
  const ScalarType t = iter.input_dtype(0);
  detail::check_launch(f(detail::kernel_dtype(t), detail::make_elementwise(iter)), name, t);
}

template <SpecialOp kOp>
void special_cuda(TensorIterator& iter) {
  static constexpr const char* kNames[] = {"erfinv_cuda",    "lgamma_cuda", "digamma_cuda",
                                           "polygamma_cuda", "i0_cuda",     "special_i1_cuda",
                                           "sinc_cuda"};
  launch(iter, kNames[static_cast<int>(kOp)],
         [](DType d, const Elementwise& e) { return kernels::launch_special(kOp, 0, d, e); });
}

void polygamma_cuda(TensorIterator& iter, const Scalar& n) {
  const int64_t order = n.toLong();
  launch(iter, "polygamma_cuda", [order](DType d, const Elementwise& e) {
    return kernels::launch_special(SpecialOp::kPolygamma, order, d, e);
  });
}

void signbit_cuda(TensorIterator& iter) {
  launch(iter, "signbit_cuda",
         [](DType d, const Elementwise& e) { return kernels::launch_signbit(d, e); });
}

template <SpecialBinaryOp kOp>
void special_binary_cuda(TensorIterator& iter) {
  static constexpr const char* kNames[] = {"copysign_cuda", "hypot_cuda",  "nextafter_cuda",
                                           "gcd_cuda",      "lcm_cuda",    "lshift_cuda",
                                           "rshift_cuda",   "igamma_cuda", "igammac_cuda"};
  launch(iter, kNames[static_cast<int>(kOp)],
         [](DType d, const Elementwise& e) { return kernels::launch_special_binary(kOp, d, e); });
}

}  // namespace
}  // namespace cuda

using cuda::kernels::SpecialBinaryOp;
using cuda::kernels::SpecialOp;

EMBER_REGISTER_KERNEL(erfinv_kernel, kCUDA, &cuda::special_cuda<SpecialOp::kErfinv>);
EMBER_REGISTER_KERNEL(lgamma_kernel, kCUDA, &cuda::special_cuda<SpecialOp::kLgamma>);
EMBER_REGISTER_KERNEL(digamma_kernel, kCUDA, &cuda::special_cuda<SpecialOp::kDigamma>);
EMBER_REGISTER_KERNEL(i0_kernel, kCUDA, &cuda::special_cuda<SpecialOp::kI0>);
EMBER_REGISTER_KERNEL(special_i1_kernel, kCUDA, &cuda::special_cuda<SpecialOp::kI1>);
EMBER_REGISTER_KERNEL(sinc_kernel, kCUDA, &cuda::special_cuda<SpecialOp::kSinc>);
EMBER_REGISTER_KERNEL(polygamma_kernel, kCUDA, &cuda::polygamma_cuda);
EMBER_REGISTER_KERNEL(signbit_kernel, kCUDA, &cuda::signbit_cuda);
EMBER_REGISTER_KERNEL(copysign_kernel, kCUDA,
                      &cuda::special_binary_cuda<SpecialBinaryOp::kCopysign>);
EMBER_REGISTER_KERNEL(hypot_kernel, kCUDA, &cuda::special_binary_cuda<SpecialBinaryOp::kHypot>);
EMBER_REGISTER_KERNEL(nextafter_kernel, kCUDA,
                      &cuda::special_binary_cuda<SpecialBinaryOp::kNextafter>);
EMBER_REGISTER_KERNEL(gcd_kernel, kCUDA, &cuda::special_binary_cuda<SpecialBinaryOp::kGcd>);
EMBER_REGISTER_KERNEL(lcm_kernel, kCUDA, &cuda::special_binary_cuda<SpecialBinaryOp::kLcm>);
EMBER_REGISTER_KERNEL(lshift_kernel, kCUDA, &cuda::special_binary_cuda<SpecialBinaryOp::kLshift>);
EMBER_REGISTER_KERNEL(rshift_kernel, kCUDA, &cuda::special_binary_cuda<SpecialBinaryOp::kRshift>);
EMBER_REGISTER_KERNEL(igamma_kernel, kCUDA, &cuda::special_binary_cuda<SpecialBinaryOp::kIgamma>);
EMBER_REGISTER_KERNEL(igammac_kernel, kCUDA, &cuda::special_binary_cuda<SpecialBinaryOp::kIgammac>);

}  // namespace ember
