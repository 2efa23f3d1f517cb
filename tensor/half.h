#ifndef EMBER_TENSOR_HALF_H_
#define EMBER_TENSOR_HALF_H_

#include <cstdint>
#include <cstring>
#include <limits>

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace ember {

// IEEE 754 binary16. Arithmetic goes through float, as PyTorch's CPU kernels do.
struct Half {
  uint16_t x = 0;
  Half() = default;
  Half(float f) : x(from_float(f)) {}  // NOLINT: implicit like c10::Half
  operator float() const { return to_float(x); }  // NOLINT

  static Half from_bits(uint16_t bits) {
    Half h;
    h.x = bits;
    return h;
  }

  static uint16_t from_float(float f) {
#if defined(__F16C__)
    return _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
#else
    return from_float_portable(f);
#endif
  }
  static float to_float(uint16_t h) {
#if defined(__F16C__)
    return _cvtsh_ss(h);
#else
    return to_float_portable(h);
#endif
  }

  // Round-to-nearest-even conversion, used where F16C is absent.
  static uint16_t from_float_portable(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t abs = u & 0x7fffffffu;
    if (abs >= 0x7f800000u) {  // inf or nan
      return static_cast<uint16_t>(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));
    }
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow
    if (abs < 0x38800000u) {  // subnormal or zero in half
      float af;
      std::memcpy(&af, &abs, 4);
      float scaled = af * 16777216.0f;  // 2^24
      uint32_t r = static_cast<uint32_t>(scaled);
      float rem = scaled - static_cast<float>(r);
      if (rem > 0.5f || (rem == 0.5f && (r & 1u))) ++r;
      return static_cast<uint16_t>(sign | r);
    }
    uint32_t mant_odd = (abs >> 13) & 1u;
    abs += 0xc8000fffu + mant_odd;  // rebias exponent and round to nearest even
    return static_cast<uint16_t>(sign | (abs >> 13));
  }
  static float to_float_portable(uint16_t h) {
    uint32_t sign = (h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t u;
    if (exp == 0) {
      float f = static_cast<float>(mant) * (1.0f / 16777216.0f);
      std::memcpy(&u, &f, 4);
      u |= sign;
    } else if (exp == 31) {
      u = sign | 0x7f800000u | (mant << 13);
    } else {
      u = sign | ((exp + 112) << 23) | (mant << 13);
    }
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

// bfloat16: the top half of a float32, rounded to nearest even.
struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  BFloat16(float f) : x(from_float(f)) {}  // NOLINT
  operator float() const { return to_float(x); }  // NOLINT

  static BFloat16 from_bits(uint16_t bits) {
    BFloat16 b;
    b.x = bits;
    return b;
  }
  static uint16_t from_float(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;  // nan
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
  }
  static float to_float(uint16_t b) {
    uint32_t u = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

}  // namespace ember

namespace std {
template <>
class numeric_limits<ember::Half> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static ember::Half lowest() { return ember::Half::from_bits(0xfbff); }
  static ember::Half max() { return ember::Half::from_bits(0x7bff); }
  static ember::Half min() { return ember::Half::from_bits(0x0400); }
  static ember::Half epsilon() { return ember::Half::from_bits(0x1400); }
  static ember::Half infinity() { return ember::Half::from_bits(0x7c00); }
  static ember::Half quiet_NaN() { return ember::Half::from_bits(0x7e00); }
};
template <>
class numeric_limits<ember::BFloat16> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static ember::BFloat16 lowest() { return ember::BFloat16::from_bits(0xff7f); }
  static ember::BFloat16 max() { return ember::BFloat16::from_bits(0x7f7f); }
  static ember::BFloat16 min() { return ember::BFloat16::from_bits(0x0080); }
  static ember::BFloat16 epsilon() { return ember::BFloat16::from_bits(0x3c00); }
  static ember::BFloat16 infinity() { return ember::BFloat16::from_bits(0x7f80); }
  static ember::BFloat16 quiet_NaN() { return ember::BFloat16::from_bits(0x7fc0); }
};
}  // namespace std

#endif  // EMBER_TENSOR_HALF_H_
