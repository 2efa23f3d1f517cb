// ember's TCPStore against PyTorch's bytes (Note [TCPStore wire protocol]):
// transcripts recorded from PyTorch 1.13 by tools/golden/tcpstore_transcripts.py
// are replayed against ember's server (a PyTorch client's bytes must get
// PyTorch's answers) and against ember's client (a fake PyTorch server
// expects exactly the recorded bytes). PyTorch 2.x's dialect is checked
// against requests written out from its source (TCPStore.cpp and
// TCPStoreLibUvBackend.cpp), until a machine with PyTorch 2.x records them.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "distributed/tcp_store.h"
#include "distributed/tcp_store_wire.h"
#include "distributed/testing/multiprocess.h"

namespace ember::distributed {
namespace {

using std::chrono::milliseconds;

struct Step {
  char dir;  // 'C' client to server, 'S' server to client, 'X' closed, 'M' marker
  const char* text;
};
struct Transcript {
  const char* name;
  std::vector<Step> steps;
};

const Transcript kTorch113[] = {
#include "distributed/testdata/tcpstore_transcripts_113.inc"
};

const Transcript& transcript(const std::string& name) {
  for (const auto& t : kTorch113)
    if (name == t.name) return t;
  throw std::runtime_error("no transcript " + name);
}

std::vector<uint8_t> unhex(const std::string& h) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(std::stoi(h.substr(i, 2), nullptr, 16));
  return out;
}

std::string hex(const std::vector<uint8_t>& b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (uint8_t c : b) {
    s += d[c >> 4];
    s += d[c & 15];
  }
  return s;
}

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

int connect_to(uint16_t port) { return testing::connect_loopback(port); }

bool send_all(int fd, const std::vector<uint8_t>& b) {
  return ::send(fd, b.data(), b.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(b.size());
}

// Reads exactly n bytes within 3 s; fewer when the peer closed or was slow.
std::vector<uint8_t> recv_n(int fd, size_t n) {
  std::vector<uint8_t> out;
  const auto deadline = std::chrono::steady_clock::now() + milliseconds(3000);
  while (out.size() < n) {
    auto left = std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) != 1) break;
    uint8_t buf[4096];
    ssize_t k = ::recv(fd, buf, std::min(sizeof(buf), n - out.size()), 0);
    if (k <= 0) break;
    out.insert(out.end(), buf, buf + k);
  }
  return out;
}

// True when the peer closed fd within 3 s without sending anything.
bool closed_by_peer(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 3000) != 1) return false;
  char c;
  const ssize_t n = ::recv(fd, &c, 1, 0);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

// A listening socket on 127.0.0.1 that plays a PyTorch server.
class FakeServer {
 public:
  FakeServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    EXPECT_EQ(::listen(fd_, 8), 0);
    socklen_t len = sizeof(a);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~FakeServer() { ::close(fd_); }
  uint16_t port() const { return port_; }
  // The next connection, or -1 after 5 s.
  int accept() {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 5000) != 1) return -1;
    return ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
  }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

// Replays a transcript's server side on fd: 'C' steps must arrive exactly,
// 'S' steps are sent. Returns the first difference, or "".
std::string play_server(int fd, const Transcript& t) {
  std::string call = "(start)";
  for (const Step& s : t.steps) {
    if (s.dir == 'M') {
      call = s.text;
    } else if (s.dir == 'C') {
      const std::vector<uint8_t> want = unhex(s.text);
      const std::vector<uint8_t> got = recv_n(fd, want.size());
      if (got != want) return "after " + call + ": expected " + s.text + ", got " + hex(got);
    } else if (s.dir == 'S') {
      if (!send_all(fd, unhex(s.text))) return "after " + call + ": the client went away";
    }
  }
  return "";
}

TCPStoreOptions client_opts(uint16_t port) {
  TCPStoreOptions o;
  o.port = port;
  o.timeout = milliseconds(5000);
  return o;
}

// ---- ember's server, PyTorch 1.13's client bytes ----

TEST(TCPStoreTranscriptTest, ServerAnswersPyTorch113AsPyTorch113Does) {
  TCPStoreServer server(0);
  {
    // The recording's server held these before the session began.
    TCPStore setup("127.0.0.1", client_opts(server.port()));
    setup.set("present", std::string("1"));
    setup.set("text", std::string("abc"));
  }
  int replayed = 0;
  for (const Transcript& t : kTorch113) {
    // What a 1.13 server does with ember's probe is the client's test below.
    if (std::string(t.name) == "ember_probe_is_closed") continue;
    SCOPED_TRACE(t.name);
    int fd = connect_to(server.port());
    ASSERT_GE(fd, 0);
    std::string call = "(start)";
    for (const Step& s : t.steps) {
      if (s.dir == 'M') {
        call = s.text;
      } else if (s.dir == 'C') {
        ASSERT_TRUE(send_all(fd, unhex(s.text))) << call;
      } else if (s.dir == 'S') {
        const std::vector<uint8_t> want = unhex(s.text);
        EXPECT_EQ(hex(recv_n(fd, want.size())), s.text) << "answer to " << call;
      } else if (s.dir == 'X') {
        EXPECT_TRUE(closed_by_peer(fd)) << "the server should close after " << call;
      }
    }
    ::close(fd);
    ++replayed;
  }
  EXPECT_EQ(replayed, 5);
  // The closed connections cost the server nothing: a new client is served.
  TCPStore after("127.0.0.1", client_opts(server.port()));
  EXPECT_EQ(after.get_string("later"), "x");
}

// ---- ember's client, a PyTorch 1.13 server ----

TEST(TCPStoreTranscriptTest, ClientSpeaksPyTorch113ToAPyTorch113Server) {
  FakeServer fake;
  std::string diff;
  std::thread server([&] {
    // Connection 1: ember's probe, which a 1.13 server closes.
    int probe = fake.accept();
    if (probe < 0) {
      diff = "no connection";
      return;
    }
    const std::vector<uint8_t> want = unhex(transcript("ember_probe_is_closed").steps[0].text);
    const std::vector<uint8_t> got = recv_n(probe, want.size());
    // VALIDATE, the magic and PING as recorded; the nonce is the client's
    // own but must keep bit 23 set (Note [TCPStore wire protocol]).
    if (got.size() != want.size() || !std::equal(want.begin(), want.begin() + 6, got.begin()) ||
        !(got[8] & 0x80)) {
      diff = "probe: expected " + hex(want) + " (any nonce with bit 23), got " + hex(got);
    }
    ::close(probe);
    // Connection 2: the session, in 1.13's dialect.
    int fd = fake.accept();
    if (fd < 0) {
      diff += "no second connection";
      return;
    }
    if (diff.empty()) diff = play_server(fd, transcript("client_session"));
    recv_n(fd, 1);  // until the client closes
    ::close(fd);
  });
  {
    TCPStoreOptions o = client_opts(fake.port());
    o.num_workers = 1;  // construct_num_workers_1: ADD init/ 1
    TCPStore c("127.0.0.1", o);
    EXPECT_TRUE(c.legacy_server());
    c.set("key", std::string("value"));
    EXPECT_EQ(c.get_string("key"), "value");
    EXPECT_EQ(c.add("cnt", 5), 5);
    EXPECT_EQ(c.add("cnt", -2), 3);
    EXPECT_EQ(c.compare_set("key", bytes("value"), bytes("v2")), bytes("v2"));
    EXPECT_EQ(c.compare_set("key", bytes("nope"), bytes("v3")), bytes("v2"));
    EXPECT_EQ(c.compare_set("fresh", {}, bytes("new")), bytes("new"));
    EXPECT_EQ(c.compare_set("absent", bytes("exp"), bytes("des")), bytes("exp"));
    c.wait({"key"});
    c.wait({"key", "cnt"});
    EXPECT_EQ(c.num_keys(), 6);
    EXPECT_TRUE(c.delete_key("cnt"));
    EXPECT_FALSE(c.delete_key("cnt"));
    c.set("empty", std::string());
    EXPECT_EQ(c.get("empty").size(), 0u);
    c.set("bin", std::vector<uint8_t>{0, 255, 7});
    EXPECT_EQ(c.get("bin"), (std::vector<uint8_t>{0, 255, 7}));
  }
  server.join();
  EXPECT_EQ(diff, "");
}

// ---- PyTorch 2.x's dialect, written out from its source ----

std::vector<uint8_t> u64(uint64_t v) {
  wire::Writer w;
  w.u64(v);
  return w.finish();
}
std::vector<uint8_t> str(const std::string& s) {
  wire::Writer w;
  w.str(s);
  return w.finish();
}
std::vector<uint8_t> cat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
std::vector<uint8_t> op(uint8_t q) { return {q}; }

TEST(TCPStoreTranscriptTest, ClientSpeaksPyTorch2xToAPyTorch2xServer) {
  // {expected request, reply}: PyTorch 2.x numbers VALIDATE 0, SET 1,
  // COMPARE_SET 2, GET 3, ADD 4, CHECK 5, WAIT 6, GETNUMKEYS 7, DELETE_KEY 8,
  // APPEND 9, MULTI_GET 10, MULTI_SET 11, CANCEL_WAIT 12, PING 13.
  const std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> script = {
      {cat({op(1), str("/k"), str("v")}), {}},                       // set
      {cat({op(6), u64(1), str("/k")}), {0}},                         // get: wait...
      {cat({op(3), str("/k")}), str("v")},                            // ...then get
      {cat({op(4), str("/n"), u64(7)}), u64(7)},                      // add
      {cat({op(2), str("/k"), str("v"), str("w")}), str("w")},        // compare_set
      {cat({op(5), u64(2), str("/k"), str("/z")}), {1}},              // check: NOT_READY
      {cat({op(9), str("/k"), str("x")}), {}},                        // append
      {cat({op(11), u64(2), str("/a"), str("1"), str("/b"), str("2")}), {}},  // multi_set
      {cat({op(6), u64(2), str("/a"), str("/b")}), {0}},              // multi_get: wait...
      {cat({op(10), u64(2), str("/a"), str("/b")}), cat({str("1"), str("2")})},
      {cat({op(7)}), u64(5)},                                         // num_keys
      {cat({op(8), str("/n")}), u64(1)},                              // delete_key
      {cat({op(6), u64(1), str("/never")}), {}},                      // wait: no answer...
      {cat({op(12)}), {0, 1}},  // ...cancel: STOP_WAITING raced it, then WAIT_CANCELED
  };
  FakeServer fake;
  std::string diff;
  std::thread server([&] {
    int fd = fake.accept();
    if (fd < 0) {
      diff = "no connection";
      return;
    }
    // VALIDATE + magic, then PING + nonce, echoed.
    const std::vector<uint8_t> validate = {0, 0xce, 0xf7, 0x85, 0x3c};
    std::vector<uint8_t> got = recv_n(fd, 10);
    if (got.size() != 10 || !std::equal(validate.begin(), validate.end(), got.begin()) ||
        got[5] != 13) {
      diff = "handshake: got " + hex(got);
    } else {
      send_all(fd, std::vector<uint8_t>(got.begin() + 6, got.end()));
    }
    for (size_t i = 0; diff.empty() && i < script.size(); ++i) {
      got = recv_n(fd, script[i].first.size());
      if (got != script[i].first) {
        diff = "request " + std::to_string(i) + ": expected " + hex(script[i].first) + ", got " +
               hex(got);
      } else if (!script[i].second.empty()) {
        send_all(fd, script[i].second);
      }
    }
    recv_n(fd, 1);
    ::close(fd);
  });
  {
    TCPStore c("127.0.0.1", client_opts(fake.port()));
    EXPECT_FALSE(c.legacy_server());
    c.set("k", std::string("v"));
    EXPECT_EQ(c.get_string("k"), "v");
    EXPECT_EQ(c.add("n", 7), 7);
    EXPECT_EQ(c.compare_set("k", bytes("v"), bytes("w")), bytes("w"));
    EXPECT_FALSE(c.check({"k", "z"}));
    c.append("k", bytes("x"));
    c.multi_set({"a", "b"}, {bytes("1"), bytes("2")});
    EXPECT_EQ(c.multi_get({"a", "b"}), (std::vector<std::vector<uint8_t>>{bytes("1"), bytes("2")}));
    EXPECT_EQ(c.num_keys(), 5);
    EXPECT_TRUE(c.delete_key("n"));
    EXPECT_THROW(c.wait({"never"}, milliseconds(200)), TimeoutError);
  }
  server.join();
  EXPECT_EQ(diff, "");
}

}  // namespace
}  // namespace ember::distributed
