#ifndef EMBER_DISTRIBUTED_COLLECTIVES_H_
#define EMBER_DISTRIBUTED_COLLECTIVES_H_

// torch.distributed's module-level collectives (distributed_c10d.py) on top
// of the process groups that init_process_group and new_group make:
//
//   namespace dist = ember::distributed;
//   dist::init_process_group("gloo");
//   Tensor t = ember::ones({4});
//   dist::all_reduce(t);                                   // waits; t = world size
//   auto work = dist::all_reduce(t, dist::ReduceOp::MAX, std::nullopt, true);
//   work->wait();
//   dist::Group evens = dist::new_group({0, 2});
//   dist::broadcast(t, /*src=*/2, evens);                  // src is a global rank
//
// Shape of the optional arguments: the arguments follow PyTorch's, in its
// order, with the same defaults. PyTorch's `group=None` (the default group)
// is `std::optional<Group>` with std::nullopt as the default: a
// default-constructed Group already means something else (a handle to no
// group, which behaves like a non-member's handle), so it cannot stand for
// "the default group". A Group converts implicitly, so
// `all_reduce(t, ReduceOp::SUM, evens)` works.
//
// Semantics, as in PyTorch:
// - Ranks given as arguments (src, dst, the sender recv returns) are GLOBAL
//   ranks; they are translated to the group's ranks (get_group_rank). A rank
//   that is not part of the group throws ValueError naming it and the group.
// - With async_op false a collective waits for its Work and returns nullptr
//   (PyTorch returns None); with async_op true it returns the Work. A Work's
//   source_rank() (irecv from any source) is a GROUP rank, as PyTorch's
//   Work._source_rank().
// - On a process that is not a member of `group`, every function warns once
//   per function on stderr ("Running all_reduce on global rank 1 which does
//   not belong to the given group.") and does nothing: it returns nullptr
//   (recv returns -1).
// - Without an explicit group, calling before init_process_group throws
//   Error("Default process group has not been initialized, please make sure
//   to call init_process_group.").
// - An undefined tensor argument throws TypeError (PyTorch's
//   _check_single_tensor), on members and non-members alike.
// Argument checks beyond these (tensor sizes and dtypes, list lengths) are
// the backend's (e.g. "ProcessGroupGloo::allgather: invalid output tensor
// list: expected 3 tensors (the world size), got 2").

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "distributed/init.h"
#include "distributed/process_group.h"
#include "tensor/tensor.h"

namespace ember::distributed {

// Every rank receives `src`'s tensor.
std::shared_ptr<Work> broadcast(Tensor& tensor, int src,
                                const std::optional<Group>& group = std::nullopt,
                                bool async_op = false);

// Every rank receives op over every rank's tensor, in place.
std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op = ReduceOp::SUM,
                                 const std::optional<Group>& group = std::nullopt,
                                 bool async_op = false);

// `dst` receives op over every rank's tensor; elsewhere tensor is unspecified
// afterwards, as in PyTorch.
std::shared_ptr<Work> reduce(Tensor& tensor, int dst, ReduceOp op = ReduceOp::SUM,
                             const std::optional<Group>& group = std::nullopt,
                             bool async_op = false);

// tensor_list[i] receives group rank i's tensor (one entry per group member).
std::shared_ptr<Work> all_gather(std::vector<Tensor>& tensor_list, const Tensor& tensor,
                                 const std::optional<Group>& group = std::nullopt,
                                 bool async_op = false);

// On `dst`, (*gather_list)[i] receives group rank i's tensor. gather_list is
// PyTorch's `gather_list=None`: required (non-null, non-empty) on dst, and
// must be null or empty elsewhere (ValueError otherwise, in PyTorch's words).
std::shared_ptr<Work> gather(const Tensor& tensor, std::vector<Tensor>* gather_list = nullptr,
                             int dst = 0, const std::optional<Group>& group = std::nullopt,
                             bool async_op = false);

// Group rank i receives `src`'s (*scatter_list)[i] into tensor. scatter_list
// is required on src and must be null or empty elsewhere.
std::shared_ptr<Work> scatter(Tensor& tensor, std::vector<Tensor>* scatter_list = nullptr,
                              int src = 0, const std::optional<Group>& group = std::nullopt,
                              bool async_op = false);

// output = op over every rank's input_list[group rank].
std::shared_ptr<Work> reduce_scatter(Tensor& output, std::vector<Tensor>& input_list,
                                     ReduceOp op = ReduceOp::SUM,
                                     const std::optional<Group>& group = std::nullopt,
                                     bool async_op = false);

// Splits input along dim 0 and sends part i to group rank i; output gathers
// the parts received, in rank order. Empty split sizes mean equal splits.
std::shared_ptr<Work> all_to_all_single(Tensor& output, const Tensor& input,
                                        std::vector<int64_t> output_split_sizes = {},
                                        std::vector<int64_t> input_split_sizes = {},
                                        const std::optional<Group>& group = std::nullopt,
                                        bool async_op = false);

// Point-to-point. send and recv block; isend and irecv return the Work.
// recv's src = -1 is PyTorch's src=None: any source. recv returns the
// sender's global rank (-1 on a non-member).
void send(const Tensor& tensor, int dst, const std::optional<Group>& group = std::nullopt,
          int tag = 0);
int recv(Tensor& tensor, int src = -1, const std::optional<Group>& group = std::nullopt,
         int tag = 0);
std::shared_ptr<Work> isend(const Tensor& tensor, int dst,
                            const std::optional<Group>& group = std::nullopt, int tag = 0);
std::shared_ptr<Work> irecv(Tensor& tensor, int src = -1,
                            const std::optional<Group>& group = std::nullopt, int tag = 0);

std::shared_ptr<Work> barrier(const std::optional<Group>& group = std::nullopt,
                              bool async_op = false);

// A barrier that names the ranks that did not arrive within timeout (all of
// them with wait_all_ranks). PyTorch's timeout=None is its default process
// group timeout, kDefaultPgTimeout, whatever timeout the group was made with.
void monitored_barrier(const std::optional<Group>& group = std::nullopt,
                       std::chrono::milliseconds timeout = kDefaultPgTimeout,
                       bool wait_all_ranks = false);

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_COLLECTIVES_H_
