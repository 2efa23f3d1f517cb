// ProcessGroupNCCL between two real processes, rank r on cuda:r: the
// collectives' values, point-to-point, DDP's gradients, and a rank that
// never joins a collective (a timeout naming the op, then a broken group).
// Skips on machines with fewer than two GPUs (NCCL refuses two ranks on one
// device). The parent never initializes CUDA (a forked child could not use
// it then: Note [CUDA after fork]); a probe child counts the devices.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "autograd/autograd.h"
#include "distributed/ddp.h"
#include "distributed/file_store.h"
#include "distributed/init.h"
#include "distributed/process_group_nccl.h"
#include "distributed/testing/multiprocess.h"
#include "nn/nn.h"
#include "tensor/all.h"
#include "tensor/cuda/cuda.h"

namespace ember::distributed {
namespace {

using std::chrono::seconds;

int gpus_in_a_child() {
  static const int count = [] {
    auto r = testing::run_processes(
        1, [](int) { _exit(static_cast<int>(std::min<size_t>(cuda::device_count(), 100))); },
        seconds(60));
    return r[0].timed_out || r[0].term_signal != 0 ? 0 : r[0].exit_code;
  }();
  return count;
}

std::string store_path(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name + "." + std::to_string(getpid());
}

class NcclTwoRanks : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ProcessGroupNCCL::nccl_version()[0] == 0) GTEST_SKIP() << "built without NCCL";
    if (gpus_in_a_child() < 2) GTEST_SKIP() << "needs two GPUs";
    path_ = store_path(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  std::shared_ptr<ProcessGroupNCCL> group(int rank, std::chrono::milliseconds timeout) {
    ProcessGroupNCCL::Options o;
    o.timeout = timeout;
    return std::make_shared<ProcessGroupNCCL>(std::make_shared<FileStore>(path_), rank, 2, o);
  }
  std::string path_;
};

TensorOptions on(int rank) { return TensorOptions().device(Device(kCUDA, rank)); }

TEST_F(NcclTwoRanks, Collectives) {
  auto results = testing::run_processes(
      2,
      [&](int rank) {
        auto pg = group(rank, seconds(60));
        Tensor x = full({4}, rank + 1.0, on(rank));
        std::vector<Tensor> v{x};
        pg->allreduce(v)->wait();
        EXPECT_TRUE(equal(x.cpu(), full({4}, 3.0)));
        Tensor a = full({4}, rank + 1.0, on(rank));
        std::vector<Tensor> va{a};
        pg->allreduce(va, {ReduceOp::AVG})->wait();
        EXPECT_TRUE(equal(a.cpu(), full({4}, 1.5)));

        Tensor b = full({3}, rank == 1 ? 7.0 : 0.0, on(rank));
        std::vector<Tensor> vb{b};
        pg->broadcast(vb, {1})->wait();
        EXPECT_TRUE(equal(b.cpu(), full({3}, 7.0)));

        Tensor mine = arange(3, on(rank)) + 10.0 * rank;
        std::vector<Tensor> in{mine};
        std::vector<std::vector<Tensor>> outs{{empty({3}, on(rank)), empty({3}, on(rank))}};
        pg->allgather(outs, in)->wait();
        EXPECT_TRUE(equal(outs[0][0].cpu(), arange(3).to(kFloat)));
        EXPECT_TRUE(equal(outs[0][1].cpu(), arange(3).to(kFloat) + 10));

        std::vector<Tensor> rs{empty({2}, on(rank))};
        std::vector<std::vector<Tensor>> rs_in{
            {full({2}, 1.0, on(rank)), full({2}, 2.0, on(rank))}};
        pg->reduce_scatter(rs, rs_in)->wait();
        EXPECT_TRUE(equal(rs[0].cpu(), full({2}, rank == 0 ? 2.0 : 4.0)));

        Tensor a2a_in = arange(4, on(rank)) + 100.0 * rank;  // rows 0-1 to rank 0, 2-3 to rank 1
        Tensor a2a_out = empty({4}, on(rank));
        pg->alltoall_base(a2a_out, a2a_in, {}, {})->wait();
        Tensor want =
            rank == 0 ? tensor({0.f, 1.f, 100.f, 101.f}) : tensor({2.f, 3.f, 102.f, 103.f});
        EXPECT_TRUE(equal(a2a_out.cpu(), want));

        Tensor msg = rank == 0 ? full({5}, 42.0, on(0)) : zeros({5}, on(1));
        std::vector<Tensor> vm{msg};
        if (rank == 0) {
          pg->send(vm, 1, 0)->wait();
        } else {
          pg->recv(vm, 0, 0)->wait();
          EXPECT_TRUE(equal(msg.cpu(), full({5}, 42.0)));
        }
        pg->barrier()->wait();
      },
      seconds(120));
  EXPECT_TRUE(testing::all_succeeded(results));
}

// DDP over NCCL: each rank's gradient is the full batch's (the mean of the
// two halves), computed locally for comparison.
TEST_F(NcclTwoRanks, DdpAveragesGradients) {
  auto results = testing::run_processes(
      2,
      [&](int rank) {
        InitOptions init;
        init.init_method = "file://" + path_;
        init.world_size = 2;
        init.rank = rank;
        init_process_group("nccl", init);
        manual_seed(0);
        Tensor x = randn({8, 4});
        Tensor y = randn({8, 2});
        manual_seed(1);
        nn::Linear full_model(4, 2);
        full_model->to(Device(kCUDA, rank));
        manual_seed(1);
        nn::Linear model(4, 2);
        model->to(Device(kCUDA, rank));
        DistributedDataParallel ddp(model);
        Tensor xs = x.narrow(0, 4 * rank, 4).to(Device(kCUDA, rank));
        Tensor ys = y.narrow(0, 4 * rank, 4).to(Device(kCUDA, rank));
        (ddp(xs) - ys).pow(2).mean().backward();
        const Device d(kCUDA, rank);
        (full_model(x.to(d)) - y.to(d)).pow(2).mean().backward();
        auto p = full_model->parameters();
        auto q = ddp->module()->parameters();
        for (size_t i = 0; i < p.size(); ++i) {
          EXPECT_TRUE(allclose(p[i].grad().cpu(), q[i].grad().cpu(), 1e-5, 1e-6)) << i;
        }
        destroy_process_group();
      },
      seconds(120));
  EXPECT_TRUE(testing::all_succeeded(results));
}

// Rank 1 never joins the second all-reduce: rank 0's blocking wait ends in
// a TimeoutError naming it, and the broken group refuses later calls.
TEST_F(NcclTwoRanks, MissingPeerTimesOut) {
  auto results = testing::run_processes(
      2,
      [&](int rank) {
        auto pg = group(rank, seconds(3));
        Tensor x = ones({4}, on(rank));
        std::vector<Tensor> v{x};
        pg->allreduce(v)->wait(seconds(30));
        if (rank == 1) {
          std::this_thread::sleep_for(seconds(10));
          _exit(0);
        }
        auto w = pg->allreduce(v);
        try {
          w->wait(seconds(3));
          ADD_FAILURE() << "no timeout";
        } catch (const TimeoutError& e) {
          EXPECT_NE(std::string(e.what()).find("allreduce (sequence number 1)"),
                    std::string::npos)
              << e.what();
        }
        EXPECT_THROW(pg->allreduce(v), DistBackendError);
        _exit(::testing::Test::HasFailure() ? 1 : 0);
      },
      seconds(60));
  EXPECT_TRUE(testing::all_succeeded(results));
}

}  // namespace
}  // namespace ember::distributed
