#include "distributed/tcp_store.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "distributed/tcp_store_wire.h"
#include "distributed/testing/multiprocess.h"

namespace ember::distributed {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

TCPStoreOptions server_opts(milliseconds timeout = milliseconds(5000)) {
  TCPStoreOptions o;
  o.port = 0;
  o.is_server = true;
  o.timeout = timeout;
  return o;
}

TCPStoreOptions client_opts(uint16_t port, milliseconds timeout = milliseconds(5000)) {
  TCPStoreOptions o;
  o.port = port;
  o.timeout = timeout;
  return o;
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

TEST(TCPStoreTest, SetGetAddCompareSetDeleteNumKeys) {
  TCPStore store("127.0.0.1", server_opts());
  EXPECT_TRUE(store.is_server());
  EXPECT_GT(store.port(), 0);
  store.set("a", std::string("hello"));
  EXPECT_EQ(store.get_string("a"), "hello");
  store.set("a", std::vector<uint8_t>{0, 255, 7});
  EXPECT_EQ(store.get("a"), (std::vector<uint8_t>{0, 255, 7}));
  EXPECT_EQ(store.add("n", 5), 5);
  EXPECT_EQ(store.add("n", -2), 3);
  EXPECT_EQ(store.get_string("n"), "3");  // counters are decimal text, as in PyTorch
  // compare_set: absent + empty expected sets; a mismatch returns the current value.
  EXPECT_EQ(store.compare_set("c", {}, bytes("x")), bytes("x"));
  EXPECT_EQ(store.compare_set("c", bytes("y"), bytes("z")), bytes("x"));
  EXPECT_EQ(store.compare_set("c", bytes("x"), bytes("z")), bytes("z"));
  EXPECT_EQ(store.compare_set("absent", bytes("e"), bytes("d")), bytes("e"));
  EXPECT_FALSE(store.check({"absent"}));
  EXPECT_TRUE(store.check({"a", "n", "c"}));
  EXPECT_FALSE(store.check({"a", "absent"}));
  EXPECT_EQ(store.num_keys(), 3);
  EXPECT_TRUE(store.delete_key("a"));
  EXPECT_FALSE(store.delete_key("a"));
  EXPECT_EQ(store.num_keys(), 2);
  store.set("empty", std::string());
  EXPECT_EQ(store.get("empty").size(), 0u);
}

TEST(TCPStoreTest, AppendMultiGetMultiSet) {
  TCPStore server("127.0.0.1", server_opts());
  TCPStore client("127.0.0.1", client_opts(server.port()));
  EXPECT_FALSE(client.legacy_server());
  client.append("log", bytes("a"));  // creates the key
  client.append("log", bytes("bc"));
  EXPECT_EQ(server.get_string("log"), "abc");
  client.multi_set({"x", "y"}, {bytes("1"), bytes("22")});
  EXPECT_EQ(server.multi_get({"y", "x", "log"}),
            (std::vector<std::vector<uint8_t>>{bytes("22"), bytes("1"), bytes("abc")}));
  EXPECT_THROW(client.multi_set({"x"}, {}), Error);
}

TEST(TCPStoreTest, AddOnNonIntegerValueIsAnError) {
  TCPStore store("127.0.0.1", server_opts());
  store.set("k", std::string("abc"));
  try {
    store.add("k", 1);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'k' is not an integer"), std::string::npos);
  }
  EXPECT_EQ(store.get_string("k"), "abc");  // and the connection still works
}

TEST(TCPStoreTest, GetWaitsForAKeySetLater) {
  TCPStore server("127.0.0.1", server_opts());
  std::thread setter([port = server.port()] {
    TCPStore client("127.0.0.1", client_opts(port));
    std::this_thread::sleep_for(milliseconds(200));
    client.set("late", std::string("value"));
  });
  const auto t0 = Clock::now();
  EXPECT_EQ(server.get_string("late"), "value");
  EXPECT_GE(seconds_since(t0), 0.1);
  setter.join();
}

TEST(TCPStoreTest, GetAndWaitTimeOutNamingTheKeys) {
  TCPStore store("127.0.0.1", server_opts(milliseconds(300)));
  const auto t0 = Clock::now();
  try {
    store.get("never");
    FAIL();
  } catch (const TimeoutError& e) {
    EXPECT_NE(std::string(e.what()).find("never"), std::string::npos) << e.what();
  }
  EXPECT_GE(seconds_since(t0), 0.25);
  EXPECT_LT(seconds_since(t0), 3.0);
  store.set("one", std::string("1"));
  EXPECT_THROW(store.wait({"one", "two"}, milliseconds(100)), TimeoutError);
  store.wait({"one"}, milliseconds(100));  // present: returns at once
  EXPECT_EQ(store.get_string("one"), "1");  // the connection survived the timeouts
}

TEST(TCPStoreTest, PortInUseNamesThePort) {
  TCPStore first("127.0.0.1", server_opts());
  TCPStoreOptions o = server_opts();
  o.port = first.port();
  try {
    TCPStore second("127.0.0.1", o);
    FAIL();
  } catch (const DistBackendError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(":" + std::to_string(first.port())), std::string::npos) << msg;
    EXPECT_NE(msg.find("Address already in use"), std::string::npos) << msg;
  }
}

TEST(TCPStoreTest, ClientRetriesUntilTheServerStarts) {
  const int port = testing::free_port();
  std::unique_ptr<TCPStore> server;
  std::thread late([&] {
    std::this_thread::sleep_for(milliseconds(300));
    TCPStoreOptions o = server_opts();
    o.port = static_cast<uint16_t>(port);
    server = std::make_unique<TCPStore>("127.0.0.1", o);
    server->set("up", std::string("yes"));
  });
  TCPStore client("127.0.0.1", client_opts(static_cast<uint16_t>(port)));
  EXPECT_EQ(client.get_string("up"), "yes");
  late.join();
}

TEST(TCPStoreTest, ConnectTimesOutWhenNoServer) {
  const int port = testing::free_port();
  const auto t0 = Clock::now();
  try {
    TCPStore client("127.0.0.1", client_opts(static_cast<uint16_t>(port), milliseconds(300)));
    FAIL();
  } catch (const TimeoutError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << msg;
    EXPECT_NE(msg.find("Connection refused"), std::string::npos) << msg;
  }
  EXPECT_GE(seconds_since(t0), 0.29);
  EXPECT_LT(seconds_since(t0), 3.0);
}

TEST(TCPStoreTest, NumWorkersTimeoutSaysHowManyJoined) {
  TCPStoreOptions o = server_opts(milliseconds(300));
  o.num_workers = 2;
  try {
    TCPStore server("127.0.0.1", o);
    FAIL();
  } catch (const TimeoutError& e) {
    EXPECT_NE(std::string(e.what()).find("1/2 clients joined"), std::string::npos) << e.what();
  }
}

TEST(TCPStoreTest, ServerWaitsForNumWorkers) {
  const int port = testing::free_port();
  std::thread client([port] {
    TCPStoreOptions o = client_opts(static_cast<uint16_t>(port));
    o.num_workers = 2;
    TCPStore c("127.0.0.1", o);
    c.set("from_client", std::string("1"));
  });
  TCPStoreOptions o = server_opts();
  o.port = static_cast<uint16_t>(port);
  o.num_workers = 2;
  TCPStore server("127.0.0.1", o);  // returns once both joined
  EXPECT_EQ(server.get_string("from_client"), "1");
  client.join();
}

TEST(TCPStoreTest, RanksInSeparateProcesses) {
  TCPStore server("127.0.0.1", server_opts());
  const uint16_t port = server.port();
  auto results = testing::run_processes(
      3,
      [port](int rank) {
        TCPStore store("127.0.0.1", client_opts(port));
        store.set("rank" + std::to_string(rank), std::to_string(rank * 10));
        store.add("count", 1);
        store.wait({"rank0", "rank1", "rank2"});
        for (int r = 0; r < 3; ++r) {
          EXPECT_EQ(store.get_string("rank" + std::to_string(r)), std::to_string(r * 10));
        }
      },
      milliseconds(20000));
  EXPECT_TRUE(testing::all_succeeded(results));
  EXPECT_EQ(server.get_string("count"), "3");
}

TEST(TCPStoreTest, ServerProcessDeathIsAnErrorNotAHang) {
  // The server lives in a child; the parent's client sees it go away.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  testing::Processes p(1, [&](int) {
    TCPStore server("127.0.0.1", server_opts());
    uint16_t port = server.port();
    if (write(fds[1], &port, sizeof(port)) != sizeof(port)) _exit(2);
    std::this_thread::sleep_for(std::chrono::seconds(60));
  });
  uint16_t port = 0;
  ASSERT_EQ(read(fds[0], &port, sizeof(port)), static_cast<ssize_t>(sizeof(port)));
  close(fds[0]);
  close(fds[1]);
  // A long timeout: the failure must come from the dead server, not from it.
  TCPStoreOptions o = client_opts(port, milliseconds(600000));
  o.server_description = "rank 0";
  TCPStore client("127.0.0.1", o);
  client.set("k", std::string("v"));
  p.kill(0, SIGKILL);
  p.wait(milliseconds(5000));
  // Note [A store that is gone]: named as such at once, and every later
  // request fails at once with the same cause.
  const std::string gone =
      "the TCPStore at 127.0.0.1:" + std::to_string(port) + " (rank 0) is gone";
  const auto t0 = Clock::now();
  try {
    client.get("missing");
    ADD_FAILURE() << "no error";
  } catch (const DistBackendError& e) {
    EXPECT_NE(std::string(e.what()).find(gone), std::string::npos) << e.what();
  }
  EXPECT_LT(seconds_since(t0), 5.0);
  const auto t1 = Clock::now();
  for (int i = 0; i < 3; ++i) {
    try {
      client.set("k", std::string("again"));
      ADD_FAILURE() << "no error";
    } catch (const DistBackendError& e) {
      EXPECT_NE(std::string(e.what()).find(gone), std::string::npos) << e.what();
    }
  }
  EXPECT_LT(seconds_since(t1), 0.5);
}

// A stopped (not dead) server keeps the connection open: the client waits
// for its timeout, and no longer.
TEST(TCPStoreTest, StoppedServerTimesOutInsteadOfBeingGone) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  testing::Processes p(1, [&](int) {
    TCPStore server("127.0.0.1", server_opts());
    uint16_t port = server.port();
    if (write(fds[1], &port, sizeof(port)) != sizeof(port)) _exit(2);
    std::this_thread::sleep_for(std::chrono::seconds(60));
  });
  uint16_t port = 0;
  ASSERT_EQ(read(fds[0], &port, sizeof(port)), static_cast<ssize_t>(sizeof(port)));
  close(fds[0]);
  close(fds[1]);
  TCPStore client("127.0.0.1", client_opts(port, milliseconds(1000)));
  client.set("k", std::string("v"));
  p.kill(0, SIGSTOP);
  // kill() returns before the process has stopped: wait until it has.
  for (int i = 0; i < 500; ++i) {
    std::ifstream stat("/proc/" + std::to_string(p.pid(0)) + "/stat");
    std::string line((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t paren = line.rfind(')');
    if (paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'T') break;
    std::this_thread::sleep_for(milliseconds(2));
  }
  // (A set has no reply in PyTorch's protocol: an add waits for one.)
  const auto t0 = Clock::now();
  EXPECT_THROW(client.add("n", 1), TimeoutError);
  EXPECT_GE(seconds_since(t0), 0.9);
  EXPECT_LT(seconds_since(t0), 4.0);
  p.kill(0, SIGKILL);
}

// The server listens where it was told: a store for MASTER_ADDR=127.0.0.1
// is not reachable on this machine's other addresses.
TEST(TCPStoreServerTest, ListensOnTheGivenAddressOnly) {
  TCPStoreServer loopback(0, "127.0.0.1");
  // 127.0.0.2 is this machine too (all of 127/8 is loopback), but another
  // address than the one bound.
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(loopback.port());
  a.sin_addr.s_addr = htonl(0x7f000002);
  EXPECT_NE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  EXPECT_EQ(errno, ECONNREFUSED);
  ::close(fd);
  TCPStore client("127.0.0.1", client_opts(loopback.port()));
  client.set("k", std::string("v"));
  // Every interface when no address is given: 127.0.0.2 reaches it.
  TCPStoreServer everywhere(0);
  fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  a.sin_port = htons(everywhere.port());
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  ::close(fd);
  // An address of no interface here falls back to every interface.
  TCPStoreServer elsewhere(0, "192.0.2.1");  // TEST-NET-1, never local
  TCPStore c2("127.0.0.1", client_opts(elsewhere.port()));
  c2.set("k", std::string("v"));
}

// ---- raw sockets: malformed input closes only that connection ----

int raw_connect(uint16_t port) { return testing::connect_loopback(port); }

void send_bytes(int fd, const std::vector<uint8_t>& b) {
  ASSERT_EQ(::send(fd, b.data(), b.size(), MSG_NOSIGNAL), static_cast<ssize_t>(b.size()));
}

// True when the server closed fd within 3 s (no reply bytes first). A
// close with unread input reaches the client as a reset.
bool closed_by_server(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 3000) != 1) return false;
  char c;
  const ssize_t n = ::recv(fd, &c, 1, 0);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

// PyTorch 2.x's first request: VALIDATE and its magic (no reply).
std::vector<uint8_t> validate_bytes() {
  wire::Writer w(wire::Query::kValidate, wire::Dialect::kModern);
  w.u32(wire::kValidationMagic);
  return w.finish();
}

std::vector<uint8_t> query(wire::Query q) {
  return wire::Writer(q, wire::Dialect::kModern).finish();
}

std::vector<uint8_t> u64_bytes(uint64_t v) {
  wire::Writer w;
  w.u64(v);
  return w.finish();
}

std::vector<uint8_t> cat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// Reads exactly n bytes (3 s at most).
std::vector<uint8_t> recv_exactly(int fd, size_t n) {
  std::vector<uint8_t> out(n);
  pollfd p{fd, POLLIN, 0};
  size_t got = 0;
  while (got < n && ::poll(&p, 1, 3000) == 1) {
    ssize_t k = ::recv(fd, out.data() + got, n - got, 0);
    if (k <= 0) break;
    got += static_cast<size_t>(k);
  }
  out.resize(got);
  return out;
}

// After the bad connection is gone, a normal client is still served.
void expect_server_healthy(TCPStore& server) {
  TCPStore client("127.0.0.1", client_opts(server.port()));
  client.set("after", std::string("ok"));
  EXPECT_EQ(server.get_string("after"), "ok");
}

class TCPStoreGarbageTest : public ::testing::Test {
 protected:
  TCPStore server_{"127.0.0.1", server_opts()};
};

TEST_F(TCPStoreGarbageTest, HttpRequestIsClosed) {
  int fd = raw_connect(server_.port());
  ASSERT_GE(fd, 0);
  std::string http = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  send_bytes(fd, std::vector<uint8_t>(http.begin(), http.end()));
  EXPECT_TRUE(closed_by_server(fd));
  ::close(fd);
  expect_server_healthy(server_);
}

TEST_F(TCPStoreGarbageTest, OversizedLengthIsClosedBeforeItsPayload) {
  int fd = raw_connect(server_.port());
  ASSERT_GE(fd, 0);
  // A SET whose key claims 1 TiB, nothing of it sent.
  send_bytes(fd, cat({validate_bytes(), query(wire::Query::kSet), u64_bytes(uint64_t{1} << 40)}));
  EXPECT_TRUE(closed_by_server(fd));
  ::close(fd);
  expect_server_healthy(server_);
}

TEST(TCPStoreServerTest, TruncatedRequestThenCloseFreesTheConnection) {
  TCPStoreServer server(0);
  int fd = raw_connect(server.port());
  ASSERT_GE(fd, 0);
  // A SET whose key has 100 bytes, 3 of them sent.
  send_bytes(fd, cat({validate_bytes(), query(wire::Query::kSet), u64_bytes(100), {'a', 'b', 'c'}}));
  for (int i = 0; i < 300 && server.num_connections() != 1; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(server.num_connections(), 1);
  ::close(fd);
  for (int i = 0; i < 300 && server.num_connections() != 0; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(server.num_connections(), 0);
  TCPStore client("127.0.0.1", client_opts(server.port()));
  client.set("k", std::string("v"));
  EXPECT_EQ(client.get_string("k"), "v");
}

TEST(TCPStoreServerTest, SlowPartialRequestDoesNotBlockOthers) {
  TCPStoreServer server(0);
  int fd = raw_connect(server.port());
  ASSERT_GE(fd, 0);
  // A SET of a 16 MiB key, 1 MiB of it sent.
  std::vector<uint8_t> partial =
      cat({validate_bytes(), query(wire::Query::kSet), u64_bytes(16 << 20)});
  partial.resize(1 << 20, 'x');
  send_bytes(fd, partial);
  TCPStore client("127.0.0.1", client_opts(server.port()));
  client.set("k", std::string("v"));
  EXPECT_EQ(client.get_string("k"), "v");
  ::close(fd);
}

TEST_F(TCPStoreGarbageTest, UnknownFirstBytesAreClosed) {
  // Not a query of either dialect; 1.13's WATCH_KEY, which ember refuses.
  for (uint8_t first : {uint8_t{0x7e}, uint8_t{7}}) {
    int fd = raw_connect(server_.port());
    ASSERT_GE(fd, 0);
    send_bytes(fd, {first, 0, 0, 0, 0, 0, 0, 0, 0});
    EXPECT_TRUE(closed_by_server(fd)) << int(first);
    ::close(fd);
  }
  expect_server_healthy(server_);
}

TEST_F(TCPStoreGarbageTest, BadMagicIsClosed) {
  // 0 with another magic reads as 1.13's SET, whose key length is then huge.
  int fd = raw_connect(server_.port());
  ASSERT_GE(fd, 0);
  send_bytes(fd, {0, 0xde, 0xad, 0xbe, 0xef, 0xff, 0xff, 0xff, 0xff});
  EXPECT_TRUE(closed_by_server(fd));
  ::close(fd);
  expect_server_healthy(server_);
}

TEST_F(TCPStoreGarbageTest, UnknownQueryAndSecondValidateAreClosed) {
  for (const std::vector<uint8_t>& bad :
       {std::vector<uint8_t>{0x7e}, validate_bytes()}) {
    int fd = raw_connect(server_.port());
    ASSERT_GE(fd, 0);
    // A PING first: its answer shows the connection was validated.
    send_bytes(fd, cat({validate_bytes(), query(wire::Query::kPing), {1, 2, 3, 4}}));
    EXPECT_EQ(recv_exactly(fd, 4), (std::vector<uint8_t>{1, 2, 3, 4}));
    send_bytes(fd, bad);
    EXPECT_TRUE(closed_by_server(fd));
    ::close(fd);
  }
  expect_server_healthy(server_);
}

TEST_F(TCPStoreGarbageTest, ForgedKeyCountDoesNotAllocate) {
  int fd = raw_connect(server_.port());
  ASSERT_GE(fd, 0);
  // CHECK with 2^64-1 keys announced.
  send_bytes(fd, cat({validate_bytes(), query(wire::Query::kCheck), u64_bytes(~uint64_t{0})}));
  EXPECT_TRUE(closed_by_server(fd));
  ::close(fd);
  expect_server_healthy(server_);
}

TEST_F(TCPStoreGarbageTest, RandomBytesNeverBreakTheServer) {
  uint32_t x = 12345;
  for (int round = 0; round < 50; ++round) {
    int fd = raw_connect(server_.port());
    ASSERT_GE(fd, 0);
    if (round % 2) send_bytes(fd, validate_bytes());
    std::vector<uint8_t> junk(1 + round * 7);
    for (auto& b : junk) {
      x = x * 1664525u + 1013904223u;
      b = static_cast<uint8_t>(x >> 24);
    }
    send_bytes(fd, junk);
    ::close(fd);
  }
  expect_server_healthy(server_);
}

// A wait parks until its keys exist, however many other requests the
// connection sends meanwhile; CANCEL_WAIT ends it.
TEST_F(TCPStoreGarbageTest, WaitIsReleasedBySetAndEndedByCancel) {
  int fd = raw_connect(server_.port());
  ASSERT_GE(fd, 0);
  wire::Writer wait(wire::Query::kWait, wire::Dialect::kModern);
  wait.u64(1);
  wait.str("/soon");
  send_bytes(fd, cat({validate_bytes(), wait.finish()}));
  TCPStore other("127.0.0.1", client_opts(server_.port()));
  other.set("soon", std::string("1"));
  EXPECT_EQ(recv_exactly(fd, 1), std::vector<uint8_t>{wire::kStopWaiting});
  wire::Writer never(wire::Query::kWait, wire::Dialect::kModern);
  never.u64(1);
  never.str("/never");
  send_bytes(fd, cat({never.finish(), query(wire::Query::kCancelWait)}));
  EXPECT_EQ(recv_exactly(fd, 1), std::vector<uint8_t>{wire::kWaitCanceled});
  // The cancelled wait is forgotten: setting its key later sends nothing.
  other.set("never", std::string("1"));
  EXPECT_TRUE(other.check({"never"}));  // a round trip: the set is done
  send_bytes(fd, query(wire::Query::kGetNumKeys));
  EXPECT_EQ(recv_exactly(fd, 8), u64_bytes(2));
  ::close(fd);
}

// ---- Note [Store resource caps] ----

// Resident memory of this process (the server runs in it), in bytes.
int64_t rss_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f != nullptr) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<int64_t>(resident) * sysconf(_SC_PAGESIZE);
}

// Sends as much of `n` bytes as the socket takes within ~2 s (the server
// may stop reading, or drop the connection).
size_t send_up_to(int fd, size_t n) {
  std::vector<uint8_t> chunk(64 << 10, 0x41);
  size_t sent = 0;
  const auto deadline = Clock::now() + milliseconds(2000);
  while (sent < n && Clock::now() < deadline) {
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, 100) != 1) continue;
    if (p.revents & (POLLERR | POLLHUP)) break;
    ssize_t k =
        ::send(fd, chunk.data(), std::min(chunk.size(), n - sent), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k <= 0) {
      if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      break;
    }
    sent += static_cast<size_t>(k);
  }
  return sent;
}

TEST_F(TCPStoreGarbageTest, UnvalidatedConnectionsMayBufferOnlyAFewKilobytes) {
  // 100 hostile connections, each announcing a 60 MiB request before
  // validating and sending 1 MiB of it: each is dropped at the 4 KiB cap, the
  // server's memory stays flat, and the job's client never notices.
  TCPStore job("127.0.0.1", client_opts(server_.port()));
  job.set("before", std::string("1"));
  const int64_t before = rss_bytes();
  std::vector<int> fds;
  for (int i = 0; i < 100; ++i) {
    int fd = raw_connect(server_.port());
    ASSERT_GE(fd, 0);
    // 1.13's SET of a 60 MiB key, before any validation.
    send_bytes(fd, cat({{0}, u64_bytes(60 << 20)}));
    send_up_to(fd, 1 << 20);
    fds.push_back(fd);
  }
  int closed = 0;
  for (int fd : fds) {
    closed += closed_by_server(fd) ? 1 : 0;
    ::close(fd);
  }
  EXPECT_EQ(closed, 100);
  const int64_t grown = rss_bytes() - before;
  std::cout << "server RSS growth under 100 hostile unvalidated connections: " << grown / 1024
            << " KiB\n";
  EXPECT_LT(grown, int64_t{16} << 20);
  job.set("after", std::string("2"));
  EXPECT_EQ(job.get_string("before"), "1");
}

TEST_F(TCPStoreGarbageTest, ValidatedConnectionsShareABoundedBuffer) {
  // Validated clients may send large requests, but all of them together
  // may not make the server hold more than 128 MiB: four that each push
  // 60 MiB of a request cannot all be buffered.
  const int64_t before = rss_bytes();
  std::vector<int> fds;
  size_t sent_total = 0;
  for (int i = 0; i < 4; ++i) {
    int fd = raw_connect(server_.port());
    ASSERT_GE(fd, 0);
    // Validated, then a SET of a 60 MiB key.
    send_bytes(fd, cat({validate_bytes(), query(wire::Query::kSet), u64_bytes(60 << 20)}));
    sent_total += send_up_to(fd, size_t{60} << 20);
    fds.push_back(fd);
  }
  int closed = 0;
  for (int fd : fds) {
    closed += closed_by_server(fd) ? 1 : 0;
    ::close(fd);
  }
  EXPECT_GE(closed, 1) << sent_total << " bytes sent";
  EXPECT_LT(rss_bytes() - before, int64_t{256} << 20);
  expect_server_healthy(server_);
}

TEST_F(TCPStoreGarbageTest, OldestUnvalidatedConnectionsMakeRoom) {
  // 300 connections that never validate: the server keeps the newest 256 and
  // still serves a real client.
  std::vector<int> fds;
  for (int i = 0; i < 300; ++i) {
    int fd = raw_connect(server_.port());
    ASSERT_GE(fd, 0);
    fds.push_back(fd);
  }
  expect_server_healthy(server_);
  for (int i = 0; i < 300 && server_.num_server_connections() > 256 + 1; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_LE(server_.num_server_connections(), 256 + 1);  // + the store's own
  EXPECT_TRUE(closed_by_server(fds.front()));
  for (int fd : fds) ::close(fd);
}

}  // namespace
}  // namespace ember::distributed
