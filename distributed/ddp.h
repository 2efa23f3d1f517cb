#ifndef EMBER_DISTRIBUTED_DDP_H_
#define EMBER_DISTRIBUTED_DDP_H_

// torch.nn.parallel.DistributedDataParallel in C++: wraps a module so that
// every rank trains the same model on its own share of the data, with the
// gradients averaged across ranks during backward.
//
//   namespace dist = ember::distributed;
//   dist::init_process_group("gloo");
//   ToyModel model;
//   dist::DistributedDataParallel ddp(model);           // broadcasts rank 0's state
//   optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.001));
//   opt.zero_grad();
//   nn::MSELoss()(ddp(x), y).backward();                 // grads averaged on return
//   opt.step();
//   {
//     auto guard = ddp->no_sync();                       // accumulate locally
//     loss_fn(ddp(x1), y1).backward();
//   }
//
// As in PyTorch: the constructor checks that every rank has the same
// parameters (count, shapes, dtypes) and broadcasts rank 0's parameters and
// buffers; each forward broadcasts rank 0's buffers first (broadcast_buffers);
// the wrapped module is the child "module", so state_dict keys read
// "module.fc.weight"; gradients are reduced in buckets while backward runs
// (Note [Gradient buckets] in reducer.h). Options are PyTorch's keyword
// arguments; device_ids / output_device have no equivalent yet (ember's
// modules run where their parameters are). Every rank must construct it
// and run the same iterations (forward, backward, no_sync) in the same order.

#include <cstdint>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "distributed/default_hooks.h"
#include "distributed/init.h"
#include "distributed/process_group.h"
#include "distributed/reducer.h"
#include "nn/module.h"
#include "tensor/arg.h"

namespace ember::distributed {

struct DistributedDataParallelOptions {
  // The group the gradients are averaged over (default: the default group).
  DistributedDataParallelOptions& process_group(std::shared_ptr<ProcessGroup> pg) {
    process_group_ = std::move(pg);
    return *this;
  }
  DistributedDataParallelOptions& process_group(const Group& group) {
    process_group_ = group.pg_ptr();
    return *this;
  }
  const std::shared_ptr<ProcessGroup>& process_group() const { return process_group_; }

  // Bucket size in MiB (PyTorch's bucket_cap_mb).
  EMBER_ARG(double, bucket_cap_mb) = 25;
  // Broadcast rank 0's buffers (BatchNorm statistics) before each forward.
  EMBER_ARG(bool, broadcast_buffers) = true;
  // Find the parameters a forward did not use (Note [Gradient buckets]).
  EMBER_ARG(bool, find_unused_parameters) = false;
  // Make each .grad a view into its bucket: saves one copy of the gradients.
  EMBER_ARG(bool, gradient_as_bucket_view) = false;

 private:
  std::shared_ptr<ProcessGroup> process_group_;
};

namespace detail {
// The tensors in a forward's result (Tensor, vectors, tuples, pairs), for
// find_unused_parameters' graph walk; other values hold none.
inline void collect_tensors(const Tensor& t, std::vector<Tensor>* out) { out->push_back(t); }
template <typename T>
void collect_tensors(const std::vector<T>& v, std::vector<Tensor>* out);
template <typename... T>
void collect_tensors(const std::tuple<T...>& t, std::vector<Tensor>* out);
template <typename A, typename B>
void collect_tensors(const std::pair<A, B>& p, std::vector<Tensor>* out);
template <typename T, typename = std::enable_if_t<!std::is_convertible<T, Tensor>::value>>
void collect_tensors(const T&, std::vector<Tensor>*) {}

template <typename T>
void collect_tensors(const std::vector<T>& v, std::vector<Tensor>* out) {
  for (const T& x : v) collect_tensors(x, out);
}
template <typename... T>
void collect_tensors(const std::tuple<T...>& t, std::vector<Tensor>* out) {
  std::apply([out](const auto&... x) { (collect_tensors(x, out), ...); }, t);
}
template <typename A, typename B>
void collect_tensors(const std::pair<A, B>& p, std::vector<Tensor>* out) {
  collect_tensors(p.first, out);
  collect_tensors(p.second, out);
}
}  // namespace detail

// What every DistributedDataParallel<M> shares; see the top of this file.
class DistributedDataParallelBase : public nn::Module {
 public:
  // While alive, backward passes accumulate gradients locally without
  // communicating (PyTorch's `with ddp.no_sync():`); the first synchronized
  // backward after it averages the accumulated sums.
  class NoSyncGuard {
   public:
    explicit NoSyncGuard(DistributedDataParallelBase* ddp)
        : ddp_(ddp), previous_(ddp->require_backward_grad_sync_) {
      ddp_->require_backward_grad_sync_ = false;
    }
    ~NoSyncGuard() {
      if (ddp_ != nullptr) ddp_->require_backward_grad_sync_ = previous_;
    }
    NoSyncGuard(NoSyncGuard&& o) noexcept : ddp_(o.ddp_), previous_(o.previous_) {
      o.ddp_ = nullptr;
    }
    NoSyncGuard(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(NoSyncGuard&&) = delete;

   private:
    DistributedDataParallelBase* ddp_;
    bool previous_;
  };
  NoSyncGuard no_sync() { return NoSyncGuard(this); }

  // PyTorch's register_comm_hook: `hook` reduces each bucket instead of the
  // default averaging all-reduce (default_hooks.h has PyTorch's built-in
  // ones). Once per model, before training.
  void register_comm_hook(CommHook hook) { reducer_->register_comm_hook(std::move(hook)); }
  // register_comm_hook(state, hook) for hooks of the built-ins' shape, with
  // the group as state (nullptr: the default group):
  //   ddp->register_comm_hook(nullptr, comm_hooks::fp16_compress_hook);
  void register_comm_hook(std::shared_ptr<ProcessGroup> state,
                          BucketFuture (*hook)(ProcessGroup*, GradBucket&)) {
    register_comm_hook(
        [state, hook](GradBucket& bucket) { return hook(state.get(), bucket); });
  }

  ProcessGroup& process_group() const { return *pg_; }
  const DistributedDataParallelOptions& options() const { return options_; }
  Reducer& reducer() { return *reducer_; }

 protected:
  DistributedDataParallelBase(std::shared_ptr<nn::Module> module,
                              DistributedDataParallelOptions options);
  // Around the wrapped module's forward.
  void pre_forward();
  void post_forward(const std::vector<Tensor>& outputs);

 private:
  std::shared_ptr<nn::Module> module_;
  DistributedDataParallelOptions options_;
  std::shared_ptr<ProcessGroup> pg_;
  std::unique_ptr<Reducer> reducer_;
  bool require_backward_grad_sync_ = true;
};

template <typename M>
class DistributedDataParallelImpl : public DistributedDataParallelBase {
 public:
  // `module`: a holder (Net), or a shared_ptr to a module.
  explicit DistributedDataParallelImpl(M module, DistributedDataParallelOptions options = {})
      : DistributedDataParallelBase(as_module_ptr(module), std::move(options)),
        module_(std::move(module)) {}

  // The wrapped module's forward, with the reducer's bookkeeping around it.
  template <typename... Args>
  auto forward(Args&&... args) {
    pre_forward();
    auto out = module_->forward(std::forward<Args>(args)...);
    std::vector<Tensor> tensors;
    detail::collect_tensors(out, &tensors);
    post_forward(tensors);
    return out;
  }

  // The wrapped module (PyTorch's ddp.module).
  M& module() { return module_; }

 private:
  M module_;
};

// The holder: `DistributedDataParallel ddp(model, options);` then ddp(x),
// ddp->parameters(), ddp->module(), ddp->no_sync().
template <typename M>
class DistributedDataParallel : public nn::ModuleHolder<DistributedDataParallelImpl<M>> {
 public:
  using nn::ModuleHolder<DistributedDataParallelImpl<M>>::ModuleHolder;
  using Impl = DistributedDataParallelImpl<M>;
};
template <typename M>
DistributedDataParallel(M) -> DistributedDataParallel<M>;
template <typename M>
DistributedDataParallel(M, DistributedDataParallelOptions) -> DistributedDataParallel<M>;

}  // namespace ember::distributed

namespace ember::nn::parallel {
// PyTorch's spelling: torch.nn.parallel.DistributedDataParallel.
using ::ember::distributed::DistributedDataParallel;
using ::ember::distributed::DistributedDataParallelOptions;
}  // namespace ember::nn::parallel

#endif  // EMBER_DISTRIBUTED_DDP_H_
