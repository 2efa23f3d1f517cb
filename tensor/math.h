#ifndef EMBER_TENSOR_MATH_H_
#define EMBER_TENSOR_MATH_H_

// Elementwise math as free functions (torch.add, torch.sqrt, ...). Each is
// the same op as the Tensor method of the same name; binary.cc, pointwise.cc,
// unary.cc and compare.cc define them. Semantics, promotion and errors are
// PyTorch's (Note [Elementwise engine]), with one deliberate difference:
// PyTorch 1.13 has no CPU float16 kernel for many ops (sqrt, exp, floor,
// clamp, atan2...); ember computes float16 through float for every op that
// takes floating input, as later PyTorch releases do. Ops that PyTorch 1.13
// restricts to float/double for other reasons (lerp) keep the restriction.

#include <optional>
#include <string>

#include "tensor/tensor.h"

namespace ember {

// --- binary arithmetic (binary.cc) ------------------------------------------
Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
// other - alpha * self (Python's `2 - x`).
Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
Tensor mul(const Tensor& self, const Tensor& other);
Tensor mul(const Tensor& self, const Scalar& other);
// rounding_mode: "" (true division), "trunc" or "floor".
Tensor div(const Tensor& self, const Tensor& other, const std::string& rounding_mode = "");
Tensor div(const Tensor& self, const Scalar& other, const std::string& rounding_mode = "");
Tensor true_divide(const Tensor& self, const Tensor& other);
Tensor true_divide(const Tensor& self, const Scalar& other);
// Python's %: the result takes the divisor's sign.
Tensor remainder(const Tensor& self, const Tensor& other);
Tensor remainder(const Tensor& self, const Scalar& other);
Tensor remainder(const Scalar& self, const Tensor& other);
// C's fmod: the result takes the dividend's sign.
Tensor fmod(const Tensor& self, const Tensor& other);
Tensor fmod(const Tensor& self, const Scalar& other);
Tensor floor_divide(const Tensor& self, const Tensor& other);
Tensor floor_divide(const Tensor& self, const Scalar& other);

// --- other pointwise ops (pointwise.cc) -------------------------------------
Tensor pow(const Tensor& self, const Tensor& exponent);
Tensor pow(const Tensor& self, const Scalar& exponent);
Tensor pow(const Scalar& self, const Tensor& exponent);
Tensor atan2(const Tensor& self, const Tensor& other);
// NaN-propagating elementwise min / max.
Tensor minimum(const Tensor& self, const Tensor& other);
Tensor maximum(const Tensor& self, const Tensor& other);
// NaN-ignoring elementwise min / max (C's fmin / fmax).
Tensor fmin(const Tensor& self, const Tensor& other);
Tensor fmax(const Tensor& self, const Tensor& other);
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight);
Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
               const Scalar& value = 1);
Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
               const Scalar& value = 1);
Tensor clamp(const Tensor& self, std::optional<Scalar> min,
             std::optional<Scalar> max = std::nullopt);
// Either bound may be an undefined Tensor (no bound), not both.
Tensor clamp(const Tensor& self, const Tensor& min, const Tensor& max);
Tensor clamp_min(const Tensor& self, const Scalar& min);
Tensor clamp_max(const Tensor& self, const Scalar& max);
inline Tensor clip(const Tensor& self, std::optional<Scalar> min,
                   std::optional<Scalar> max = std::nullopt) {
  return clamp(self, min, max);
}

// --- unary ops (unary.cc) ----------------------------------------------------
#define EMBER_UNARY_FUNCTION(name) Tensor name(const Tensor& self);
EMBER_UNARY_FUNCTION(neg)
EMBER_UNARY_FUNCTION(abs)
EMBER_UNARY_FUNCTION(sqrt)
EMBER_UNARY_FUNCTION(rsqrt)
EMBER_UNARY_FUNCTION(square)
EMBER_UNARY_FUNCTION(exp)
EMBER_UNARY_FUNCTION(exp2)
EMBER_UNARY_FUNCTION(expm1)
EMBER_UNARY_FUNCTION(log)
EMBER_UNARY_FUNCTION(log2)
EMBER_UNARY_FUNCTION(log10)
EMBER_UNARY_FUNCTION(log1p)
EMBER_UNARY_FUNCTION(sin)
EMBER_UNARY_FUNCTION(cos)
EMBER_UNARY_FUNCTION(tan)
EMBER_UNARY_FUNCTION(asin)
EMBER_UNARY_FUNCTION(acos)
EMBER_UNARY_FUNCTION(atan)
EMBER_UNARY_FUNCTION(sinh)
EMBER_UNARY_FUNCTION(cosh)
EMBER_UNARY_FUNCTION(tanh)
EMBER_UNARY_FUNCTION(sigmoid)
EMBER_UNARY_FUNCTION(relu)
EMBER_UNARY_FUNCTION(erf)
EMBER_UNARY_FUNCTION(erfc)
EMBER_UNARY_FUNCTION(asinh)
EMBER_UNARY_FUNCTION(acosh)
EMBER_UNARY_FUNCTION(atanh)
EMBER_UNARY_FUNCTION(floor)
EMBER_UNARY_FUNCTION(ceil)
EMBER_UNARY_FUNCTION(round)
EMBER_UNARY_FUNCTION(trunc)
EMBER_UNARY_FUNCTION(frac)
EMBER_UNARY_FUNCTION(sign)
EMBER_UNARY_FUNCTION(reciprocal)
EMBER_UNARY_FUNCTION(logical_not)
EMBER_UNARY_FUNCTION(bitwise_not)
#undef EMBER_UNARY_FUNCTION
inline Tensor negative(const Tensor& self) { return neg(self); }
inline Tensor absolute(const Tensor& self) { return abs(self); }
inline Tensor fix(const Tensor& self) { return trunc(self); }
// Rounds half to even at `decimals` decimal places (negative: to tens...).
Tensor round(const Tensor& self, int64_t decimals);

// --- comparisons, logical and bitwise ops, tests (compare.cc) ---------------
Tensor eq(const Tensor& self, const Tensor& other);
Tensor eq(const Tensor& self, const Scalar& other);
Tensor ne(const Tensor& self, const Tensor& other);
Tensor ne(const Tensor& self, const Scalar& other);
Tensor gt(const Tensor& self, const Tensor& other);
Tensor gt(const Tensor& self, const Scalar& other);
Tensor ge(const Tensor& self, const Tensor& other);
Tensor ge(const Tensor& self, const Scalar& other);
Tensor lt(const Tensor& self, const Tensor& other);
Tensor lt(const Tensor& self, const Scalar& other);
Tensor le(const Tensor& self, const Tensor& other);
Tensor le(const Tensor& self, const Scalar& other);
Tensor logical_and(const Tensor& self, const Tensor& other);
Tensor logical_or(const Tensor& self, const Tensor& other);
Tensor logical_xor(const Tensor& self, const Tensor& other);
Tensor bitwise_and(const Tensor& self, const Tensor& other);
Tensor bitwise_and(const Tensor& self, const Scalar& other);
Tensor bitwise_or(const Tensor& self, const Tensor& other);
Tensor bitwise_or(const Tensor& self, const Scalar& other);
Tensor bitwise_xor(const Tensor& self, const Tensor& other);
Tensor bitwise_xor(const Tensor& self, const Scalar& other);
Tensor isnan(const Tensor& self);
Tensor isinf(const Tensor& self);
Tensor isfinite(const Tensor& self);
Tensor isclose(const Tensor& self, const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
               bool equal_nan = false);
bool allclose(const Tensor& self, const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
              bool equal_nan = false);
// Same size and the same values (after type promotion).
bool equal(const Tensor& self, const Tensor& other);

namespace detail {
// The dtype of `self op number` (PyTorch's promotion with a wrapped number).
ScalarType result_type_with_scalar(const Tensor& self, const Scalar& s);
// A wrapped-number operand for `self op s`, made directly in the common
// dtype so that the iterator has nothing to cast.
Tensor wrap_scalar(const Scalar& s, ScalarType dtype);
inline Tensor wrap_for(const Tensor& self, const Scalar& s) {
  return wrap_scalar(s, result_type_with_scalar(self, s));
}
// PyTorch's TypeMeta spelling of a dtype ("float", "long int"), which some
// of its messages print.
const char* typemeta_name(ScalarType t);
}  // namespace detail

}  // namespace ember

#endif  // EMBER_TENSOR_MATH_H_
