#ifndef EMBER_OPTIM_CYCLIC_SCHEDULERS_H_
#define EMBER_OPTIM_CYCLIC_SCHEDULERS_H_
// Schedulers that restart or cycle (PyTorch 1.13), usually stepped every
// batch:
//   CosineAnnealingWarmRestarts  SGDR's cosine with restarts every T_i
//   CyclicLR                     triangular / triangular2 / exp_range cycles
//                                between base_lr and max_lr (and momentum
//                                the other way)
//   OneCycleLR                   the 1cycle policy, cos or linear, two or
//                                three phases, momentum or Adam's beta1
//                                cycled against the lr
//
//   optim::OneCycleLR sched(opt, optim::OneCycleLROptions(0.1).total_steps(1000));
//   optim::CyclicLR sched(opt, optim::CyclicLROptions(0.01, 0.1).step_size_up(200));
//
// Deviation: PyTorch keeps OneCycleLR's max_lr, min_lr, max_momentum and
// base_momentum in the optimizer's param groups; ember keeps them in the
// scheduler (saved in its state dict as max_lrs, min_lrs, max_momentums,
// base_momentums).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "optim/lr_scheduler.h"
#include "tensor/arg.h"

namespace ember {
namespace optim {

class CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  // Throws PyTorch's ValueErrors for T_0 < 1 and T_mult < 1.
  CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult = 1,
                              double eta_min = 0, int64_t last_epoch = -1);

 protected:
  // step(epoch) takes fractional epochs (epoch + i / iters_per_epoch).
  void step_impl(const std::optional<double>& epoch) override;
  std::vector<double> get_lr() override;
  void visit(SchedulerVisitor& v) override;

 private:
  int64_t T_0_, T_i_, T_mult_;
  double eta_min_;
  double T_cur_;  // fractional after step(epoch), as in PyTorch
};

struct CyclicLROptions {
  CyclicLROptions(PerGroup base_lr, PerGroup max_lr)
      : base_lr_(std::move(base_lr)), max_lr_(std::move(max_lr)) {}

  EMBER_ARG(PerGroup, base_lr);
  EMBER_ARG(PerGroup, max_lr);
  EMBER_ARG(int64_t, step_size_up) = 2000;
  EMBER_ARG(std::optional<int64_t>, step_size_down);  // step_size_up when unset
  // "triangular", "triangular2" or "exp_range"; ignored with a scale_fn.
  EMBER_ARG(std::string, mode) = "triangular";
  EMBER_ARG(double, gamma) = 1.0;
  // A custom scaling policy, 0 <= scale_fn(x) <= 1, of the cycle number
  // (scale_mode "cycle") or the iteration ("iterations").
  EMBER_ARG(std::function<double(double)>, scale_fn);
  EMBER_ARG(std::string, scale_mode) = "cycle";
  EMBER_ARG(bool, cycle_momentum) = true;
  EMBER_ARG(PerGroup, base_momentum) = 0.8;
  EMBER_ARG(PerGroup, max_momentum) = 0.9;
  EMBER_ARG(int64_t, last_epoch) = -1;
};

class CyclicLR : public LRScheduler {
 public:
  // Throws PyTorch's ValueErrors: lists of the wrong length, an unknown mode
  // without scale_fn, cycle_momentum for an optimizer without momentum
  // (PyTorch 1.13 cycles only "momentum", not Adam's betas, here).
  CyclicLR(Optimizer& optimizer, const CyclicLROptions& options);

 protected:
  std::vector<double> get_lr() override;
  void visit(SchedulerVisitor& v) override;

 private:
  double scale(double x) const;

  std::vector<double> max_lrs_;
  double total_size_, step_ratio_;
  std::string mode_;
  double gamma_;
  std::function<double(double)> scale_fn_;
  std::string scale_mode_;
  bool cycle_momentum_;
  std::vector<double> base_momentums_, max_momentums_;
};

struct OneCycleLROptions {
  OneCycleLROptions(PerGroup max_lr) : max_lr_(std::move(max_lr)) {}  // NOLINT

  EMBER_ARG(PerGroup, max_lr);
  // total_steps, or epochs * steps_per_epoch.
  EMBER_ARG(std::optional<int64_t>, total_steps);
  EMBER_ARG(std::optional<int64_t>, epochs);
  EMBER_ARG(std::optional<int64_t>, steps_per_epoch);
  EMBER_ARG(double, pct_start) = 0.3;
  EMBER_ARG(std::string, anneal_strategy) = "cos";  // or "linear"
  EMBER_ARG(bool, cycle_momentum) = true;
  EMBER_ARG(PerGroup, base_momentum) = 0.85;
  EMBER_ARG(PerGroup, max_momentum) = 0.95;
  EMBER_ARG(double, div_factor) = 25.;
  EMBER_ARG(double, final_div_factor) = 1e4;
  EMBER_ARG(bool, three_phase) = false;
  EMBER_ARG(int64_t, last_epoch) = -1;
};

class OneCycleLR : public LRScheduler {
 public:
  // Throws PyTorch's ValueErrors for a missing or non-positive step count,
  // pct_start outside [0, 1], an unknown anneal_strategy, lists of the wrong
  // length, and cycle_momentum for an optimizer with neither momentum nor
  // betas; step() past total_steps throws too.
  OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& options);

 protected:
  std::vector<double> get_lr() override;
  void visit(SchedulerVisitor& v) override;

 private:
  double anneal(double start, double end, double pct) const;

  int64_t total_steps_;
  std::vector<double> phase_ends_;  // PyTorch's _schedule_phases' end_step
  std::string anneal_strategy_;
  bool cycle_momentum_, use_beta1_ = false;
  std::vector<double> max_lrs_, min_lrs_, max_momentums_, base_momentums_;
};

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_CYCLIC_SCHEDULERS_H_
