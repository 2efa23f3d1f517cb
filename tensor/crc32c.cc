#include "tensor/crc32c.h"

#include <array>
#include <cstring>

#if defined(__SSE4_2__)
#include <nmmintrin.h>
#endif

namespace ember {
namespace {

[[maybe_unused]] const std::array<uint32_t, 256>& table() {
  static const std::array<uint32_t, 256> t = [] {
    std::array<uint32_t, 256> out{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      out[i] = c;
    }
    return out;
  }();
  return t;
}

}  // namespace

uint32_t crc32c(const void* data, size_t size, uint32_t crc) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = ~crc;
#if defined(__SSE4_2__)
  uint64_t c64 = c;
  for (; size >= 8; size -= 8, p += 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c64 = _mm_crc32_u64(c64, word);
  }
  c = static_cast<uint32_t>(c64);
  for (; size > 0; --size, ++p) c = _mm_crc32_u8(c, *p);
#else
  const auto& t = table();
  for (; size > 0; --size, ++p) c = t[(c ^ *p) & 0xFF] ^ (c >> 8);
#endif
  return ~c;
}

}  // namespace ember
