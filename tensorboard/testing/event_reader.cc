#include "tensorboard/testing/event_reader.h"

#include <png.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ember {
namespace tensorboard {
namespace testing {

namespace {

std::runtime_error failure(const std::string& what) { return std::runtime_error(what); }

uint64_t read_le(std::string_view s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(s[at + i])) << (8 * i);
  return v;
}

}  // namespace

uint32_t crc32c_bitwise(std::string_view data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char byte : data) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
  }
  return ~crc;
}

uint32_t mask_crc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

std::vector<std::string> read_records(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw failure("cannot open " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string all = ss.str();
  std::vector<std::string> records;
  size_t at = 0;
  while (at < all.size()) {
    if (all.size() - at < 12) throw failure("truncated record header in " + path);
    const std::string_view header(all.data() + at, 8);
    const uint64_t length = read_le(all, at, 8);
    if (read_le(all, at + 8, 4) != mask_crc(crc32c_bitwise(header))) {
      throw failure("bad length CRC at byte " + std::to_string(at) + " of " + path);
    }
    at += 12;
    if (all.size() - at < length + 4) throw failure("truncated record in " + path);
    std::string data = all.substr(at, length);
    if (read_le(all, at + length, 4) != mask_crc(crc32c_bitwise(data))) {
      throw failure("bad data CRC at byte " + std::to_string(at) + " of " + path);
    }
    at += length + 4;
    records.push_back(std::move(data));
  }
  return records;
}

// ---------------------------------------------------------------------------

WireMessage::WireMessage(std::string_view s) {
  size_t at = 0;
  auto varint = [&]() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (at >= s.size() || shift > 63) throw failure("malformed varint");
      const uint8_t b = static_cast<uint8_t>(s[at++]);
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return v;
    }
  };
  while (at < s.size()) {
    Field f;
    const uint64_t key = varint();
    f.number = static_cast<int>(key >> 3);
    f.wire_type = static_cast<int>(key & 7);
    if (f.number == 0) throw failure("field number 0");
    switch (f.wire_type) {
      case 0:
        f.scalar = varint();
        break;
      case 1:
        if (s.size() - at < 8) throw failure("truncated fixed64");
        f.scalar = read_le(s, at, 8);
        at += 8;
        break;
      case 2: {
        const uint64_t n = varint();
        if (s.size() - at < n) throw failure("truncated length-delimited field");
        f.bytes = std::string(s.substr(at, n));
        at += n;
        break;
      }
      case 5:
        if (s.size() - at < 4) throw failure("truncated fixed32");
        f.scalar = read_le(s, at, 4);
        at += 4;
        break;
      default:
        throw failure("unexpected wire type " + std::to_string(f.wire_type));
    }
    fields_.push_back(std::move(f));
  }
}

std::set<int> WireMessage::numbers() const {
  std::set<int> n;
  for (const Field& f : fields_) n.insert(f.number);
  return n;
}

void WireMessage::expect_only(const std::set<int>& allowed, const char* what) const {
  for (const Field& f : fields_) {
    if (allowed.count(f.number) == 0) {
      throw failure(std::string(what) + " has an unexpected field " + std::to_string(f.number));
    }
  }
}

bool WireMessage::has(int n) const { return count(n) > 0; }

int WireMessage::count(int n) const {
  return static_cast<int>(
      std::count_if(fields_.begin(), fields_.end(), [&](const Field& f) { return f.number == n; }));
}

const WireMessage::Field* WireMessage::last(int n, int wire_type) const {
  const Field* found = nullptr;
  for (const Field& f : fields_) {
    if (f.number != n) continue;
    if (f.wire_type != wire_type) {
      throw failure("field " + std::to_string(n) + " has wire type " +
                    std::to_string(f.wire_type) + ", expected " + std::to_string(wire_type));
    }
    found = &f;
  }
  return found;
}

uint64_t WireMessage::varint(int n) const {
  const Field* f = last(n, 0);
  return f ? f->scalar : 0;
}

double WireMessage::fixed_double(int n) const {
  const Field* f = last(n, 1);
  double d = 0;
  if (f) std::memcpy(&d, &f->scalar, 8);
  return d;
}

float WireMessage::fixed_float(int n) const {
  const Field* f = last(n, 5);
  float v = 0;
  if (f) {
    const uint32_t bits = static_cast<uint32_t>(f->scalar);
    std::memcpy(&v, &bits, 4);
  }
  return v;
}

std::string WireMessage::bytes(int n) const {
  const Field* f = last(n, 2);
  return f ? f->bytes : "";
}

std::vector<std::string> WireMessage::all_bytes(int n) const {
  std::vector<std::string> out;
  last(n, 2);  // checks the wire types
  for (const Field& f : fields_) {
    if (f.number == n) out.push_back(f.bytes);
  }
  return out;
}

std::vector<WireMessage> WireMessage::messages(int n) const {
  std::vector<WireMessage> out;
  for (const std::string& b : all_bytes(n)) out.emplace_back(b);
  return out;
}

template <typename T>
std::vector<T> WireMessage::packed(int n) const {
  std::vector<T> out;
  for (const std::string& b : all_bytes(n)) {
    if (b.size() % sizeof(T) != 0) {
      throw failure("packed field " + std::to_string(n) + " of " + std::to_string(b.size()) +
                    " bytes, not a multiple of " + std::to_string(sizeof(T)));
    }
    for (size_t i = 0; i < b.size(); i += sizeof(T)) {
      const uint64_t bits = read_le(b, i, sizeof(T));
      T v;
      std::memcpy(&v, &bits, sizeof(T));  // little-endian hosts only, as the tests run
      out.push_back(v);
    }
  }
  return out;
}

std::vector<double> WireMessage::packed_doubles(int n) const { return packed<double>(n); }
std::vector<float> WireMessage::packed_floats(int n) const { return packed<float>(n); }

// ---------------------------------------------------------------------------

namespace {

TensorValue decode_tensor(const WireMessage& m) {
  m.expect_only({1, 2, 5, 8}, "TensorProto");
  TensorValue t;
  t.dtype = static_cast<int64_t>(m.varint(1));
  if (m.has(2)) {
    const WireMessage shape = m.message(2);
    shape.expect_only({2}, "TensorShapeProto");
    for (const WireMessage& dim : shape.messages(2)) {
      dim.expect_only({1}, "TensorShapeProto.Dim");
      t.shape.push_back(static_cast<int64_t>(dim.varint(1)));
    }
  }
  t.float_val = m.packed_floats(5);
  t.string_val = m.all_bytes(8);
  return t;
}

Value decode_value(const WireMessage& m) {
  m.expect_only({1, 2, 4, 5, 8, 9}, "Summary.Value");
  Value v;
  v.tag = m.bytes(1);
  int kinds = 0;
  if (m.has(2)) {
    v.simple_value = m.fixed_float(2);
    ++kinds;
  }
  if (m.has(4)) {
    const WireMessage i = m.message(4);
    i.expect_only({1, 2, 3, 4}, "Summary.Image");
    v.image = ImageValue{static_cast<int64_t>(i.varint(1)), static_cast<int64_t>(i.varint(2)),
                         static_cast<int64_t>(i.varint(3)), i.bytes(4)};
    ++kinds;
  }
  if (m.has(5)) {
    const WireMessage h = m.message(5);
    h.expect_only({1, 2, 3, 4, 5, 6, 7}, "HistogramProto");
    v.histo = HistogramValue{h.fixed_double(1), h.fixed_double(2), h.fixed_double(3),
                             h.fixed_double(4), h.fixed_double(5), h.packed_doubles(6),
                             h.packed_doubles(7)};
    ++kinds;
  }
  if (m.has(8)) {
    v.tensor = decode_tensor(m.message(8));
    ++kinds;
  }
  if (kinds > 1) throw failure("Summary.Value sets several members of its oneof");
  if (m.has(9)) {
    const WireMessage md = m.message(9);
    md.expect_only({1}, "SummaryMetadata");
    const WireMessage pd = md.message(1);
    pd.expect_only({1, 2}, "SummaryMetadata.PluginData");
    v.has_metadata = true;
    v.plugin_name = pd.bytes(1);
    v.plugin_content = pd.bytes(2);
  }
  return v;
}

}  // namespace

Event decode_event(std::string_view bytes) {
  const WireMessage m(bytes);
  m.expect_only({1, 2, 3, 5, 7}, "Event");
  Event e;
  e.wall_time = m.fixed_double(1);
  e.step = static_cast<int64_t>(m.varint(2));
  const int what = m.count(3) + m.count(5) + m.count(7);
  if (what != 1) throw failure("an Event sets " + std::to_string(what) + " members of 'what'");
  if (m.has(3)) e.file_version = m.bytes(3);
  if (m.has(5)) {
    const WireMessage s = m.message(5);
    s.expect_only({1}, "Summary");
    e.summary.emplace();
    for (const WireMessage& v : s.messages(1)) e.summary->push_back(decode_value(v));
  }
  if (m.has(7)) {
    const WireMessage log = m.message(7);
    log.expect_only({1}, "SessionLog");
    e.session_log_status = static_cast<int64_t>(log.varint(1));
  }
  return e;
}

std::vector<Event> read_events(const std::string& path) {
  std::vector<Event> events;
  for (const std::string& r : read_records(path)) events.push_back(decode_event(r));
  return events;
}

std::vector<std::string> event_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.rfind("events.out.tfevents.", 0) == 0) {
      out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> subdirectories(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_directory()) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

DecodedPng decode_png(const std::string& png) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, png.data(), png.size())) {
    throw failure(std::string("not a PNG: ") + image.message);
  }
  image.format &= ~static_cast<png_uint_32>(PNG_FORMAT_FLAG_LINEAR);
  DecodedPng out;
  out.width = image.width;
  out.height = image.height;
  out.channels = PNG_IMAGE_SAMPLE_CHANNELS(image.format);
  out.pixels.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr)) {
    throw failure(std::string("PNG decoding failed: ") + image.message);
  }
  return out;
}

}  // namespace testing
}  // namespace tensorboard
}  // namespace ember
