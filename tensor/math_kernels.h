#ifndef EMBER_TENSOR_MATH_KERNELS_H_
#define EMBER_TENSOR_MATH_KERNELS_H_

// The per-device kernel tables of the elementwise math ops (Note [Kernel
// tables]). The op functions (binary.cc, pointwise.cc, unary.cc,
// compare.cc) build the TensorIterator and look the loop up here; the CPU
// loops register beside them and a CUDA backend registers its own from
// tensor/cuda/. Every kernel receives an iterator whose inputs already have
// the compute dtype (iter.common_dtype()).

#include "tensor/iterator.h"
#include "tensor/kernel_table.h"
#include "tensor/scalar.h"

namespace ember {

using IterKernelFn = void (*)(TensorIterator&);
using IterScalarKernelFn = void (*)(TensorIterator&, const Scalar&);
using IterTwoScalarKernelFn = void (*)(TensorIterator&, const Scalar&, const Scalar&);

// binary.cc
EMBER_DECLARE_KERNEL_TABLE(add_kernel, IterScalarKernelFn);  // out = a + alpha * b
EMBER_DECLARE_KERNEL_TABLE(mul_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(div_true_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(div_trunc_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(div_floor_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(remainder_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(fmod_kernel, IterKernelFn);

// pointwise.cc
EMBER_DECLARE_KERNEL_TABLE(pow_tensor_tensor_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(pow_tensor_scalar_kernel, IterScalarKernelFn);
EMBER_DECLARE_KERNEL_TABLE(atan2_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(minimum_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(maximum_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(fmin_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(fmax_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(lerp_scalar_kernel, IterScalarKernelFn);  // (self, end)
EMBER_DECLARE_KERNEL_TABLE(addcmul_kernel, IterScalarKernelFn);      // (self, t1, t2)
EMBER_DECLARE_KERNEL_TABLE(addcdiv_kernel, IterScalarKernelFn);      // (self, t1, t2)
// Bounds: an undefined-free pair (min, max); clamp_min / clamp_max use one.
EMBER_DECLARE_KERNEL_TABLE(clamp_scalar_kernel, IterTwoScalarKernelFn);
EMBER_DECLARE_KERNEL_TABLE(clamp_min_scalar_kernel, IterScalarKernelFn);
EMBER_DECLARE_KERNEL_TABLE(clamp_max_scalar_kernel, IterScalarKernelFn);
EMBER_DECLARE_KERNEL_TABLE(clamp_tensor_kernel, IterKernelFn);  // (self, min, max)

// unary.cc: one table per op, named <op>_kernel (neg_kernel, sqrt_kernel...).
#define EMBER_UNARY_KERNEL_TABLES(_)                                                               \
  _(neg)                                                                                           \
  _(abs)                                                                                           \
  _(sqrt) _(rsqrt) _(exp) _(exp2) _(expm1) _(log) _(log2) _(log10) _(log1p) _(sin) _(cos) _(tan)   \
      _(asin) _(acos) _(atan) _(sinh) _(cosh) _(tanh) _(sigmoid) _(erf) _(asinh) _(acosh) _(atanh) \
          _(erfc) _(floor) _(ceil) _(round) _(trunc) _(frac) _(sign) _(reciprocal) _(logical_not)  \
              _(bitwise_not)
#define EMBER_DECLARE_UNARY_TABLE(op) EMBER_DECLARE_KERNEL_TABLE(op##_kernel, IterKernelFn);
EMBER_UNARY_KERNEL_TABLES(EMBER_DECLARE_UNARY_TABLE)
#undef EMBER_DECLARE_UNARY_TABLE
EMBER_DECLARE_KERNEL_TABLE(round_decimals_kernel, IterScalarKernelFn);

// compare.cc (bool outputs, except bitwise ops).
EMBER_DECLARE_KERNEL_TABLE(eq_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(ne_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(lt_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(le_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(gt_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(ge_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(logical_and_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(logical_or_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(logical_xor_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(bitwise_and_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(bitwise_or_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(bitwise_xor_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(isnan_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(isinf_kernel, IterKernelFn);
EMBER_DECLARE_KERNEL_TABLE(isfinite_kernel, IterKernelFn);
// (self, other) -> bool, with isclose's tolerances (Note [isclose]).
using IscloseKernelFn = void (*)(TensorIterator&, double rtol, double atol, bool equal_nan);
EMBER_DECLARE_KERNEL_TABLE(isclose_kernel, IscloseKernelFn);

// Arithmetic in the precision PyTorch's CPU kernels use: half and bfloat16
// compute in float.
template <typename T>
struct OpMath {
  using type = T;
};
template <>
struct OpMath<Half> {
  using type = float;
};
template <>
struct OpMath<BFloat16> {
  using type = float;
};
template <typename T>
using opmath_t = typename OpMath<T>::type;

}  // namespace ember

#endif  // EMBER_TENSOR_MATH_KERNELS_H_
