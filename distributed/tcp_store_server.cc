// The TCPStore server: one thread, one poll loop (Note [TCPStore wire
// protocol] in tcp_store.h).

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
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
// Note [Store resource caps]: what one client can make the server hold.
// Before its HELLO a connection may send one frame of at most
// kMaxUnvalidatedFrameBytes and must send it within kHelloTimeout; at most
// kMaxUnvalidated such connections are kept (a new one beyond that drops
// the oldest). After the HELLO a frame may be kMaxFrameBytes, but all
// connections together buffer at most kMaxBufferedBytes of incoming frames.
// A connection over a limit is dropped with a line on stderr naming its peer
// and the reason; the others, the job's ranks, are not affected.
constexpr size_t kMaxConnections = 4096;
constexpr size_t kMaxUnvalidated = 256;
constexpr size_t kMaxUnvalidatedFrameBytes = 4096;
constexpr size_t kMaxBufferedBytes = size_t{128} << 20;
constexpr auto kHelloTimeout = std::chrono::seconds(30);
constexpr size_t kReadChunk = 64 * 1024;

struct Pending {
  Op op;
  std::vector<std::string> keys;
  std::optional<Clock::time_point> deadline;  // none: wait without limit
};

struct Conn {
  int fd = -1;
  std::string peer;  // "ip:port", for the log
  Clock::time_point accepted;
  std::string doomed;  // set: drop it at the next turn of the loop, saying this
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

  // Binds to `host`'s addresses (the first that works). An address that is
  // not this machine's (EADDRNOTAVAIL: say a service name that resolves to
  // a load balancer) falls back to every interface, with a warning.
  void listen_on(uint16_t want, const std::string& host) {
    if (host.empty()) return listen_on_any(want);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* res = nullptr;
    const std::string port_str = absl::StrCat(want);
    const int gai = getaddrinfo(host.c_str(), port_str.c_str(), &hints, &res);
    if (gai != 0) {
      throw DistBackendError(absl::StrCat("TCPStore: cannot resolve the address to listen on '",
                                          host, "': ", gai_strerror(gai)));
    }
    int err = EADDRNOTAVAIL;
    std::string where;
    for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
      char text[INET6_ADDRSTRLEN] = "?";
      const void* a =
          ai->ai_family == AF_INET6
              ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(ai->ai_addr)->sin6_addr)
              : &reinterpret_cast<sockaddr_in*>(ai->ai_addr)->sin_addr;
      inet_ntop(ai->ai_family, a, text, sizeof(text));
      where = ai->ai_family == AF_INET6 ? absl::StrCat("[", text, "]:", want)
                                        : absl::StrCat(text, ":", want);
      err = try_listen(ai->ai_family, ai->ai_addr, ai->ai_addrlen);
      if (err == 0 || err == EADDRINUSE) break;
    }
    freeaddrinfo(res);
    if (err == 0) return;
    if (err == EADDRNOTAVAIL) {
      std::fprintf(stderr,
                   "[TCPStore] '%s' is not an address of this machine; listening on every "
                   "interface instead\n",
                   host.c_str());
      return listen_on_any(want);
    }
    throw bind_error(where, err);
  }

  // 0 or the errno of socket/bind/listen; on success listen_fd and port are set.
  int try_listen(int family, const sockaddr* addr, socklen_t len) {
    int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return errno;
    int one = 1, zero = 0;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    // An IPv6 wildcard also takes IPv4 clients (mapped addresses).
    if (family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    if (::bind(fd, addr, len) != 0 || ::listen(fd, 1024) != 0) {
      const int err = errno;
      ::close(fd);
      return err;
    }
    sockaddr_storage ss{};
    socklen_t sl = sizeof(ss);
    getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &sl);
    port = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                          : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
    listen_fd = fd;
    return 0;
  }

  static DistBackendError bind_error(const std::string& where, int err) {
    return DistBackendError(absl::StrCat(
        "The server socket has failed to listen on any local network address. The server "
        "socket has failed to bind to ",
        where, " (errno: ", err, " - ", std::strerror(err), ")."));
  }

  void listen_on_any(uint16_t want) {
    // Dual-stack [::] first (IPv4 clients arrive as mapped addresses), then 0.0.0.0.
    sockaddr_in6 a6{};
    a6.sin6_family = AF_INET6;
    a6.sin6_addr = in6addr_any;
    a6.sin6_port = htons(want);
    int err = try_listen(AF_INET6, reinterpret_cast<sockaddr*>(&a6), sizeof(a6));
    if (err == 0) return;
    std::string where = absl::StrCat("[::]:", want);
    if (err != EADDRINUSE) {  // the other family would only hide that reason
      sockaddr_in a4{};
      a4.sin_family = AF_INET;
      a4.sin_addr.s_addr = htonl(INADDR_ANY);
      a4.sin_port = htons(want);
      err = try_listen(AF_INET, reinterpret_cast<sockaddr*>(&a4), sizeof(a4));
      if (err == 0) return;
      where = absl::StrCat("0.0.0.0:", want);
    }
    throw bind_error(where, err);
  }

  size_t buffered = 0;  // sum of the connections' c.in sizes

  void close_conn(std::list<Conn>::iterator it) {
    ::close(it->fd);
    buffered -= it->in.size();
    conns.erase(it);
    connections.fetch_sub(1);
  }

  // Closes a misbehaving connection, saying why.
  void drop(std::list<Conn>::iterator it, const std::string& why) {
    std::fprintf(stderr, "[TCPStore] dropping the connection from %s: %s\n", it->peer.c_str(),
                 why.c_str());
    close_conn(it);
  }

  size_t frame_limit(const Conn& c) const {
    return c.greeted ? TCPStore::kMaxFrameBytes : kMaxUnvalidatedFrameBytes;
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

  // Why a frame of `len` bytes is refused on c ("" when it is not).
  std::string bad_length(const Conn& c, uint32_t len) const {
    if (len == 0) return "an empty frame";
    if (len > frame_limit(c)) {
      return absl::StrCat("a frame of ", len, " bytes, over the limit of ", frame_limit(c),
                          c.greeted ? "" : " before a HELLO");
    }
    return "";
  }

  // Runs every complete frame in c.in while c is not busy. Returns why c
  // must be closed, or "".
  std::string process_input(Conn& c) {
    size_t off = 0;
    std::string why;
    while (!c.busy() && c.in.size() - off >= 4) {
      uint32_t len = wire::load_u32(c.in.data() + off);
      why = bad_length(c, len);
      if (!why.empty()) break;
      if (c.in.size() - off - 4 < len) break;
      try {
        handle(c, c.in.data() + off + 4, len);
      } catch (const wire::WireError& e) {
        why = absl::StrCat("malformed request: ", e.what());
        break;
      }
      off += 4 + len;
    }
    if (!why.empty()) return why;
    c.in.erase(c.in.begin(), c.in.begin() + off);
    buffered -= off;
    // An incomplete frame's header is checked as soon as it is here.
    if (c.in.size() >= 4) return bad_length(c, wire::load_u32(c.in.data()));
    return "";
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

  static std::string peer_of(const sockaddr_storage& ss) {
    char text[INET6_ADDRSTRLEN] = "?";
    if (ss.ss_family == AF_INET6) {
      const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
      inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof(text));
      return absl::StrCat("[", text, "]:", ntohs(a->sin6_port));
    }
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &a->sin_addr, text, sizeof(text));
    return absl::StrCat(text, ":", ntohs(a->sin_port));
  }

  void accept_all() {
    for (;;) {
      sockaddr_storage ss{};
      socklen_t len = sizeof(ss);
      int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&ss), &len,
                         SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) return;
      if (conns.size() >= kMaxConnections) {
        std::fprintf(stderr, "[TCPStore] refusing a connection from %s: %zu connections open\n",
                     peer_of(ss).c_str(), conns.size());
        ::close(fd);
        continue;
      }
      // Note [Store resource caps]: the oldest connection still without a
      // HELLO makes room for the new one.
      size_t unvalidated = 0;
      auto oldest = conns.end();
      for (auto it = conns.begin(); it != conns.end(); ++it) {
        if (it->greeted || !it->doomed.empty()) continue;
        ++unvalidated;
        if (oldest == conns.end()) oldest = it;
      }
      if (unvalidated >= kMaxUnvalidated) {
        // Not closed here: the loop holds iterators to it.
        oldest->doomed =
            absl::StrCat(kMaxUnvalidated, " newer connections are waiting for a HELLO");
      }
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      Conn c;
      c.fd = fd;
      c.peer = peer_of(ss);
      c.accepted = Clock::now();
      conns.push_back(std::move(c));
      connections.fetch_add(1);
    }
  }

  // Reads what is there. Returns why c must be closed ("" to keep it);
  // "-" for an orderly close (EOF, a reset) that needs no log line.
  std::string read_some(Conn& c) {
    uint8_t buf[kReadChunk];
    // Before the HELLO, no more than one small frame may be buffered.
    size_t room = sizeof(buf);
    if (!c.greeted) room = std::min(room, 4 + kMaxUnvalidatedFrameBytes + 1 - c.in.size());
    ssize_t n = ::recv(c.fd, buf, room, 0);
    if (n == 0) return "-";
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? "" : "-";
    if (buffered + static_cast<size_t>(n) > kMaxBufferedBytes) {
      return absl::StrCat("the server's buffers are full (", buffered, " bytes across ",
                          conns.size(), " connections; the limit is ", kMaxBufferedBytes, ")");
    }
    c.in.insert(c.in.end(), buf, buf + n);
    buffered += static_cast<size_t>(n);
    return "";
  }

  // Sends the reply and runs buffered requests until c waits (a parked
  // request, a socket that takes no more) or has no complete frame left.
  // Returns why c must be closed ("-": quietly), or "".
  std::string pump(Conn& c) {
    for (;;) {
      if (c.out_off < c.out.size()) {
        if (!flush(c)) return "-";
        if (c.out_off < c.out.size()) return "";
      }
      std::string why = process_input(c);
      if (!why.empty()) return why;
      if (c.pending || c.out.empty()) return "";
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
      auto earlier = [&](Clock::time_point t) {
        if (!next_deadline || t < *next_deadline) next_deadline = t;
      };
      for (auto it = conns.begin(); it != conns.end(); ++it) {
        if (!it->greeted) earlier(it->accepted + kHelloTimeout);
        short ev = POLLRDHUP;
        if (it->out_off < it->out.size()) {
          ev |= POLLOUT;
        } else if (!it->pending) {
          ev |= POLLIN;
        }
        if (it->pending && it->pending->deadline) earlier(*it->pending->deadline);
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
        std::string why = c.doomed;
        if (why.empty() && (re & (POLLERR | POLLNVAL))) why = "-";
        if (why.empty() && (re & POLLIN)) why = read_some(c);
        if (why.empty() && (re & (POLLRDHUP | POLLHUP)) && !(re & POLLIN)) why = "-";
        if (why.empty() && !c.greeted && now - c.accepted >= kHelloTimeout) {
          why =
              absl::StrCat("no HELLO within ",
                           std::chrono::duration_cast<std::chrono::seconds>(kHelloTimeout).count(),
                           " s of connecting");
        }
        if (why.empty() && c.pending) try_complete(c, now);
        if (why.empty()) why = pump(c);
        if (why == "-") {
          close_conn(it);
        } else if (!why.empty()) {
          drop(it, why);
        }
      }
    }
  }
};

TCPStoreServer::TCPStoreServer(uint16_t port, const std::string& bind_address)
    : impl_(std::make_unique<Impl>()) {
  impl_->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  EMBER_CHECK(impl_->wake_fd >= 0, "TCPStore: eventfd failed: ", std::strerror(errno));
  impl_->listen_on(port, bind_address);
  Impl* impl = impl_.get();
  impl_->thread = std::thread([impl] { impl->loop(); });
}

TCPStoreServer::~TCPStoreServer() = default;

uint16_t TCPStoreServer::port() const { return impl_->port; }
int TCPStoreServer::num_connections() const { return impl_->connections.load(); }

}  // namespace ember::distributed
