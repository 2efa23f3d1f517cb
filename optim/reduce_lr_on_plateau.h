#ifndef EMBER_OPTIM_REDUCE_LR_ON_PLATEAU_H_
#define EMBER_OPTIM_REDUCE_LR_ON_PLATEAU_H_
// torch.optim.lr_scheduler.ReduceLROnPlateau (PyTorch 1.13): lr *= factor
// once a metric has not improved for more than `patience` steps.
//
//   optim::ReduceLROnPlateau sched(opt, optim::ReduceLROnPlateauOptions().patience(5));
//   for (epoch...) { train(...); sched.step(validation_loss); }
//
// As in PyTorch it is not an LRScheduler (its step takes the metric) and
// cannot be chained. get_last_lr() is the groups' lrs after the last step
// (PyTorch 1.13 keeps them as _last_lr). state_dict() is flat (see
// lr_scheduler.h): factor, min_lrs, patience, cooldown, cooldown_counter,
// mode, threshold, threshold_mode, best, num_bad_epochs, mode_worse, eps,
// last_epoch, _last_lr.

#include <cstdint>
#include <string>
#include <vector>

#include "optim/lr_scheduler.h"
#include "tensor/arg.h"

namespace ember {
namespace optim {

struct ReduceLROnPlateauOptions {
  // "min": the metric should decrease (a loss); "max": increase (accuracy).
  EMBER_ARG(std::string, mode) = "min";
  EMBER_ARG(double, factor) = 0.1;
  EMBER_ARG(int64_t, patience) = 10;
  EMBER_ARG(double, threshold) = 1e-4;
  // "rel": better than best * (1 -/+ threshold); "abs": best -/+ threshold.
  EMBER_ARG(std::string, threshold_mode) = "rel";
  EMBER_ARG(int64_t, cooldown) = 0;
  EMBER_ARG(PerGroup, min_lr) = 0.0;
  // Smaller lr changes than eps are not made.
  EMBER_ARG(double, eps) = 1e-8;
};

class ReduceLROnPlateau {
 public:
  // Throws PyTorch's ValueErrors for factor >= 1, an unknown mode or
  // threshold_mode, and a min_lr list of the wrong length.
  explicit ReduceLROnPlateau(Optimizer& optimizer, const ReduceLROnPlateauOptions& options = {});
  ReduceLROnPlateau(const ReduceLROnPlateau&) = delete;
  ReduceLROnPlateau& operator=(const ReduceLROnPlateau&) = delete;

  void step(double metric);
  const std::vector<double>& get_last_lr() const { return s_.last_lr; }
  int64_t last_epoch() const { return s_.last_epoch; }
  double best() const { return s_.best; }
  int64_t num_bad_epochs() const { return s_.num_bad_epochs; }
  bool in_cooldown() const { return s_.cooldown_counter > 0; }
  Optimizer& optimizer() { return optimizer_; }

  NamedTensors state_dict();
  // Restores what state_dict() saved; keys it lacks are an error, and so
  // are an unknown mode or threshold_mode (which leave it as it was).
  void load_state_dict(const NamedTensors& state_dict);

 private:
  // Everything state_dict() saves, under PyTorch's attribute names.
  struct State {
    double factor;
    std::vector<double> min_lrs;
    int64_t patience, cooldown, cooldown_counter = 0;
    std::string mode;
    double threshold;
    std::string threshold_mode;
    double best, mode_worse;
    int64_t num_bad_epochs = 0;
    double eps;
    int64_t last_epoch = 0;
    std::vector<double> last_lr;

    void visit(SchedulerVisitor& v);
  };

  bool is_better(double a, double best) const;
  void reduce_lr();

  Optimizer& optimizer_;
  State s_;
};

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_REDUCE_LR_ON_PLATEAU_H_
