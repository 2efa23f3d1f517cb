#include "distributed/testing/netns.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "tensor/error.h"

namespace ember::distributed::testing {
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

// Runs cmd with "ip " meaning TwoHosts::ip_tool(); its output goes to
// err_file().
int sh(std::string cmd) {
  static const std::string ip = TwoHosts::ip_tool();
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

}  // namespace

std::string TwoHosts::ip_tool() {
  for (const char* p : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"}) {
    if (::access(p, X_OK) == 0) return p;
  }
  return "ip";
}

TwoHosts::TwoHosts() {
  const std::string id = std::to_string(getpid() % 100000);
  ns_[0] = "ember_net_a" + id;
  ns_[1] = "ember_net_b" + id;
  dev_[0] = "enA" + id;
  dev_[1] = "enB" + id;
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

TwoHosts::~TwoHosts() {
  if (!made_) return;
  sh("ip netns del " + ns_[0]);
  sh("ip netns del " + ns_[1]);  // deleting a namespace removes its veth end
}

void TwoHosts::enter(int h) const {
  int fd = ::open(("/var/run/netns/" + ns_[h]).c_str(), O_RDONLY);
  EMBER_CHECK(fd >= 0 && ::setns(fd, CLONE_NEWNET) == 0, "cannot enter namespace ", ns_[h]);
  ::close(fd);
}

}  // namespace ember::distributed::testing
