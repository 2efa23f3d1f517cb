#include "optim/factor_schedulers.h"

#include <algorithm>
#include <cmath>

namespace ember {
namespace optim {

namespace {
// The constructors' checks run before the base class touches the optimizer,
// as in PyTorch, so a bad argument leaves it as it was.
Optimizer& check_linear(Optimizer& optimizer, double start_factor, double end_factor) {
  EMBER_CHECK_VALUE(start_factor <= 1.0 && start_factor >= 0,
                    "Starting multiplicative factor expected to be between 0 and 1.");
  EMBER_CHECK_VALUE(end_factor <= 1.0 && end_factor >= 0,
                    "Ending multiplicative factor expected to be between 0 and 1.");
  return optimizer;
}

Optimizer& check_constant(Optimizer& optimizer, double factor) {
  EMBER_CHECK_VALUE(factor <= 1.0 && factor >= 0,
                    "Constant multiplicative factor expected to be between 0 and 1.");
  return optimizer;
}
}  // namespace

// --- LinearLR ------------------------------------------------------------------

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor,
                   int64_t total_iters, int64_t last_epoch)
    : LRScheduler(check_linear(optimizer, start_factor, end_factor), last_epoch),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  initial_step();
}

std::vector<double> LinearLR::get_lr() {
  if (last_epoch_ == 0) return current_lrs_times(start_factor_);
  if (last_epoch_ > total_iters_) return current_lrs();
  const double delta = end_factor_ - start_factor_;
  return current_lrs_times(1. + delta / (static_cast<double>(total_iters_) * start_factor_ +
                                         static_cast<double>(last_epoch_ - 1) * delta));
}

std::optional<std::vector<double>> LinearLR::closed_form_lr() {
  const double done = static_cast<double>(std::min(total_iters_, last_epoch_));
  return base_lrs_times(start_factor_ +
                        (end_factor_ - start_factor_) * done / static_cast<double>(total_iters_));
}

void LinearLR::visit(SchedulerVisitor& v) {
  v.field("start_factor", start_factor_);
  v.field("end_factor", end_factor_);
  v.field("total_iters", total_iters_);
  LRScheduler::visit(v);
}

// --- ConstantLR ----------------------------------------------------------------

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, int64_t total_iters,
                       int64_t last_epoch)
    : LRScheduler(check_constant(optimizer, factor), last_epoch),
      factor_(factor),
      total_iters_(total_iters) {
  initial_step();
}

std::vector<double> ConstantLR::get_lr() {
  if (last_epoch_ == 0) return current_lrs_times(factor_);
  if (last_epoch_ != total_iters_) return current_lrs();
  return current_lrs_times(1.0 / factor_);
}

std::optional<std::vector<double>> ConstantLR::closed_form_lr() {
  const double after = last_epoch_ >= total_iters_ ? 1.0 : 0.0;
  return base_lrs_times(factor_ + after * (1 - factor_));
}

void ConstantLR::visit(SchedulerVisitor& v) {
  v.field("factor", factor_);
  v.field("total_iters", total_iters_);
  LRScheduler::visit(v);
}

// --- PolynomialLR --------------------------------------------------------------

PolynomialLR::PolynomialLR(Optimizer& optimizer, int64_t total_iters, double power,
                           int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), total_iters_(total_iters), power_(power) {
  initial_step();
}

std::vector<double> PolynomialLR::get_lr() {
  if (last_epoch_ == 0 || last_epoch_ > total_iters_) return current_lrs();
  const double t = static_cast<double>(total_iters_), e = static_cast<double>(last_epoch_);
  return current_lrs_times(std::pow((1.0 - e / t) / (1.0 - (e - 1) / t), power_));
}

std::optional<std::vector<double>> PolynomialLR::closed_form_lr() {
  const double done = static_cast<double>(std::min(total_iters_, last_epoch_));
  return base_lrs_times(std::pow(1.0 - done / static_cast<double>(total_iters_), power_));
}

void PolynomialLR::visit(SchedulerVisitor& v) {
  v.field("total_iters", total_iters_);
  v.field("power", power_);
  LRScheduler::visit(v);
}

}  // namespace optim
}  // namespace ember
