#ifndef EMBER_DISTRIBUTED_TCP_STORE_WIRE_H_
#define EMBER_DISTRIBUTED_TCP_STORE_WIRE_H_

// Internal: the encoding of Note [TCPStore wire protocol] (tcp_store.h),
// shared by the client, the server and the tests that speak it by hand.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tensor/error.h"

namespace ember::distributed::wire {

constexpr char kMagic[] = "ember-tcpstore";
constexpr uint32_t kVersion = 1;

enum class Op : uint8_t {
  kHello = 1,
  kSet = 2,
  kGet = 3,  // waits for the key
  kAdd = 4,
  kCompareSet = 5,
  kCheck = 6,
  kWait = 7,
  kDelete = 8,
  kNumKeys = 9,
};

enum class Status : uint8_t { kOk = 0, kTimeout = 1, kError = 2 };

// A malformed message.
class WireError : public Error {
 public:
  using Error::Error;
};

class Writer {
 public:
  Writer() { buf_.resize(4); }  // room for the frame length
  void u8(uint8_t v) { buf_.push_back(v); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) buf_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void i64(int64_t v) {
    uint64_t u = static_cast<uint64_t>(v);
    for (int i = 0; i < 8; ++i) buf_.push_back(static_cast<uint8_t>(u >> (8 * i)));
  }
  void bytes(const void* p, size_t n) {
    u32(static_cast<uint32_t>(n));
    const uint8_t* b = static_cast<const uint8_t*>(p);
    buf_.insert(buf_.end(), b, b + n);
  }
  void str(const std::string& s) { bytes(s.data(), s.size()); }
  void vec(const std::vector<uint8_t>& v) { bytes(v.data(), v.size()); }
  // The frame: the payload's length, then the payload.
  std::vector<uint8_t> finish() {
    uint32_t n = static_cast<uint32_t>(buf_.size() - 4);
    for (int i = 0; i < 4; ++i) buf_[i] = static_cast<uint8_t>(n >> (8 * i));
    return std::move(buf_);
  }

 private:
  std::vector<uint8_t> buf_;
};

inline uint32_t load_u32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// Reads one payload; every read is bounds-checked.
class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  uint8_t u8() {
    need(1);
    return *p_++;
  }
  uint32_t u32() {
    need(4);
    uint32_t v = load_u32(p_);
    p_ += 4;
    return v;
  }
  int64_t i64() {
    need(8);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(p_[i]) << (8 * i);
    p_ += 8;
    return static_cast<int64_t>(v);
  }
  std::string str() {
    uint32_t n = u32();
    need(n);
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  std::vector<uint8_t> vec() {
    uint32_t n = u32();
    need(n);
    std::vector<uint8_t> v(p_, p_ + n);
    p_ += n;
    return v;
  }
  // A count of items that each take at least min_item_bytes: bounded by the
  // bytes left, so a forged count cannot make the reader allocate.
  uint32_t count(size_t min_item_bytes) {
    uint32_t n = u32();
    if (static_cast<uint64_t>(n) * min_item_bytes > static_cast<uint64_t>(end_ - p_)) {
      throw WireError("item count overruns the frame");
    }
    return n;
  }
  void done() const {
    if (p_ != end_) throw WireError("trailing bytes after the message");
  }

 private:
  void need(size_t n) const {
    if (static_cast<size_t>(end_ - p_) < n) throw WireError("field overruns the frame");
  }
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace ember::distributed::wire

#endif  // EMBER_DISTRIBUTED_TCP_STORE_WIRE_H_
