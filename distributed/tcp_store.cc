// The TCPStore client (the server is in tcp_store_server.cc).

#include "distributed/tcp_store.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/tcp_store_wire.h"

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;
using wire::Query;
// PyTorch's keys: every user key is "/"-prefixed on the wire; "init/"
// counts the clients that joined (num_workers).
constexpr const char* kKeyPrefix = "/";
constexpr const char* kInitKey = "init/";
// How long a server may take to answer a cancelled wait, and the
// handshake's limit.
constexpr std::chrono::milliseconds kReplySlack{1000};
constexpr std::chrono::milliseconds kHandshakeLimit{30000};

std::string prefixed(const std::string& k) { return kKeyPrefix + k; }
std::vector<std::string> prefixed(const std::vector<std::string>& ks) {
  std::vector<std::string> out;
  out.reserve(ks.size());
  for (const auto& k : ks) out.push_back(prefixed(k));
  return out;
}

// The PING nonce: its bit 23 set makes the u64 a PyTorch 1.13 server reads
// from VALIDATE+PING at least 2^63 (Note [TCPStore wire protocol]).
uint32_t probe_nonce() {
  return 0x00800000u | (static_cast<uint32_t>(::getpid()) & 0xff7fffffu);
}

// A negative timeout means no limit (a year).
Clock::time_point deadline_after(std::chrono::milliseconds t) {
  if (t.count() < 0) t = std::chrono::hours(24 * 365);
  return Clock::now() + t;
}

int ms_left(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, 1 << 30));
}

std::string seconds_str(std::chrono::milliseconds t) {
  return absl::StrCat(static_cast<double>(t.count()) / 1000.0, " s");
}

enum class IoResult { kOk, kTimeout, kClosed, kError };

// Sends or receives exactly n bytes on a non-blocking socket by the
// deadline. kClosed: EOF, a reset or a broken pipe (errno says which).
IoResult raw_io(int fd, bool sending, uint8_t* p, size_t n, Clock::time_point deadline) {
  size_t off = 0;
  while (off < n) {
    pollfd pfd{fd, static_cast<short>(sending ? POLLOUT : POLLIN), 0};
    int rc = ::poll(&pfd, 1, ms_left(deadline));
    if (rc < 0 && errno == EINTR) continue;
    if (rc == 0) return IoResult::kTimeout;
    ssize_t k = sending ? ::send(fd, p + off, n - off, MSG_NOSIGNAL) : ::recv(fd, p + off, n - off, 0);
    if (k < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (k == 0) {
      errno = 0;
      return IoResult::kClosed;
    }
    if (k < 0) return errno == ECONNRESET || errno == EPIPE ? IoResult::kClosed : IoResult::kError;
    off += static_cast<size_t>(k);
  }
  return IoResult::kOk;
}

// One non-blocking connect to addr, finished by the deadline. Returns the fd
// or -1 with errno set.
int connect_once(const addrinfo* ai, Clock::time_point deadline) {
  int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                    ai->ai_protocol);
  if (fd < 0) return -1;
  if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
    if (errno != EINPROGRESS) {
      int e = errno;
      ::close(fd);
      errno = e;
      return -1;
    }
    pollfd p{fd, POLLOUT, 0};
    int rc = ::poll(&p, 1, std::max(1, std::min(ms_left(deadline), 5000)));
    int err = 0;
    socklen_t len = sizeof(err);
    if (rc <= 0) {
      err = rc == 0 ? ETIMEDOUT : errno;
    } else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
      err = errno;
    }
    if (err != 0) {
      ::close(fd);
      errno = err;
      return -1;
    }
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

}  // namespace


TCPStore::TCPStore(std::string host, const TCPStoreOptions& opts)
    : Store(opts.timeout),
      host_(std::move(host)),
      port_(opts.port),
      server_description_(opts.server_description) {
  if (opts.num_workers) {
    EMBER_CHECK_VALUE(*opts.num_workers >= 1, "TCPStore: num_workers must be positive, got ",
                      *opts.num_workers);
  }
  if (opts.is_server) {
    server_ = std::make_unique<TCPStoreServer>(opts.port, opts.bind_all_interfaces ? "" : host_);
    port_ = server_->port();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    begin_op_locked();
    connect_locked();
  }
  // PyTorch's waitForWorkers: every store counts itself in "init/"; the
  // server's waits for the count.
  if (opts.num_workers && opts.wait_workers) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      begin_op_locked();
      add_locked(kInitKey, 1);
    }
    if (opts.is_server) wait_for_workers(*opts.num_workers);
  }
}

TCPStore::~TCPStore() {
  if (fd_ >= 0) ::close(fd_);
  server_.reset();
}

std::shared_ptr<Store> TCPStore::clone(std::chrono::milliseconds timeout) const {
  TCPStoreOptions o;
  o.port = port_;
  o.timeout = timeout;
  o.server_description = server_description_;
  return std::make_shared<TCPStore>(host_, o);
}

int TCPStore::num_server_connections() const {
  return server_ ? server_->num_connections() : -1;
}

void TCPStore::wait_for_workers(int num_workers) {
  const auto start = Clock::now();
  for (;;) {
    int64_t joined = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      begin_op_locked();
      const std::vector<uint8_t> v = get_locked(kInitKey, kInitKey);
      (void)absl::SimpleAtoi(std::string(v.begin(), v.end()), &joined);
    }
    if (joined >= num_workers) return;
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    if (timeout_.count() >= 0 && elapsed > timeout_) {
      throw TimeoutError(absl::StrCat("Timed out after ", seconds_str(timeout_),
                                      " waiting for clients. ", joined, "/", num_workers,
                                      " clients joined."));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string TCPStore::where() const {
  return absl::StrCat("the TCPStore at ", host_, ":", port_,
                      server_description_.empty() ? "" : " (", server_description_,
                      server_description_.empty() ? "" : ")");
}

void TCPStore::close_locked() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void TCPStore::gone(const std::string& why) {
  close_locked();
  gone_ = absl::StrCat(where(), " is gone: ", why);
  throw DistBackendError(gone_);
}

TimeoutError TCPStore::timed_out(std::chrono::milliseconds after, const Keys& keys) const {
  return TimeoutError(absl::StrCat("Timed out after ", seconds_str(after), " waiting for keys [",
                                   absl::StrJoin(keys, ", "), "] in the TCPStore at ", host_, ":",
                                   port_));
}

// VALIDATE then PING on a new connection (Note [TCPStore wire protocol]):
// true when the server echoed the nonce (PyTorch 2.x, or ember); false when
// it closed the connection without a word (PyTorch 1.13). Anything else
// throws.
bool TCPStore::handshake_locked(Clock::time_point deadline) {
  const uint32_t nonce = probe_nonce();
  wire::Writer w(Query::kValidate, wire::Dialect::kModern);
  w.u32(wire::kValidationMagic);
  w.u8(static_cast<uint8_t>(Query::kPing));
  w.u32(nonce);
  std::vector<uint8_t> probe = w.finish();
  uint8_t echo[4];
  IoResult r = raw_io(fd_, true, probe.data(), probe.size(), deadline);
  if (r == IoResult::kOk) r = raw_io(fd_, false, echo, sizeof(echo), deadline);
  const std::string not_a_store =
      absl::StrCat("TCPStore at ", host_, ":", port_, " did not answer as a TCPStore server: ");
  switch (r) {
    case IoResult::kOk:
      if (wire::load_le(echo, 4) != nonce) {
        throw DistBackendError(absl::StrCat(not_a_store, "its answer to PING was not the nonce"));
      }
      return true;
    case IoResult::kClosed:
      return false;
    case IoResult::kTimeout:
      throw DistBackendError(absl::StrCat(not_a_store, "no answer to PING within ",
                                          seconds_str(kHandshakeLimit)));
    case IoResult::kError:
      break;
  }
  throw DistBackendError(absl::StrCat(not_a_store, std::strerror(errno)));
}

void TCPStore::connect_locked() {
  if (!gone_.empty()) throw DistBackendError(gone_);
  // Note [A store that is gone]: a first connection may wait for a server
  // that has not started yet; a lost one is looked for briefly.
  const std::chrono::milliseconds window =
      timeout_.count() < 0 ? kReconnectWindow : std::min(kReconnectWindow, timeout_);
  const auto deadline = connected_once_ ? Clock::now() + window : deadline_after(timeout_);
  std::string last_error = "no attempt";
  auto backoff = std::chrono::milliseconds(10);
  for (;;) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    std::string port_str = absl::StrCat(port_);
    int gai = getaddrinfo(host_.c_str(), port_str.c_str(), &hints, &res);
    if (gai != 0) {
      last_error = gai_strerror(gai);
    } else {
      bool refused = false;
      for (addrinfo* ai = res; ai; ai = ai->ai_next) {
        int fd = connect_once(ai, deadline);
        if (fd >= 0) {
          fd_ = fd;
          break;
        }
        refused = refused || errno == ECONNREFUSED;
        last_error = std::strerror(errno);
      }
      freeaddrinfo(res);
      // Nothing listens where the server was: it will not come back.
      if (fd_ < 0 && connected_once_ && refused) {
        gone(absl::StrCat("the connection was lost and reconnecting was refused (", last_error,
                          ")"));
      }
    }
    if (fd_ >= 0) {
      if (dialect_ == Dialect::kLegacy) {
        connected_once_ = true;
        return;
      }
      bool echoed = false;
      try {
        echoed = handshake_locked(std::min(deadline_after(timeout_),
                                           Clock::now() + kHandshakeLimit));
      } catch (...) {
        close_locked();
        throw;
      }
      if (echoed) {
        dialect_ = Dialect::kModern;
        connected_once_ = true;
        return;
      }
      close_locked();
      if (dialect_ == Dialect::kModern) {
        throw DistBackendError(absl::StrCat("TCPStore at ", host_, ":", port_,
                                            " closed a new connection before answering PING"));
      }
      dialect_ = Dialect::kLegacy;  // PyTorch 1.13: connect again, speaking its dialect
      continue;
    }
    if (connected_once_ && Clock::now() >= deadline) {
      gone(absl::StrCat("the connection was lost and no connection could be made again within ",
                        seconds_str(window), " (last error: ", last_error, ")"));
    }
    if (Clock::now() >= deadline) {
      throw TimeoutError(absl::StrCat("Timed out after ", seconds_str(timeout_),
                                      " connecting to the TCPStore server at ", host_, ":",
                                      port_, " (last error: ", last_error, ")"));
    }
    std::this_thread::sleep_for(std::min(backoff, std::chrono::milliseconds(ms_left(deadline))));
    backoff = std::min(backoff * 2, std::chrono::milliseconds(500));
  }
}

bool TCPStore::io_locked(bool sending, uint8_t* p, size_t n, Clock::time_point deadline) {
  if (!gone_.empty()) throw DistBackendError(gone_);
  if (fd_ < 0) connect_locked();
  switch (raw_io(fd_, sending, p, n, deadline)) {
    case IoResult::kOk:
      return true;
    case IoResult::kTimeout:
      return false;
    case IoResult::kClosed: {
      // The server closed or reset the connection: gone, unless it answers
      // a new connection (Note [A store that is gone]).
      const std::string why = errno == 0 ? "the server closed the connection (did its process "
                                           "exit, or did it refuse the request?)"
                                         : std::strerror(errno);
      close_locked();
      try {
        connect_locked();
      } catch (const DistBackendError&) {
        if (gone_.empty()) throw;
        gone(why);
      }
      throw DistBackendError(absl::StrCat("Connection to ", where(), " failed: ", why));
    }
    case IoResult::kError:
      break;
  }
  const std::string why = std::strerror(errno);
  close_locked();
  throw DistBackendError(absl::StrCat("Connection to ", where(), " failed: ", why));
}

void TCPStore::send_locked(const std::vector<uint8_t>& bytes, const Keys& keys) {
  if (!io_locked(true, const_cast<uint8_t*>(bytes.data()), bytes.size(), op_deadline_)) {
    close_locked();
    throw timed_out(timeout_, keys);
  }
}

void TCPStore::recv_locked(uint8_t* p, size_t n, const Keys& keys) {
  if (!io_locked(false, p, n, op_deadline_)) {
    close_locked();
    throw timed_out(timeout_, keys);
  }
}

int64_t TCPStore::recv_i64_locked(const Keys& keys) {
  uint8_t b[8];
  recv_locked(b, 8, keys);
  return static_cast<int64_t>(wire::load_le(b, 8));
}

std::vector<uint8_t> TCPStore::recv_vec_locked(const Keys& keys) {
  uint8_t b[8];
  recv_locked(b, 8, keys);
  const uint64_t n = wire::load_le(b, 8);
  if (n > kMaxFrameBytes) {
    close_locked();
    throw DistBackendError(absl::StrCat("Connection to ", where(), " failed: a value of ", n,
                                        " bytes, over the limit of ", kMaxFrameBytes));
  }
  std::vector<uint8_t> v(n);
  recv_locked(v.data(), v.size(), keys);
  return v;
}

wire::Writer TCPStore::writer(Query q) const {
  return wire::Writer(q, dialect_ == Dialect::kLegacy ? wire::Dialect::kLegacy
                                                      : wire::Dialect::kModern);
}

std::vector<uint8_t> TCPStore::wire_request(Query q, const std::string& wire_key) const {
  wire::Writer w = writer(q);
  w.str(wire_key);
  return w.finish();
}

void TCPStore::wait_locked(const Keys& wire_keys, std::chrono::milliseconds timeout,
                           const Keys& keys) {
  wire::Writer w = writer(Query::kWait);
  w.u64(wire_keys.size());
  for (const auto& k : wire_keys) w.str(k);
  send_locked(w.finish(), keys);
  uint8_t b = 0;
  auto unexpected = [&](const char* expected) {
    close_locked();
    return DistBackendError(absl::StrCat("Connection to ", where(), " failed: it answered ",
                                         static_cast<int>(b), " where ", expected,
                                         " was expected"));
  };
  if (io_locked(false, &b, 1, deadline_after(timeout))) {
    if (b != wire::kStopWaiting) throw unexpected("STOP_WAITING");
    return;
  }
  // Out of time. PyTorch 1.13 cannot cancel a wait: a new connection
  // leaves it behind. PyTorch 2.x answers CANCEL_WAIT with WAIT_CANCELED,
  // after a STOP_WAITING if the keys came meanwhile.
  if (dialect_ == Dialect::kLegacy) {
    close_locked();
    throw timed_out(timeout, keys);
  }
  op_deadline_ = Clock::now() + kReplySlack;
  send_locked(writer(Query::kCancelWait).finish(), keys);
  recv_locked(&b, 1, keys);
  if (b == wire::kStopWaiting) recv_locked(&b, 1, keys);
  if (b != wire::kWaitCanceled) throw unexpected("WAIT_CANCELED");
  throw timed_out(timeout, keys);
}

namespace {

void check_key(const std::string& key) {
  EMBER_CHECK_VALUE(key.size() < TCPStore::kMaxFrameBytes / 2, "TCPStore: key too long (",
                    key.size(), " bytes)");
}

void check_size(const std::string& key, size_t bytes) {
  EMBER_CHECK_VALUE(bytes + 64 <= TCPStore::kMaxFrameBytes, "TCPStore: value of key '", key,
                    "' too large (", bytes, " bytes with its key; the limit is ",
                    TCPStore::kMaxFrameBytes - 64, ")");
}

}  // namespace

void TCPStore::begin_op_locked() { op_deadline_ = deadline_after(timeout_); }

void TCPStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  check_key(key);
  check_size(key, key.size() + value.size());
  std::lock_guard<std::mutex> lock(mu_);
  begin_op_locked();
  wire::Writer w = writer(Query::kSet);
  w.str(prefixed(key));
  w.vec(value);
  send_locked(w.finish(), {key});
}

std::vector<uint8_t> TCPStore::get(const std::string& key) {
  check_key(key);
  std::lock_guard<std::mutex> lock(mu_);
  begin_op_locked();
  return get_locked(prefixed(key), key);
}

std::vector<uint8_t> TCPStore::get_locked(const std::string& wire_key, const std::string& key) {
  wait_locked({wire_key}, timeout_, {key});
  send_locked(wire_request(Query::kGet, wire_key), {key});
  return recv_vec_locked({key});
}

int64_t TCPStore::add_locked(const std::string& wire_key, int64_t value) {
  wire::Writer w = writer(Query::kAdd);
  w.str(wire_key);
  w.i64(value);
  send_locked(w.finish(), {wire_key});
  return recv_i64_locked({wire_key});
}

int64_t TCPStore::add(const std::string& key, int64_t value) {
  check_key(key);
  std::lock_guard<std::mutex> lock(mu_);
  begin_op_locked();
  try {
    return add_locked(prefixed(key), value);
  } catch (const DistBackendError&) {
    // A server closes the connection on an add to a value that is no
    // integer (PyTorch's too); say so when that is what happened.
    std::optional<std::vector<uint8_t>> current;
    if (gone_.empty()) {
      try {
        begin_op_locked();
        wire::Writer w = writer(Query::kCheck);
        w.u64(1);
        w.str(prefixed(key));
        send_locked(w.finish(), {key});
        uint8_t ready = 1;
        recv_locked(&ready, 1, {key});
        if (ready == wire::kCheckReady) current = get_locked(prefixed(key), key);
      } catch (const Error&) {
      }
    }
    int64_t unused;
    if (current && !absl::SimpleAtoi(std::string(current->begin(), current->end()), &unused)) {
      throw Error(absl::StrCat("TCPStore add: the value of key '", key, "' is not an integer"));
    }
    throw;
  }
}

std::vector<uint8_t> TCPStore::compare_set(const std::string& key,
                                           const std::vector<uint8_t>& expected,
                                           const std::vector<uint8_t>& desired) {
  check_key(key);
  check_size(key, key.size() + expected.size() + desired.size());
  std::lock_guard<std::mutex> lock(mu_);
  begin_op_locked();
  wire::Writer w = writer(Query::kCompareSet);
  w.str(prefixed(key));
  w.vec(expected);
  w.vec(desired);
  send_locked(w.finish(), {key});
  return recv_vec_locked({key});
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> lock(mu_);
  begin_op_locked();
  wire::Writer w = writer(Query::kCheck);
  w.u64(keys.size());
  for (const auto& k : keys) w.str(prefixed(k));
  send_locked(w.finish(), keys);
  uint8_t b = 0;
  recv_locked(&b, 1, keys);
  if (b != wire::kCheckReady && b != wire::kCheckNotReady) {
    close_locked();
    throw DistBackendError(absl::StrCat("Connection to ", where(), " failed: check answered ",
                                        static_cast<int>(b)));
  }
  return b == wire::kCheckReady;
}

void TCPStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  if (timeout == kNoTimeout) timeout = timeout_;
  std::lock_guard<std::mutex> lock(mu_);
  begin_op_locked();
  wait_locked(prefixed(keys), timeout, keys);
}

bool TCPStore::delete_key(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  begin_op_locked();
  send_locked(wire_request(Query::kDeleteKey, prefixed(key)), {key});
  return recv_i64_locked({key}) == 1;
}

int64_t TCPStore::num_keys() {
  std::lock_guard<std::mutex> lock(mu_);
  begin_op_locked();
  send_locked(writer(Query::kGetNumKeys).finish(), {"<num_keys>"});
  return recv_i64_locked({"<num_keys>"});
}

void TCPStore::append(const std::string& key, const std::vector<uint8_t>& value) {
  check_key(key);
  check_size(key, key.size() + value.size());
  if (legacy_server()) return Store::append(key, value);
  std::lock_guard<std::mutex> lock(mu_);
  begin_op_locked();
  wire::Writer w = writer(Query::kAppend);
  w.str(prefixed(key));
  w.vec(value);
  send_locked(w.finish(), {key});
}

std::vector<std::vector<uint8_t>> TCPStore::multi_get(const std::vector<std::string>& keys) {
  if (legacy_server()) return Store::multi_get(keys);
  std::lock_guard<std::mutex> lock(mu_);
  begin_op_locked();
  const Keys wire_keys = prefixed(keys);
  wait_locked(wire_keys, timeout_, keys);
  wire::Writer w = writer(Query::kMultiGet);
  w.u64(wire_keys.size());
  for (const auto& k : wire_keys) w.str(k);
  send_locked(w.finish(), keys);
  std::vector<std::vector<uint8_t>> out;
  out.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) out.push_back(recv_vec_locked(keys));
  return out;
}

void TCPStore::multi_set(const std::vector<std::string>& keys,
                         const std::vector<std::vector<uint8_t>>& values) {
  EMBER_CHECK_VALUE(keys.size() == values.size(), "multi_set: ", keys.size(), " keys but ",
                    values.size(), " values");
  if (legacy_server()) return Store::multi_set(keys, values);
  size_t total = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    check_key(keys[i]);
    total += keys[i].size() + values[i].size() + 16;
  }
  check_size(keys.empty() ? std::string() : keys[0], total);
  std::lock_guard<std::mutex> lock(mu_);
  begin_op_locked();
  wire::Writer w = writer(Query::kMultiSet);
  w.u64(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    w.str(prefixed(keys[i]));
    w.vec(values[i]);
  }
  send_locked(w.finish(), keys);
}

}  // namespace ember::distributed
