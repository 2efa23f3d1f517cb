#ifndef EMBER_DISTRIBUTED_TCP_STORE_WIRE_H_
#define EMBER_DISTRIBUTED_TCP_STORE_WIRE_H_

// Internal: PyTorch's TCPStore wire protocol (Note [TCPStore wire protocol]
// in tcp_store.h), shared by the client, the server and the tests that
// speak it by hand.
//
// A request is a query byte and its fields, with no framing: strings and
// byte vectors are a u64 length then the bytes, counts are u64, add's delta
// an i64, validate's magic and ping's nonce u32, all little-endian (PyTorch
// writes its native size_t and integers; every platform it runs on is
// little-endian). Replies are a vector (get, compare_set, each of
// multi_get's keys), an i64 (add, num_keys, delete_key), a u32 (ping) or one
// byte (check: READY 0 / NOT_READY 1; wait: STOP_WAITING 0 / WAIT_CANCELED
// 1). set, append, multi_set and validate have no reply.
//
// Two dialects: PyTorch 2.x ("modern": a connection starts with VALIDATE
// and its magic; query numbers below) and PyTorch 1.13 ("legacy": no
// validation, no append/multi_get/multi_set/cancel_wait/ping, and the
// numbers shifted by one because VALIDATE did not exist).

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensor/error.h"

namespace ember::distributed::wire {

constexpr uint32_t kValidationMagic = 0x3C85F7CE;

// PyTorch 2.x's c10d::detail::QueryType.
enum class Query : uint8_t {
  kValidate = 0,
  kSet = 1,
  kCompareSet = 2,
  kGet = 3,
  kAdd = 4,
  kCheck = 5,
  kWait = 6,
  kGetNumKeys = 7,
  kDeleteKey = 8,
  kAppend = 9,
  kMultiGet = 10,
  kMultiSet = 11,
  kCancelWait = 12,
  kPing = 13,
};

enum class Dialect : uint8_t { kModern, kLegacy };

constexpr uint8_t kCheckReady = 0;
constexpr uint8_t kCheckNotReady = 1;
constexpr uint8_t kStopWaiting = 0;
constexpr uint8_t kWaitCanceled = 1;

// PyTorch 1.13's numbering: SET 0, COMPARE_SET 1, GET 2, ADD 3, CHECK 4,
// WAIT 5, GETNUMKEYS 6, WATCH_KEY 7, DELETE_KEY 8.
constexpr uint8_t kLegacyWatchKey = 7;
inline std::optional<uint8_t> legacy_byte(Query q) {
  const uint8_t v = static_cast<uint8_t>(q);
  if (q >= Query::kSet && q <= Query::kGetNumKeys) return v - 1;
  if (q == Query::kDeleteKey) return 8;
  return std::nullopt;
}
inline std::optional<Query> from_legacy_byte(uint8_t b) {
  if (b <= 6) return static_cast<Query>(b + 1);
  if (b == 8) return Query::kDeleteKey;
  return std::nullopt;  // WATCH_KEY (7) and anything else
}

// A malformed request.
class WireError : public Error {
 public:
  using Error::Error;
};

class Writer {
 public:
  // A request: its query byte in the dialect's numbering.
  Writer(Query q, Dialect d) {
    if (d == Dialect::kModern) {
      buf_.push_back(static_cast<uint8_t>(q));
    } else {
      auto b = legacy_byte(q);
      EMBER_CHECK(b.has_value(), "TCPStore: PyTorch 1.13's protocol has no query ",
                  static_cast<int>(q));
      buf_.push_back(*b);
    }
  }
  Writer() = default;  // a reply
  void u8(uint8_t v) { buf_.push_back(v); }
  void u32(uint32_t v) { le(v, 4); }
  void u64(uint64_t v) { le(v, 8); }
  void i64(int64_t v) { le(static_cast<uint64_t>(v), 8); }
  void bytes(const void* p, size_t n) {
    u64(n);
    const uint8_t* b = static_cast<const uint8_t*>(p);
    buf_.insert(buf_.end(), b, b + n);
  }
  void str(const std::string& s) { bytes(s.data(), s.size()); }
  void vec(const std::vector<uint8_t>& v) { bytes(v.data(), v.size()); }
  std::vector<uint8_t>& data() { return buf_; }
  std::vector<uint8_t> finish() { return std::move(buf_); }

 private:
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) buf_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  std::vector<uint8_t> buf_;
};

inline uint64_t load_le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

// Reads a request from bytes that may be incomplete: a field that is not all
// there yet throws NeedMore (read again when more has arrived); a length over
// `limit`, or a request longer than `limit` in all, throws WireError before
// anything of that size is allocated.
class Reader {
 public:
  struct NeedMore {};
  Reader(const uint8_t* p, size_t n, uint64_t limit) : begin_(p), p_(p), end_(p + n), limit_(limit) {}
  uint8_t u8() {
    need(1);
    return *p_++;
  }
  uint32_t u32() { return static_cast<uint32_t>(fixed(4)); }
  uint64_t u64() { return fixed(8); }
  int64_t i64() { return static_cast<int64_t>(fixed(8)); }
  std::string str() {
    uint64_t n = length();
    need(n);
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  std::vector<uint8_t> vec() {
    uint64_t n = length();
    need(n);
    std::vector<uint8_t> v(p_, p_ + n);
    p_ += n;
    return v;
  }
  // A count of items that each take at least min_item_bytes; at most max.
  uint64_t count(uint64_t min_item_bytes, uint64_t max) {
    uint64_t n = u64();
    if (n > max || n * min_item_bytes > limit_) {
      throw WireError(absl::StrCat("a count of ", n, " items, over the limit of ",
                               std::min<uint64_t>(max, limit_ / min_item_bytes)));
    }
    return n;
  }
  size_t consumed() const { return static_cast<size_t>(p_ - begin_); }

 private:
  uint64_t length() {
    uint64_t n = u64();
    if (n > limit_ || consumed() + n > limit_) {
      throw WireError(absl::StrCat("a field of ", n, " bytes, over the limit of ", limit_,
                               " bytes for one request"));
    }
    return n;
  }
  uint64_t fixed(int n) {
    need(n);
    uint64_t v = load_le(p_, n);
    p_ += n;
    return v;
  }
  void need(uint64_t n) const {
    if (static_cast<uint64_t>(end_ - p_) < n) throw NeedMore{};
  }
  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  uint64_t limit_;
};

// One parsed request (its query in modern numbering).
struct Request {
  Query query = Query::kValidate;
  std::vector<std::string> keys;
  std::vector<std::vector<uint8_t>> values;  // set/append/multi_set: one per key; compare_set: expected, desired
  int64_t delta = 0;                         // add
  uint32_t word = 0;                         // validate's magic, ping's nonce
};

// The most keys one check/wait/multi_get/multi_set may name (PyTorch's
// MAX_KEY_COUNT).
constexpr uint64_t kMaxKeyCount = 128 * 1024;

// Parses the request at the start of `r`. Throws Reader::NeedMore or
// WireError.
inline Request parse_request(Reader& r, Dialect d) {
  Request q;
  const uint8_t b = r.u8();
  if (d == Dialect::kModern) {
    if (b > static_cast<uint8_t>(Query::kPing)) {
      throw WireError("unknown query type " + std::to_string(b));
    }
    q.query = static_cast<Query>(b);
  } else {
    auto m = from_legacy_byte(b);
    if (!m) {
      throw WireError(b == kLegacyWatchKey ? std::string("WATCH_KEY is not supported")
                                           : "unknown PyTorch 1.13 query type " + std::to_string(b));
    }
    q.query = *m;
  }
  switch (q.query) {
    case Query::kValidate:
    case Query::kPing:
      q.word = r.u32();
      break;
    case Query::kSet:
    case Query::kAppend:
      q.keys.push_back(r.str());
      q.values.push_back(r.vec());
      break;
    case Query::kCompareSet:
      q.keys.push_back(r.str());
      q.values.push_back(r.vec());
      q.values.push_back(r.vec());
      break;
    case Query::kGet:
    case Query::kDeleteKey:
      q.keys.push_back(r.str());
      break;
    case Query::kAdd:
      q.keys.push_back(r.str());
      q.delta = r.i64();
      break;
    case Query::kCheck:
    case Query::kWait:
    case Query::kMultiGet: {
      const uint64_t n = r.count(8, kMaxKeyCount);
      for (uint64_t i = 0; i < n; ++i) q.keys.push_back(r.str());
      break;
    }
    case Query::kMultiSet: {
      const uint64_t n = r.count(16, kMaxKeyCount);
      for (uint64_t i = 0; i < n; ++i) {
        q.keys.push_back(r.str());
        q.values.push_back(r.vec());
      }
      break;
    }
    case Query::kGetNumKeys:
    case Query::kCancelWait:
      break;
  }
  return q;
}

}  // namespace ember::distributed::wire

#endif  // EMBER_DISTRIBUTED_TCP_STORE_WIRE_H_
