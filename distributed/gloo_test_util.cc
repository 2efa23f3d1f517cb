#include "distributed/gloo_test_util.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>

#include "distributed/file_store.h"
#include "distributed/init.h"
#include "distributed/testing/multiprocess.h"

// LeakSanitizer (--config=asan) reads this from any binary that defines it.
// Debian's libgloo leaks getifaddrs()'s list when CreateDeviceAttr throws
// for an unknown interface name (the GLOO_SOCKET_IFNAME error test).
extern "C" __attribute__((used)) const char* __lsan_default_suppressions() {
  return "leak:gloo::transport::tcp::CreateDeviceAttr\n";
}

namespace ember::distributed::testing {

std::shared_ptr<Store> make_store(const std::string& dir) {
  return std::make_shared<FileStore>(dir + "/store", std::chrono::seconds(30));
}

std::shared_ptr<ProcessGroupGloo> make_group(const std::string& dir, int rank, int size,
                                             ProcessGroupGloo::Options options) {
  if (options.interfaces.empty() && options.hostname.empty()) options.hostname = "127.0.0.1";
  return std::make_shared<ProcessGroupGloo>(make_store(dir), rank, size,
                                            std::move(options));
}

bool shared_memory_usable() {
  const std::string name = "/ember-probe-" + std::to_string(getpid());
  int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) return false;
  const bool ok = posix_fallocate(fd, 0, 1 << 20) == 0;
  close(fd);
  shm_unlink(name.c_str());
  return ok;
}

void run_world(int size, const std::function<void(int rank, int size)>& fn,
               std::chrono::milliseconds timeout) {
  const std::string dir = make_temp_dir();
  auto results = run_processes(
      size,
      [&](int rank) {
        // Loopback whatever the host name resolves to.
        setenv("GLOO_SOCKET_IFNAME", "lo", 1);
        InitOptions o;
        o.init_method = "file://" + dir + "/store";
        o.world_size = size;
        o.rank = rank;
        o.timeout = std::chrono::milliseconds(20000);
        init_process_group("gloo", o);
        fn(rank, size);
        destroy_process_group();
      },
      timeout);
  remove_tree(dir);
  EXPECT_TRUE(all_succeeded(results)) << "world size " << size;
}

::testing::AssertionResult tensors_equal(const Tensor& actual, const Tensor& expected) {
  if (actual.dtype() != expected.dtype()) {
    return ::testing::AssertionFailure() << "dtype " << dtype_name(actual.dtype()) << " != "
                                         << dtype_name(expected.dtype());
  }
  if (actual.sizes() != expected.sizes()) {
    return ::testing::AssertionFailure() << "sizes differ";
  }
  Tensor a = actual.to(kDouble).contiguous(), e = expected.to(kDouble).contiguous();
  const double* pa = a.data_ptr<double>();
  const double* pe = e.data_ptr<double>();
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (pa[i] != pe[i]) {
      return ::testing::AssertionFailure() << "element " << i << ": " << pa[i] << " != " << pe[i]
                                           << " (dtype " << dtype_name(actual.dtype()) << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace ember::distributed::testing
