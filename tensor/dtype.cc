#include "tensor/dtype.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>

#include "tensor/error.h"
#include "tensor/scalar.h"

namespace ember {
namespace {

std::atomic<ScalarType> g_default_dtype{kFloat};

struct Info {
  int64_t size;
  const char* name;
  const char* type_name;
};

constexpr Info kInfo[] = {
    {1, "uint8", "Byte"},    {1, "int8", "Char"},     {2, "int16", "Short"},
    {4, "int32", "Int"},     {8, "int64", "Long"},    {2, "float16", "Half"},
    {4, "float32", "Float"}, {8, "float64", "Double"}, {1, "bool", "Bool"},
    {2, "bfloat16", "BFloat16"}, {1, "qint8", "QInt8"}, {1, "quint8", "QUInt8"},
    {0, "undefined", "Undefined"},
};

int rank_in_category(ScalarType t) {
  switch (t) {
    case kByte: return 1;
    case kChar: return 1;
    case kShort: return 2;
    case kInt: return 3;
    case kLong: return 4;
    default: return 0;
  }
}

}  // namespace

int64_t element_size(ScalarType t) { return kInfo[static_cast<int>(t)].size; }
const char* dtype_name(ScalarType t) { return kInfo[static_cast<int>(t)].name; }
const char* scalar_type_name(ScalarType t) { return kInfo[static_cast<int>(t)].type_name; }

std::ostream& operator<<(std::ostream& os, ScalarType t) {
  return os << "torch." << dtype_name(t);
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  EMBER_CHECK(!is_quantized(a) && !is_quantized(b),
              "Promotion for quantized types is not supported, attempted to promote ",
              scalar_type_name(a), " and ", scalar_type_name(b));
  if (a == kBool) return b;
  if (b == kBool) return a;
  bool fa = is_floating_point(a), fb = is_floating_point(b);
  if (fa && fb) {
    if ((a == kHalf && b == kBFloat16) || (a == kBFloat16 && b == kHalf)) return kFloat;
    return element_size(a) >= element_size(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  // Both integral, non-bool.
  if (a == kByte || b == kByte) {
    ScalarType other = a == kByte ? b : a;
    return other == kChar ? kShort : other;
  }
  return rank_in_category(a) >= rank_in_category(b) ? a : b;
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_point(from) && is_integral(to, /*include_bool=*/true)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

ScalarType get_default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }

void set_default_dtype(ScalarType t) {
  EMBER_CHECK_TYPE(is_floating_point(t),
                   "only floating-point types are supported as the default type");
  g_default_dtype.store(t, std::memory_order_relaxed);
}

namespace {

// The name PyTorch's overflow message gives each dtype (C++ type names).
const char* overflow_type_name(ScalarType t) {
  switch (t) {
    case kByte: return "uint8_t";
    case kChar: return "int8_t";
    case kShort: return "int16_t";
    case kInt: return "int";
    case kLong: return "int64_t";
    case kHalf: return "at::Half";
    case kBFloat16: return "at::BFloat16";
    case kFloat: return "float";
    default: return "double";
  }
}

}  // namespace

void check_convertible(const Scalar& value, ScalarType dtype) {
  if (dtype == kBool || value.is_bool() || is_quantized(dtype)) return;
  double lo = 0, hi = 0;
  bool integral = true, is_unsigned = false;
  switch (dtype) {
    case kByte: lo = 0, hi = 255, is_unsigned = true; break;
    case kChar: lo = -128, hi = 127; break;
    case kShort: lo = -32768, hi = 32767; break;
    case kInt: lo = -2147483648.0, hi = 2147483647.0; break;
    case kLong: lo = -9223372036854775808.0, hi = 9223372036854775807.0; break;
    case kHalf: lo = -65504, hi = 65504, integral = false; break;
    case kBFloat16:
      lo = -3.3895313892515355e38, hi = 3.3895313892515355e38, integral = false;
      break;
    case kFloat:
      lo = -std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::max();
      integral = false;
      break;
    default: return;  // double holds every number
  }
  bool overflows;
  if (value.is_integral()) {
    const int64_t v = value.toLong();
    if (is_unsigned && v < 0) {
      // Wrapping from below: -v must not exceed the maximum.
      overflows = -static_cast<double>(v) > hi;
    } else if (dtype == kLong) {
      overflows = false;
    } else {
      overflows = static_cast<double>(v) < lo || static_cast<double>(v) > hi;
    }
  } else {
    const double f = value.toDouble();
    if (std::isnan(f)) {
      overflows = integral;
    } else if (std::isinf(f)) {
      overflows = integral;
    } else {
      // int64's limits as doubles round up to 2^63: compare strictly there.
      overflows = dtype == kLong ? (f < lo || f >= hi) : (f < lo || f > hi);
    }
  }
  EMBER_CHECK(!overflows, "value cannot be converted to type ", overflow_type_name(dtype),
              " without overflow");
}

}  // namespace ember
