#include "tensorboard/proto_encoder.h"

#include <cstring>

namespace ember {
namespace tensorboard {

namespace {
// Wire types.
constexpr int kVarint = 0;
constexpr int kFixed64 = 1;
constexpr int kLengthDelimited = 2;
constexpr int kFixed32 = 5;
}  // namespace

void ProtoEncoder::varint(uint64_t v) {
  while (v >= 0x80) {
    out_->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out_->push_back(static_cast<char>(v));
}

void ProtoEncoder::tag(int field, int wire_type) {
  varint((static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(wire_type));
}

void ProtoEncoder::fixed32(uint32_t v) {
  for (int i = 0; i < 4; ++i) out_->push_back(static_cast<char>(v >> (8 * i)));
}

void ProtoEncoder::fixed64(uint64_t v) {
  for (int i = 0; i < 8; ++i) out_->push_back(static_cast<char>(v >> (8 * i)));
}

void ProtoEncoder::add_varint(int field, int64_t v, Presence p) {
  if (v == 0 && p == Presence::kImplicit) return;
  tag(field, kVarint);
  varint(static_cast<uint64_t>(v));
}

void ProtoEncoder::add_double(int field, double v, Presence p) {
  if (v == 0 && p == Presence::kImplicit) return;
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  tag(field, kFixed64);
  fixed64(bits);
}

void ProtoEncoder::add_float(int field, float v, Presence p) {
  if (v == 0 && p == Presence::kImplicit) return;
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  tag(field, kFixed32);
  fixed32(bits);
}

void ProtoEncoder::add_bytes(int field, std::string_view v, Presence p) {
  if (v.empty() && p == Presence::kImplicit) return;
  tag(field, kLengthDelimited);
  varint(v.size());
  out_->append(v.data(), v.size());
}

void ProtoEncoder::add_packed_doubles(int field, const std::vector<double>& v) {
  if (v.empty()) return;
  tag(field, kLengthDelimited);
  varint(v.size() * 8);
  for (double d : v) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    fixed64(bits);
  }
}

void ProtoEncoder::add_packed_floats(int field, const std::vector<float>& v) {
  if (v.empty()) return;
  tag(field, kLengthDelimited);
  varint(v.size() * 4);
  for (float f : v) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    fixed32(bits);
  }
}

}  // namespace tensorboard
}  // namespace ember
