#ifndef EMBER_DISTRIBUTED_PROCESS_GROUP_GLOO_IMPL_H_
#define EMBER_DISTRIBUTED_PROCESS_GROUP_GLOO_IMPL_H_

// Internals of ProcessGroupGloo shared by its .cc files (see Note [Gloo
// execution model] in process_group_gloo.h). Only gloo/context.h is pulled
// in here; the algorithm headers stay in the .cc file that uses them.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "distributed/process_group_gloo.h"
#include "distributed/shm_allreduce.h"
#include "tensor/tensor.h"

namespace gloo {
class Context;
}

namespace ember::distributed {

class GlooWork : public Work {
 public:
  GlooWork(std::string op, uint64_t seq) : op_(std::move(op)), seq_(seq) {}

  bool is_completed() override;
  bool wait(std::chrono::milliseconds timeout = Store::kNoTimeout) override;
  std::exception_ptr exception() override;
  int source_rank() const override;
  uint64_t sequence_number() const override { return seq_; }
  const std::string& op() const { return op_; }

  // Marks the work done (ex == nullptr: success).
  void finish(std::exception_ptr ex, int source_rank = -1);

  // Set by the issuing call, run on the worker thread with the context the
  // op uses and its collective tag. When `deferred` is set, run() only posts
  // the op and something else calls finish().
  std::function<void(const std::shared_ptr<gloo::Context>&, uint32_t tag)> run;
  bool collective = true;
  bool deferred = false;
  uint32_t tag = 0;
  // The peer a point-to-point op talks to (-1: any / a collective).
  int peer = -1;

 private:
  const std::string op_;
  const uint64_t seq_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::exception_ptr ex_;
  int source_rank_ = -1;
};

struct ProcessGroupGloo::Impl {
  Impl(ProcessGroupGloo* pg, std::shared_ptr<Store> store, const Options& options);
  ~Impl();

  // Queues `work` (its run set) under the next sequence number.
  std::shared_ptr<GlooWork> make_work(const std::string& op, bool collective);
  void enqueue(const std::shared_ptr<GlooWork>& work);
  // Runs `fn` on a thread of its own that finishes `work` when fn returns
  // (fn returns the source rank for recvs, -1 otherwise).
  // `abort` wakes fn up when the group is destroyed first.
  void defer(const std::shared_ptr<GlooWork>& work, std::function<int()> fn,
             std::function<void()> abort);
  // Turns a gloo failure of `work` into the error every survivor reports,
  // breaking the group (see the Note). Thread-safe; the first failure wins
  // the "broken" state. `lost_rank`: a peer known to be gone.
  std::exception_ptr on_failure(const GlooWork& work, const std::string& what,
                                int lost_rank = -1);

  void worker_loop();
  std::string store_key(const std::string& suffix) const { return options.group_name + "/" + suffix; }

  ProcessGroupGloo* const pg;
  const int rank;
  const int size;
  const std::shared_ptr<Store> store;
  const Options options;
  // Note [Failure reports]: on_failure and the failure monitor each talk to
  // the store through a clone of their own whose requests give up after
  // failure_report_grace + 1 s, so that a stopped store host delays a
  // failure report by seconds rather than by another whole timeout, and
  // neither waits for the other's stuck request. Where the store cannot be
  // cloned both use `store` itself, under store_mu.
  std::shared_ptr<Store> report_store, monitor_store;
  bool clones = false;
  std::vector<std::shared_ptr<gloo::Context>> contexts;
  // Every pair address of every rank ("[127.0.0.1]:41234"), for naming the
  // peer behind a gloo "Connection closed by peer [...]" message.
  std::vector<std::vector<std::string>> peer_addresses;
  // The same-host all-reduce, or nullptr (then TCP).
  std::unique_ptr<ShmAllreduce> shm;

  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::shared_ptr<GlooWork>> queue;
  bool stopping = false;
  uint64_t next_seq = 0;
  uint32_t next_tag = 0;
  uint64_t monitored_barrier_count = 0;

  std::mutex fail_mu;
  std::exception_ptr broken;  // the first failure's error
  std::string broken_reason;

  std::mutex waiters_mu;
  struct Waiter {
    std::thread thread;
    std::function<void()> abort;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<Waiter> waiters;

  std::mutex store_mu;  // the worker and waiter threads share the store
  std::thread worker;

  // Note [Failure monitor]: while a collective runs, a second thread looks
  // in the store for another rank's failure report (on_failure writes it)
  // and, when it finds one, closes this rank's connections, so a gloo wait
  // that no socket event would end (seen: a survivor's waitSend after a
  // peer's SIGKILL, about 1 run in 10 under load) fails now instead of at
  // the op timeout. Debian's gloo tcp/pair.h cannot be included (it needs a
  // header the package lacks), so closing is the lever, not signalling a
  // pair's exception.
  void monitor_loop();
  std::atomic<bool> op_running{false};
  std::condition_variable monitor_cv;  // its own: enqueue's notify_one is the worker's
  std::thread monitor;
};

// process_group_gloo_reduce.cc: elementwise reduction kernels for gloo.
using GlooReduceFn = void (*)(void* out, const void* a, const void* b, size_t n);
// Throws ember::Error for op/dtype pairs PyTorch rejects (bitwise ops on
// floating types, anything on quantized types). AVG maps to SUM.
GlooReduceFn gloo_reduce_fn(ScalarType dtype, ReduceOp op, const char* caller);
// Divides n elements in place by d (truncating for integers): AVG's second half.
void gloo_divide_in_place(void* data, ScalarType dtype, size_t n, int64_t d);

// Checks shared by the ops: a defined tensor of a supported dtype (on any
// device: Note [Gloo and device tensors]).
void gloo_check_tensor(const Tensor& t, const char* op);
// The tensors of one op live on one device.
void gloo_check_devices(const Tensor& t, const Tensor& like, const char* op);

// A dense host buffer for `t`: t itself when it is a contiguous CPU tensor,
// otherwise a dense host copy (copy_in: initialised from t) whose contents
// go back with copy_back().
struct Staged {
  Tensor user;
  Tensor dense;
  void copy_back() const;
};
Staged gloo_stage(const Tensor& t, bool copy_in);

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_PROCESS_GROUP_GLOO_IMPL_H_
