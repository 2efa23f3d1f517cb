#ifndef EMBER_DISTRIBUTED_TESTING_NETNS_H_
#define EMBER_DISTRIBUTED_TESTING_NETNS_H_

// Two "hosts" for multi-host tests: two network namespaces joined by a veth
// pair (10.231.x.1 and 10.231.x.2). Needs root (ip netns) and a test run
// outside Bazel's sandbox (tags = ["no-sandbox"]: ip netns bind-mounts under
// /var/run/netns); where they cannot be made, why_not() says why and the
// test skips with it.

#include <string>

namespace ember::distributed::testing {

class TwoHosts {
 public:
  TwoHosts();
  ~TwoHosts();  // deletes the namespaces (and with them the veth ends)
  TwoHosts(const TwoHosts&) = delete;
  TwoHosts& operator=(const TwoHosts&) = delete;

  // "" when the hosts are up, else the reason they could not be made.
  const std::string& why_not() const { return why_; }
  // Moves the calling process (single-threaded) into host h's namespace.
  void enter(int h) const;
  // Host h's namespace, its veth end (for GLOO_SOCKET_IFNAME) and address.
  const std::string& ns(int h) const { return ns_[h]; }
  const std::string& dev(int h) const { return dev_[h]; }
  const std::string& addr(int h) const { return addr_[h]; }
  // The `ip` program (Bazel's strict action environment leaves /usr/sbin
  // out of PATH).
  static std::string ip_tool();

 private:
  std::string ns_[2], dev_[2], addr_[2], why_;
  bool made_ = false;
};

}  // namespace ember::distributed::testing

#endif  // EMBER_DISTRIBUTED_TESTING_NETNS_H_
