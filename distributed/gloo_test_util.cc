#include "distributed/gloo_test_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace ember::distributed::testing {

DirStore::DirStore(std::string dir, std::chrono::milliseconds timeout)
    : Store(timeout), dir_(std::move(dir)) {}

std::string DirStore::path(const std::string& key) const {
  return dir_ + "/k_" + absl::BytesToHexString(key);
}

bool DirStore::read(const std::string& key, std::vector<uint8_t>* out) const {
  std::ifstream f(path(key), std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

void DirStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  std::string tmp = absl::StrCat(dir_, "/tmp_", getpid(), "_",
                                 std::hash<std::thread::id>()(std::this_thread::get_id()));
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(value.data()), value.size());
    EMBER_CHECK(f.good(), "DirStore: cannot write ", tmp);
  }
  EMBER_CHECK(std::rename(tmp.c_str(), path(key).c_str()) == 0, "DirStore: rename failed");
}

std::vector<uint8_t> DirStore::get(const std::string& key) {
  wait({key});
  std::vector<uint8_t> v;
  EMBER_CHECK(read(key, &v), "DirStore: key vanished: ", key);
  return v;
}

int64_t DirStore::add(const std::string& key, int64_t value) {
  int fd = ::open((dir_ + "/lock").c_str(), O_CREAT | O_RDWR, 0644);
  EMBER_CHECK(fd >= 0, "DirStore: cannot open the lock file");
  ::flock(fd, LOCK_EX);
  std::vector<uint8_t> v;
  int64_t cur = read(key, &v) ? std::stoll(std::string(v.begin(), v.end())) : 0;
  cur += value;
  std::string s = std::to_string(cur);
  set(key, std::vector<uint8_t>(s.begin(), s.end()));
  ::flock(fd, LOCK_UN);
  ::close(fd);
  return cur;
}

std::vector<uint8_t> DirStore::compare_set(const std::string& key,
                                           const std::vector<uint8_t>& expected,
                                           const std::vector<uint8_t>& desired) {
  int fd = ::open((dir_ + "/lock").c_str(), O_CREAT | O_RDWR, 0644);
  EMBER_CHECK(fd >= 0, "DirStore: cannot open the lock file");
  ::flock(fd, LOCK_EX);
  std::vector<uint8_t> cur;
  bool present = read(key, &cur);
  if ((!present && expected.empty()) || (present && cur == expected)) {
    set(key, desired);
    cur = desired;
  }
  ::flock(fd, LOCK_UN);
  ::close(fd);
  return cur;
}

bool DirStore::check(const std::vector<std::string>& keys) {
  for (const auto& k : keys) {
    if (::access(path(k).c_str(), F_OK) != 0) return false;
  }
  return true;
}

void DirStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  if (timeout == kNoTimeout) timeout = timeout_;
  auto deadline = Clock::now() + timeout;
  while (!check(keys)) {
    if (Clock::now() >= deadline) {
      throw TimeoutError(absl::StrCat("DirStore: timed out after ", timeout.count(),
                                      " ms waiting for keys ", absl::StrJoin(keys, ", ")));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

bool DirStore::delete_key(const std::string& key) { return ::unlink(path(key).c_str()) == 0; }

int64_t DirStore::num_keys() {
  int64_t n = 0;
  if (DIR* d = ::opendir(dir_.c_str())) {
    while (dirent* e = ::readdir(d)) n += std::string(e->d_name).rfind("k_", 0) == 0;
    ::closedir(d);
  }
  return n;
}

std::shared_ptr<ProcessGroupGloo> make_group(const std::string& dir, int rank, int size,
                                             ProcessGroupGloo::Options options) {
  if (options.interfaces.empty() && options.hostname.empty()) options.hostname = "127.0.0.1";
  return std::make_shared<ProcessGroupGloo>(std::make_shared<DirStore>(dir), rank, size,
                                            std::move(options));
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
