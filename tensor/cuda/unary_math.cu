// The floating functions of one operand beyond unary.cu's: exp2, expm1,
// log2, log10, tan, asin, acos, atan, sinh, cosh, erf, erfc, asinh, acosh,
// atanh. Floating dtypes only
// (the op turns integer input into the default float dtype first); half and
// bfloat16 compute in float, as the CPU kernels (tensor/unary.cc).

#include "tensor/cuda/elementwise.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

// The float or double overload of each CUDA math function.
template <MathOp kOp>
__device__ __forceinline__ float math(float x) {
  switch (kOp) {
    case MathOp::kExp2: return exp2f(x);
    case MathOp::kExpm1: return expm1f(x);
    case MathOp::kLog2: return log2f(x);
    case MathOp::kLog10: return log10f(x);
    case MathOp::kTan: return tanf(x);
    case MathOp::kAsin: return asinf(x);
    case MathOp::kAcos: return acosf(x);
    case MathOp::kAtan: return atanf(x);
    case MathOp::kSinh: return sinhf(x);
    case MathOp::kCosh: return coshf(x);
    case MathOp::kErfc:
      return erfcf(x);
    case MathOp::kAsinh:
      return asinhf(x);
    case MathOp::kAcosh:
      return acoshf(x);
    case MathOp::kAtanh:
      return atanhf(x);
    default: return erff(x);  // kErf
  }
}
template <MathOp kOp>
__device__ __forceinline__ double math(double x) {
  switch (kOp) {
    case MathOp::kExp2: return exp2(x);
    case MathOp::kExpm1: return expm1(x);
    case MathOp::kLog2: return log2(x);
    case MathOp::kLog10: return log10(x);
    case MathOp::kTan: return tan(x);
    case MathOp::kAsin: return asin(x);
    case MathOp::kAcos: return acos(x);
    case MathOp::kAtan: return atan(x);
    case MathOp::kSinh: return sinh(x);
    case MathOp::kCosh: return cosh(x);
    case MathOp::kErfc:
      return erfc(x);
    case MathOp::kAsinh:
      return asinh(x);
    case MathOp::kAcosh:
      return acosh(x);
    case MathOp::kAtanh:
      return atanh(x);
    default: return erf(x);
  }
}

template <typename T, MathOp kOp>
struct MathFn {
  __device__ T operator()(T a) const {
    return static_cast<T>(math<kOp>(static_cast<opmath_t<T>>(a)));
  }
};

template <MathOp kOp>
cudaError_t floating(DType dtype, const Elementwise& e) {
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_unary<T, T>(e, MathFn<T, kOp>{});
  });
}

}  // namespace

cudaError_t launch_math(MathOp op, DType dtype, const Elementwise& e) {
  switch (op) {
    case MathOp::kExp2: return floating<MathOp::kExp2>(dtype, e);
    case MathOp::kExpm1: return floating<MathOp::kExpm1>(dtype, e);
    case MathOp::kLog2: return floating<MathOp::kLog2>(dtype, e);
    case MathOp::kLog10: return floating<MathOp::kLog10>(dtype, e);
    case MathOp::kTan: return floating<MathOp::kTan>(dtype, e);
    case MathOp::kAsin: return floating<MathOp::kAsin>(dtype, e);
    case MathOp::kAcos: return floating<MathOp::kAcos>(dtype, e);
    case MathOp::kAtan: return floating<MathOp::kAtan>(dtype, e);
    case MathOp::kSinh: return floating<MathOp::kSinh>(dtype, e);
    case MathOp::kCosh: return floating<MathOp::kCosh>(dtype, e);
    case MathOp::kErf: return floating<MathOp::kErf>(dtype, e);
    case MathOp::kErfc:
      return floating<MathOp::kErfc>(dtype, e);
    case MathOp::kAsinh:
      return floating<MathOp::kAsinh>(dtype, e);
    case MathOp::kAcosh:
      return floating<MathOp::kAcosh>(dtype, e);
    case MathOp::kAtanh:
      return floating<MathOp::kAtanh>(dtype, e);
  }
  return cudaErrorInvalidValue;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
