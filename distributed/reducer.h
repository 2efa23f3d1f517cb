#ifndef EMBER_DISTRIBUTED_REDUCER_H_
#define EMBER_DISTRIBUTED_REDUCER_H_

// The gradient reducer of DistributedDataParallel (ddp.h): PyTorch's
// c10d::Reducer.
//
// Note [Gradient buckets]: the parameters' gradients are averaged across
// ranks in buckets, flat 1-D tensors of one dtype holding several
// gradients back to back, so that a model with hundreds of small
// parameters needs a few all-reduces and not hundreds. A hook runs right
// after autograd accumulated a parameter's .grad: it copies the gradient,
// divided by the world size, into its place in the bucket (or, with
// gradient_as_bucket_view, the .grad already is that place). When every
// gradient of a bucket is in, the bucket's all-reduce is issued
// asynchronously, in bucket order, while backward goes on computing the
// gradients of the earlier layers. A callback queued on the backward pass
// waits for the all-reduces at its end and writes the averages back to the
// .grads, so when backward() returns every rank holds the same gradients.
// A communication hook (register_comm_hook; default_hooks.h) replaces the
// all-reduce: it gets each full bucket of local, undivided gradients and
// returns what the bucket becomes (fp16 compression, for one).
//
// Buckets are filled in reverse parameter order, the order in which
// backward produces the gradients of a model whose forward uses its
// parameters in registration order. Like PyTorch 1.13, the first iteration
// without find_unused_parameters puts every parameter of a dtype in one
// bucket and records the order gradients really arrived in; the next
// forward rebuilds the buckets in that order (a first bucket of 1 MiB, then
// bucket_cap_mb), with rank 0's order broadcast so that every rank agrees.
//
// Unused parameters: a parameter that took no part in computing the loss
// gets no gradient, its bucket never fills, and backward would wait
// forever. With find_unused_parameters the reducer walks the autograd graph
// from the forward outputs and marks the parameters it cannot reach ready
// (contributing zeros) at the first hook; the ranks then agree through a
// small all-reduce on which parameters were used anywhere, and a parameter
// unused on every rank keeps its .grad untouched (None stays None). Without
// it, a backward pass that leaves a bucket unfilled fails with an error
// naming the parameters that got no gradient.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "tensor/tensor.h"

namespace ember::distributed {

// dist._DEFAULT_FIRST_BUCKET_BYTES: the size of the first bucket after the
// rebuild, small so that the first all-reduce starts early.
constexpr int64_t kDefaultFirstBucketBytes = int64_t{1} << 20;

struct BucketAssignment {
  std::vector<std::vector<size_t>> buckets;  // tensor indices, per bucket
  std::vector<int64_t> size_limits;          // the limit each bucket was filled to
};

// dist._compute_bucket_assignment_by_size: walks `tensors` in the order
// given, putting each into the open bucket of its dtype and device, and
// closes a bucket when its bytes reach the current limit; the limits are
// used in turn (the last one repeats). Without `tensor_indices` a tensor is
// named by its position and the buckets come out sorted by their smallest
// index; with them, tensors[i] is named tensor_indices[i] and the buckets
// stay in the order they were closed (open ones last).
BucketAssignment compute_bucket_assignment_by_size(const std::vector<Tensor>& tensors,
                                                   const std::vector<int64_t>& bucket_size_limits,
                                                   const std::vector<size_t>& tensor_indices = {});

// What a communication hook gets (PyTorch's dist.GradBucket): one bucket
// whose gradients are all in, the local gradients back to back in
// buffer(), NOT yet divided by the world size (a hook averages itself).
class GradBucket {
 public:
  GradBucket(size_t index, bool is_last, Tensor buffer, std::vector<Tensor> parameters,
             std::vector<int64_t> offsets)
      : index_(index), is_last_(is_last), buffer_(std::move(buffer)),
        parameters_(std::move(parameters)), offsets_(std::move(offsets)) {}
  size_t index() const { return index_; }
  // The bucket issued last in an iteration.
  bool is_last() const { return is_last_; }
  // The flat gradients (a hook may reduce it in place and return it).
  const Tensor& buffer() const { return buffer_; }
  const std::vector<Tensor>& parameters() const { return parameters_; }
  // Views of buffer() shaped like parameters().
  std::vector<Tensor> gradients() const;

 private:
  size_t index_;
  bool is_last_;
  Tensor buffer_;
  std::vector<Tensor> parameters_;
  std::vector<int64_t> offsets_;
};

// What a communication hook returns (PyTorch's Future[Tensor]): the Work
// to wait for (or none) and what gives the bucket's reduced gradients once
// it is done.
class BucketFuture {
 public:
  BucketFuture() = default;
  BucketFuture(std::shared_ptr<Work> work, std::function<Tensor()> then)
      : work_(std::move(work)), then_(std::move(then)) {}
  bool valid() const { return static_cast<bool>(then_); }
  const std::shared_ptr<Work>& work() const { return work_; }
  // Waits for the work (rethrowing its error), then returns the result.
  Tensor wait() {
    if (work_) work_->wait();
    return then_();
  }

 private:
  std::shared_ptr<Work> work_;
  std::function<Tensor()> then_;
};

// DDP's register_comm_hook: reduces one bucket; the result (of the buffer's
// size and dtype) becomes the bucket's averaged gradients. Hooks run on the
// backward pass's thread, in bucket order.
using CommHook = std::function<BucketFuture(GradBucket& bucket)>;

class Reducer {
 public:
  struct Options {
    int64_t bucket_bytes_cap = 25 * 1024 * 1024;
    int64_t first_bucket_bytes = kDefaultFirstBucketBytes;
    bool find_unused_parameters = false;
    bool gradient_as_bucket_view = false;
  };

  // `params` are the model's parameters that require grad, in registration
  // order; `names` name them in errors. Installs a post-accumulate-grad hook
  // on each (removed by the destructor).
  Reducer(std::vector<Tensor> params, std::vector<std::string> names,
          std::shared_ptr<ProcessGroup> pg, Options options);
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  // Called by the forward of a synchronizing iteration: rebuilds the
  // buckets once the ready order is known (see Note [Gradient buckets]).
  // Returns true when it rebuilt them. Every rank must call it.
  bool rebuild_buckets();
  // Arms the hooks for the backward pass of this forward; `outputs` are the
  // forward's outputs (used only with find_unused_parameters).
  void prepare_for_backward(const std::vector<Tensor>& outputs);
  // Disarms the hooks: gradients accumulate locally (DDP's no_sync and
  // forward under no_grad).
  void disable_sync() { expect_autograd_hooks_ = false; }
  // Replaces the default averaging all-reduce (once; see CommHook).
  void register_comm_hook(CommHook hook);

  // The current buckets' parameter indices, in all-reduce order.
  std::vector<std::vector<size_t>> bucket_indices() const;

 private:
  struct Bucket {
    Tensor buffer;  // flat, the dtype of its parameters
    std::vector<size_t> params;
    std::vector<int64_t> offsets;  // into buffer, per entry of params
    size_t pending = 0;
    BucketFuture future;
  };

  void build_buckets(const std::vector<std::vector<size_t>>& assignment);
  Tensor bucket_view(size_t param) const;
  void autograd_hook(size_t param);
  void mark_variable_ready(size_t param);
  void issue_ready_buckets();
  void wait_for_leftover_work();
  void finalize_backward();
  std::string unready_parameters() const;
  std::vector<size_t> unused_parameters(const std::vector<Tensor>& outputs) const;

  std::vector<Tensor> params_;
  std::vector<std::string> names_;
  std::shared_ptr<ProcessGroup> pg_;
  Options options_;
  std::vector<unsigned> hook_handles_;
  CommHook comm_hook_;

  std::vector<Bucket> buckets_;
  std::vector<size_t> bucket_of_;  // per parameter
  std::vector<size_t> slot_of_;    // its entry in the bucket's params

  // Per iteration.
  bool expect_autograd_hooks_ = false;
  bool first_hook_seen_ = false;
  std::vector<char> ready_;
  std::vector<int64_t> locally_used_;  // find_unused_parameters: 1 when it got a gradient
  std::vector<size_t> unused_;         // marked ready at the first hook
  size_t next_bucket_ = 0;

  // Bucket rebuild (Note [Gradient buckets]).
  bool has_rebuilt_buckets_ = false;
  std::vector<size_t> ready_order_;
};

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_REDUCER_H_
