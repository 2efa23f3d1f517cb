#ifndef EMBER_DISTRIBUTED_PROCESS_GROUP_NCCL_CHECKS_H_
#define EMBER_DISTRIBUTED_PROCESS_GROUP_NCCL_CHECKS_H_

// The argument checks of ProcessGroupNCCL (Note [NCCL execution model] in
// process_group_nccl.h), apart from NCCL itself so that they run, and are
// tested, without a GPU.

#include <vector>

#include "distributed/process_group.h"
#include "tensor/tensor.h"

namespace ember::distributed {

// The reduction NCCL runs for `op` on `dtype`: bool SUM is MAX and bool
// PRODUCT is MIN (logical or / and). Throws ValueError for BAND, BOR, BXOR
// ("Cannot use ReduceOp.BAND with NCCL") and for AVG on bool.
enum class NcclReduction { kSum, kProd, kMin, kMax, kAvg };
NcclReduction nccl_reduction(ReduceOp op, ScalarType dtype);

// True for the types NCCL carries.
bool nccl_supports(ScalarType dtype);

// A defined, contiguous CUDA tensor of a type NCCL carries; `op` names the
// caller in the error.
void nccl_check_tensor(const Tensor& t, const char* op);

// Exactly one tensor, checked as above; returns it.
const Tensor& nccl_single_tensor(const std::vector<Tensor>& tensors, const char* op);

// `like`'s dtype, device and number of elements (outputs of allgather,
// inputs of reduce_scatter...).
void nccl_check_same(const Tensor& t, const Tensor& like, const char* op);

// 0 <= rank < size, else ValueError naming `what` ("root", "destination").
void nccl_check_rank(int rank, int size, const char* what);

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_PROCESS_GROUP_NCCL_CHECKS_H_
