// Two "hosts": two network namespaces joined by a veth pair (10.231.x.1 and
// 10.231.x.2), two ranks in each, every collective across them with
// GLOO_SOCKET_IFNAME naming the namespace's veth end. Needs root (ip netns);
// skips with a message saying so where namespaces cannot be made.

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "distributed/gloo_test_util.h"
#include "distributed/process_group_gloo.h"
#include "distributed/testing/multiprocess.h"
#include "tensor/all.h"

namespace ember::distributed {
namespace {

std::string err_file() {
  const char* t = std::getenv("TEST_TMPDIR");
  return std::string(t ? t : "/tmp") + "/netns_cmd_" + std::to_string(getpid()) + ".txt";
}

// The output of the last command sh() ran (trimmed).
std::string last_error() {
  std::ifstream f(err_file());
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Bazel's strict action environment leaves /usr/sbin out of PATH.
std::string ip_tool() {
  for (const char* p : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"}) {
    if (::access(p, X_OK) == 0) return p;
  }
  return "ip";
}

int sh(std::string cmd) {
  static const std::string ip = ip_tool();
  for (size_t pos = 0; (pos = cmd.find("ip ", pos)) != std::string::npos;) {
    if (pos == 0 || cmd[pos - 1] == ' ') {
      cmd.replace(pos, 2, ip);
      pos += ip.size();
    } else {
      pos += 3;
    }
  }
  int rc = std::system((cmd + " >" + err_file() + " 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// Two namespaces and a veth pair, removed on destruction.
class TwoHosts {
 public:
  TwoHosts() {
    const std::string id = std::to_string(getpid() % 100000);
    ns_[0] = "ember_gloo_a" + id;
    ns_[1] = "ember_gloo_b" + id;
    dev_[0] = "egA" + id;
    dev_[1] = "egB" + id;
    const int subnet = getpid() % 250 + 1;
    addr_[0] = absl::StrCat("10.231.", subnet, ".1");
    addr_[1] = absl::StrCat("10.231.", subnet, ".2");
    if (geteuid() != 0) {
      why_ = "not running as root";
      return;
    }
    if (sh("ip netns add " + ns_[0]) != 0 || sh("ip netns add " + ns_[1]) != 0) {
      why_ = "'ip netns add' is not permitted here (" + last_error() + ")";
      sh("ip netns del " + ns_[0]);
      return;
    }
    made_ = true;
    bool ok = sh("ip link add " + dev_[0] + " type veth peer name " + dev_[1]) == 0;
    for (int i = 0; ok && i < 2; ++i) {
      const std::string in = "ip netns exec " + ns_[i] + " ";
      ok = sh("ip link set " + dev_[i] + " netns " + ns_[i]) == 0 &&
           sh(in + "ip addr add " + addr_[i] + "/24 dev " + dev_[i]) == 0 &&
           sh(in + "ip link set " + dev_[i] + " up") == 0 && sh(in + "ip link set lo up") == 0;
    }
    if (!ok) why_ = "could not set up the veth pair between the namespaces";
  }
  ~TwoHosts() {
    if (!made_) return;
    sh("ip netns del " + ns_[0]);
    sh("ip netns del " + ns_[1]);  // deleting a namespace removes its veth end
  }
  const std::string& why_not() const { return why_; }
  // Moves the calling process (single-threaded) into host h's namespace.
  void enter(int h) const {
    int fd = ::open(("/var/run/netns/" + ns_[h]).c_str(), O_RDONLY);
    EMBER_CHECK(fd >= 0 && ::setns(fd, CLONE_NEWNET) == 0, "cannot enter namespace ", ns_[h]);
    ::close(fd);
  }
  const std::string& dev(int h) const { return dev_[h]; }
  const std::string& addr(int h) const { return addr_[h]; }

 private:
  std::string ns_[2], dev_[2], addr_[2], why_;
  bool made_ = false;
};

TEST(ProcessGroupGlooNetns, EveryOpAcrossTwoNamespaces) {
  TwoHosts hosts;
  if (!hosts.why_not().empty()) {
    GTEST_SKIP() << "two-host test skipped: " << hosts.why_not()
                 << " (needs root and network namespaces)";
  }
  const std::string dir = testing::make_temp_dir();  // the store: a shared directory
  auto results = testing::run_processes(
      4,
      [&](int rank) {
        const int h = rank % 2;  // ranks 0, 2 on host A; 1, 3 on host B
        hosts.enter(h);
        setenv("GLOO_SOCKET_IFNAME", hosts.dev(h).c_str(), 1);
        // The namespaces still share this machine's memory, which two real
        // hosts would not: all_reduce must cross the veth pair too.
        ProcessGroupGloo::Options o;
        o.shared_memory = false;
        ProcessGroupGloo pg(testing::make_store(dir), rank, 4, o);
        EXPECT_FALSE(pg.uses_shared_memory());
        // The other host is reachable only through the veth pair.
        EXPECT_EQ(ProcessGroupGloo::interfaces_from_env(), std::vector<std::string>{hosts.dev(h)});
        testing::check_every_op(pg);
      },
      std::chrono::seconds(60));
  testing::remove_tree(dir);
  EXPECT_TRUE(testing::all_succeeded(results));
}

}  // namespace
}  // namespace ember::distributed
