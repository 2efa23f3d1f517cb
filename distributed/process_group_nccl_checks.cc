#include "distributed/process_group_nccl_checks.h"

#include "absl/strings/str_cat.h"
#include "tensor/error.h"

namespace ember::distributed {

NcclReduction nccl_reduction(ReduceOp op, ScalarType dtype) {
  const bool is_bool = dtype == ScalarType::Bool;
  switch (op) {
    case ReduceOp::SUM: return is_bool ? NcclReduction::kMax : NcclReduction::kSum;
    case ReduceOp::PRODUCT: return is_bool ? NcclReduction::kMin : NcclReduction::kProd;
    case ReduceOp::MIN: return NcclReduction::kMin;
    case ReduceOp::MAX: return NcclReduction::kMax;
    case ReduceOp::AVG:
      EMBER_CHECK_VALUE(!is_bool, "Cannot use ReduceOp.AVG with boolean inputs");
      return NcclReduction::kAvg;
    case ReduceOp::BAND:
    case ReduceOp::BOR:
    case ReduceOp::BXOR:
      break;
  }
  throw ValueError(absl::StrCat("Cannot use ReduceOp.", reduce_op_name(op), " with NCCL"));
}

bool nccl_supports(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Int:
    case ScalarType::Long:
    case ScalarType::Half:
    case ScalarType::Float:
    case ScalarType::Double:
    case ScalarType::Bool:
    case ScalarType::BFloat16:
      return true;
    default:
      return false;
  }
}

void nccl_check_tensor(const Tensor& t, const char* op) {
  EMBER_CHECK(t.defined(), "ProcessGroupNCCL::", op, ": undefined tensor");
  EMBER_CHECK(t.is_cuda(), "Tensors must be CUDA and dense");
  EMBER_CHECK(t.is_contiguous(), "Tensors must be contiguous");
  if (!nccl_supports(t.dtype())) {
    throw TypeError(absl::StrCat("Input tensor data type is not supported for NCCL process group: ",
                                 scalar_type_name(t.dtype())));
  }
}

const Tensor& nccl_single_tensor(const std::vector<Tensor>& tensors, const char* op) {
  EMBER_CHECK_VALUE(tensors.size() == 1, "ProcessGroupNCCL::", op,
                    ": expecting one tensor only but got ", tensors.size(),
                    " (one process per GPU; several devices under one thread are not supported)");
  nccl_check_tensor(tensors[0], op);
  return tensors[0];
}

void nccl_check_same(const Tensor& t, const Tensor& like, const char* op) {
  nccl_check_tensor(t, op);
  EMBER_CHECK_VALUE(t.dtype() == like.dtype(), "ProcessGroupNCCL::", op,
                    ": tensors must all have the same type (", scalar_type_name(t.dtype()), " vs ",
                    scalar_type_name(like.dtype()), ")");
  EMBER_CHECK_VALUE(t.device() == like.device(), "ProcessGroupNCCL::", op,
                    ": tensors must all be on the same device (", t.device().str(), " vs ",
                    like.device().str(), ")");
  EMBER_CHECK_VALUE(t.numel() == like.numel(), "ProcessGroupNCCL::", op,
                    ": tensors must all have the same number of elements (", t.numel(), " vs ",
                    like.numel(), ")");
}

void nccl_check_rank(int rank, int size, const char* what) {
  EMBER_CHECK_VALUE(rank >= 0 && rank < size, "ProcessGroupNCCL: invalid ", what, " rank ", rank,
                    " (the group has ", size, " ranks)");
}

}  // namespace ember::distributed
