#ifndef EMBER_OPTIM_FACTOR_SCHEDULERS_H_
#define EMBER_OPTIM_FACTOR_SCHEDULERS_H_
// Schedulers that scale each group's initial lr by a factor moving over
// total_iters epochs (PyTorch 1.13's chainable forms, closed forms for
// step(epoch) and SequentialLR; see lr_scheduler.h):
//   LinearLR      factor from start_factor to end_factor, linearly
//   ConstantLR    factor until total_iters, then 1
//   PolynomialLR  (1 - epoch / total_iters) ** power, then 0
// A warm-up: optim::LinearLR warmup(opt, /*start_factor=*/0.1, 1.0, /*total_iters=*/5);

#include <cstdint>
#include <optional>
#include <vector>

#include "optim/lr_scheduler.h"

namespace ember {
namespace optim {

class LinearLR : public LRScheduler {
 public:
  // Throws PyTorch's ValueError for a factor outside [0, 1].
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
           int64_t total_iters = 5, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  void visit(SchedulerVisitor& v) override;

 private:
  double start_factor_, end_factor_;
  int64_t total_iters_;
};

class ConstantLR : public LRScheduler {
 public:
  // Throws PyTorch's ValueError for a factor outside [0, 1].
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5,
             int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  void visit(SchedulerVisitor& v) override;

 private:
  double factor_;
  int64_t total_iters_;
};

class PolynomialLR : public LRScheduler {
 public:
  PolynomialLR(Optimizer& optimizer, int64_t total_iters = 5, double power = 1.0,
               int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  void visit(SchedulerVisitor& v) override;

 private:
  int64_t total_iters_;
  double power_;
};

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_FACTOR_SCHEDULERS_H_
