// Two "hosts": two network namespaces joined by a veth pair (10.231.x.1 and
// 10.231.x.2), two ranks in each, every collective across them with
// GLOO_SOCKET_IFNAME naming the namespace's veth end. Needs root (ip netns);
// skips with a message saying so where namespaces cannot be made.

#include <string>

#include <gtest/gtest.h>

#include "distributed/gloo_test_util.h"
#include "distributed/process_group_gloo.h"
#include "distributed/testing/multiprocess.h"
#include "distributed/testing/netns.h"
#include "tensor/all.h"

namespace ember::distributed {
namespace {

using testing::TwoHosts;

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
