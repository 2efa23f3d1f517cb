#ifndef EMBER_TENSOR_SPECIAL_H_
#define EMBER_TENSOR_SPECIAL_H_

// Elementwise ops of PyTorch 1.13 that ember lacked (found by comparing
// torch.Tensor's methods with tensor.h): special functions (erfinv, lgamma,
// digamma, polygamma, i0, sinc), sign and float-format functions (signbit,
// copysign, hypot, nextafter, ldexp, float_power), integer ones (gcd, lcm,
// the bit shifts), isposinf/isneginf/isreal. Kernels on the CPU and CUDA
// (tensor/special_math.h holds the arithmetic both use), derivatives with
// PyTorch's node names (autograd/derivatives/special.cc). The Tensor
// methods, in-place forms and PyTorch's aliases (arccos, divide, greater...)
// are in tensor.h. Values, dtypes and errors: tensor/special_test.cc, from
// tools/golden/special.py.

#include <cstdint>
#include <string>

#include "tensor/tensor.h"

namespace ember {

// Floating functions: integer and bool input become the default float
// dtype; float16 and bfloat16 compute in float.
Tensor erfinv(const Tensor& self);                // NaN outside [-1, 1]
Tensor lgamma(const Tensor& self);                // log |Gamma(x)|
Tensor digamma(const Tensor& self);               // d/dx lgamma
Tensor polygamma(int64_t n, const Tensor& self);  // n-th derivative of digamma, n >= 0
Tensor i0(const Tensor& self);                    // modified Bessel function of order 0
Tensor special_i1(const Tensor& self);            // ... of order 1 (torch.special.i1)
Tensor sinc(const Tensor& self);                  // sin(pi x) / (pi x), 1 at 0

// x's sign bit (true for -0.0 and for NaN with the sign set); integers:
// x < 0; bool: false.
// Deliberately different: a bfloat16 NaN that PyTorch 1.13's CPU code made
// with a vectorized float-to-bfloat16 conversion is 0xFFFF (sign set), one
// made one element at a time 0x7FC0, so 1.13's signbit (and copysign from)
// a bfloat16 NaN depends on the tensor's length and the op's code path;
// ember never makes the 0xFFFF NaN (its conversion gives 0x7FC0, as c10's
// scalar one does).
Tensor signbit(const Tensor& self);

// |self| with other's sign (integers promote to float).
Tensor copysign(const Tensor& self, const Tensor& other);
Tensor copysign(const Tensor& self, const Scalar& other);
// sqrt(self^2 + other^2) without overflow (floating dtypes only).
Tensor hypot(const Tensor& self, const Tensor& other);
// The next representable value after self towards other (float, double,
// bfloat16; PyTorch 1.13 refuses float16).
Tensor nextafter(const Tensor& self, const Tensor& other);
// self * 2^other (PyTorch's composition: mul(self, pow(2.0, other))).
Tensor ldexp(const Tensor& self, const Tensor& other);
// pow computed in double (float64 result whatever the inputs).
Tensor float_power(const Tensor& self, const Tensor& exponent);
Tensor float_power(const Tensor& self, const Scalar& exponent);
Tensor float_power(const Scalar& self, const Tensor& exponent);

// Integers only (bool refused): non-negative gcd / lcm, gcd(0, 0) = 0.
Tensor gcd(const Tensor& self, const Tensor& other);
Tensor lcm(const Tensor& self, const Tensor& other);

// Integer shifts (bool with a number promotes to int64). Counts outside
// [0, bits) give 0 for a left shift and self >> (bits - 1) for a right
// shift, as PyTorch 2.x defines them; 1.13 gave the count modulo the
// register width there (undefined in C++).
Tensor bitwise_left_shift(const Tensor& self, const Tensor& other);
Tensor bitwise_left_shift(const Tensor& self, const Scalar& other);
Tensor bitwise_left_shift(const Scalar& self, const Tensor& other);
Tensor bitwise_right_shift(const Tensor& self, const Tensor& other);
Tensor bitwise_right_shift(const Tensor& self, const Scalar& other);
Tensor bitwise_right_shift(const Scalar& self, const Tensor& other);
Tensor operator<<(const Tensor& self, const Tensor& other);
Tensor operator<<(const Tensor& self, const Scalar& other);
Tensor operator>>(const Tensor& self, const Tensor& other);
Tensor operator>>(const Tensor& self, const Scalar& other);

// bool tests: +inf / -inf (false for integers and bool); isreal is true
// for every element of a real tensor (ember has no complex dtypes).
Tensor isposinf(const Tensor& self);
Tensor isneginf(const Tensor& self);
Tensor isreal(const Tensor& self);

// PyTorch's aliases, as free functions (the methods are in tensor.h).
inline Tensor arccos(const Tensor& self) { return self.acos(); }
inline Tensor arcsin(const Tensor& self) { return self.asin(); }
inline Tensor arctan(const Tensor& self) { return self.atan(); }
inline Tensor arccosh(const Tensor& self) { return self.acosh(); }
inline Tensor arcsinh(const Tensor& self) { return self.asinh(); }
inline Tensor arctanh(const Tensor& self) { return self.atanh(); }
inline Tensor arctan2(const Tensor& self, const Tensor& other) { return self.atan2(other); }
inline Tensor special_erfinv(const Tensor& self) { return erfinv(self); }
inline Tensor special_i0(const Tensor& self) { return i0(self); }
inline Tensor special_sinc(const Tensor& self) { return sinc(self); }
inline Tensor special_digamma(const Tensor& self) { return digamma(self); }
inline Tensor special_psi(const Tensor& self) { return digamma(self); }
inline Tensor special_gammaln(const Tensor& self) { return lgamma(self); }
inline Tensor special_polygamma(int64_t n, const Tensor& self) { return polygamma(n, self); }

inline Tensor divide(const Tensor& self, const Tensor& other,
                     const std::string& rounding_mode = "") {
  return self.div(other, rounding_mode);
}
inline Tensor divide(const Tensor& self, const Scalar& other,
                     const std::string& rounding_mode = "") {
  return self.div(other, rounding_mode);
}
inline Tensor multiply(const Tensor& self, const Tensor& other) { return self.mul(other); }
inline Tensor multiply(const Tensor& self, const Scalar& other) { return self.mul(other); }
inline Tensor subtract(const Tensor& self, const Tensor& other, const Scalar& alpha = 1) {
  return self.sub(other, alpha);
}
inline Tensor subtract(const Tensor& self, const Scalar& other, const Scalar& alpha = 1) {
  return self.sub(other, alpha);
}
#define EMBER_COMPARISON_ALIAS(alias, op)                                                 \
  inline Tensor alias(const Tensor& self, const Tensor& other) { return self.op(other); } \
  inline Tensor alias(const Tensor& self, const Scalar& other) { return self.op(other); }
EMBER_COMPARISON_ALIAS(greater, gt)
EMBER_COMPARISON_ALIAS(greater_equal, ge)
EMBER_COMPARISON_ALIAS(less, lt)
EMBER_COMPARISON_ALIAS(less_equal, le)
EMBER_COMPARISON_ALIAS(not_equal, ne)
#undef EMBER_COMPARISON_ALIAS

}  // namespace ember

#endif  // EMBER_TENSOR_SPECIAL_H_
