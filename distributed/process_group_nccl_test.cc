// ProcessGroupNCCL (Note [NCCL execution model] in process_group_nccl.h).
// Which tests run depends on the machine:
//  - a build without NCCL: "nccl" is unavailable, with PyTorch's errors;
//  - NCCL but no GPU (CI here): the constructor's error;
//  - one GPU or more: every operation at world size 1, ordering against the
//    default stream, errors, init_process_group("nccl") and DDP.
// Two ranks on two GPUs: process_group_nccl_multigpu_test.cc.

#include "distributed/process_group_nccl.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "distributed/collectives.h"
#include "distributed/ddp.h"
#include "distributed/file_store.h"
#include "distributed/init.h"
#include "nn/nn.h"
#include "tensor/all.h"
#include "tensor/cuda/cuda.h"
#include "tensor/testing/golden.h"

namespace ember::distributed {
namespace {

bool nccl_built() { return ProcessGroupNCCL::nccl_version()[0] > 0; }

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name + "." + std::to_string(getpid());
}

TEST(ProcessGroupNCCLTest, AvailabilityMatchesTheBuild) {
  if (!nccl_built()) {
    EXPECT_FALSE(is_nccl_available());
    ember::testing::expect_error<Error>([] {
                init_process_group("nccl", {"file://" + temp_path("nccl_unbuilt"), 1, 0});
              },
              "Distributed package doesn't have NCCL built in");
    auto store = std::make_shared<FileStore>(temp_path("nccl_stub_store"));
    EXPECT_NE(ember::testing::error_of([&] { ProcessGroupNCCL pg(store, 0, 1); })
                  .find("ember was built without CUDA"),
              std::string::npos);
    return;
  }
  EXPECT_TRUE(is_nccl_available());
  std::vector<int> v = ProcessGroupNCCL::nccl_version();
  ASSERT_EQ(v.size(), 3u);
  EXPECT_GE(v[0], 2);
}

TEST(ProcessGroupNCCLTest, NeedsAGpu) {
  if (!nccl_built() || cuda::device_count() > 0) GTEST_SKIP() << "needs NCCL and no GPU";
  auto store = std::make_shared<FileStore>(temp_path("nccl_nogpu_store"));
  ember::testing::expect_error<Error>([&] { ProcessGroupNCCL pg(store, 0, 1); },
            "ProcessGroupNCCL is only supported with GPUs, no GPUs found!");
}

// World size 1 on cuda:0.
class NcclOneRank : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!nccl_built() || cuda::device_count() == 0) GTEST_SKIP() << "needs NCCL and a GPU";
    store_ = std::make_shared<FileStore>(temp_path("nccl_store_" + std::string(
        ::testing::UnitTest::GetInstance()->current_test_info()->name())));
    ProcessGroupNCCL::Options o;
    o.timeout = std::chrono::seconds(60);
    pg_ = std::make_shared<ProcessGroupNCCL>(store_, 0, 1, o);
  }
  static TensorOptions on_gpu(ScalarType t = kFloat) {
    return TensorOptions().dtype(t).device(Device(kCUDA, 0));
  }
  std::shared_ptr<FileStore> store_;
  std::shared_ptr<ProcessGroupNCCL> pg_;
};

TEST_F(NcclOneRank, AllreduceEveryOpAndType) {
  for (ScalarType t : {kFloat, kDouble, kHalf, kBFloat16, kInt, kLong, kChar, kByte}) {
    for (ReduceOp op : {ReduceOp::SUM, ReduceOp::PRODUCT, ReduceOp::MIN, ReduceOp::MAX,
                        ReduceOp::AVG}) {
      Tensor x = arange(1, 7).to(t).view({2, 3}).to(Device(kCUDA, 0));
      std::vector<Tensor> v{x};
      pg_->allreduce(v, {op})->wait();
      EXPECT_TRUE(equal(x.cpu(), arange(1, 7).to(t).view({2, 3})))
          << scalar_type_name(t) << " " << reduce_op_name(op);
    }
  }
  Tensor b = tensor({true, false}).to(Device(kCUDA, 0));
  std::vector<Tensor> v{b};
  pg_->allreduce(v)->wait();
  EXPECT_TRUE(equal(b.cpu(), tensor({true, false})));
}

TEST_F(NcclOneRank, BroadcastReduceAndSequenceNumbers) {
  Tensor x = full({5}, 2.5, on_gpu());
  std::vector<Tensor> v{x};
  auto w0 = pg_->broadcast(v, {0});
  auto w1 = pg_->reduce(v, {ReduceOp::SUM, 0});
  EXPECT_TRUE(w1->wait());
  EXPECT_EQ(w1->sequence_number(), w0->sequence_number() + 1);
  EXPECT_TRUE(equal(x.cpu(), full({5}, 2.5)));
  ember::testing::expect_error<ValueError>([&] { pg_->broadcast(v, {1}); },
            "ProcessGroupNCCL: invalid root rank 1 (the group has 1 ranks)");
}

// The op reads what a kernel queued just before it wrote (the group's
// stream waits for the default stream), and what is queued after wait()
// reads the op's result (the default stream waits for the group's).
TEST_F(NcclOneRank, OrderedWithTheDefaultStream) {
  const int64_t n = 1 << 22;
  for (int round = 0; round < 5; ++round) {
    Tensor x = arange(n, on_gpu()) * static_cast<double>(round + 1);
    std::vector<std::vector<Tensor>> outs{{empty({n}, on_gpu())}};
    std::vector<Tensor> ins{x};
    pg_->allgather(outs, ins)->wait();
    Tensor got = outs[0][0] + 1;  // a kernel after wait()
    EXPECT_TRUE(equal(got.cpu(), arange(n) * static_cast<double>(round + 1) + 1))
        << "round " << round;
  }
}

TEST_F(NcclOneRank, GatherScatterReduceScatterAlltoall) {
  Tensor x = arange(6, on_gpu()).view({3, 2});
  std::vector<Tensor> ins{x};
  std::vector<std::vector<Tensor>> gathered{{zeros({3, 2}, on_gpu())}};
  pg_->gather(gathered, ins, 0)->wait();
  EXPECT_TRUE(equal(gathered[0][0].cpu(), arange(6).view({3, 2}).to(kFloat)));

  std::vector<Tensor> out{zeros({3, 2}, on_gpu())};
  std::vector<std::vector<Tensor>> pieces{{x * 2}};
  pg_->scatter(out, pieces, 0)->wait();
  EXPECT_TRUE(equal(out[0].cpu(), arange(6).view({3, 2}).to(kFloat) * 2));

  std::vector<Tensor> rs{zeros({3, 2}, on_gpu())};
  std::vector<std::vector<Tensor>> rs_in{{x + 1}};
  pg_->reduce_scatter(rs, rs_in, ReduceOp::MAX)->wait();
  EXPECT_TRUE(equal(rs[0].cpu(), arange(6).view({3, 2}).to(kFloat) + 1));

  Tensor a2a = zeros({3, 2}, on_gpu());
  pg_->alltoall_base(a2a, x, {}, {})->wait();
  EXPECT_TRUE(equal(a2a.cpu(), arange(6).view({3, 2}).to(kFloat)));
}

TEST_F(NcclOneRank, BarrierAndBlockingWait) {
  auto w = pg_->barrier();
  EXPECT_TRUE(w->wait());
  EXPECT_TRUE(w->is_completed());
  Tensor x = ones({1 << 20}, on_gpu());
  std::vector<Tensor> v{x};
  auto ar = pg_->allreduce(v);
  EXPECT_TRUE(ar->wait(std::chrono::seconds(30)));  // with a timeout: blocks the host
  EXPECT_TRUE(ar->is_completed());
  EXPECT_EQ(ar->exception(), nullptr);
}

TEST_F(NcclOneRank, Errors) {
  std::vector<Tensor> cpu{zeros({2})};
  ember::testing::expect_error<Error>([&] { pg_->allreduce(cpu); },
                                      "Tensors must be CUDA and dense");
  std::vector<Tensor> gpu{zeros({2}, on_gpu())};
  ember::testing::expect_error<ValueError>([&] { pg_->allreduce(gpu, {ReduceOp::BAND}); },
            "Cannot use ReduceOp.BAND with NCCL");
  ember::testing::expect_error<ValueError>([&] { pg_->send(gpu, 0, 0); },
            "Invalid destination rank: should not be the same as rank of the current process.");
  EXPECT_NE(ember::testing::error_of([&] { pg_->recv_anysource(gpu, 0); }).find("recv_anysource"),
            std::string::npos);
  ember::testing::expect_error<ValueError>([&] { pg_->monitored_barrier(std::chrono::seconds(1)); },
            "monitored_barrier is only implemented for GLOO backend.");
  std::vector<Tensor> strided{zeros({4, 4}, on_gpu()).t()};
  ember::testing::expect_error<Error>([&] { pg_->broadcast(strided); },
                                      "Tensors must be contiguous");
  // The checks left the group usable.
  pg_->allreduce(gpu)->wait();
  EXPECT_TRUE(equal(gpu[0].cpu(), zeros({2})));
}

TEST(ProcessGroupNCCLTest, InitProcessGroupAndDdp) {
  if (!nccl_built() || cuda::device_count() == 0) GTEST_SKIP() << "needs NCCL and a GPU";
  init_process_group("nccl", {"file://" + temp_path("nccl_init"), 1, 0});
  EXPECT_EQ(get_backend().str(), "nccl");
  Tensor t = full({3}, 4.0, TensorOptions().device(Device(kCUDA, 0)));
  all_reduce(t);
  EXPECT_TRUE(equal(t.cpu(), full({3}, 4.0)));

  // DDP over NCCL at world size 1: the gradients of a plain backward.
  manual_seed(0);
  nn::Linear plain(4, 3);
  plain->to(Device(kCUDA, 0));
  manual_seed(0);
  nn::Linear wrapped_model(4, 3);
  wrapped_model->to(Device(kCUDA, 0));
  DistributedDataParallel ddp(wrapped_model);
  Tensor x = randn({8, 4}).to(Device(kCUDA, 0));
  plain(x).pow(2).sum().backward();
  ddp(x).pow(2).sum().backward();
  auto p = plain->parameters();
  auto q = ddp->module()->parameters();
  ASSERT_EQ(p.size(), q.size());
  for (size_t i = 0; i < p.size(); ++i) {
    EXPECT_TRUE(allclose(p[i].grad().cpu(), q[i].grad().cpu(), 1e-6, 1e-6)) << i;
  }
  destroy_process_group();
}

}  // namespace
}  // namespace ember::distributed
