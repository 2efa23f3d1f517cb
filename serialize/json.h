#ifndef EMBER_SERIALIZE_JSON_H_
#define EMBER_SERIALIZE_JSON_H_

// A small, strict JSON reader and writer for safetensors headers. Strict
// means RFC 8259 and nothing more: no comments, no trailing commas, no
// NaN/Infinity, no leading zeros, valid UTF-8 and escapes only, duplicate
// object keys rejected, nesting at most kMaxDepth deep. Every error is an
// ember::Error that says what was wrong and at which byte.
//
// Written here rather than taken from a library: the header grammar is tiny,
// the parser must be hardened against hostile input (it is fuzzed, see
// safetensors_fuzzer.cc), and Debian's JSON libraries are either heavy
// header-only templates or lenient.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ember {
namespace json {

constexpr int kMaxDepth = 64;

class Value {
 public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Kind kind() const { return kind_; }
  bool is_object() const { return kind_ == Kind::Object; }
  bool is_array() const { return kind_ == Kind::Array; }
  bool is_string() const { return kind_ == Kind::String; }
  bool is_number() const { return kind_ == Kind::Number; }

  bool boolean() const { return bool_; }
  // The number's text, exactly as written (numbers are validated but not
  // converted: the caller decides whether it wants an integer).
  const std::string& number_text() const { return text_; }
  const std::string& string() const { return text_; }
  const std::vector<Value>& array() const { return array_; }
  // Members in the order they were written.
  const std::vector<std::pair<std::string, Value>>& object() const { return object_; }
  // nullptr when absent.
  const Value* find(std::string_view key) const;

  // The number as a non-negative integer that fits in int64; false when it is
  // not a number, has a fraction or exponent, is negative or too large.
  bool as_index(int64_t* out) const;

  // Name of a kind for error messages ("object", "string"...).
  static const char* kind_name(Kind k);

 private:
  friend class Parser;
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  std::string text_;
  std::vector<Value> array_;
  std::vector<std::pair<std::string, Value>> object_;
};

// Parses a whole document (surrounding whitespace allowed). Throws
// ember::Error("invalid JSON at byte N: ...") on anything else.
Value parse(std::string_view text);

// The length of the valid UTF-8 sequence at s[pos] (1 for ASCII), or 0 when
// the bytes there are not one (overlong forms and surrogates included).
// pos < s.size().
size_t utf8_sequence_length(std::string_view s, size_t pos);
bool valid_utf8(std::string_view s);

// Appends `s` as a JSON string literal (quotes included) to `out`. Control
// characters, quotes and backslashes are escaped; other bytes are copied, so
// `s` should be UTF-8.
void append_quoted(std::string* out, std::string_view s);

}  // namespace json
}  // namespace ember

#endif  // EMBER_SERIALIZE_JSON_H_
