// The CUDA entries of the remaining elementwise kernel tables (Note [CUDA
// compute kernels] in ops.cc): unary math and rounding, sign/logical/
// bitwise/value tests, the rounding divisions and remainders, pow, atan2,
// fmax/fmin, isclose, where, masked_fill and clamp. Each takes the
// iterator the op built for the CPU and launches one kernel over its
// coalesced loop (unary_math.cu, unary_misc.cu, binary_more.cu,
// binary_pow.cu, logical.cu, ternary.cu).
//
// Numbers the CPU kernel converts to the operands' type (Scalar::to) are
// converted here, on the host, by the same code, and passed as bytes: the
// kernel sees the CPU's value to the bit.
//
// An integer division or remainder by zero raises ZeroDivisionError as on
// the CPU: the kernel sets a flag that is read back after the launch (one
// synchronization per integer division; PyTorch's CUDA kernels return an
// unspecified value instead). The other elements are written, as the CPU's
// loop may already have written some when it throws.

#include <cmath>
#include <cstring>

#include "tensor/cuda/context.h"
#include "tensor/cuda/kernels.h"
#include "tensor/cuda/launch.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/math_kernels.h"
#include "tensor/selection.h"

namespace ember {
namespace cuda {
namespace {

using detail::check_launch;
using detail::kernel_dtype;
using detail::make_elementwise;
using detail::scalar_bits;
using kernels::DType;
using kernels::Elementwise;
using kernels::ScalarBits;

// Launches f(kernel dtype, loop) for the iterator's input dtype, with
// PyTorch's "not implemented" error under `name` for a refused dtype.
template <typename F>
void launch(TensorIterator& iter, const char* name, F&& f) {
  if (iter.numel() == 0) return;
  detail::DeviceGuard guard(iter.device().index());
  const ScalarType t = iter.input_dtype(0);
  check_launch(f(kernel_dtype(t), make_elementwise(iter)), name, t);
}

// static_cast<scalar_t>(v) for floating dtype t, back as a double (exact).
double rounded_to(double v, ScalarType t) {
  switch (t) {
    case kHalf: return static_cast<float>(static_cast<Half>(v));
    case kBFloat16: return static_cast<float>(static_cast<BFloat16>(v));
    case kFloat: return static_cast<float>(v);
    default: return v;
  }
}

// --- unary ------------------------------------------------------------------------

template <kernels::MathOp kOp>
void math_cuda(TensorIterator& iter) {
  static constexpr const char* kNames[] = {"exp2_cuda",  "expm1_cuda", "log2_cuda", "log10_cuda",
                                           "tan_cuda",   "asin_cuda",  "acos_cuda", "atan_cuda",
                                           "sinh_cuda",  "cosh_cuda",  "erf_cuda",  "erfc_cuda",
                                           "asinh_cuda", "acosh_cuda", "atanh_cuda"};
  launch(iter, kNames[static_cast<int>(kOp)],
         [](DType d, const Elementwise& e) { return kernels::launch_math(kOp, d, e); });
}

template <kernels::RoundOp kOp>
void round_cuda(TensorIterator& iter) {
  static constexpr const char* kNames[] = {"floor_cuda", "ceil_cuda", "round_cuda", "trunc_cuda",
                                           "frac_cuda"};
  launch(iter, kNames[static_cast<int>(kOp)],
         [](DType d, const Elementwise& e) { return kernels::launch_round(kOp, d, e); });
}

void round_decimals_cuda(TensorIterator& iter, const Scalar& decimals_s) {
  const int64_t decimals = decimals_s.toLong();
  const bool neg = decimals < 0;
  const double ten_pow = std::pow(10.0, static_cast<double>(neg ? -decimals : decimals));
  launch(iter, "round_cuda", [&](DType d, const Elementwise& e) {
    return kernels::launch_round_decimals(d, e, ten_pow, neg);
  });
}

template <kernels::MiscUnaryOp kOp>
void misc_unary_cuda(TensorIterator& iter) {
  static constexpr const char* kNames[] = {"sign_cuda",  "logical_not_cuda", "bitwise_not_cuda",
                                           "isnan_cuda", "isinf_cuda",       "isfinite_cuda"};
  launch(iter, kNames[static_cast<int>(kOp)],
         [](DType d, const Elementwise& e) { return kernels::launch_misc_unary(kOp, d, e); });
}

// --- binary -------------------------------------------------------------------------

template <kernels::DivModOp kOp>
void div_cuda(TensorIterator& iter) {
  static constexpr const char* kNames[] = {"div_trunc_cuda", "div_floor_cuda", "remainder_cuda",
                                           "fmod_cuda"};
  if (iter.numel() == 0) return;
  detail::DeviceGuard guard(iter.device().index());
  const ScalarType t = iter.input_dtype(0);
  Tensor zero_div;
  if (is_integral(t, /*include_bool=*/false)) {
    zero_div = empty({1}, TensorOptions(kInt).device(iter.device()));
    zero_div.zero_();
  }
  check_launch(kernels::launch_div(kOp, kernel_dtype(t), make_elementwise(iter),
                                   zero_div.defined() ? zero_div.data_ptr<int32_t>() : nullptr),
               kNames[static_cast<int>(kOp)], t);
  if (zero_div.defined()) {
    const Tensor flag = zero_div.to(Device(kCPU));  // synchronizes
    EMBER_CHECK(flag.data_ptr<int32_t>()[0] == 0, "ZeroDivisionError");
  }
}

template <kernels::BinaryMathOp kOp>
void binary_math_cuda(TensorIterator& iter) {
  static constexpr const char* kNames[] = {"atan2_cuda", "fmax_cuda", "fmin_cuda"};
  launch(iter, kNames[static_cast<int>(kOp)],
         [](DType d, const Elementwise& e) { return kernels::launch_binary_math(kOp, d, e); });
}

void pow_cuda(TensorIterator& iter) {
  launch(iter, "pow_cuda", [](DType d, const Elementwise& e) { return kernels::launch_pow(d, e); });
}

void pow_scalar_cuda(TensorIterator& iter, const Scalar& exp) {
  const ScalarType t = iter.input_dtype(0);
  ScalarBits int_exp = 0;
  double e = 0, e_in_dtype = 0;
  if (is_integral(t, /*include_bool=*/false)) {
    int_exp = scalar_bits(exp, t);
  } else {
    e = exp.toDouble();
    e_in_dtype = rounded_to(e, t);
  }
  launch(iter, "pow_cuda", [&](DType d, const Elementwise& el) {
    return kernels::launch_pow_scalar(d, el, int_exp, e, e_in_dtype);
  });
}

template <kernels::LogicalOp kOp>
void logical_cuda(TensorIterator& iter) {
  static constexpr const char* kNames[] = {"logical_and_cuda", "logical_or_cuda",
                                           "logical_xor_cuda"};
  launch(iter, kNames[static_cast<int>(kOp)],
         [](DType d, const Elementwise& e) { return kernels::launch_logical(kOp, d, e); });
}

template <kernels::LogicalOp kOp>
void bitwise_cuda(TensorIterator& iter) {
  static constexpr const char* kNames[] = {"bitwise_and_cuda", "bitwise_or_cuda",
                                           "bitwise_xor_cuda"};
  launch(iter, kNames[static_cast<int>(kOp)],
         [](DType d, const Elementwise& e) { return kernels::launch_bitwise(kOp, d, e); });
}

// Note [isclose]: the tolerances in the compute type (the dtype, or the
// default float dtype for integral and bool inputs), as the CPU kernel.
void isclose_cuda(TensorIterator& iter, double rtol, double atol, bool equal_nan) {
  const ScalarType t = iter.input_dtype(0);
  const bool double_compute = get_default_dtype() == kDouble;
  const ScalarType c = is_floating_point(t) ? t : (double_compute ? kDouble : kFloat);
  const double r = rounded_to(rtol, c), a = rounded_to(atol, c);
  const bool exact_only = rtol == 0 && atol == 0;
  launch(iter, "isclose_cuda", [&](DType d, const Elementwise& e) {
    return kernels::launch_isclose(d, e, r, a, equal_nan, exact_only, double_compute);
  });
}

// --- where, masked_fill, clamp ---------------------------------------------------------

// Operands (out, condition, self, other); self and other have out's dtype.
void where_cuda(TensorIterator& iter) {
  if (iter.numel() == 0) return;
  detail::DeviceGuard guard(iter.device().index());
  const ScalarType t = iter.dtype(0);
  check_launch(kernels::launch_where(static_cast<int>(element_size(t)), make_elementwise(iter)),
               "where_cuda", t);
}

// Operands (out, mask, self); `value` is converted to self's dtype.
void masked_fill_cuda(TensorIterator& iter, const Scalar& value) {
  if (iter.numel() == 0) return;
  detail::DeviceGuard guard(iter.device().index());
  const ScalarType t = iter.common_dtype();
  check_launch(kernels::launch_masked_fill(static_cast<int>(element_size(t)),
                                           make_elementwise(iter), scalar_bits(value, t)),
               "masked_fill_cuda", t);
}

void clamp_scalar_cuda(TensorIterator& iter, const Scalar& lo, const Scalar& hi) {
  const ScalarType t = iter.input_dtype(0);
  const ScalarBits lo_bits = scalar_bits(lo, t), hi_bits = scalar_bits(hi, t);
  launch(iter, "clamp_scalar_cuda", [&](DType d, const Elementwise& e) {
    return kernels::launch_clamp(d, e, lo_bits, hi_bits);
  });
}

void clamp_tensor_cuda(TensorIterator& iter) {
  launch(iter, "clamp_cuda",
         [](DType d, const Elementwise& e) { return kernels::launch_clamp_tensor(d, e); });
}

}  // namespace
}  // namespace cuda

using cuda::kernels::BinaryMathOp;
using cuda::kernels::DivModOp;
using cuda::kernels::LogicalOp;
using cuda::kernels::MathOp;
using cuda::kernels::MiscUnaryOp;
using cuda::kernels::RoundOp;

EMBER_REGISTER_KERNEL(exp2_kernel, kCUDA, &cuda::math_cuda<MathOp::kExp2>);
EMBER_REGISTER_KERNEL(expm1_kernel, kCUDA, &cuda::math_cuda<MathOp::kExpm1>);
EMBER_REGISTER_KERNEL(log2_kernel, kCUDA, &cuda::math_cuda<MathOp::kLog2>);
EMBER_REGISTER_KERNEL(log10_kernel, kCUDA, &cuda::math_cuda<MathOp::kLog10>);
EMBER_REGISTER_KERNEL(tan_kernel, kCUDA, &cuda::math_cuda<MathOp::kTan>);
EMBER_REGISTER_KERNEL(asin_kernel, kCUDA, &cuda::math_cuda<MathOp::kAsin>);
EMBER_REGISTER_KERNEL(acos_kernel, kCUDA, &cuda::math_cuda<MathOp::kAcos>);
EMBER_REGISTER_KERNEL(atan_kernel, kCUDA, &cuda::math_cuda<MathOp::kAtan>);
EMBER_REGISTER_KERNEL(sinh_kernel, kCUDA, &cuda::math_cuda<MathOp::kSinh>);
EMBER_REGISTER_KERNEL(cosh_kernel, kCUDA, &cuda::math_cuda<MathOp::kCosh>);
EMBER_REGISTER_KERNEL(erf_kernel, kCUDA, &cuda::math_cuda<MathOp::kErf>);
EMBER_REGISTER_KERNEL(erfc_kernel, kCUDA, &cuda::math_cuda<MathOp::kErfc>);
EMBER_REGISTER_KERNEL(asinh_kernel, kCUDA, &cuda::math_cuda<MathOp::kAsinh>);
EMBER_REGISTER_KERNEL(acosh_kernel, kCUDA, &cuda::math_cuda<MathOp::kAcosh>);
EMBER_REGISTER_KERNEL(atanh_kernel, kCUDA, &cuda::math_cuda<MathOp::kAtanh>);

EMBER_REGISTER_KERNEL(floor_kernel, kCUDA, &cuda::round_cuda<RoundOp::kFloor>);
EMBER_REGISTER_KERNEL(ceil_kernel, kCUDA, &cuda::round_cuda<RoundOp::kCeil>);
EMBER_REGISTER_KERNEL(round_kernel, kCUDA, &cuda::round_cuda<RoundOp::kRound>);
EMBER_REGISTER_KERNEL(trunc_kernel, kCUDA, &cuda::round_cuda<RoundOp::kTrunc>);
EMBER_REGISTER_KERNEL(frac_kernel, kCUDA, &cuda::round_cuda<RoundOp::kFrac>);
EMBER_REGISTER_KERNEL(round_decimals_kernel, kCUDA, &cuda::round_decimals_cuda);

EMBER_REGISTER_KERNEL(sign_kernel, kCUDA, &cuda::misc_unary_cuda<MiscUnaryOp::kSign>);
EMBER_REGISTER_KERNEL(logical_not_kernel, kCUDA,
                      &cuda::misc_unary_cuda<MiscUnaryOp::kLogicalNot>);
EMBER_REGISTER_KERNEL(bitwise_not_kernel, kCUDA,
                      &cuda::misc_unary_cuda<MiscUnaryOp::kBitwiseNot>);
EMBER_REGISTER_KERNEL(isnan_kernel, kCUDA, &cuda::misc_unary_cuda<MiscUnaryOp::kIsnan>);
EMBER_REGISTER_KERNEL(isinf_kernel, kCUDA, &cuda::misc_unary_cuda<MiscUnaryOp::kIsinf>);
EMBER_REGISTER_KERNEL(isfinite_kernel, kCUDA, &cuda::misc_unary_cuda<MiscUnaryOp::kIsfinite>);

EMBER_REGISTER_KERNEL(div_trunc_kernel, kCUDA, &cuda::div_cuda<DivModOp::kTrunc>);
EMBER_REGISTER_KERNEL(div_floor_kernel, kCUDA, &cuda::div_cuda<DivModOp::kFloor>);
EMBER_REGISTER_KERNEL(remainder_kernel, kCUDA, &cuda::div_cuda<DivModOp::kRemainder>);
EMBER_REGISTER_KERNEL(fmod_kernel, kCUDA, &cuda::div_cuda<DivModOp::kFmod>);
EMBER_REGISTER_KERNEL(atan2_kernel, kCUDA, &cuda::binary_math_cuda<BinaryMathOp::kAtan2>);
EMBER_REGISTER_KERNEL(fmax_kernel, kCUDA, &cuda::binary_math_cuda<BinaryMathOp::kFmax>);
EMBER_REGISTER_KERNEL(fmin_kernel, kCUDA, &cuda::binary_math_cuda<BinaryMathOp::kFmin>);
EMBER_REGISTER_KERNEL(pow_tensor_tensor_kernel, kCUDA, &cuda::pow_cuda);
EMBER_REGISTER_KERNEL(pow_tensor_scalar_kernel, kCUDA, &cuda::pow_scalar_cuda);

EMBER_REGISTER_KERNEL(logical_and_kernel, kCUDA, &cuda::logical_cuda<LogicalOp::kAnd>);
EMBER_REGISTER_KERNEL(logical_or_kernel, kCUDA, &cuda::logical_cuda<LogicalOp::kOr>);
EMBER_REGISTER_KERNEL(logical_xor_kernel, kCUDA, &cuda::logical_cuda<LogicalOp::kXor>);
EMBER_REGISTER_KERNEL(bitwise_and_kernel, kCUDA, &cuda::bitwise_cuda<LogicalOp::kAnd>);
EMBER_REGISTER_KERNEL(bitwise_or_kernel, kCUDA, &cuda::bitwise_cuda<LogicalOp::kOr>);
EMBER_REGISTER_KERNEL(bitwise_xor_kernel, kCUDA, &cuda::bitwise_cuda<LogicalOp::kXor>);
EMBER_REGISTER_KERNEL(isclose_kernel, kCUDA, &cuda::isclose_cuda);

EMBER_REGISTER_KERNEL(where_kernel, kCUDA, &cuda::where_cuda);
EMBER_REGISTER_KERNEL(masked_fill_kernel, kCUDA, &cuda::masked_fill_cuda);
EMBER_REGISTER_KERNEL(clamp_scalar_kernel, kCUDA, &cuda::clamp_scalar_cuda);
EMBER_REGISTER_KERNEL(clamp_tensor_kernel, kCUDA, &cuda::clamp_tensor_cuda);

}  // namespace ember
