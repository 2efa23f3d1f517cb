#include "tensor/crc32c.h"

#include <string>

#include <gtest/gtest.h>

namespace ember {
namespace {

// Check values from RFC 3720 (iSCSI), appendix B.4, and the usual
// "123456789" check value of CRC-32C.
TEST(Crc32cTest, KnownVectors) {
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(crc32c(std::string(32, '\xff')), 0x62A8AB43u);
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(static_cast<char>(i));
    descending.push_back(static_cast<char>(31 - i));
  }
  EXPECT_EQ(crc32c(ascending), 0x46DD794Eu);
  EXPECT_EQ(crc32c(descending), 0x113FDB5Cu);
  EXPECT_EQ(crc32c(""), 0u);
}

TEST(Crc32cTest, ContinuesAcrossPieces) {
  const std::string s = "The quick brown fox jumps over the lazy dog, 0123456789 times.";
  for (size_t cut = 0; cut <= s.size(); ++cut) {
    EXPECT_EQ(crc32c(s.substr(cut), crc32c(s.substr(0, cut))), crc32c(s)) << cut;
  }
}

}  // namespace
}  // namespace ember
