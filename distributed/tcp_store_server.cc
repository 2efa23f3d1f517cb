// The TCPStore server: one thread, one poll loop (Note [TCPStore wire
// protocol] in tcp_store.h).

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <list>
#include <map>
#include <optional>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "distributed/tcp_store.h"
#include "distributed/tcp_store_wire.h"

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;
using wire::Op;
using wire::Status;
constexpr size_t kMaxConnections = 4096;
constexpr size_t kReadChunk = 64 * 1024;

struct Pending {
  Op op;
  std::vector<std::string> keys;
  std::optional<Clock::time_point> deadline;  // none: wait without limit
};

struct Conn {
  int fd = -1;
  bool greeted = false;
  std::vector<uint8_t> in;   // at most one frame (plus one read chunk)
  std::vector<uint8_t> out;  // the reply being sent
  size_t out_off = 0;
  std::optional<Pending> pending;
  bool busy() const { return pending.has_value() || out_off < out.size(); }
};

std::vector<uint8_t> reply(Status s) {
  wire::Writer w;
  w.u8(static_cast<uint8_t>(s));
  return w.finish();
}

}  // namespace

struct TCPStoreServer::Impl {
  int listen_fd = -1;
  int wake_fd = -1;
  uint16_t port = 0;
  std::atomic<int> connections{0};
  std::map<std::string, std::vector<uint8_t>> data;
  std::list<Conn> conns;
  std::thread thread;

  ~Impl() {
    if (thread.joinable()) {
      uint64_t one = 1;
      ssize_t n = ::write(wake_fd, &one, sizeof(one));
      (void)n;
      thread.join();
    }
    for (Conn& c : conns) ::close(c.fd);
    if (listen_fd >= 0) ::close(listen_fd);
    if (wake_fd >= 0) ::close(wake_fd);
  }

  void listen_on(uint16_t want) {
    // Dual-stack [::] first (IPv4 clients arrive as mapped addresses), then 0.0.0.0.
    int err = 0;
    std::string where;
    for (int family : {AF_INET6, AF_INET}) {
      int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      if (fd < 0) {
        err = errno;
        continue;
      }
      int one = 1;
      setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
      int rc;
      if (family == AF_INET6) {
        int zero = 0;
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
        sockaddr_in6 a{};
        a.sin6_family = AF_INET6;
        a.sin6_addr = in6addr_any;
        a.sin6_port = htons(want);
        rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
        where = absl::StrCat("[::]:", want);
      } else {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_ANY);
        a.sin_port = htons(want);
        rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
        where = absl::StrCat("0.0.0.0:", want);
      }
      if (rc == 0 && ::listen(fd, 1024) == 0) {
        sockaddr_storage ss{};
        socklen_t len = sizeof(ss);
        getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
        port = ntohs(family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                        : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
        listen_fd = fd;
        return;
      }
      err = errno;
      ::close(fd);
      if (err == EADDRINUSE) break;  // the other family would only hide the reason
    }
    throw DistBackendError(absl::StrCat(
        "The server socket has failed to listen on any local network address. The server "
        "socket has failed to bind to ",
        where, " (errno: ", err, " - ", std::strerror(err), ")."
        ));
  }

  void close_conn(std::list<Conn>::iterator it) {
    ::close(it->fd);
    conns.erase(it);
    connections.fetch_sub(1);
  }

  bool exists(const std::vector<std::string>& keys) const {
    for (const auto& k : keys)
      if (!data.count(k)) return false;
    return true;
  }

  // Answers a parked get/wait if its keys exist or its deadline passed.
  void try_complete(Conn& c, Clock::time_point now) {
    Pending& p = *c.pending;
    if (exists(p.keys)) {
      wire::Writer w;
      w.u8(static_cast<uint8_t>(Status::kOk));
      if (p.op == Op::kGet) w.vec(data[p.keys[0]]);
      c.out = w.finish();
    } else if (p.deadline && now >= *p.deadline) {
      c.out = reply(Status::kTimeout);
    } else {
      return;
    }
    c.out_off = 0;
    c.pending.reset();
  }

  void on_key_added() {
    auto now = Clock::now();
    for (Conn& c : conns)
      if (c.pending) try_complete(c, now);
  }

  std::vector<uint8_t> error(const std::string& msg) {
    wire::Writer w;
    w.u8(static_cast<uint8_t>(Status::kError));
    w.str(msg);
    return w.finish();
  }

  // Handles one request; throws WireError on malformed input.
  void handle(Conn& c, const uint8_t* p, size_t n) {
    wire::Reader r(p, n);
    Op op = static_cast<Op>(r.u8());
    if (!c.greeted) {
      if (op != Op::kHello) throw wire::WireError("the first request is not HELLO");
      std::string magic = r.str();
      uint32_t version = r.u32();
      r.done();
      if (magic != wire::kMagic) throw wire::WireError("bad magic");
      c.greeted = true;
      c.out = version == wire::kVersion
                  ? reply(Status::kOk)
                  : error(absl::StrCat("TCPStore protocol version mismatch: server speaks ",
                                       wire::kVersion, ", client ", version));
      c.out_off = 0;
      return;
    }
    wire::Writer w;
    switch (op) {
      case Op::kSet: {
        std::string key = r.str();
        std::vector<uint8_t> value = r.vec();
        r.done();
        data[key] = std::move(value);
        c.out = reply(Status::kOk);
        c.out_off = 0;
        on_key_added();
        return;
      }
      case Op::kGet:
      case Op::kWait: {
        std::vector<std::string> keys;
        if (op == Op::kGet) {
          keys.push_back(r.str());
        } else {
          uint32_t count = r.count(4);
          for (uint32_t i = 0; i < count; ++i) keys.push_back(r.str());
        }
        int64_t timeout_ms = r.i64();
        r.done();
        Pending pend{op, std::move(keys), std::nullopt};
        if (timeout_ms >= 0) pend.deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
        c.pending = std::move(pend);
        try_complete(c, Clock::now());
        return;
      }
      case Op::kAdd: {
        std::string key = r.str();
        int64_t delta = r.i64();
        r.done();
        int64_t cur = 0;
        auto it = data.find(key);
        if (it != data.end()) {
          std::string s(it->second.begin(), it->second.end());
          if (!absl::SimpleAtoi(s, &cur)) {
            c.out = error(absl::StrCat("add: the value of key '", key, "' is not an integer"));
            c.out_off = 0;
            return;
          }
        }
        cur += delta;
        std::string s = absl::StrCat(cur);
        bool added = it == data.end();
        data[key] = std::vector<uint8_t>(s.begin(), s.end());
        w.u8(static_cast<uint8_t>(Status::kOk));
        w.i64(cur);
        c.out = w.finish();
        c.out_off = 0;
        if (added) on_key_added();
        return;
      }
      case Op::kCompareSet: {
        std::string key = r.str();
        std::vector<uint8_t> expected = r.vec();
        std::vector<uint8_t> desired = r.vec();
        r.done();
        auto it = data.find(key);
        bool added = false;
        if (it == data.end()) {
          if (expected.empty()) {
            it = data.emplace(key, std::move(desired)).first;
            added = true;
          }
        } else if (it->second == expected) {
          it->second = std::move(desired);
        }
        w.u8(static_cast<uint8_t>(Status::kOk));
        if (it == data.end()) {
          w.vec(expected);  // PyTorch returns expected when the key is absent
        } else {
          w.vec(it->second);
        }
        c.out = w.finish();
        c.out_off = 0;
        if (added) on_key_added();
        return;
      }
      case Op::kCheck: {
        uint32_t count = r.count(4);
        std::vector<std::string> keys;
        for (uint32_t i = 0; i < count; ++i) keys.push_back(r.str());
        r.done();
        w.u8(static_cast<uint8_t>(Status::kOk));
        w.u8(exists(keys) ? 1 : 0);
        break;
      }
      case Op::kDelete: {
        std::string key = r.str();
        r.done();
        w.u8(static_cast<uint8_t>(Status::kOk));
        w.u8(data.erase(key) ? 1 : 0);
        break;
      }
      case Op::kNumKeys: {
        r.done();
        w.u8(static_cast<uint8_t>(Status::kOk));
        w.i64(static_cast<int64_t>(data.size()));
        break;
      }
      default:
        throw wire::WireError(absl::StrCat("unknown opcode ", static_cast<int>(op)));
    }
    c.out = w.finish();
    c.out_off = 0;
  }

  // Runs every complete frame in c.in while c is not busy. False: close c.
  bool process_input(Conn& c) {
    size_t off = 0;
    bool ok = true;
    while (!c.busy() && c.in.size() - off >= 4) {
      uint32_t len = wire::load_u32(c.in.data() + off);
      if (len == 0 || len > TCPStore::kMaxFrameBytes) {
        ok = false;
        break;
      }
      if (c.in.size() - off - 4 < len) break;
      try {
        handle(c, c.in.data() + off + 4, len);
      } catch (const wire::WireError&) {
        ok = false;
        break;
      }
      off += 4 + len;
    }
    if (!ok) return false;
    c.in.erase(c.in.begin(), c.in.begin() + off);
    // An incomplete frame's header is checked as soon as it is here.
    if (c.in.size() >= 4) {
      uint32_t len = wire::load_u32(c.in.data());
      if (len == 0 || len > TCPStore::kMaxFrameBytes) return false;
    }
    return true;
  }

  // False: close c.
  bool flush(Conn& c) {
    while (c.out_off < c.out.size()) {
      ssize_t n = ::send(c.fd, c.out.data() + c.out_off, c.out.size() - c.out_off, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno == EAGAIN || errno == EWOULDBLOCK;
      }
      c.out_off += static_cast<size_t>(n);
    }
    c.out.clear();
    c.out.shrink_to_fit();
    c.out_off = 0;
    return true;
  }

  void accept_all() {
    for (;;) {
      int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) return;
      if (conns.size() >= kMaxConnections) {
        ::close(fd);
        continue;
      }
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      Conn c;
      c.fd = fd;
      conns.push_back(std::move(c));
      connections.fetch_add(1);
    }
  }

  // Reads what is there; false: close c (EOF, error, bad input).
  bool read_some(Conn& c) {
    uint8_t buf[kReadChunk];
    ssize_t n = ::recv(c.fd, buf, sizeof(buf), 0);
    if (n == 0) return false;
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    c.in.insert(c.in.end(), buf, buf + n);
    return true;
  }

  // Sends the reply and runs buffered requests until c waits (a parked
  // request, a socket that takes no more) or has no complete frame left.
  // False: close c.
  bool pump(Conn& c) {
    for (;;) {
      if (c.out_off < c.out.size()) {
        if (!flush(c)) return false;
        if (c.out_off < c.out.size()) return true;
      }
      if (!process_input(c)) return false;
      if (c.pending || c.out.empty()) return true;
    }
  }

  // Replies already made (say, to every rank a barrier released) still
  // reach their clients when the server stops right after: up to 500 ms.
  void flush_before_shutdown() {
    const auto deadline = Clock::now() + std::chrono::milliseconds(500);
    for (;;) {
      std::vector<pollfd> fds;
      std::vector<Conn*> pending;
      for (Conn& c : conns) {
        if (c.out_off < c.out.size()) {
          fds.push_back({c.fd, POLLOUT, 0});
          pending.push_back(&c);
        }
      }
      if (fds.empty()) return;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return;
      if (::poll(fds.data(), fds.size(), static_cast<int>(left.count())) <= 0) return;
      for (size_t i = 0; i < fds.size(); ++i) {
        if (!fds[i].revents) continue;
        if (fds[i].revents & (POLLERR | POLLHUP | POLLNVAL) || !flush(*pending[i])) {
          pending[i]->out.clear();
          pending[i]->out_off = 0;
        }
      }
    }
  }

  void loop() {
    std::vector<pollfd> fds;
    std::vector<std::list<Conn>::iterator> order;
    for (;;) {
      fds.clear();
      order.clear();
      fds.push_back({wake_fd, POLLIN, 0});
      fds.push_back({listen_fd, POLLIN, 0});
      std::optional<Clock::time_point> next_deadline;
      for (auto it = conns.begin(); it != conns.end(); ++it) {
        short ev = POLLRDHUP;
        if (it->out_off < it->out.size()) {
          ev |= POLLOUT;
        } else if (!it->pending) {
          ev |= POLLIN;
        }
        if (it->pending && it->pending->deadline &&
            (!next_deadline || *it->pending->deadline < *next_deadline)) {
          next_deadline = it->pending->deadline;
        }
        fds.push_back({it->fd, ev, 0});
        order.push_back(it);
      }
      int timeout_ms = -1;
      if (next_deadline) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*next_deadline -
                                                                          Clock::now());
        timeout_ms = static_cast<int>(std::max<int64_t>(0, left.count() + 1));
      }
      int rc = ::poll(fds.data(), fds.size(), timeout_ms);
      if (rc < 0 && errno != EINTR) return;
      if (fds[0].revents) {
        flush_before_shutdown();
        return;
      }
      if (fds[1].revents & POLLIN) accept_all();
      auto now = Clock::now();
      for (size_t i = 2; i < fds.size(); ++i) {
        auto it = order[i - 2];
        Conn& c = *it;
        short re = fds[i].revents;
        bool keep = true;
        if (re & (POLLERR | POLLNVAL)) keep = false;
        if (keep && (re & POLLIN)) keep = read_some(c);
        if (keep && (re & (POLLRDHUP | POLLHUP)) && !(re & POLLIN)) keep = false;
        if (keep && c.pending) try_complete(c, now);
        if (keep) keep = pump(c);
        if (!keep) close_conn(it);
      }
    }
  }
};

TCPStoreServer::TCPStoreServer(uint16_t port) : impl_(std::make_unique<Impl>()) {
  impl_->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  EMBER_CHECK(impl_->wake_fd >= 0, "TCPStore: eventfd failed: ", std::strerror(errno));
  impl_->listen_on(port);
  Impl* impl = impl_.get();
  impl_->thread = std::thread([impl] { impl->loop(); });
}

TCPStoreServer::~TCPStoreServer() = default;

uint16_t TCPStoreServer::port() const { return impl_->port; }
int TCPStoreServer::num_connections() const { return impl_->connections.load(); }

}  // namespace ember::distributed
