#ifndef EMBER_TENSOR_CRC32C_H_
#define EMBER_TENSOR_CRC32C_H_

// CRC-32C (Castagnoli, the polynomial 0x1EDC6F41 reflected: 0x82F63B78), as
// iSCSI, ext4, TFRecord and TensorBoard's event files use it. The SSE4.2
// instruction computes it where the build targets x86-64-v2 or later (this
// project's x86-64-v3 does); elsewhere a table does.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ember {

// The CRC-32C of `size` bytes at `data`, continuing from `crc` (the value
// returned for the bytes before them; 0 to start):
//   crc32c(b, 9) == 0xE3069283 for b = "123456789".
uint32_t crc32c(const void* data, size_t size, uint32_t crc = 0);
inline uint32_t crc32c(std::string_view s, uint32_t crc = 0) {
  return crc32c(s.data(), s.size(), crc);
}

}  // namespace ember

#endif  // EMBER_TENSOR_CRC32C_H_
