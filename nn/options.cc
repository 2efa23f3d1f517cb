#include "nn/options.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ember {
namespace nn {
namespace detail {

std::string py_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Python's repr: the fewest significant digits that read back as v...
  char buf[40];
  int digits = 1;
  for (; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof(buf), "%.*e", digits - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  // ...in fixed notation for exponents in [-4, 16), else scientific.
  std::string s = buf;
  const size_t e = s.find('e');
  const int exponent = std::atoi(s.c_str() + e + 1);
  if (exponent < -4 || exponent >= 16) {
    std::string mantissa = s.substr(0, e);
    char ebuf[16];
    std::snprintf(ebuf, sizeof(ebuf), "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return mantissa + ebuf;
  }
  const int decimals = std::max(digits - 1 - exponent, 1);
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

std::string py_number(double v) {
  if (v == static_cast<double>(static_cast<int64_t>(v))) {
    return std::to_string(static_cast<int64_t>(v));
  }
  return py_float(v);
}

}  // namespace detail
}  // namespace nn
}  // namespace ember
