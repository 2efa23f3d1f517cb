#include "tensorboard/proto_encoder.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "tensorboard/testing/event_reader.h"

namespace ember {
namespace tensorboard {
namespace {

using testing::WireMessage;

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int v : b) s.push_back(static_cast<char>(v));
  return s;
}

TEST(ProtoEncoderTest, WireBytes) {
  std::string out;
  ProtoEncoder e(&out);
  e.add_varint(1, 150);
  EXPECT_EQ(out, bytes({0x08, 0x96, 0x01}));  // the encoding guide's example
  out.clear();
  e.add_bytes(2, "testing");
  EXPECT_EQ(out, bytes({0x12, 0x07}) + "testing");
  out.clear();
  e.add_double(1, 1.0);
  EXPECT_EQ(out, bytes({0x09, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F}));
  out.clear();
  e.add_float(2, -2.0f);
  EXPECT_EQ(out, bytes({0x15, 0, 0, 0, 0xC0}));
  out.clear();
  e.add_varint(2, -1);  // int64 -1: ten bytes
  EXPECT_EQ(out, bytes({0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}));
  out.clear();
  e.add_varint(16, 1);  // a two-byte key
  EXPECT_EQ(out, bytes({0x80, 0x01, 0x01}));
}

TEST(ProtoEncoderTest, DefaultsAreLeftOutUnlessPresenceIsExplicit) {
  std::string out;
  ProtoEncoder e(&out);
  e.add_varint(1, 0);
  e.add_double(2, 0.0);
  e.add_float(3, 0.0f);
  e.add_bytes(4, "");
  e.add_packed_doubles(5, {});
  EXPECT_EQ(out, "");
  e.add_float(2, 0.0f, Presence::kExplicit);
  e.add_bytes(8, "", Presence::kExplicit);
  e.add_message(9, std::string());
  EXPECT_EQ(out, bytes({0x15, 0, 0, 0, 0, 0x42, 0x00, 0x4A, 0x00}));
}

TEST(ProtoEncoderTest, NestedAndPackedRoundTrip) {
  std::string out;
  ProtoEncoder e(&out);
  e.add_double(1, 1700000000.25);
  e.add_varint(2, std::numeric_limits<int64_t>::max());
  e.add_message(5, [](ProtoEncoder& summary) {
    summary.add_message(1, [](ProtoEncoder& value) {
      value.add_bytes(1, "loss");
      value.add_float(2, 0.5f, Presence::kExplicit);
    });
  });
  e.add_packed_doubles(6, {1.5, -0.0, 1e300});
  e.add_packed_floats(7, {1.0f, 3.5f});
  WireMessage m(out);
  EXPECT_EQ(m.fixed_double(1), 1700000000.25);
  EXPECT_EQ(static_cast<int64_t>(m.varint(2)), std::numeric_limits<int64_t>::max());
  WireMessage value = m.message(5).message(1);
  EXPECT_EQ(value.bytes(1), "loss");
  EXPECT_EQ(value.fixed_float(2), 0.5f);
  EXPECT_EQ(m.packed_doubles(6), (std::vector<double>{1.5, -0.0, 1e300}));
  EXPECT_EQ(m.packed_floats(7), (std::vector<float>{1.0f, 3.5f}));
}

}  // namespace
}  // namespace tensorboard
}  // namespace ember
