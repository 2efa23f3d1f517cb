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

void ProtoEncoder::fixed(const void* value, int width) {
  uint64_t bits = 0;
  if (width == 8) {
    std::memcpy(&bits, value, 8);
  } else {
    uint32_t bits32;
    std::memcpy(&bits32, value, 4);
    bits = bits32;
  }
  for (int i = 0; i < width; ++i) out_->push_back(static_cast<char>(bits >> (8 * i)));
}

void ProtoEncoder::add_varint(int field, int64_t v, Presence p) {
  if (v == 0 && p == Presence::kImplicit) return;
  tag(field, kVarint);
  varint(static_cast<uint64_t>(v));
}

void ProtoEncoder::add_double(int field, double v, Presence p) {
  if (v == 0 && p == Presence::kImplicit) return;
  tag(field, kFixed64);
  fixed(&v, 8);
}

void ProtoEncoder::add_float(int field, float v, Presence p) {
  if (v == 0 && p == Presence::kImplicit) return;
  tag(field, kFixed32);
  fixed(&v, 4);
}

void ProtoEncoder::add_bytes(int field, std::string_view v, Presence p) {
  if (v.empty() && p == Presence::kImplicit) return;
  tag(field, kLengthDelimited);
  varint(v.size());
  out_->append(v.data(), v.size());
}

void ProtoEncoder::add_packed_fixed(int field, const void* data, size_t count, int width) {
  if (count == 0) return;
  tag(field, kLengthDelimited);
  varint(count * width);
  const char* p = static_cast<const char*>(data);
  for (size_t i = 0; i < count; ++i, p += width) fixed(p, width);
}

void ProtoEncoder::add_packed_doubles(int field, const std::vector<double>& v) {
  add_packed_fixed(field, v.data(), v.size(), 8);
}

void ProtoEncoder::add_packed_floats(int field, const std::vector<float>& v) {
  add_packed_fixed(field, v.data(), v.size(), 4);
}

}  // namespace tensorboard
}  // namespace ember
