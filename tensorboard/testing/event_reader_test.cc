// The test-only reader itself: its CRC-32C against published test vectors,
// its TFRecord reader on records framed here by hand (and refusing damaged
// ones), its wire decoder on bytes from the protobuf encoding guide.
#include "tensorboard/testing/event_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

namespace ember {
namespace tensorboard {
namespace testing {
namespace {

TEST(Crc32cBitwiseTest, KnownVectors) {
  // The check value of CRC-32C, and RFC 3720 (iSCSI) B.4's vectors.
  EXPECT_EQ(crc32c_bitwise("123456789"), 0xE3069283u);
  EXPECT_EQ(crc32c_bitwise(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(crc32c_bitwise(std::string(32, '\xff')), 0x62A8AB43u);
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(static_cast<char>(i));
    descending.push_back(static_cast<char>(31 - i));
  }
  EXPECT_EQ(crc32c_bitwise(ascending), 0x46DD794Eu);
  EXPECT_EQ(crc32c_bitwise(descending), 0x113FDB5Cu);
  EXPECT_EQ(crc32c_bitwise(""), 0u);
}

TEST(Crc32cBitwiseTest, MaskIsRotateRight15PlusConstant) {
  EXPECT_EQ(mask_crc(0), 0xa282ead8u);
  EXPECT_EQ(mask_crc(0x00008000u), 1u + 0xa282ead8u);
  EXPECT_EQ(mask_crc(1), (1u << 17) + 0xa282ead8u);
}

std::string le(uint64_t v, int bytes) {
  std::string s;
  for (int i = 0; i < bytes; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
  return s;
}

std::string record(const std::string& data) {
  const std::string header = le(data.size(), 8);
  return header + le(mask_crc(crc32c_bitwise(header)), 4) + data +
         le(mask_crc(crc32c_bitwise(data)), 4);
}

class RecordFileTest : public ::testing::Test {
 protected:
  void write(const std::string& bytes) { std::ofstream(path_, std::ios::binary) << bytes; }
  void TearDown() override { std::remove(path_.c_str()); }
  std::string path_ = ::testing::TempDir() + "/records-" + std::to_string(::getpid());
};

TEST_F(RecordFileTest, ReadsRecordsAndChecksBothCrcs) {
  write(record("abc") + record("") + record(std::string(300, 'x')));
  const auto records = read_records(path_);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0], "abc");
  EXPECT_EQ(records[1], "");
  EXPECT_EQ(records[2], std::string(300, 'x'));

  std::string bad_length = record("abc");
  bad_length[8] ^= 1;  // the length's CRC
  write(bad_length);
  EXPECT_THROW(read_records(path_), std::runtime_error);
  std::string bad_data = record("abc");
  bad_data[13] ^= 4;  // a data byte
  write(bad_data);
  EXPECT_THROW(read_records(path_), std::runtime_error);
  write(record("abc").substr(0, 15));  // torn
  EXPECT_THROW(read_records(path_), std::runtime_error);
}

TEST(WireMessageTest, DecodesTheEncodingGuidesExamples) {
  // field 1 = 150; field 2 = "testing"; field 3 = fixed64; field 4 = fixed32.
  const std::string bytes = std::string("\x08\x96\x01", 3) + "\x12\x07testing" +
                            "\x19" + le(0x3FF0000000000000ull, 8) + "\x25" + le(0x40490FDBu, 4);
  WireMessage m(bytes);
  EXPECT_EQ(m.varint(1), 150u);
  EXPECT_EQ(m.bytes(2), "testing");
  EXPECT_EQ(m.fixed_double(3), 1.0);
  EXPECT_FLOAT_EQ(m.fixed_float(4), 3.14159274f);
  EXPECT_EQ(m.numbers(), (std::set<int>{1, 2, 3, 4}));
  EXPECT_THROW(m.expect_only({1, 2, 3}, "test"), std::runtime_error);
  EXPECT_THROW(m.bytes(1), std::runtime_error);  // wrong wire type
  EXPECT_EQ(m.varint(9), 0u);                     // absent: the default
  // A varint running past the end, a length past the end.
  EXPECT_THROW(WireMessage(std::string("\x08\x96", 2)), std::runtime_error);
  EXPECT_THROW(WireMessage(std::string("\x12\x09short", 7)), std::runtime_error);
}

TEST(WireMessageTest, PackedAndRepeated) {
  const std::string bytes = "\x32\x10" + le(0x3FF0000000000000ull, 8) +
                            le(0xC000000000000000ull, 8) + "\x0a\x01" + "a" +
                            std::string("\x0a\x00", 2);
  WireMessage m(bytes);
  EXPECT_EQ(m.packed_doubles(6), (std::vector<double>{1.0, -2.0}));
  EXPECT_EQ(m.all_bytes(1), (std::vector<std::string>{"a", ""}));
  EXPECT_EQ(m.count(1), 2);
}

}  // namespace
}  // namespace testing
}  // namespace tensorboard
}  // namespace ember
