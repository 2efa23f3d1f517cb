#include "tensor/dtype.h"

#include <atomic>

#include "tensor/error.h"

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

}  // namespace ember
