#include "serialize/interop_sample.h"

#include <cstdint>
#include <limits>

#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/shape.h"

namespace ember {
namespace serialize_testing {

NamedTensors interop_sample() {
  using L = std::numeric_limits<int64_t>;
  using I = std::numeric_limits<int32_t>;
  return {
      {"f64", tensor({{0.5, -1.25, 3.0}, {1e300, -0.0, 2.5e-310}}, kDouble)},
      {"f32", arange(12, TensorOptions(kFloat)).reshape({3, 4}) / 8 - 0.75},
      {"f16", tensor({1.5, -2.25, 65504.0, 6.103515625e-05, 0.0}, kDouble).to(kHalf)},
      {"bf16", tensor({1.0, -3.5, 3.3895313892515355e38, 0.0078125}, kDouble).to(kBFloat16)},
      {"i64", tensor({L::min(), L::max(), int64_t{0}, int64_t{-1}}, kLong)},
      {"i32", tensor({{I::min(), 7}, {I::max(), -5}}, kInt)},
      {"i16", tensor({-32768, 32767, 12}, kShort)},
      {"i8", tensor({-128, 127, -1}, kChar)},
      {"u8", tensor({0, 255, 17}, kByte)},
      {"bool", tensor({true, false, true})},
      {"scalar", tensor(2.5, kFloat)},
      {"empty", zeros({0, 3}, kFloat)},
      {"layer.0/\"quoted\" \xc3\xa9", tensor({{1}, {2}}, kLong)},
  };
}

Metadata interop_sample_metadata() {
  return {{"format", "pt"},
          {"note", "tab\there, newline\n"},
          {"unicode", "\xc3\xa9 \xe2\x9c\x93"}};
}

}  // namespace serialize_testing
}  // namespace ember
