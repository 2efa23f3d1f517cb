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
// Note [TCPStore wire protocol]: every message is a frame, a 4-byte
// little-endian payload length then the payload; a request's payload is an
// opcode byte and its fields (strings as u32 length + bytes, integers as
// i64), parsed exactly (no trailing bytes). A connection's first request is
// a HELLO carrying the protocol's magic and version. A frame longer than
// kMaxFrameBytes, a field that overruns its frame, an unknown opcode, a
// missing HELLO, or a connection closed mid-frame closes that connection
// only; the server buffers at most one frame per connection and reads no
// more from a connection until its reply is sent, so no client can make it
// grow without bound (Note [Store resource caps] in tcp_store_server.cc
// bounds what connections that never greet, or greet and then flood, can
// make it hold). get and wait block in the server (the reply comes when the
// keys exist or at the request's deadline), not by polling.
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
  // A client of the same server (never a server itself).
  std::shared_ptr<Store> clone(std::chrono::milliseconds timeout) const override;

  const std::string& host() const { return host_; }
  // The port the server listens on (the one picked when 0 was asked for).
  uint16_t port() const { return port_; }
  bool is_server() const { return server_ != nullptr; }
  // Connections the server has open (this store's own included); -1 when
  // this store runs no server.
  int num_server_connections() const;

 private:
  struct Reply;
  Reply request(const std::vector<uint8_t>& frame, std::chrono::milliseconds timeout,
                const std::vector<std::string>& keys);
  void connect_locked();
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
