#ifndef EMBER_TENSOR_DISPATCH_H_
#define EMBER_TENSOR_DISPATCH_H_

// Note [Dtype dispatch]: the one way a kernel is instantiated per dtype.
//
//   EMBER_DISPATCH_ALL_TYPES(t.dtype(), "add_cpu", [&] {
//     scalar_t* p = t.data_ptr<scalar_t>(); ...
//   });
//
// Inside the lambda, `scalar_t` is the C++ type of the dtype. An unsupported
// dtype raises PyTorch's '"add_cpu" not implemented for 'Bool''.

#include "tensor/dtype.h"
#include "tensor/error.h"

namespace ember {
namespace detail {
[[noreturn]] void throw_not_implemented(const char* name, ScalarType t);
}  // namespace detail
}  // namespace ember

#define EMBER_PRIVATE_CASE(enum_value, type, ...) \
  case ::ember::ScalarType::enum_value: {         \
    using scalar_t = type;                        \
    return __VA_ARGS__();                         \
  }

#define EMBER_PRIVATE_INTEGRAL_CASES(...)           \
  EMBER_PRIVATE_CASE(Byte, uint8_t, __VA_ARGS__)    \
  EMBER_PRIVATE_CASE(Char, int8_t, __VA_ARGS__)     \
  EMBER_PRIVATE_CASE(Short, int16_t, __VA_ARGS__)   \
  EMBER_PRIVATE_CASE(Int, int32_t, __VA_ARGS__)     \
  EMBER_PRIVATE_CASE(Long, int64_t, __VA_ARGS__)

#define EMBER_PRIVATE_FLOATING_CASES(...)                   \
  EMBER_PRIVATE_CASE(Float, float, __VA_ARGS__)             \
  EMBER_PRIVATE_CASE(Double, double, __VA_ARGS__)           \
  EMBER_PRIVATE_CASE(Half, ::ember::Half, __VA_ARGS__)      \
  EMBER_PRIVATE_CASE(BFloat16, ::ember::BFloat16, __VA_ARGS__)

#define EMBER_PRIVATE_SWITCH(TYPE, NAME, CASES)                      \
  [&] {                                                              \
    const ::ember::ScalarType _st = (TYPE);                          \
    switch (_st) {                                                   \
      CASES                                                          \
      default:                                                       \
        ::ember::detail::throw_not_implemented(NAME, _st);           \
    }                                                                \
  }()

// float, double, half, bfloat16.
#define EMBER_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) \
  EMBER_PRIVATE_SWITCH(TYPE, NAME, EMBER_PRIVATE_FLOATING_CASES(__VA_ARGS__))

// float and double only (e.g. BLAS paths).
#define EMBER_DISPATCH_FLOAT_DOUBLE(TYPE, NAME, ...)              \
  EMBER_PRIVATE_SWITCH(TYPE, NAME,                                \
                       EMBER_PRIVATE_CASE(Float, float, __VA_ARGS__) \
                           EMBER_PRIVATE_CASE(Double, double, __VA_ARGS__))

// uint8, int8, int16, int32, int64.
#define EMBER_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) \
  EMBER_PRIVATE_SWITCH(TYPE, NAME, EMBER_PRIVATE_INTEGRAL_CASES(__VA_ARGS__))

// The integral types and bool.
#define EMBER_DISPATCH_INTEGRAL_TYPES_AND_BOOL(TYPE, NAME, ...)        \
  EMBER_PRIVATE_SWITCH(TYPE, NAME, EMBER_PRIVATE_INTEGRAL_CASES(__VA_ARGS__) \
                                       EMBER_PRIVATE_CASE(Bool, bool, __VA_ARGS__))

// Every numeric type but bool.
#define EMBER_DISPATCH_NUMERIC_TYPES(TYPE, NAME, ...)                    \
  EMBER_PRIVATE_SWITCH(TYPE, NAME, EMBER_PRIVATE_INTEGRAL_CASES(__VA_ARGS__) \
                                       EMBER_PRIVATE_FLOATING_CASES(__VA_ARGS__))

// Every dtype (quantized ones excepted).
#define EMBER_DISPATCH_ALL_TYPES(TYPE, NAME, ...)                        \
  EMBER_PRIVATE_SWITCH(TYPE, NAME, EMBER_PRIVATE_INTEGRAL_CASES(__VA_ARGS__) \
                                       EMBER_PRIVATE_FLOATING_CASES(__VA_ARGS__) \
                                           EMBER_PRIVATE_CASE(Bool, bool, __VA_ARGS__))

#endif  // EMBER_TENSOR_DISPATCH_H_
