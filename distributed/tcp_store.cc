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
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/tcp_store_wire.h"

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;
using wire::Op;
using wire::Status;
constexpr const char* kWorkersKey = "__ember_tcpstore/workers";
constexpr const char* kWorkersDoneKey = "__ember_tcpstore/workers_done";

// Waits are answered by the server at their deadline; the client allows a
// second more before it gives up on the server itself.
constexpr std::chrono::milliseconds kReplySlack{1000};

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

struct TCPStore::Reply {
  Status status;
  std::vector<uint8_t> payload;  // after the status byte
};

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
    connect_locked();
  }
  if (opts.num_workers) {
    int64_t joined = add(kWorkersKey, 1);
    if (joined == *opts.num_workers) set(kWorkersDoneKey, std::string("1"));
    if (opts.is_server && opts.wait_workers) wait_for_workers(*opts.num_workers);
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
  try {
    wait({kWorkersDoneKey}, timeout_);
  } catch (const TimeoutError&) {
    int64_t joined = add(kWorkersKey, 0);
    throw TimeoutError(absl::StrCat("Timed out after ", seconds_str(timeout_),
                                    " waiting for clients. ", joined, "/", num_workers,
                                    " clients joined."));
  }
}

std::string TCPStore::where() const {
  return absl::StrCat("the TCPStore at ", host_, ":", port_,
                      server_description_.empty() ? "" : " (", server_description_,
                      server_description_.empty() ? "" : ")");
}

void TCPStore::gone(const std::string& why) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  gone_ = absl::StrCat(where(), " is gone: ", why);
  throw DistBackendError(gone_);
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
      // Greet; a peer that is not a TCPStore server fails here.
      wire::Writer w;
      w.u8(static_cast<uint8_t>(Op::kHello));
      w.str(wire::kMagic);
      w.u32(wire::kVersion);
      try {
        request(w.finish(), timeout_, {"<hello>"});
      } catch (const Error& e) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
        throw DistBackendError(absl::StrCat("TCPStore at ", host_, ":", port_,
                                            " did not answer as a TCPStore server: ", e.what()));
      }
      connected_once_ = true;
      return;
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

// Sends a frame and reads the reply frame, with mu_ held; `timeout` is the
// operation's (a wait's deadline in the server), the reply may take
// kReplySlack longer. Out of time or a broken connection closes it (the
// next request reconnects); an error reply throws its message.
TCPStore::Reply TCPStore::request(const std::vector<uint8_t>& frame,
                                  std::chrono::milliseconds timeout,
                                  const std::vector<std::string>& keys) {
  if (!gone_.empty()) throw DistBackendError(gone_);
  if (fd_ < 0) connect_locked();
  const auto deadline = deadline_after(timeout.count() < 0 ? timeout : timeout + kReplySlack);
  auto timed_out = [&]() {
    return TimeoutError(absl::StrCat("Timed out after ", seconds_str(timeout),
                                     " waiting for keys [", absl::StrJoin(keys, ", "),
                                     "] in the TCPStore at ", host_, ":", port_));
  };
  auto fail = [&](bool is_timeout, const std::string& why) {
    ::close(fd_);
    fd_ = -1;
    if (is_timeout) throw timed_out();
    throw DistBackendError(absl::StrCat("Connection to ", where(), " failed: ", why));
  };
  // The server closed or reset the connection: gone, unless it answers a
  // new connection (Note [A store that is gone]).
  auto lost = [&](const std::string& why) {
    ::close(fd_);
    fd_ = -1;
    if (keys.size() == 1 && keys[0] == "<hello>") fail(false, why);
    try {
      connect_locked();
    } catch (const DistBackendError&) {
      if (gone_.empty()) throw;
      gone(why);
    }
    throw DistBackendError(absl::StrCat("Connection to ", where(), " failed: ", why));
  };
  auto io = [&](bool sending, uint8_t* p, size_t n) {
    size_t off = 0;
    while (off < n) {
      pollfd pfd{fd_, static_cast<short>(sending ? POLLOUT : POLLIN), 0};
      int rc = ::poll(&pfd, 1, ms_left(deadline));
      if (rc < 0 && errno == EINTR) continue;
      if (rc == 0) fail(true, "");
      ssize_t k = sending ? ::send(fd_, p + off, n - off, MSG_NOSIGNAL)
                          : ::recv(fd_, p + off, n - off, 0);
      if (k < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (k == 0) lost("the server closed the connection (did its process exit?)");
      if (k < 0 && (errno == ECONNRESET || errno == EPIPE)) lost(std::strerror(errno));
      if (k < 0) fail(false, std::strerror(errno));
      off += static_cast<size_t>(k);
    }
  };
  io(true, const_cast<uint8_t*>(frame.data()), frame.size());
  uint8_t hdr[4];
  io(false, hdr, 4);
  uint32_t len = wire::load_u32(hdr);
  if (len == 0 || len > kMaxFrameBytes) fail(false, "malformed reply");
  std::vector<uint8_t> payload(len);
  io(false, payload.data(), len);
  Reply r;
  r.status = static_cast<Status>(payload[0]);
  r.payload.assign(payload.begin() + 1, payload.end());
  if (r.status == Status::kTimeout) throw timed_out();
  if (r.status == Status::kError) {
    wire::Reader rd(r.payload.data(), r.payload.size());
    throw Error(rd.str());
  }
  return r;
}

namespace {

void check_key(const std::string& key) {
  EMBER_CHECK_VALUE(key.size() < TCPStore::kMaxFrameBytes / 2, "TCPStore: key too long (",
                    key.size(), " bytes)");
}

}  // namespace

void TCPStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  check_key(key);
  EMBER_CHECK_VALUE(key.size() + value.size() + 16 <= kMaxFrameBytes,
                    "TCPStore: value of key '", key, "' too large (", value.size(),
                    " bytes; the limit is ", kMaxFrameBytes - 16 - key.size(), ")");
  wire::Writer w;
  w.u8(static_cast<uint8_t>(Op::kSet));
  w.str(key);
  w.vec(value);
  std::lock_guard<std::mutex> lock(mu_);
  request(w.finish(), timeout_, {key});
}

std::vector<uint8_t> TCPStore::get(const std::string& key) {
  check_key(key);
  wire::Writer w;
  w.u8(static_cast<uint8_t>(Op::kGet));
  w.str(key);
  w.i64(timeout_.count());
  std::lock_guard<std::mutex> lock(mu_);
  Reply r = request(w.finish(), timeout_, {key});
  wire::Reader rd(r.payload.data(), r.payload.size());
  return rd.vec();
}

int64_t TCPStore::add(const std::string& key, int64_t value) {
  check_key(key);
  wire::Writer w;
  w.u8(static_cast<uint8_t>(Op::kAdd));
  w.str(key);
  w.i64(value);
  std::lock_guard<std::mutex> lock(mu_);
  Reply r = request(w.finish(), timeout_, {key});
  wire::Reader rd(r.payload.data(), r.payload.size());
  return rd.i64();
}

std::vector<uint8_t> TCPStore::compare_set(const std::string& key,
                                           const std::vector<uint8_t>& expected,
                                           const std::vector<uint8_t>& desired) {
  check_key(key);
  EMBER_CHECK_VALUE(key.size() + expected.size() + desired.size() + 16 <= kMaxFrameBytes,
                    "TCPStore: compare_set values too large");
  wire::Writer w;
  w.u8(static_cast<uint8_t>(Op::kCompareSet));
  w.str(key);
  w.vec(expected);
  w.vec(desired);
  std::lock_guard<std::mutex> lock(mu_);
  Reply r = request(w.finish(), timeout_, {key});
  wire::Reader rd(r.payload.data(), r.payload.size());
  return rd.vec();
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  wire::Writer w;
  w.u8(static_cast<uint8_t>(Op::kCheck));
  w.u32(static_cast<uint32_t>(keys.size()));
  for (const auto& k : keys) w.str(k);
  std::lock_guard<std::mutex> lock(mu_);
  Reply r = request(w.finish(), timeout_, keys);
  wire::Reader rd(r.payload.data(), r.payload.size());
  return rd.u8() != 0;
}

void TCPStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  if (timeout == kNoTimeout) timeout = timeout_;
  wire::Writer w;
  w.u8(static_cast<uint8_t>(Op::kWait));
  w.u32(static_cast<uint32_t>(keys.size()));
  for (const auto& k : keys) w.str(k);
  w.i64(timeout.count());
  std::lock_guard<std::mutex> lock(mu_);
  request(w.finish(), timeout, keys);
}

bool TCPStore::delete_key(const std::string& key) {
  wire::Writer w;
  w.u8(static_cast<uint8_t>(Op::kDelete));
  w.str(key);
  std::lock_guard<std::mutex> lock(mu_);
  Reply r = request(w.finish(), timeout_, {key});
  wire::Reader rd(r.payload.data(), r.payload.size());
  return rd.u8() != 0;
}

int64_t TCPStore::num_keys() {
  wire::Writer w;
  w.u8(static_cast<uint8_t>(Op::kNumKeys));
  std::lock_guard<std::mutex> lock(mu_);
  Reply r = request(w.finish(), timeout_, {"<num_keys>"});
  wire::Reader rd(r.payload.data(), r.payload.size());
  return rd.i64();
}

}  // namespace ember::distributed
