#ifndef EMBER_DISTRIBUTED_HVD_H_
#define EMBER_DISTRIBUTED_HVD_H_

// Horovod's PyTorch API (horovod.torch as hvd) over ember's process groups,
// so that a Horovod training program ports by renaming:
//
//   namespace hvd = ember::hvd;
//   hvd::init();                                   // launcher, torchrun or mpirun
//   auto sampler = std::make_shared<data::DistributedSampler>(n, hvd::size(), hvd::rank());
//   optim::SGD sgd(model->parameters(), optim::SGDOptions(0.01 * hvd::size()));
//   hvd::DistributedOptimizer opt(sgd, model->named_parameters(), hvd::Compression::fp16);
//   hvd::broadcast_parameters(model->state_dict(), /*root_rank=*/0);
//   hvd::broadcast_optimizer_state(sgd, 0);
//   for (...) { opt.zero_grad(); loss.backward(); opt.step(); }
//
// Note [Horovod over process groups]:
// - init() joins ember's default process group (env://: RANK, WORLD_SIZE,
//   MASTER_ADDR/MASTER_PORT as ember's launcher and torchrun set them), or
//   uses the one the program made. Without RANK/WORLD_SIZE it reads
//   Horovod's (HOROVOD_RANK/HOROVOD_SIZE/HOROVOD_LOCAL_RANK/...) and Open
//   MPI's (OMPI_COMM_WORLD_RANK/...) variables; MASTER_ADDR and MASTER_PORT
//   must then be exported (horovodrun's own rendezvous server is not spoken).
//   A process started alone is rank 0 of 1. local_rank()/local_size() come
//   from LOCAL_RANK/LOCAL_WORLD_SIZE (or Horovod's, Open MPI's), else from
//   the ranks' host names.
// - DistributedOptimizer wraps an optimizer (kept by reference). A hook on
//   every parameter counts its backward passes; at the
//   backward_passes_per_step-th the gradient (fp16-compressed if asked) is
//   all-reduced asynchronously while backward goes on. Horovod's coordinator
//   lets ranks issue tensors in any order; ember's collectives must match
//   in order, so gradients are issued in one fixed order (the optimizer's
//   parameters, last first, which is backward's usual order): a gradient
//   that is ready waits for the ones before it. step() (or synchronize())
//   issues what backward did not (a parameter without a gradient sends
//   zeros, so every rank issues the same collectives), waits, decompresses
//   and averages, then steps.
// - join(): a rank out of data calls it and keeps serving the others: each
//   synchronize() ends with a small all-reduce that counts the ranks still
//   training, and a joined rank answers every step's gradient all-reduces
//   with zeros until none is left; Average then divides by the ranks that
//   contributed. Returns the last rank to join.
// - Adasum and process sets are not supported (a clear error).
//
// All ranks must call every function here in the same order, as with any
// collective.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "distributed/init.h"
#include "optim/optimizer.h"
#include "tensor/named_tensors.h"
#include "tensor/tensor.h"

namespace ember::hvd {

// hvd.init(): see Note [Horovod over process groups]. `backend` picks the
// process group's when init() makes one ("gloo" handles CPU and CUDA
// tensors; "nccl" CUDA only).
void init(const distributed::Backend& backend = distributed::Backend::GLOO);
bool is_initialized();
// Destroys the process group init() made (not one the program made).
void shutdown();

int rank();
int size();
int local_rank();
int local_size();
int cross_rank();  // index of this rank's host among the hosts
int cross_size();  // number of hosts

// hvd.Compression.none / hvd.Compression.fp16: floating-point tensors
// travel as float16 and come back in their own dtype.
enum class Compression { none, fp16 };

// hvd.Average / hvd.Sum (hvd.Adasum is refused).
enum class ReduceOp { Average, Sum, Adasum };
constexpr ReduceOp Average = ReduceOp::Average;
constexpr ReduceOp Sum = ReduceOp::Sum;
constexpr ReduceOp Adasum = ReduceOp::Adasum;

// hvd.allreduce / allreduce_: the sum or mean over ranks.
Tensor allreduce(const Tensor& tensor, ReduceOp op = Average,
                 Compression compression = Compression::none);
void allreduce_(Tensor& tensor, ReduceOp op = Average,
                Compression compression = Compression::none);
// hvd.allgather: every rank's tensor concatenated along dim 0 in rank order
// (first dimensions may differ between ranks; the others must agree).
Tensor allgather(const Tensor& tensor);
// hvd.broadcast / broadcast_: root_rank's tensor on every rank.
Tensor broadcast(const Tensor& tensor, int root_rank);
void broadcast_(Tensor& tensor, int root_rank);

// hvd.broadcast_parameters: overwrites every tensor in place with
// root_rank's (a state dict, named_parameters(); sorted by name first, as
// Horovod sorts a dict, so every rank goes through them in the same order).
void broadcast_parameters(const NamedTensors& params, int root_rank);
void broadcast_parameters(const std::vector<Tensor>& params, int root_rank);
// hvd.broadcast_optimizer_state: every rank's optimizer takes root_rank's
// options and state, whatever it held (an optimizer that has not stepped yet
// included).
void broadcast_optimizer_state(optim::Optimizer& optimizer, int root_rank);

// hvd.join(): see Note [Horovod over process groups]. Returns the last rank
// that joined.
int join();

class DistributedOptimizer {
 public:
  // `optimizer` must outlive this. named_parameters, when given, must name
  // every parameter of the optimizer exactly once (Horovod's checks);
  // otherwise names are made up. backward_passes_per_step >= 1 backward
  // passes accumulate locally before the all-reduce.
  DistributedOptimizer(optim::Optimizer& optimizer, const NamedTensors& named_parameters = {},
                       Compression compression = Compression::none,
                       int backward_passes_per_step = 1, ReduceOp op = Average,
                       double gradient_predivide_factor = 1.0);
  ~DistributedOptimizer();
  DistributedOptimizer(const DistributedOptimizer&) = delete;
  DistributedOptimizer& operator=(const DistributedOptimizer&) = delete;

  // synchronize() (unless inside skip_synchronize()), then the optimizer's step.
  Tensor step(const optim::Optimizer::LossClosure& closure = nullptr);
  // Refused while all-reduces of a backward pass are outstanding (Horovod's
  // race-condition error).
  void zero_grad(bool set_to_none = true);
  // Waits for every gradient's all-reduce and writes the result into .grad
  // (to clip gradients between synchronize() and step()).
  void synchronize();
  // Within its lifetime, step() does not synchronize (after an explicit
  // synchronize()).
  class SkipSynchronize {
   public:
    explicit SkipSynchronize(DistributedOptimizer& o) : o_(o) { o_.skip_ = true; }
    ~SkipSynchronize() { o_.skip_ = false; }
    SkipSynchronize(const SkipSynchronize&) = delete;
    SkipSynchronize& operator=(const SkipSynchronize&) = delete;

   private:
    DistributedOptimizer& o_;
  };
  [[nodiscard]] SkipSynchronize skip_synchronize() { return SkipSynchronize(*this); }

  optim::Optimizer& optimizer() { return optimizer_; }
  std::vector<optim::OptimizerParamGroup>& param_groups() { return optimizer_.param_groups(); }
  optim::OptimizerStateDict state_dict() const { return optimizer_.state_dict(); }
  void load_state_dict(const optim::OptimizerStateDict& sd) { optimizer_.load_state_dict(sd); }

  // For join(): this rank's share of a step it does not train: zero
  // gradients for every all-reduce, the same collectives as a training rank.
  void contribute_zeros();

 private:
  struct Slot;
  void on_gradient(size_t slot);
  void issue_ready();
  void issue(size_t slot);
  optim::Optimizer& optimizer_;
  Compression compression_;
  int passes_;
  ReduceOp op_;
  double predivide_;
  std::vector<Slot> slots_;  // in issue order
  size_t next_ = 0;          // the next slot to issue
  bool skip_ = false;
  bool synchronized_ = false;
};

namespace internal {
// The end of a step's collectives (Note [Horovod over process groups]):
// [ranks still training (this one counts when `training`), then one flag
// per rank: it joined this step].
std::vector<int64_t> count_ranks_training(bool training, bool just_joined);
}  // namespace internal

}  // namespace ember::hvd

#endif  // EMBER_DISTRIBUTED_HVD_H_
