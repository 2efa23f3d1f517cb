#include "distributed/init.h"

#include <stdlib.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "distributed/tcp_store.h"
#include "distributed/testing/fake_backend.h"
#include "distributed/testing/multiprocess.h"
#include "tensor/testing/golden.h"

namespace ember::distributed {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

class InitTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    testing::register_fake_backend();
  }
  void SetUp() override { dir_ = testing::make_temp_dir(); }
  void TearDown() override {
    if (is_initialized()) destroy_process_group();
    testing::remove_tree(dir_);
  }
  std::string tcp_url() const { return "tcp://127.0.0.1:" + std::to_string(testing::free_port()); }
  std::string file_url() const { return "file://" + dir_ + "/store"; }
  std::string dir_;
};

using ::ember::testing::error_of;

TEST_F(InitTest, BackendParsing) {
  EXPECT_EQ(Backend("GLOO").str(), "gloo");
  EXPECT_EQ(Backend("gloo"), Backend(Backend::GLOO));
  EXPECT_EQ(Backend("nccl").str(), "nccl");
  EXPECT_EQ(Backend("Fake").str(), "fake");  // registered
  EXPECT_EQ(error_of([] { Backend("tpu"); }), "Invalid backend: 'tpu'");
  EXPECT_THROW(Backend("undefined"), ValueError);
}

TEST_F(InitTest, Availability) {
  EXPECT_TRUE(is_available());
  EXPECT_FALSE(is_gloo_available());  // not linked into this test
  EXPECT_FALSE(is_nccl_available());
  EXPECT_FALSE(is_mpi_available());
  EXPECT_TRUE(is_backend_registered("FAKE"));
}

TEST_F(InitTest, NotInitialized) {
  EXPECT_FALSE(is_initialized());
  const std::string want =
      "Default process group has not been initialized, please make sure to call "
      "init_process_group.";
  EXPECT_EQ(error_of([] { get_rank(); }), want);
  EXPECT_EQ(error_of([] { get_world_size(); }), want);
  EXPECT_EQ(error_of([] { new_group({0}); }), want);
  EXPECT_EQ(error_of([] { destroy_process_group(); }), want);
}

TEST_F(InitTest, BackendNotBuilt) {
  EXPECT_EQ(error_of([&] { init_process_group("nccl", {file_url(), 1, 0}); }),
            "Distributed package doesn't have NCCL built in");
  EXPECT_EQ(error_of([&] { init_process_group("gloo", {file_url(), 1, 0}); }),
            "Distributed package doesn't have Gloo built in");
  EXPECT_FALSE(is_initialized());
}

TEST_F(InitTest, SingleRankLifecycleAndDoubleInit) {
  init_process_group("fake", {file_url(), 1, 0});
  EXPECT_TRUE(is_initialized());
  EXPECT_EQ(get_rank(), 0);
  EXPECT_EQ(get_world_size(), 1);
  EXPECT_EQ(get_backend().str(), "fake");
  EXPECT_EQ(get_default_group().name(), "default_pg");
  EXPECT_EQ(error_of([&] { init_process_group("fake", {file_url(), 1, 0}); }),
            "trying to initialize the default process group twice!");
  destroy_process_group();
  EXPECT_FALSE(is_initialized());
}

TEST_F(InitTest, BadArguments) {
  EXPECT_EQ(error_of([] { init_process_group("fake", {"foo://x", 1, 0}); }),
            "No rendezvous handler for foo://");
  EXPECT_EQ(error_of([&] { init_process_group("fake", {tcp_url(), 2}); }),
            "Error initializing ember::distributed using tcp:// rendezvous: rank parameter "
            "missing");
  EXPECT_EQ(error_of([&] { init_process_group("fake", {"tcp://127.0.0.1", 2, 0}); }),
            "Invalid tcp:// init_method 'tcp://127.0.0.1': expected tcp://host:port");
  auto store = std::make_shared<TCPStore>("127.0.0.1", [] {
    TCPStoreOptions o;
    o.port = 0;
    o.is_server = true;
    return o;
  }());
  EXPECT_EQ(error_of([&] { init_process_group("fake", {file_url(), 1, 0, store}); }),
            "Cannot specify both init_method and store.");
  EXPECT_EQ(error_of([&] { init_process_group("fake", {"", -1, 0, store}); }),
            "world_size must be positive if using store");
  EXPECT_EQ(error_of([&] { init_process_group("fake", {"", 2, -1, store}); }),
            "rank must be non-negative if using store");
  EXPECT_EQ(error_of([&] { init_process_group("fake", {file_url(), 2, 2}); }),
            "Invalid rank 2: rank must be in [0, 1] for world_size 2");
  EXPECT_FALSE(is_initialized());
}

TEST_F(InitTest, EnvWithoutMasterAddr) {
  auto results = testing::run_processes(
      1,
      [](int) {
        unsetenv("MASTER_ADDR");
        setenv("MASTER_PORT", "1234", 1);
        EXPECT_EQ(error_of([] { init_process_group("fake", {"", 1, 0}); }),
                  "Error initializing ember::distributed using env:// rendezvous: environment "
                  "variable MASTER_ADDR expected, but not set");
        setenv("MASTER_ADDR", "127.0.0.1", 1);
        unsetenv("RANK");
        EXPECT_EQ(error_of([] { init_process_group("fake"); }),
                  "Error initializing ember::distributed using env:// rendezvous: environment "
                  "variable RANK expected, but not set");
      },
      milliseconds(10000));
  EXPECT_TRUE(testing::all_succeeded(results));
}

// Every rank initializes, checks what it sees, meets the others, destroys.
void check_world(int rank, int size) {
  EXPECT_TRUE(is_initialized());
  EXPECT_EQ(get_rank(), rank);
  EXPECT_EQ(get_world_size(), size);
  EXPECT_EQ(get_backend(), Backend("fake"));
  get_default_group()->barrier()->wait();
  destroy_process_group();
  EXPECT_FALSE(is_initialized());
}

TEST_F(InitTest, TcpInitThreeRanks) {
  const std::string url = tcp_url();
  auto results = testing::run_processes(
      3,
      [&](int rank) {
        init_process_group("FAKE", {url, 3, rank, nullptr, milliseconds(10000)});
        check_world(rank, 3);
      },
      milliseconds(30000));
  EXPECT_TRUE(testing::all_succeeded(results));
}

TEST_F(InitTest, EnvInitFromVariables) {
  const int port = testing::free_port();
  auto results = testing::run_processes(
      2,
      [&](int rank) {
        setenv("MASTER_ADDR", "127.0.0.1", 1);
        setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
        setenv("RANK", std::to_string(rank).c_str(), 1);
        setenv("WORLD_SIZE", "2", 1);
        InitOptions o;
        o.timeout = milliseconds(10000);
        init_process_group("fake", o);
        check_world(rank, 2);
      },
      milliseconds(30000));
  EXPECT_TRUE(testing::all_succeeded(results));
}

TEST_F(InitTest, FileInitWithQueryParameters) {
  const std::string url = file_url();
  auto results = testing::run_processes(
      3,
      [&](int rank) {
        InitOptions o;
        o.init_method = url + "?rank=" + std::to_string(rank) + "&world_size=3";
        o.timeout = milliseconds(10000);
        init_process_group("fake", o);
        check_world(rank, 3);
      },
      milliseconds(30000));
  EXPECT_TRUE(testing::all_succeeded(results));
}

TEST_F(InitTest, GivenStore) {
  TCPStoreOptions so;
  so.port = 0;
  so.is_server = true;
  TCPStore server("127.0.0.1", so);
  const uint16_t port = server.port();
  auto results = testing::run_processes(
      2,
      [&](int rank) {
        TCPStoreOptions co;
        co.port = port;
        co.timeout = milliseconds(10000);
        auto store = std::make_shared<TCPStore>("127.0.0.1", co);
        init_process_group("fake", {"", 2, rank, store, milliseconds(10000), "mygroup"});
        EXPECT_EQ(get_default_group().name(), "mygroup");
        check_world(rank, 2);
      },
      milliseconds(30000));
  EXPECT_TRUE(testing::all_succeeded(results));
  EXPECT_TRUE(server.check({"mygroup/init/all_joined"}));
}

TEST_F(InitTest, MissingRankTimesOutSayingHowManyJoined) {
  const auto t0 = Clock::now();
  std::string msg;
  try {
    init_process_group("fake", {tcp_url(), 2, 0, nullptr, milliseconds(500)});
  } catch (const TimeoutError& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("Timed out after 0.5 s initializing process group 'default_pg' on rank 0"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("(1/2 workers joined)"), std::string::npos) << msg;
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 3.0);
  EXPECT_FALSE(is_initialized());
}

TEST_F(InitTest, MismatchedWorldSizesFailFastOnEveryRank) {
  const std::string url = file_url();
  const auto t0 = Clock::now();
  auto results = testing::run_processes(
      2,
      [&](int rank) {
        // Rank 0 says 2, rank 1 says 3; the timeout is long, so only the
        // check can end this quickly.
        init_process_group("fake", {url, rank == 0 ? 2 : 3, rank, nullptr, milliseconds(60000)});
      },
      milliseconds(30000));
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 10.0);
  for (const auto& r : results) {
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_NE(r.error.find("world_size"), std::string::npos) << r;
    EXPECT_NE(r.error.find("every rank must pass the same world size"), std::string::npos) << r;
  }
}

TEST_F(InitTest, TwoProcessesWithOneRankIsAnError) {
  const std::string url = file_url();
  auto results = testing::run_processes(
      2, [&](int) { init_process_group("fake", {url, 2, 0, nullptr, milliseconds(60000)}); },
      milliseconds(30000));
  for (const auto& r : results) {
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_NE(r.error.find("rank 0 was claimed by two processes"), std::string::npos) << r;
  }
}

TEST_F(InitTest, PortInUseNamesThePort) {
  TCPStoreOptions so;
  so.port = 0;
  so.is_server = true;
  TCPStore taken("127.0.0.1", so);
  const std::string port = std::to_string(taken.port());
  std::string msg = error_of(
      [&] { init_process_group("fake", {"tcp://127.0.0.1:" + port, 2, 0}); });
  EXPECT_NE(msg.find(":" + port + " (errno: 98 - Address already in use)"), std::string::npos)
      << msg;
}

TEST_F(InitTest, NewGroupMembersAndNonMembers) {
  const std::string url = tcp_url();
  auto results = testing::run_processes(
      4,
      [&](int rank) {
        init_process_group("fake", {url, 4, rank, nullptr, milliseconds(10000)});
        Group evens = new_group({2, 0});  // sorted, as in PyTorch
        Group one = new_group({3});
        Group all = new_group();
        EXPECT_EQ(evens.name(), "1");
        EXPECT_EQ(one.name(), "2");
        EXPECT_EQ(evens.ranks(), (std::vector<int>{0, 2}));
        EXPECT_EQ(all.size(), 4);
        EXPECT_EQ(get_rank(all), rank);
        if (rank % 2 == 0) {
          EXPECT_TRUE(evens.is_member());
          EXPECT_EQ(get_rank(evens), rank / 2);
          EXPECT_EQ(get_world_size(evens), 2);
          EXPECT_EQ(get_backend(evens).str(), "fake");
          evens->barrier()->wait();
        } else {
          EXPECT_FALSE(evens.is_member());
          EXPECT_EQ(get_rank(evens), -1);
          EXPECT_EQ(get_world_size(evens), -1);
          EXPECT_EQ(error_of([&] { evens->barrier(); }),
                    "This process is not a member of process group '1' (ranks [0, 2])");
          EXPECT_EQ(error_of([&] { get_backend(evens); }), "Invalid process group specified");
        }
        EXPECT_EQ(one.is_member(), rank == 3);
        EXPECT_EQ(get_global_rank(evens, 1), 2);
        EXPECT_EQ(get_group_rank(evens, 2), 1);
        EXPECT_THROW(get_group_rank(evens, 1), ValueError);
        all->barrier()->wait();
        destroy_process_group(evens);
        EXPECT_THROW(destroy_process_group(evens), ValueError);
        destroy_process_group();
      },
      milliseconds(30000));
  EXPECT_TRUE(testing::all_succeeded(results));
}

TEST_F(InitTest, NewGroupWithDifferentRankListsIsAnError) {
  const std::string url = file_url();
  auto results = testing::run_processes(
      3,
      [&](int rank) {
        init_process_group("fake", {url, 3, rank, nullptr, milliseconds(20000)});
        // Rank 1 disagrees; every rank is a member of its own list, so each
        // one either registers first and sees the others' error, or fails
        // its own check.
        std::string msg = error_of([&] {
          new_group(rank == 1 ? std::vector<int>{0, 1} : std::vector<int>{0, 1, 2});
        });
        EXPECT_NE(msg.find("every rank must pass the same world size and ranks"),
                  std::string::npos)
            << msg;
      },
      milliseconds(30000));
  EXPECT_TRUE(testing::all_succeeded(results));
}

TEST_F(InitTest, FactoryMayCallBackIntoInit) {
  // The factory runs with no lock of init.cc held: calling back must not deadlock.
  bool seen_initialized = true;
  register_backend("reentrant", [&](std::shared_ptr<Store> store, int rank, int size,
                                    milliseconds timeout) {
    seen_initialized = is_initialized();
    register_backend("inner", [](std::shared_ptr<Store>, int, int, milliseconds) {
      return std::shared_ptr<ProcessGroup>();
    });
    return std::shared_ptr<ProcessGroup>();
  });
  // A factory returning no group is an error, and leaves nothing initialized.
  EXPECT_EQ(error_of([&] { init_process_group("reentrant", {file_url(), 1, 0}); }),
            "backend 'reentrant' returned no process group");
  EXPECT_FALSE(seen_initialized);
  EXPECT_FALSE(is_initialized());
  EXPECT_TRUE(is_backend_registered("inner"));
}

TEST_F(InitTest, NewGroupValidatesRanks) {
  init_process_group("fake", {file_url(), 1, 0});
  EXPECT_EQ(error_of([] { new_group({0, 1}); }),
            "new_group: rank 1 is not in the default group (world_size 1)");
  EXPECT_EQ(error_of([] { new_group({0, 0}); }), "new_group: rank 0 is listed twice");
}

}  // namespace
}  // namespace ember::distributed
