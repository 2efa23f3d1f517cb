#ifndef EMBER_DISTRIBUTED_STORE_H_
#define EMBER_DISTRIBUTED_STORE_H_

// The key-value store ranks rendezvous through (torch.distributed.Store):
// TCPStore (tcp_store.h), FileStore (file_store.h), PrefixStore
// (prefix_store.h). Values are bytes. Every blocking call waits at most the
// store's timeout and then throws ember::distributed::TimeoutError naming the
// keys it waited for.

#include <chrono>
#include <memory>
#include <cstdint>
#include <string>
#include <vector>

#include "tensor/error.h"

namespace ember::distributed {

// A wait that ran out of time (store waits, collectives, rendezvous).
class TimeoutError : public Error {
 public:
  using Error::Error;
};

// A peer or a connection failed (closed socket, dead process).
class DistBackendError : public Error {
 public:
  using Error::Error;
};

class Store {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kDefaultTimeout{300000};  // PyTorch's 300 s
  static constexpr std::chrono::milliseconds kNoTimeout{-1};

  explicit Store(std::chrono::milliseconds timeout = kDefaultTimeout) : timeout_(timeout) {}
  virtual ~Store() = default;

  virtual void set(const std::string& key, const std::vector<uint8_t>& value) = 0;
  void set(const std::string& key, const std::string& value) {
    set(key, std::vector<uint8_t>(value.begin(), value.end()));
  }
  // Waits for the key (up to the timeout), then returns its value.
  virtual std::vector<uint8_t> get(const std::string& key) = 0;
  std::string get_string(const std::string& key) {
    auto v = get(key);
    return std::string(v.begin(), v.end());
  }
  // Adds `value` to the integer stored at key (0 when absent); returns the sum.
  virtual int64_t add(const std::string& key, int64_t value) = 0;
  // Sets key to desired if its current value equals expected (an absent key
  // matches an empty expected); returns the value now stored.
  virtual std::vector<uint8_t> compare_set(const std::string& key,
                                           const std::vector<uint8_t>& expected,
                                           const std::vector<uint8_t>& desired) = 0;
  // True once every key exists (no waiting).
  virtual bool check(const std::vector<std::string>& keys) = 0;
  // Waits until every key exists, at most `timeout` (kNoTimeout: the
  // store's own timeout).
  virtual void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) = 0;
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }
  virtual bool delete_key(const std::string& key) = 0;
  virtual int64_t num_keys() = 0;
  // Appends value to key's bytes (creating the key); PyTorch 2.x's
  // Store.append. The fallback loops on compare_set, as PyTorch's.
  virtual void append(const std::string& key, const std::vector<uint8_t>& value) {
    std::vector<uint8_t> current;
    std::vector<uint8_t> expected = value;
    current = compare_set(key, current, expected);
    while (current != expected) {
      expected = current;
      expected.insert(expected.end(), value.begin(), value.end());
      current = compare_set(key, current, expected);
    }
  }
  // get/set of several keys at once (Store.multi_get/multi_set).
  virtual std::vector<std::vector<uint8_t>> multi_get(const std::vector<std::string>& keys) {
    std::vector<std::vector<uint8_t>> out;
    out.reserve(keys.size());
    for (const auto& k : keys) out.push_back(get(k));
    return out;
  }
  virtual void multi_set(const std::vector<std::string>& keys,
                         const std::vector<std::vector<uint8_t>>& values) {
    EMBER_CHECK_VALUE(keys.size() == values.size(), "multi_set: ", keys.size(), " keys but ",
                      values.size(), " values");
    for (size_t i = 0; i < keys.size(); ++i) set(keys[i], values[i]);
  }
  // A new handle on the same store (its own connection, or its own file
  // descriptor) whose requests give up after `timeout`, as PyTorch 2.x's
  // Store.clone; nullptr where the store cannot be cloned. A process group
  // reports failures through one with a short timeout, so that a stopped
  // store host delays the report by seconds, not by a whole timeout.
  virtual std::shared_ptr<Store> clone(std::chrono::milliseconds timeout) const {
    (void)timeout;
    return nullptr;
  }

  std::chrono::milliseconds timeout() const { return timeout_; }
  void set_timeout(std::chrono::milliseconds t) { timeout_ = t; }

 protected:
  std::chrono::milliseconds timeout_;
};

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_STORE_H_
