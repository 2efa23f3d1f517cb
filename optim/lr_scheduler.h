#ifndef EMBER_OPTIM_LR_SCHEDULER_H_
#define EMBER_OPTIM_LR_SCHEDULER_H_
// Learning-rate schedulers as PyTorch 1.13's torch.optim.lr_scheduler
// computes them (the chainable form that scheduler.step() uses):
//
//   optim::SGD opt(params, optim::SGDOptions(0.1));
//   optim::StepLR sched(opt, /*step_size=*/30, /*gamma=*/0.1);
//   for (epoch...) { train(...); opt.step(); ... sched.step(); }
//
// Constructing a scheduler does PyTorch's initial step: it records each
// group's initial_lr (kept in the optimizer's state dict), sets base_lrs,
// and sets the lr of epoch last_epoch + 1 (0 for a new run).
//
// step(epoch) is PyTorch's deprecated form: it jumps to `epoch` and uses
// the scheduler's closed form where it has one (StepLR, MultiStepLR,
// ExponentialLR, CosineAnnealingLR, LinearLR, ConstantLR, PolynomialLR),
// as SequentialLR does at its milestones. Only CosineAnnealingWarmRestarts
// takes fractional epochs.
//
// state_dict() is already flat, for checkpoints: PyTorch's keys as tensors,
//   last_epoch, _step_count            0-dim int64
//   base_lrs, _last_lr                 1-D float64, one per group
//   gamma, eta_min                     0-dim float64
//   step_size, T_max                   0-dim int64
//   milestones                         1-D int64, sorted, repeats kept
//   flags (cycle_momentum)             0-dim bool
//   strings (mode, anneal_strategy)    1-D uint8, the UTF-8 bytes
// and a composite scheduler's (SequentialLR, ChainedScheduler) children
// under "_schedulers.<i>.". Functions (LambdaLR's, CyclicLR's scale_fn) are
// not saved (PyTorch saves None for lambdas).
//
// More schedulers: factor_schedulers.h (LinearLR, ConstantLR, PolynomialLR),
// cyclic_schedulers.h (CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR),
// composite_schedulers.h (SequentialLR, ChainedScheduler),
// reduce_lr_on_plateau.h.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "optim/optimizer.h"

namespace ember {
namespace optim {

class LRScheduler;

// Visits a scheduler's state by PyTorch's attribute names.
class SchedulerVisitor {
 public:
  virtual ~SchedulerVisitor() = default;
  virtual void field(const char* name, int64_t& value) = 0;
  virtual void field(const char* name, double& value) = 0;
  virtual void field(const char* name, std::vector<int64_t>& value) = 0;
  virtual void field(const char* name, std::vector<double>& value) = 0;
  virtual void field(const char* name, bool& value) = 0;
  virtual void field(const char* name, std::string& value) = 0;
};

// PyTorch's "float or list" arguments (CyclicLR's max_lr, ReduceLROnPlateau's
// min_lr...): one value for every param group, or a list of one per group.
class PerGroup {
 public:
  PerGroup(double value) : values_{value}, list_(false) {}                   // NOLINT
  PerGroup(std::vector<double> values) : values_(std::move(values)) {}       // NOLINT
  PerGroup(std::initializer_list<double> values) : values_(values) {}        // NOLINT

  bool is_list() const { return list_; }
  size_t size() const { return values_.size(); }
  // One value per group: the list itself, or the one value repeated. The
  // caller has checked a list's size (each scheduler words that error).
  std::vector<double> values(size_t groups) const {
    return list_ ? values_ : std::vector<double>(groups, values_[0]);
  }

 private:
  std::vector<double> values_;
  bool list_ = true;
};

namespace detail {
// A state dict of the fields `visit` names (the flat form above).
NamedTensors save_fields(const std::function<void(SchedulerVisitor&)>& visit);
// Loads them back; a key that `visit` does not name is an error, raised
// before anything changes.
void load_fields(const NamedTensors& state_dict,
                 const std::function<void(SchedulerVisitor&)>& visit);
// PyTorch's "expected 2 values for max_lr, got 3" for a list of the wrong size.
std::vector<double> per_group(const PerGroup& value, const char* name, size_t groups);
}  // namespace detail

class LRScheduler {
 public:
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;
  virtual ~LRScheduler() = default;

  // Advances one epoch and sets every group's lr.
  void step();
  // PyTorch's deprecated step(epoch): see above.
  void step(double epoch);
  // The lr of each group that the last step() set.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  Optimizer& optimizer() { return optimizer_; }

  virtual NamedTensors state_dict();
  // Restores what state_dict() saved; keys this scheduler lacks are an error.
  virtual void load_state_dict(const NamedTensors& state_dict);

 protected:
  // last_epoch -1 starts a new schedule; any other value resumes one and
  // needs initial_lr in every group (PyTorch's KeyError otherwise).
  LRScheduler(Optimizer& optimizer, int64_t last_epoch);
  // For SequentialLR and ChainedScheduler, which (as in PyTorch) neither
  // touch initial_lr nor have base_lrs of their own.
  struct Composite {};
  LRScheduler(Optimizer& optimizer, int64_t last_epoch, Composite);
  // PyTorch's _initial_step: each constructor calls it last, once the
  // subclass can answer get_lr().
  void initial_step();
  // PyTorch's step(epoch=None): an epoch given jumps there and takes the
  // closed form when there is one.
  virtual void step_impl(const std::optional<double>& epoch);
  // The lrs of epoch last_epoch_ (already advanced), from the current ones.
  virtual std::vector<double> get_lr() = 0;
  // The lrs of epoch last_epoch_ from base_lrs alone, where the schedule has
  // such a form (PyTorch's _get_closed_form_lr).
  virtual std::optional<std::vector<double>> closed_form_lr() { return std::nullopt; }
  virtual void visit(SchedulerVisitor& v);
  // Every group's current lr.
  std::vector<double> current_lrs() const;
  // Every group's current lr times `factor`: the step of a chainable form
  // that scales the lr (StepLR, LinearLR...).
  std::vector<double> current_lrs_times(double factor) const;
  // Each base lr times `factor`: a closed form that scales the initial lr.
  std::vector<double> base_lrs_times(double factor) const;
  // Sets the groups' lrs (as many as given) and last_lr_.
  void set_lrs(const std::vector<double>& lrs);

  // The composites drive their children's steps.
  friend class SequentialLR;
  friend class ChainedScheduler;

  Optimizer& optimizer_;
  int64_t last_epoch_;
  int64_t step_count_ = 0;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;
};

// lr = base_lr * lr_lambda(epoch), one function for all groups or one per
// group (PyTorch's ValueError for a list of another length).
class LambdaLR : public LRScheduler {
 public:
  using LrLambda = std::function<double(int64_t)>;
  LambdaLR(Optimizer& optimizer, LrLambda lr_lambda, int64_t last_epoch = -1);
  LambdaLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;

 private:
  std::vector<LrLambda> lr_lambdas_;
};

// lr *= lr_lambda(epoch) at each epoch after the first, one function for all
// groups or one per group, as LambdaLR takes them.
class MultiplicativeLR : public LRScheduler {
 public:
  using LrLambda = LambdaLR::LrLambda;
  MultiplicativeLR(Optimizer& optimizer, LrLambda lr_lambda, int64_t last_epoch = -1);
  MultiplicativeLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas,
                   int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;

 private:
  std::vector<LrLambda> lr_lambdas_;
};

// lr *= gamma every step_size epochs.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  void visit(SchedulerVisitor& v) override;

 private:
  int64_t step_size_;
  double gamma_;
};

// lr *= gamma at each milestone (gamma^k for a milestone listed k times).
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1,
              int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  void visit(SchedulerVisitor& v) override;

 private:
  std::vector<int64_t> milestones_;  // sorted
  double gamma_;
};

// lr *= gamma every epoch.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  void visit(SchedulerVisitor& v) override;

 private:
  double gamma_;
};

// Cosine annealing from base_lr to eta_min over T_max epochs, in PyTorch's
// recursive form (so it composes with other changes to lr, and matches
// PyTorch's values exactly, including past T_max).
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0,
                    int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  void visit(SchedulerVisitor& v) override;

 private:
  int64_t T_max_;
  double eta_min_;
};

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_LR_SCHEDULER_H_
