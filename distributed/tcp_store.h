#ifndef EMBER_DISTRIBUTED_TCP_STORE_H_
#define EMBER_DISTRIBUTED_TCP_STORE_H_

// TCPStore (torch.distributed.TCPStore): a key-value store served by one
// process (is_server) and reached by every rank over TCP.
//
//   TCPStoreOptions o;
//   o.port = 0;  // pick a free port
//   o.is_server = true;
//   TCPStore master("127.0.0.1", o);  // master.port(): the port it got
//   o.port = master.port(); o.is_server = false;
//   TCPStore client("127.0.0.1", o);  // in another rank
//
// The server is a thread of the process that created it (one poll loop for
// every connection). Clients connect with retry until the timeout, so ranks
// may start in any order. A port already in use is an error naming the port;
// port 0 picks a free one, reported by port().
//
// Note [TCPStore wire protocol]: ember speaks PyTorch's protocol
// (torch/csrc/distributed/c10d/TCPStore.cpp and its libuv server;
// tcp_store_wire.h has the encoding), so ember ranks join a PyTorch store
// (torchrun's agent store, a Python TCPStore) and PyTorch processes use
// ember's. Keys get PyTorch's "/" prefix on the wire and num_workers counts
// in PyTorch's "init/" key, so both sides see the same keys.
//
// Two dialects. PyTorch 2.x (2.4 and newer) starts each connection with
// VALIDATE and its magic; PyTorch 1.13 sends no validation and numbers its
// queries one lower. The server tells them apart by a connection's first
// bytes and answers each in its own. The client finds out what it talks to
// when it first connects: it sends VALIDATE then PING; a 2.x server
// echoes the ping, a 1.13 server reads the two as a SET whose key length is
// over 2^63 (the ping's nonce is chosen so), fails to allocate it and
// closes the connection, and the client reconnects speaking 1.13. The
// answer is kept for the store's life (and its reconnections).
//
// The server checks every length before it allocates: one request is at most
// kMaxFrameBytes, a key count at most PyTorch's MAX_KEY_COUNT; garbage, a
// truncated request, an unknown query, a get of a key that does not exist,
// an add on a value that is no integer end that connection only, with a
// line on stderr saying why (PyTorch's server closes it too). Note [Store
// resource caps] in tcp_store_server.cc bounds what connections that never
// validate, or validate and then flood, can make it hold. wait parks in the
// server until its keys exist; the client's timeout ends it with
// CANCEL_WAIT (with 1.13, which has none, by closing the connection).
//
// Note [A store that is gone]: a client that was connected and loses the
// connection (the server's process exited, its host went away) reconnects
// for at most kReconnectWindow; a refused connection ends that at once. If
// the server cannot be reached again, every request from then on fails at
// once with DistBackendError "the TCPStore at host:port (rank 0) is gone:
// ...", instead of each retrying for the whole timeout; a process group
// whose store host died thus reports it within seconds. A stopped (not
// dead) server keeps its connections open: requests end at their timeout.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "distributed/store.h"
#include "distributed/tcp_store_wire.h"

namespace ember::distributed {

struct TCPStoreOptions {
  uint16_t port = 29500;       // PyTorch's default MASTER_PORT; 0 picks a free port
  bool is_server = false;      // this process runs the server
  std::optional<int> num_workers;  // clients (server's own included) to wait for
  bool wait_workers = true;        // the server's constructor waits for num_workers
  std::chrono::milliseconds timeout = Store::kDefaultTimeout;
  // The server listens on `host`'s address only (MASTER_ADDR=127.0.0.1
  // reaches nothing from outside), or on every interface when this is set
  // or `host` is not an address of this machine.
  bool bind_all_interfaces = false;
  // Who runs the server, for error messages: "rank 0", "the launcher".
  std::string server_description;
};

class TCPStoreServer;

class TCPStore : public Store {
 public:
  static constexpr uint32_t kMaxFrameBytes = 64u << 20;  // a key or value is smaller
  static constexpr std::chrono::milliseconds kReconnectWindow{5000};

  TCPStore(std::string host, const TCPStoreOptions& opts = {});
  ~TCPStore() override;
  TCPStore(const TCPStore&) = delete;
  TCPStore& operator=(const TCPStore&) = delete;

  using Store::set;
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  std::vector<uint8_t> compare_set(const std::string& key, const std::vector<uint8_t>& expected,
                                   const std::vector<uint8_t>& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  // One request each with a PyTorch 2.x server; Store's fallbacks (several
  // requests) with a 1.13 one.
  void append(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<std::vector<uint8_t>> multi_get(const std::vector<std::string>& keys) override;
  void multi_set(const std::vector<std::string>& keys,
                 const std::vector<std::vector<uint8_t>>& values) override;
  // A client of the same server (never a server itself).
  std::shared_ptr<Store> clone(std::chrono::milliseconds timeout) const override;

  const std::string& host() const { return host_; }
  // The port the server listens on (the one picked when 0 was asked for).
  uint16_t port() const { return port_; }
  bool is_server() const { return server_ != nullptr; }
  // Connections the server has open (this store's own included); -1 when
  // this store runs no server.
  int num_server_connections() const;
  // Whether the server speaks PyTorch 1.13's dialect (Note [TCPStore wire
  // protocol]).
  bool legacy_server() const { return dialect_ == Dialect::kLegacy; }

 private:
  enum class Dialect : uint8_t { kUnknown, kModern, kLegacy };
  using Keys = std::vector<std::string>;
  void connect_locked();
  bool handshake_locked(Clock::time_point deadline);
  // Sends or receives n bytes by the deadline: false when the deadline
  // passed (the connection is left open); a lost connection reconnects and
  // throws (Note [A store that is gone]); other errors throw.
  bool io_locked(bool sending, uint8_t* p, size_t n, Clock::time_point deadline);
  // The same, throwing TimeoutError naming `keys` (and closing the
  // connection) when the deadline passes.
  void send_locked(const std::vector<uint8_t>& bytes, const Keys& keys);
  void recv_locked(uint8_t* p, size_t n, const Keys& keys);
  int64_t recv_i64_locked(const Keys& keys);
  std::vector<uint8_t> recv_vec_locked(const Keys& keys);
  int64_t add_locked(const std::string& wire_key, int64_t value);
  std::vector<uint8_t> get_locked(const std::string& wire_key, const std::string& key);
  void begin_op_locked();
  // A request in the server's dialect; one with a single key.
  wire::Writer writer(wire::Query q) const;
  std::vector<uint8_t> wire_request(wire::Query q, const std::string& wire_key) const;
  void wait_locked(const Keys& wire_keys, std::chrono::milliseconds timeout, const Keys& keys);
  TimeoutError timed_out(std::chrono::milliseconds after, const Keys& keys) const;
  void close_locked();
  void wait_for_workers(int num_workers);
  // "the TCPStore at host:port (rank 0)".
  std::string where() const;
  // Marks the server gone (Note [A store that is gone]) and throws.
  [[noreturn]] void gone(const std::string& why);

  std::string host_;
  uint16_t port_;
  std::string server_description_;
  bool connected_once_ = false;
  std::string gone_;  // set: the server is gone, every request fails with this
  Dialect dialect_ = Dialect::kUnknown;
  Clock::time_point op_deadline_;  // the request under way gives up then
  std::unique_ptr<TCPStoreServer> server_;
  std::mutex mu_;  // one request at a time on the connection
  int fd_ = -1;
};

// The server alone (TCPStore runs one when is_server). Listens at `port` (0
// picks a free one) on `bind_address`'s address, or on every interface
// (IPv6 and IPv4) when it is empty or not an address of this machine.
// Throws DistBackendError naming the port when it cannot bind.
class TCPStoreServer {
 public:
  explicit TCPStoreServer(uint16_t port, const std::string& bind_address = "");
  ~TCPStoreServer();  // stops the thread, closes every connection
  TCPStoreServer(const TCPStoreServer&) = delete;
  TCPStoreServer& operator=(const TCPStoreServer&) = delete;
  uint16_t port() const;
  // Open client connections (for tests of connection handling).
  int num_connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_TCP_STORE_H_
