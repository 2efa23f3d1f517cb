#ifndef EMBER_TENSOR_SPECIAL_KERNELS_H_
#define EMBER_TENSOR_SPECIAL_KERNELS_H_

// The per-device kernel tables of tensor/special.h's ops (Note [Kernel
// tables]); the CPU loops are in special.cc, the CUDA ones register from
// tensor/cuda/special_ops.cc.

#include "tensor/math_kernels.h"

namespace ember {

// Floating, one operand (inputs already in the compute dtype).
EMBER_DECLARE_KERNEL_TABLE(erfinv_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(lgamma_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(digamma_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(i0_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(special_i1_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(sinc_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(polygamma_kernel, IterScalarKernelFn);  // the order n
// Any dtype in, bool out.
EMBER_DECLARE_KERNEL_TABLE(signbit_kernel, IterKernelFn);
// Floating, two operands.
EMBER_DECLARE_KERNEL_TABLE(copysign_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(hypot_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(nextafter_kernel, IterKernelFn);  // float, double, bfloat16
// Integral, two operands.
EMBER_DECLARE_KERNEL_TABLE(gcd_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(lcm_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(lshift_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(rshift_kernel, IterKernelFn);
// Floating, two operands: the incomplete gamma functions (CPU kernels in
// reduce_ops.cc).
EMBER_DECLARE_KERNEL_TABLE(igamma_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(igammac_kernel, IterKernelFn);

}  // namespace ember

#endif  // EMBER_TENSOR_SPECIAL_KERNELS_H_
