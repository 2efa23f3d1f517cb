#ifndef EMBER_TENSORBOARD_PROTO_ENCODER_H_
#define EMBER_TENSORBOARD_PROTO_ENCODER_H_

// The protocol-buffer wire format, for writing the few messages an event
// file holds (Event, Summary, HistogramProto, TensorProto, the plugins'
// data) without a protobuf dependency.
//
// Fields are appended in the order the caller writes them; write them in
// field-number order, as protobuf's serializers do, and the bytes are the
// ones Python's protobuf produces. proto3 fields of implicit presence are
// left out when they hold their default (0, "", no elements), as those
// serializers do; members of a oneof and elements of repeated fields are
// always written (Presence::kExplicit), since their presence is the value.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ember {
namespace tensorboard {

enum class Presence { kImplicit, kExplicit };

class ProtoEncoder {
 public:
  // Appends to *out, which must outlive the encoder.
  explicit ProtoEncoder(std::string* out) : out_(out) {}

  // int32, int64, uint32, uint64, enums and bools: a varint (negative
  // numbers in ten bytes, as protobuf writes int32 and int64).
  void add_varint(int field, int64_t v, Presence p = Presence::kImplicit);
  void add_double(int field, double v, Presence p = Presence::kImplicit);
  void add_float(int field, float v, Presence p = Presence::kImplicit);
  // string and bytes.
  void add_bytes(int field, std::string_view v, Presence p = Presence::kImplicit);
  // A submessage already serialized. Message fields have explicit presence:
  // an empty message is still written.
  void add_message(int field, std::string_view serialized) {
    add_bytes(field, serialized, Presence::kExplicit);
  }
  // A submessage built by `build(ProtoEncoder&)`.
  template <typename Build,
            typename = std::enable_if_t<std::is_invocable_v<Build&, ProtoEncoder&>>>
  void add_message(int field, Build&& build) {
    std::string body;
    ProtoEncoder sub(&body);
    build(sub);
    add_message(field, body);
  }
  // Packed repeated doubles and floats (nothing for no elements).
  void add_packed_doubles(int field, const std::vector<double>& v);
  void add_packed_floats(int field, const std::vector<float>& v);

 private:
  void tag(int field, int wire_type);
  void varint(uint64_t v);
  // A double (width 8) or float (width 4) little-endian, as its bits.
  void fixed(const void* value, int width);
  // `count` elements of `width` (4 or 8) bytes, packed.
  void add_packed_fixed(int field, const void* data, size_t count, int width);

  std::string* out_;
};

}  // namespace tensorboard
}  // namespace ember

#endif  // EMBER_TENSORBOARD_PROTO_ENCODER_H_
