#include "distributed/file_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "distributed/testing/multiprocess.h"

namespace ember::distributed {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

class FileStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::make_temp_dir();
    path_ = dir_ + "/store";
  }
  void TearDown() override { testing::remove_tree(dir_); }
  std::string dir_, path_;
};

TEST_F(FileStoreTest, SetGetAddCompareSetDeleteNumKeys) {
  FileStore store(path_, milliseconds(2000));
  store.set("a", std::string("hello"));
  EXPECT_EQ(store.get_string("a"), "hello");
  EXPECT_EQ(store.add("n", 5), 5);
  EXPECT_EQ(store.add("n", -7), -2);
  EXPECT_EQ(store.get_string("n"), "-2");
  EXPECT_EQ(store.compare_set("c", {}, bytes("x")), bytes("x"));
  EXPECT_EQ(store.compare_set("c", bytes("y"), bytes("z")), bytes("x"));
  EXPECT_EQ(store.compare_set("c", bytes("x"), bytes("z")), bytes("z"));
  EXPECT_EQ(store.compare_set("absent", bytes("e"), bytes("d")), bytes("e"));
  EXPECT_TRUE(store.check({"a", "n", "c"}));
  EXPECT_FALSE(store.check({"a", "absent"}));
  EXPECT_EQ(store.num_keys(), 3);
  EXPECT_TRUE(store.delete_key("a"));
  EXPECT_FALSE(store.delete_key("a"));
  EXPECT_FALSE(store.check({"a"}));
  EXPECT_EQ(store.num_keys(), 2);
  store.set("a", std::vector<uint8_t>{0, 1, 255});
  EXPECT_EQ(store.get("a"), (std::vector<uint8_t>{0, 1, 255}));
}

TEST_F(FileStoreTest, SecondInstanceSeesTheLog) {
  {
    FileStore first(path_);
    first.set("k", std::string("v1"));
    first.set("k", std::string("v2"));
    first.set("gone", std::string("x"));
    first.delete_key("gone");
  }
  FileStore second(path_);
  EXPECT_EQ(second.get_string("k"), "v2");
  EXPECT_FALSE(second.check({"gone"}));
  EXPECT_EQ(second.num_keys(), 1);
}

TEST_F(FileStoreTest, GetTimesOutNamingTheKey) {
  FileStore store(path_, milliseconds(200));
  const auto t0 = Clock::now();
  try {
    store.get("never");
    FAIL();
  } catch (const TimeoutError& e) {
    EXPECT_NE(std::string(e.what()).find("never"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path_), std::string::npos) << e.what();
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_GE(s, 0.19);
  EXPECT_LT(s, 2.0);
}

TEST_F(FileStoreTest, ConcurrentAddsFromProcessesAreAtomic) {
  auto results = testing::run_processes(
      4,
      [this](int rank) {
        FileStore store(path_, milliseconds(10000));
        for (int i = 0; i < 100; ++i) store.add("counter", 1);
        store.set("done" + std::to_string(rank), std::string("1"));
        store.wait({"done0", "done1", "done2", "done3"});
        EXPECT_EQ(store.get_string("counter"), "400");
      },
      milliseconds(30000));
  EXPECT_TRUE(testing::all_succeeded(results));
  FileStore store(path_);
  EXPECT_EQ(store.get_string("counter"), "400");
}

TEST_F(FileStoreTest, GetWaitsForAnotherProcess) {
  testing::Processes p(1, [this](int) {
    std::this_thread::sleep_for(milliseconds(200));
    FileStore store(path_);
    store.set("late", std::string("here"));
  });
  FileStore store(path_, milliseconds(5000));
  EXPECT_EQ(store.get_string("late"), "here");
  EXPECT_TRUE(testing::all_succeeded(p.wait(milliseconds(5000))));
}

TEST_F(FileStoreTest, TornRecordFromADeadWriterIsDropped) {
  {
    FileStore store(path_);
    store.set("whole", std::string("ok"));
  }
  {
    // A record cut short: key length 3, key "abc", then only 4 of 8 length bytes.
    std::ofstream f(path_, std::ios::binary | std::ios::app);
    const char torn[] = {3, 0, 0, 0, 'a', 'b', 'c', 5, 0, 0, 0};
    f.write(torn, sizeof(torn));
  }
  FileStore store(path_);
  EXPECT_EQ(store.get_string("whole"), "ok");
  EXPECT_FALSE(store.check({"abc"}));
  store.set("next", std::string("fine"));  // appended where the torn record was
  FileStore again(path_);
  EXPECT_EQ(again.get_string("next"), "fine");
  EXPECT_EQ(again.num_keys(), 2);
}

TEST_F(FileStoreTest, ForeignFileIsAnError) {
  {
    std::ofstream f(path_);
    f << "this is not a store";
  }
  try {
    FileStore store(path_);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not a FileStore file"), std::string::npos)
        << e.what();
  }
}

TEST_F(FileStoreTest, CorruptValueLengthIsAnError) {
  {
    FileStore store(path_);
    store.set("k", std::string("v"));
  }
  {
    std::ofstream f(path_, std::ios::binary | std::ios::app);
    const char bad[] = {1, 0, 0, 0, 'x', -5, -1, -1, -1, -1, -1, -1, -1};  // length -5
    f.write(bad, sizeof(bad));
  }
  EXPECT_THROW(FileStore store(path_), Error);
}

TEST_F(FileStoreTest, UnopenablePathIsAnError) {
  try {
    FileStore store(dir_ + "/no/such/dir/store");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ember::distributed
