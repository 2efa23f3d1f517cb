#include "distributed/collectives.h"

#include <cstdio>
#include <mutex>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace ember::distributed {
namespace {

// The group an op runs on: PyTorch's `group or _get_default_group()`.
// Throws the not-initialized error when no group is given and there is no
// default group.
Group resolve(const std::optional<Group>& group) {
  return group ? *group : get_default_group();
}

// PyTorch's _rank_not_in_group + _warn_not_in_group. Python's warning filter
// shows a given message once per process; so does this.
bool not_in_group(const Group& g, const char* op) {
  if (g.is_member()) return false;
  static std::mutex mu;
  static std::set<std::string>* warned = new std::set<std::string>;
  std::lock_guard<std::mutex> lock(mu);
  if (warned->insert(op).second) {
    const int global_rank = is_initialized() ? get_rank() : -1;
    std::fprintf(stderr,
                 "UserWarning: Running %s on global rank %d which does not belong to the given "
                 "group.\n",
                 op, global_rank);
  }
  return true;
}

// The group rank of global rank `rank`, passed as argument `what` of `op`.
int group_rank_of(const Group& g, int rank, const char* what, const char* op) {
  for (int i = 0; i < g.size(); ++i) {
    if (g.ranks()[i] == rank) return i;
  }
  throw ValueError(absl::StrCat("Invalid ", what, " rank ", rank, " for ", op, ": global rank ",
                                rank, " is not part of group '", g.name(), "' (ranks [",
                                absl::StrJoin(g.ranks(), ", "), "])"));
}

// PyTorch's _check_single_tensor, for the one case C++ can get wrong.
void check_tensor(const Tensor& t, const char* param) {
  EMBER_CHECK_TYPE(t.defined(), "Invalid function argument. Expected parameter `", param,
                   "` to be a defined Tensor.");
}

void check_tensor_list(const std::vector<Tensor>& list, const char* param) {
  for (const auto& t : list) {
    EMBER_CHECK_TYPE(t.defined(), "Invalid function argument. Expected parameter `", param,
                     "` to be a list of defined Tensors.");
  }
}

// async_op: hand the Work back; otherwise wait for it (rethrowing its error)
// and return nothing, as PyTorch returns None.
std::shared_ptr<Work> finish(std::shared_ptr<Work> work, bool async_op) {
  if (async_op) return work;
  work->wait();
  return nullptr;
}

}  // namespace

std::shared_ptr<Work> broadcast(Tensor& tensor, int src, const std::optional<Group>& group,
                                bool async_op) {
  check_tensor(tensor, "tensor");
  Group g = resolve(group);
  if (not_in_group(g, "broadcast")) return nullptr;
  BroadcastOptions opts;
  opts.root = group_rank_of(g, src, "src", "broadcast");
  std::vector<Tensor> tensors{tensor};
  return finish(g->broadcast(tensors, opts), async_op);
}

std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op, const std::optional<Group>& group,
                                 bool async_op) {
  check_tensor(tensor, "tensor");
  Group g = resolve(group);
  if (not_in_group(g, "all_reduce")) return nullptr;
  AllreduceOptions opts;
  opts.op = op;
  std::vector<Tensor> tensors{tensor};
  return finish(g->allreduce(tensors, opts), async_op);
}

std::shared_ptr<Work> reduce(Tensor& tensor, int dst, ReduceOp op,
                             const std::optional<Group>& group, bool async_op) {
  check_tensor(tensor, "tensor");
  Group g = resolve(group);
  if (not_in_group(g, "reduce")) return nullptr;
  ReduceOptions opts;
  opts.op = op;
  opts.root = group_rank_of(g, dst, "dst", "reduce");
  std::vector<Tensor> tensors{tensor};
  return finish(g->reduce(tensors, opts), async_op);
}

std::shared_ptr<Work> all_gather(std::vector<Tensor>& tensor_list, const Tensor& tensor,
                                 const std::optional<Group>& group, bool async_op) {
  check_tensor_list(tensor_list, "tensor_list");
  check_tensor(tensor, "tensor");
  Group g = resolve(group);
  if (not_in_group(g, "all_gather")) return nullptr;
  std::vector<std::vector<Tensor>> outputs{tensor_list};
  std::vector<Tensor> inputs{tensor};
  return finish(g->allgather(outputs, inputs), async_op);
}

std::shared_ptr<Work> gather(const Tensor& tensor, std::vector<Tensor>* gather_list, int dst,
                             const std::optional<Group>& group, bool async_op) {
  check_tensor(tensor, "tensor");
  const bool given = gather_list != nullptr && !gather_list->empty();
  if (given) check_tensor_list(*gather_list, "gather_list");
  Group g = resolve(group);
  if (not_in_group(g, "gather")) return nullptr;
  // PyTorch's _validate_output_list_for_rank; `if not gather_list` treats
  // an empty list as None.
  const int root = group_rank_of(g, dst, "dst", "gather");
  if (root == g.rank()) {
    if (!given) throw ValueError("Argument ``gather_list`` must be specified on destination rank.");
  } else if (given) {
    throw ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.");
  }
  std::vector<std::vector<Tensor>> outputs;
  if (given) outputs.push_back(*gather_list);
  std::vector<Tensor> inputs{tensor};
  return finish(g->gather(outputs, inputs, root), async_op);
}

std::shared_ptr<Work> scatter(Tensor& tensor, std::vector<Tensor>* scatter_list, int src,
                              const std::optional<Group>& group, bool async_op) {
  check_tensor(tensor, "tensor");
  const bool given = scatter_list != nullptr && !scatter_list->empty();
  if (given) check_tensor_list(*scatter_list, "scatter_list");
  Group g = resolve(group);
  if (not_in_group(g, "scatter")) return nullptr;
  const int root = group_rank_of(g, src, "src", "scatter");
  if (root == g.rank()) {
    if (!given) throw ValueError("Argument ``scatter_list`` must be specified on source rank.");
  } else if (given) {
    throw ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.");
  }
  std::vector<std::vector<Tensor>> inputs;
  if (given) inputs.push_back(*scatter_list);
  std::vector<Tensor> outputs{tensor};
  return finish(g->scatter(outputs, inputs, root), async_op);
}

std::shared_ptr<Work> reduce_scatter(Tensor& output, std::vector<Tensor>& input_list, ReduceOp op,
                                     const std::optional<Group>& group, bool async_op) {
  check_tensor(output, "output");
  check_tensor_list(input_list, "input_list");
  Group g = resolve(group);
  if (not_in_group(g, "reduce_scatter")) return nullptr;
  std::vector<Tensor> outputs{output};
  std::vector<std::vector<Tensor>> inputs{input_list};
  return finish(g->reduce_scatter(outputs, inputs, op), async_op);
}

std::shared_ptr<Work> all_to_all_single(Tensor& output, const Tensor& input,
                                        std::vector<int64_t> output_split_sizes,
                                        std::vector<int64_t> input_split_sizes,
                                        const std::optional<Group>& group, bool async_op) {
  check_tensor(output, "output");
  check_tensor(input, "input");
  Group g = resolve(group);
  if (not_in_group(g, "all_to_all_single")) return nullptr;
  Tensor in = input;  // the backend's signature takes a mutable handle
  return finish(g->alltoall_base(output, in, std::move(output_split_sizes),
                                 std::move(input_split_sizes)),
                async_op);
}

namespace {

// send and isend, irecv and recv, differing only in the name that warnings
// and errors give.
std::shared_ptr<Work> post_send(const Tensor& tensor, int dst, const std::optional<Group>& group,
                                int tag, const char* op) {
  check_tensor(tensor, "tensor");
  Group g = resolve(group);
  if (not_in_group(g, op)) return nullptr;
  const int peer = group_rank_of(g, dst, "dst", op);
  if (peer == g.rank()) {
    throw ValueError("Invalid destination rank: destination rank should not be the same as the "
                     "rank of the current process.");
  }
  std::vector<Tensor> tensors{tensor};
  return g->send(tensors, peer, tag);
}

std::shared_ptr<Work> post_recv(Tensor& tensor, int src, const Group& g, int tag,
                                const char* op) {
  std::vector<Tensor> tensors{tensor};
  if (src == -1) return g->recv_anysource(tensors, tag);
  return g->recv(tensors, group_rank_of(g, src, "src", op), tag);
}

}  // namespace

std::shared_ptr<Work> isend(const Tensor& tensor, int dst, const std::optional<Group>& group,
                            int tag) {
  return post_send(tensor, dst, group, tag, "isend");
}

void send(const Tensor& tensor, int dst, const std::optional<Group>& group, int tag) {
  if (auto work = post_send(tensor, dst, group, tag, "send")) work->wait();
}

std::shared_ptr<Work> irecv(Tensor& tensor, int src, const std::optional<Group>& group,
                            int tag) {
  check_tensor(tensor, "tensor");
  Group g = resolve(group);
  if (not_in_group(g, "irecv")) return nullptr;
  return post_recv(tensor, src, g, tag, "irecv");
}

int recv(Tensor& tensor, int src, const std::optional<Group>& group, int tag) {
  check_tensor(tensor, "tensor");
  Group g = resolve(group);
  if (not_in_group(g, "recv")) return -1;
  std::shared_ptr<Work> work = post_recv(tensor, src, g, tag, "recv");
  work->wait();
  if (src != -1) return src;
  // The backend names the sender by its group rank.
  return get_global_rank(g, work->source_rank());
}

std::shared_ptr<Work> barrier(const std::optional<Group>& group, bool async_op) {
  Group g = resolve(group);
  if (not_in_group(g, "barrier")) return nullptr;
  return finish(g->barrier(), async_op);
}

void monitored_barrier(const std::optional<Group>& group, std::chrono::milliseconds timeout,
                       bool wait_all_ranks) {
  Group g = resolve(group);
  if (not_in_group(g, "monitored_barrier")) return;
  g->monitored_barrier(timeout, wait_all_ranks);
}

}  // namespace ember::distributed
