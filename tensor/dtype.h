#ifndef EMBER_TENSOR_DTYPE_H_
#define EMBER_TENSOR_DTYPE_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "tensor/half.h"

namespace ember {

// The element types, in PyTorch's order. QInt8/QUInt8 are the quantized
// types: their storage is int8/uint8 and the tensor carries scale/zero point.
enum class ScalarType : int8_t {
  Byte = 0,  // uint8
  Char,      // int8
  Short,     // int16
  Int,       // int32
  Long,      // int64
  Half,      // float16
  Float,     // float32
  Double,    // float64
  Bool,
  BFloat16,
  QInt8,
  QUInt8,
  Undefined,
};
constexpr int kNumScalarTypes = static_cast<int>(ScalarType::Undefined);

constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kUInt8 = ScalarType::Byte;
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kInt8 = ScalarType::Char;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kInt16 = ScalarType::Short;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt32 = ScalarType::Int;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kInt64 = ScalarType::Long;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kFloat16 = ScalarType::Half;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kFloat32 = ScalarType::Float;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kFloat64 = ScalarType::Double;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kQInt8 = ScalarType::QInt8;
constexpr ScalarType kQUInt8 = ScalarType::QUInt8;
// libtorch's short names (torch/types.h). It has no short name for
// bfloat16, so neither has ember.
constexpr ScalarType kU8 = kUInt8;
constexpr ScalarType kI8 = kInt8;
constexpr ScalarType kI16 = kInt16;
constexpr ScalarType kI32 = kInt32;
constexpr ScalarType kI64 = kInt64;
constexpr ScalarType kF16 = kFloat16;
constexpr ScalarType kF32 = kFloat32;
constexpr ScalarType kF64 = kFloat64;

// Bytes per element.
int64_t element_size(ScalarType t);
// "float32", "int64", ... (what PyTorch prints after "torch.").
const char* dtype_name(ScalarType t);
// "Float", "Long", ... (what PyTorch's error messages use).
const char* scalar_type_name(ScalarType t);
std::ostream& operator<<(std::ostream& os, ScalarType t);

inline bool is_floating_point(ScalarType t) {
  return t == kFloat || t == kDouble || t == kHalf || t == kBFloat16;
}
inline bool is_quantized(ScalarType t) { return t == kQInt8 || t == kQUInt8; }
// Integral types; bool counts only when include_bool is set.
inline bool is_integral(ScalarType t, bool include_bool) {
  return t == kByte || t == kChar || t == kShort || t == kInt || t == kLong ||
         (include_bool && t == kBool);
}
inline bool is_signed(ScalarType t) { return t != kByte && t != kBool && t != kQUInt8; }

// torch.promote_types.
ScalarType promote_types(ScalarType a, ScalarType b);
// torch.can_cast: false when casting would move to a lower category
// (float -> integral, integral -> bool).
bool can_cast(ScalarType from, ScalarType to);

// The default floating dtype (float32 until set_default_dtype changes it).
ScalarType get_default_dtype();
// Accepts float32 / float64 (and float16 / bfloat16) like PyTorch.
void set_default_dtype(ScalarType t);

// C++ type -> ScalarType.
template <typename T>
struct CppTypeToScalarType;
#define EMBER_CPP_TYPE(cpp, st)                          \
  template <>                                            \
  struct CppTypeToScalarType<cpp> {                      \
    static constexpr ScalarType value = ScalarType::st;  \
  };
EMBER_CPP_TYPE(bool, Bool)
EMBER_CPP_TYPE(uint8_t, Byte)
EMBER_CPP_TYPE(int8_t, Char)
EMBER_CPP_TYPE(int16_t, Short)
EMBER_CPP_TYPE(int32_t, Int)
EMBER_CPP_TYPE(int64_t, Long)
EMBER_CPP_TYPE(Half, Half)
EMBER_CPP_TYPE(BFloat16, BFloat16)
EMBER_CPP_TYPE(float, Float)
EMBER_CPP_TYPE(double, Double)
#undef EMBER_CPP_TYPE

template <typename T>
constexpr ScalarType scalar_type_of() {
  return CppTypeToScalarType<T>::value;
}

}  // namespace ember

#endif  // EMBER_TENSOR_DTYPE_H_
