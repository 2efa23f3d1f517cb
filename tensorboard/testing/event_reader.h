#ifndef EMBER_TENSORBOARD_TESTING_EVENT_READER_H_
#define EMBER_TENSORBOARD_TESTING_EVENT_READER_H_

// Test-only: reads TensorBoard event files without any of the writer's
// code. Its own CRC-32C (bit by bit), TFRecord reader and protobuf wire
// decoder, and typed views of the messages SummaryWriter writes that
// refuse field numbers those messages do not have, so a wrong number in
// the writer cannot go unseen. Every problem throws std::runtime_error.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ember {
namespace tensorboard {
namespace testing {

// CRC-32C, one bit at a time (reflected polynomial 0x82F63B78).
uint32_t crc32c_bitwise(std::string_view data);
// TFRecord's mask: rotate right 15, add 0xa282ead8.
uint32_t mask_crc(uint32_t crc);

// The records of a TFRecord file, both CRCs of each checked.
std::vector<std::string> read_records(const std::string& path);

// A message split by the wire format only.
class WireMessage {
 public:
  struct Field {
    int number = 0;
    int wire_type = 0;
    uint64_t scalar = 0;  // varint, or the raw bits of a fixed32 / fixed64
    std::string bytes;    // length-delimited
  };

  explicit WireMessage(std::string_view bytes);

  const std::vector<Field>& fields() const { return fields_; }
  std::set<int> numbers() const;
  // Throws unless every field number is in `allowed`.
  void expect_only(const std::set<int>& allowed, const char* what) const;
  bool has(int n) const;
  int count(int n) const;
  // The last occurrence (0 / "" when absent); the wire type is checked.
  uint64_t varint(int n) const;
  double fixed_double(int n) const;
  float fixed_float(int n) const;
  std::string bytes(int n) const;
  WireMessage message(int n) const { return WireMessage(bytes(n)); }
  std::vector<std::string> all_bytes(int n) const;
  std::vector<WireMessage> messages(int n) const;
  std::vector<double> packed_doubles(int n) const;
  std::vector<float> packed_floats(int n) const;

 private:
  const Field* last(int n, int wire_type) const;
  template <typename T>
  std::vector<T> packed(int n) const;
  std::vector<Field> fields_;
};

// TensorProto: dtype 1, tensor_shape 2 (dim 2 {size 1}), float_val 5,
// string_val 8.
struct TensorValue {
  int64_t dtype = 0;
  std::vector<int64_t> shape;
  std::vector<float> float_val;
  std::vector<std::string> string_val;
};

// HistogramProto.
struct HistogramValue {
  double min = 0, max = 0, num = 0, sum = 0, sum_squares = 0;
  std::vector<double> bucket_limit, bucket;
};

// Summary.Image.
struct ImageValue {
  int64_t height = 0, width = 0, colorspace = 0;
  std::string encoded;
};

// Summary.Value: tag 1, simple_value 2, image 4, histo 5, tensor 8,
// metadata 9 (plugin_data 1 {plugin_name 1, content 2}).
struct Value {
  std::string tag;
  bool has_metadata = false;
  std::string plugin_name, plugin_content;
  std::optional<float> simple_value;
  std::optional<ImageValue> image;
  std::optional<HistogramValue> histo;
  std::optional<TensorValue> tensor;
};

// Event: wall_time 1, step 2, file_version 3, summary 5 (value 1),
// session_log 7 (status 1).
struct Event {
  double wall_time = 0;
  int64_t step = 0;
  std::optional<std::string> file_version;
  std::optional<std::vector<Value>> summary;
  std::optional<int64_t> session_log_status;
};

Event decode_event(std::string_view bytes);
std::vector<Event> read_events(const std::string& path);

// The events.out.tfevents.* files directly in `dir`, sorted by name.
std::vector<std::string> event_files(const std::string& dir);
// Subdirectories of `dir`, sorted.
std::vector<std::string> subdirectories(const std::string& dir);

// A PNG read back with libpng, in the format it was stored in (8-bit RGB:
// 3 channels, RGBA: 4).
struct DecodedPng {
  int64_t width = 0, height = 0, channels = 0;
  std::vector<uint8_t> pixels;  // row-major, interleaved
};
DecodedPng decode_png(const std::string& png);

}  // namespace testing
}  // namespace tensorboard
}  // namespace ember

#endif  // EMBER_TENSORBOARD_TESTING_EVENT_READER_H_
