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
#include <set>
#include <optional>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "distributed/tcp_store.h"
#include "distributed/tcp_store_wire.h"

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;
using wire::Dialect;
using wire::Query;
// Note [Store resource caps]: what one client can make the server hold.
// Before it validates (PyTorch 2.x's VALIDATE, or a PyTorch 1.13 client's
// first well-formed request) a connection may send at most
// kMaxUnvalidatedBytes and must do so within kValidateTimeout; at most
// kMaxUnvalidated such connections are kept (a new one beyond that drops
// the oldest). After that one request may be kMaxFrameBytes long, but all
// connections together buffer at most kMaxBufferedBytes of incoming
// requests. A connection over a limit is dropped with a line on stderr
// naming its peer and the reason; the others, the job's ranks, are not
// affected.
constexpr size_t kMaxConnections = 4096;
constexpr size_t kMaxUnvalidated = 256;
constexpr size_t kMaxUnvalidatedBytes = 4096;
constexpr size_t kMaxBufferedBytes = size_t{128} << 20;
constexpr auto kValidateTimeout = std::chrono::seconds(30);
constexpr size_t kReadChunk = 64 * 1024;

struct Conn {
  int fd = -1;
  std::string peer;  // "ip:port", for the log
  Clock::time_point accepted;
  std::string doomed;  // set: drop it at the next turn of the loop, saying this
  std::optional<Dialect> dialect;  // none: not validated yet
  std::vector<uint8_t> in;   // at most one incomplete request (plus one read chunk)
  std::vector<uint8_t> out;  // replies being sent
  size_t out_off = 0;
  // A parked WAIT: the keys it still waits for (PyTorch's count of keys
  // awaited: a key set once counts even if it is deleted later).
  std::set<std::string> awaiting;
  bool validated() const { return dialect.has_value(); }
  bool sending() const { return out_off < out.size(); }
};

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

  // A request the server refuses; it ends the connection (PyTorch's server
  // closes it too), saying why.
  struct Refused {
    std::string why;
  };

  // A key came into existence: releases the waits that needed it last.
  void set_key(const std::string& key, std::vector<uint8_t> value) {
    data[key] = std::move(value);
    for (Conn& c : conns) {
      if (c.awaiting.erase(key) && c.awaiting.empty()) c.out.push_back(wire::kStopWaiting);
    }
  }

  const std::vector<uint8_t>& existing(const std::string& key) const {
    auto it = data.find(key);
    if (it == data.end()) throw Refused{absl::StrCat("get of key '", key, "', which does not exist")};
    return it->second;
  }

  // Runs one request; its reply, if it has one, is appended to c.out.
  void handle(Conn& c, wire::Request& q) {
    wire::Writer w;
    switch (q.query) {
      case Query::kValidate:
        throw Refused{"VALIDATE after the connection was validated"};
      case Query::kPing:
        w.u32(q.word);
        break;
      case Query::kSet:
        set_key(q.keys[0], std::move(q.values[0]));
        break;
      case Query::kAppend: {
        auto it = data.find(q.keys[0]);
        if (it == data.end()) {
          set_key(q.keys[0], std::move(q.values[0]));
        } else {
          it->second.insert(it->second.end(), q.values[0].begin(), q.values[0].end());
        }
        break;
      }
      case Query::kMultiSet:
        for (size_t i = 0; i < q.keys.size(); ++i) set_key(q.keys[i], std::move(q.values[i]));
        break;
      case Query::kCompareSet: {
        // PyTorch's rule: an absent key with an empty expected value is set;
        // an absent key with another expected value answers that value.
        const std::string& key = q.keys[0];
        std::vector<uint8_t>& expected = q.values[0];
        auto it = data.find(key);
        if (it == data.end()) {
          if (expected.empty()) {
            set_key(key, q.values[1]);
            w.vec(q.values[1]);
          } else {
            w.vec(expected);
          }
        } else {
          if (it->second == expected) it->second = std::move(q.values[1]);
          w.vec(it->second);
        }
        break;
      }
      case Query::kGet:
        w.vec(existing(q.keys[0]));
        break;
      case Query::kMultiGet:
        for (const auto& k : q.keys) existing(k);  // all or nothing
        for (const auto& k : q.keys) w.vec(data[k]);
        break;
      case Query::kAdd: {
        const std::string& key = q.keys[0];
        int64_t cur = 0;
        auto it = data.find(key);
        if (it != data.end()) {
          std::string s(it->second.begin(), it->second.end());
          if (!absl::SimpleAtoi(s, &cur)) {
            throw Refused{absl::StrCat("add on key '", key, "', whose value is not an integer")};
          }
        }
        cur += q.delta;
        std::string s = absl::StrCat(cur);
        set_key(key, std::vector<uint8_t>(s.begin(), s.end()));
        w.i64(cur);
        break;
      }
      case Query::kCheck:
        w.u8(exists(q.keys) ? wire::kCheckReady : wire::kCheckNotReady);
        break;
      case Query::kWait:
        c.awaiting.clear();
        for (const auto& k : q.keys) {
          if (!data.count(k)) c.awaiting.insert(k);
        }
        if (c.awaiting.empty()) w.u8(wire::kStopWaiting);
        break;
      case Query::kCancelWait:
        c.awaiting.clear();
        w.u8(wire::kWaitCanceled);
        break;
      case Query::kGetNumKeys:
        w.i64(static_cast<int64_t>(data.size()));
        break;
      case Query::kDeleteKey:
        w.i64(static_cast<int64_t>(data.erase(q.keys[0])));
        break;
    }
    const std::vector<uint8_t>& r = w.data();
    c.out.insert(c.out.end(), r.begin(), r.end());
  }

  bool exists(const std::vector<std::string>& keys) const {
    for (const auto& k : keys)
      if (!data.count(k)) return false;
    return true;
  }

  // The dialect of a connection's first request, from its first bytes;
  // nullopt while too few have arrived to tell.
  static std::optional<Dialect> sniff(const std::vector<uint8_t>& in) {
    uint8_t magic[4];
    for (int i = 0; i < 4; ++i) magic[i] = static_cast<uint8_t>(wire::kValidationMagic >> (8 * i));
    if (in[0] != static_cast<uint8_t>(Query::kValidate)) return Dialect::kLegacy;
    // 0 is VALIDATE for PyTorch 2.x and SET for 1.13: the magic tells.
    const size_t have = std::min<size_t>(in.size() - 1, 4);
    if (std::memcmp(in.data() + 1, magic, have) != 0) return Dialect::kLegacy;
    if (have < 4) return std::nullopt;
    return Dialect::kModern;
  }

  // Runs every complete request in c.in while c's replies go out. Returns
  // why c must be closed, or "".
  std::string process_input(Conn& c) {
    size_t off = 0;
    std::string why;
    while (!c.sending() && off < c.in.size()) {
      const uint8_t* p = c.in.data() + off;
      const size_t n = c.in.size() - off;
      Dialect d;
      if (c.validated()) {
        d = *c.dialect;
      } else {
        auto sniffed = sniff(c.in);
        if (!sniffed) break;
        d = *sniffed;
        if (d == Dialect::kLegacy && !wire::from_legacy_byte(p[0])) {
          why = absl::StrCat("not a TCPStore client (its first byte is ", static_cast<int>(p[0]),
                             ")");
          break;
        }
      }
      wire::Reader r(p, n, c.validated() ? TCPStore::kMaxFrameBytes : kMaxUnvalidatedBytes);
      try {
        wire::Request q = wire::parse_request(r, d);
        if (!c.validated()) {
          c.dialect = d;
          if (d == Dialect::kModern) {
            if (q.word != wire::kValidationMagic) throw Refused{"bad validation magic"};
            off += r.consumed();
            continue;
          }
        }
        handle(c, q);
      } catch (const wire::Reader::NeedMore&) {
        break;
      } catch (const wire::WireError& e) {
        why = absl::StrCat("malformed request: ", e.what());
        break;
      } catch (const Refused& e) {
        why = e.why;
        break;
      }
      off += r.consumed();
      if (!flush(c)) return "-";
    }
    if (!why.empty()) return why;
    c.in.erase(c.in.begin(), c.in.begin() + off);
    buffered -= off;
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
    if (c.out.capacity() > kReadChunk) c.out.shrink_to_fit();
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
      // Note [Store resource caps]: the oldest connection still not
      // validated makes room for the new one.
      size_t unvalidated = 0;
      auto oldest = conns.end();
      for (auto it = conns.begin(); it != conns.end(); ++it) {
        if (it->validated() || !it->doomed.empty()) continue;
        ++unvalidated;
        if (oldest == conns.end()) oldest = it;
      }
      if (unvalidated >= kMaxUnvalidated) {
        // Not closed here: the loop holds iterators to it.
        oldest->doomed =
            absl::StrCat(kMaxUnvalidated, " newer connections are waiting to validate");
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
    // Before it validates, a connection may not send more than a few KiB.
    size_t room = sizeof(buf);
    if (!c.validated()) {
      if (c.in.size() > kMaxUnvalidatedBytes) {
        return absl::StrCat("more than ", kMaxUnvalidatedBytes, " bytes before validating");
      }
      room = std::min(room, kMaxUnvalidatedBytes + 1 - c.in.size());
    }
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

  // Sends what is queued and runs buffered requests until c's replies stop
  // going out or no complete request is left. Returns why c must be closed
  // ("-": quietly), or "".
  std::string pump(Conn& c) {
    if (!flush(c)) return "-";
    if (c.sending()) return "";
    return process_input(c);
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
        if (!it->validated()) earlier(it->accepted + kValidateTimeout);
        short ev = POLLRDHUP;
        ev |= it->sending() ? POLLOUT : POLLIN;
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
        if (why.empty() && !c.validated() && now - c.accepted >= kValidateTimeout) {
          why = absl::StrCat(
              "no validation within ",
              std::chrono::duration_cast<std::chrono::seconds>(kValidateTimeout).count(),
              " s of connecting");
        }
        if (why.empty() && (re || c.sending())) why = pump(c);
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
