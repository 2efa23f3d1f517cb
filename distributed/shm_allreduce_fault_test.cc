// Note [Same-host all-reduce]'s setup under faults: a rank SIGKILLed at
// each step of the segment's negotiation (created but not published,
// published but not mapped by all, mapped but not confirmed) must leave
// nothing in /dev/shm once the survivors have failed or finished, and a
// segment whose creator died is removed by the next group's rank 0.

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "distributed/file_store.h"
#include "distributed/gloo_test_util.h"
#include "distributed/process_group_gloo.h"
#include "distributed/shm_segments.h"
#include "distributed/testing/multiprocess.h"

namespace ember::distributed {
namespace {

// The /dev/shm entries made by ember in this pid namespace by one of `pids`.
std::vector<std::string> segments_of(const std::vector<pid_t>& pids) {
  std::vector<std::string> out;
  const std::string probe = new_shm_segment_name().substr(1);  // ember-gloo-<ns>-<pid>-<r>
  const std::string ns_prefix = probe.substr(0, probe.find('-', strlen("ember-gloo-")) + 1);
  DIR* d = opendir("/dev/shm");
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    for (pid_t pid : pids) {
      if (absl::StartsWith(name, absl::StrCat(ns_prefix, pid, "-"))) out.push_back(name);
    }
  }
  closedir(d);
  return out;
}

// Forwards to a FileStore, and SIGKILLs this process when `key_suffix` is
// set (op "set") or read (op "get") by this process.
class KillingStore : public Store {
 public:
  KillingStore(std::shared_ptr<Store> inner, std::string op, std::string key_suffix)
      : Store(inner->timeout()),
        inner_(std::move(inner)),
        op_(std::move(op)),
        suffix_(std::move(key_suffix)) {}
  void set(const std::string& key, const std::vector<uint8_t>& value) override {
    maybe_die("set", key);
    inner_->set(key, value);
  }
  std::vector<uint8_t> get(const std::string& key) override {
    maybe_die("get", key);
    return inner_->get(key);
  }
  int64_t add(const std::string& key, int64_t value) override { return inner_->add(key, value); }
  std::vector<uint8_t> compare_set(const std::string& key, const std::vector<uint8_t>& expected,
                                   const std::vector<uint8_t>& desired) override {
    return inner_->compare_set(key, expected, desired);
  }
  bool check(const std::vector<std::string>& keys) override { return inner_->check(keys); }
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override {
    inner_->wait(keys, timeout);
  }
  bool delete_key(const std::string& key) override { return inner_->delete_key(key); }
  int64_t num_keys() override { return inner_->num_keys(); }

 private:
  void maybe_die(const char* op, const std::string& key) {
    if (op_ == op && absl::EndsWith(key, suffix_)) raise(SIGKILL);
  }
  std::shared_ptr<Store> inner_;
  std::string op_, suffix_;
};

struct Step {
  const char* name;
  int victim;
  const char* op;
  const char* key_suffix;
};

class ShmSetupDeath : public ::testing::TestWithParam<Step> {};

INSTANTIATE_TEST_SUITE_P(Steps, ShmSetupDeath,
                         ::testing::Values(
                             // Rank 0 made the segment and dies before publishing its name.
                             Step{"CreatorBeforePublishing", 0, "set", "shm/segment"},
                             // Rank 0 published it and dies waiting for the others to map it.
                             Step{"CreatorWhileOthersMap", 0, "get", "shm/ok/1"},
                             // Rank 1 dies before mapping: rank 0 waits in vain for it.
                             Step{"PeerBeforeMapping", 1, "get", "shm/segment"},
                             // Rank 1 mapped it and dies before saying so.
                             Step{"PeerAfterMapping", 1, "set", "shm/ok/1"},
                             // Rank 2 dies after confirming, before everyone has.
                             Step{"PeerAfterConfirming", 2, "get", "shm/ok/0"}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_P(ShmSetupDeath, LeavesNothingInDevShm) {
  if (!testing::shared_memory_usable()) GTEST_SKIP() << "no POSIX shared memory here";
  const Step step = GetParam();
  const std::string dir = testing::make_temp_dir();
  const int kWorld = 3;
  testing::Processes procs(kWorld, [&](int rank) {
    auto file = std::make_shared<FileStore>(dir + "/store", std::chrono::seconds(3));
    std::shared_ptr<Store> store = file;
    if (rank == step.victim) store = std::make_shared<KillingStore>(file, step.op, step.key_suffix);
    ProcessGroupGloo::Options o;
    o.hostname = "127.0.0.1";
    o.timeout = std::chrono::seconds(3);
    try {
      ProcessGroupGloo pg(store, rank, kWorld, o);
    } catch (const Error&) {
      // The survivors fail (a peer never came); that is not what is tested.
    }
  });
  std::vector<pid_t> pids;
  for (int r = 0; r < kWorld; ++r) pids.push_back(procs.pid(r));
  auto results = procs.wait(std::chrono::seconds(30));
  for (const auto& r : results) EXPECT_FALSE(r.timed_out) << r;
  EXPECT_EQ(results[step.victim].term_signal, SIGKILL) << results[step.victim];
  EXPECT_EQ(segments_of(pids), std::vector<std::string>{});
  testing::remove_tree(dir);
}

TEST(ShmSegments, SweepRemovesOnlySegmentsOfDeadCreators) {
  if (!testing::shared_memory_usable()) GTEST_SKIP() << "no POSIX shared memory here";
  // A child makes a segment and dies without unlinking it.
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  const pid_t child = fork();
  if (child == 0) {
    const std::string name = new_shm_segment_name();
    const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    ssize_t n = write(pipefd[1], name.data(), name.size());
    (void)n;
    _exit(fd >= 0 ? 0 : 1);
  }
  close(pipefd[1]);
  char buf[256] = {};
  ASSERT_GT(read(pipefd[0], buf, sizeof(buf) - 1), 0);
  close(pipefd[0]);
  const std::string dead = buf;
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  // And one of this (living) process.
  const std::string alive = new_shm_segment_name();
  const int fd = shm_open(alive.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  ASSERT_GE(fd, 0);
  close(fd);
  EXPECT_EQ(segments_of({child}), std::vector<std::string>{dead.substr(1)});
  EXPECT_GE(sweep_dead_shm_segments(), 1);
  EXPECT_EQ(segments_of({child}), std::vector<std::string>{});
  EXPECT_EQ(segments_of({getpid()}), std::vector<std::string>{alive.substr(1)});
  shm_unlink(alive.c_str());
}

}  // namespace
}  // namespace ember::distributed
