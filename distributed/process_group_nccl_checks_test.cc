// ProcessGroupNCCL's argument checks (process_group_nccl_checks.h), on CUDA
// tensors of the fake backend: they run, and fail with PyTorch's words,
// before anything reaches NCCL.

#include "distributed/process_group_nccl_checks.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/shape.h"
#include "tensor/testing/fake_cuda.h"
#include "tensor/testing/golden.h"

namespace ember::distributed {
namespace {

const Device kDev(kCUDA, 0);

TEST(NcclChecks, ReductionsAsPyTorchMapsThem) {
  EXPECT_EQ(nccl_reduction(ReduceOp::SUM, kFloat), NcclReduction::kSum);
  EXPECT_EQ(nccl_reduction(ReduceOp::PRODUCT, kLong), NcclReduction::kProd);
  EXPECT_EQ(nccl_reduction(ReduceOp::MIN, kHalf), NcclReduction::kMin);
  EXPECT_EQ(nccl_reduction(ReduceOp::MAX, kInt), NcclReduction::kMax);
  EXPECT_EQ(nccl_reduction(ReduceOp::AVG, kDouble), NcclReduction::kAvg);
  // bool: sum is logical or, product logical and.
  EXPECT_EQ(nccl_reduction(ReduceOp::SUM, kBool), NcclReduction::kMax);
  EXPECT_EQ(nccl_reduction(ReduceOp::PRODUCT, kBool), NcclReduction::kMin);
  ember::testing::expect_error<ValueError>([] { nccl_reduction(ReduceOp::AVG, kBool); },
            "Cannot use ReduceOp.AVG with boolean inputs");
  ember::testing::expect_error<ValueError>([] { nccl_reduction(ReduceOp::BAND, kInt); },
            "Cannot use ReduceOp.BAND with NCCL");
  ember::testing::expect_error<ValueError>([] { nccl_reduction(ReduceOp::BXOR, kLong); },
            "Cannot use ReduceOp.BXOR with NCCL");
}

TEST(NcclChecks, TypesNcclCarries) {
  for (ScalarType t : {kByte, kChar, kInt, kLong, kHalf, kFloat, kDouble, kBool, kBFloat16}) {
    EXPECT_TRUE(nccl_supports(t)) << scalar_type_name(t);
  }
  EXPECT_FALSE(nccl_supports(kShort));
  EXPECT_FALSE(nccl_supports(ScalarType::QInt8));
}

TEST(NcclChecks, TensorsMustBeDenseCudaOfACarriedType) {
  ember::testing::FakeCudaBackend backend;
  ember::testing::expect_error<Error>([] { nccl_check_tensor(zeros({4}), "allreduce"); },
            "Tensors must be CUDA and dense");
  Tensor m = zeros({3, 4}, TensorOptions().device(kDev));
  EXPECT_NO_THROW(nccl_check_tensor(m, "allreduce"));
  ember::testing::expect_error<Error>([&] { nccl_check_tensor(m.t(), "allreduce"); },
            "Tensors must be contiguous");
  ember::testing::expect_error<TypeError>([] {
              nccl_check_tensor(zeros({2}, TensorOptions().dtype(kShort).device(kDev)), "send");
            },
            "Input tensor data type is not supported for NCCL process group: Short");
  ember::testing::expect_error<Error>([] { nccl_check_tensor(Tensor(), "recv"); },
            "ProcessGroupNCCL::recv: undefined tensor");
}

TEST(NcclChecks, OneTensorPerCall) {
  ember::testing::FakeCudaBackend backend;
  std::vector<Tensor> two{zeros({2}, TensorOptions().device(kDev)),
                          zeros({2}, TensorOptions().device(kDev))};
  const std::string e =
      ember::testing::error_of([&] { nccl_single_tensor(two, "allreduce"); });
  EXPECT_NE(e.find("ProcessGroupNCCL::allreduce: expecting one tensor only but got 2"),
            std::string::npos)
      << e;
  std::vector<Tensor> one{two[0]};
  EXPECT_TRUE(nccl_single_tensor(one, "allreduce").is_same(two[0]));
}

TEST(NcclChecks, ListsMatchTheirTensor) {
  ember::testing::FakeCudaBackend backend;
  Tensor like = zeros({2, 3}, TensorOptions().device(kDev));
  EXPECT_NO_THROW(nccl_check_same(zeros({6}, TensorOptions().device(kDev)), like, "allgather"));
  ember::testing::expect_error<ValueError>([&] {
              nccl_check_same(zeros({6}, TensorOptions().dtype(kDouble).device(kDev)), like,
                              "allgather");
            },
            "ProcessGroupNCCL::allgather: tensors must all have the same type (Double vs Float)");
  ember::testing::expect_error<ValueError>([&] {
              nccl_check_same(zeros({5}, TensorOptions().device(kDev)), like, "gather");
            },
            "ProcessGroupNCCL::gather: tensors must all have the same number of elements (5 vs 6)");
  ember::testing::expect_error<ValueError>([&] {
              nccl_check_same(zeros({6}, TensorOptions().device(Device(kCUDA, 1))), like,
                              "scatter");
            },
            "ProcessGroupNCCL::scatter: tensors must all be on the same device (cuda:1 vs "
            "cuda:0)");
}

TEST(NcclChecks, Ranks) {
  EXPECT_NO_THROW(nccl_check_rank(0, 1, "root"));
  ember::testing::expect_error<ValueError>([] { nccl_check_rank(2, 2, "root"); },
            "ProcessGroupNCCL: invalid root rank 2 (the group has 2 ranks)");
  ember::testing::expect_error<ValueError>([] { nccl_check_rank(-1, 4, "destination"); },
            "ProcessGroupNCCL: invalid destination rank -1 (the group has 4 ranks)");
}

}  // namespace
}  // namespace ember::distributed
