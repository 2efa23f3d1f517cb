#include "optim/cyclic_schedulers.h"

#include <cmath>
#include <utility>

#include "tensor/print.h"

namespace ember {
namespace optim {

namespace {

// Reads or writes one option of a group by its PyTorch name ("momentum", or
// "betas" whose first element is Adam's momentum).
class MomentumAccess : public OptionVisitor {
 public:
  MomentumAccess(bool use_beta1, std::optional<double> set)
      : name_(use_beta1 ? "betas" : "momentum"), set_(set) {}
  void field(const char* name, double& v) override {
    if (name_ != name) return;
    found_ = true;
    if (set_) v = *set_;
    value_ = v;
  }
  void field(const char*, bool&) override {}
  void field(const char*, int64_t&) override {}
  void field(const char*, std::optional<std::string>&) override {}
  void field(const char* name, std::tuple<double, double>& v) override {
    if (name_ != name) return;
    found_ = true;
    if (set_) std::get<0>(v) = *set_;
    value_ = std::get<0>(v);
  }
  bool found() const { return found_; }
  double value() const { return value_; }

 private:
  std::string name_;
  std::optional<double> set_;
  bool found_ = false;
  double value_ = 0;
};

bool has_momentum(const OptimizerOptions& options, bool use_beta1) {
  auto copy = options.clone();
  MomentumAccess access(use_beta1, std::nullopt);
  copy->visit(access);
  return access.found();
}

double get_momentum(OptimizerOptions& options, bool use_beta1) {
  MomentumAccess access(use_beta1, std::nullopt);
  options.visit(access);
  return access.value();
}

void set_momentum(OptimizerOptions& options, bool use_beta1, double value) {
  MomentumAccess access(use_beta1, value);
  options.visit(access);
}

constexpr char kNoMomentum[] = "optimizer must support momentum with `cycle_momentum` option enabled";

}  // namespace

// --- CosineAnnealingWarmRestarts -------------------------------------------------

namespace {
Optimizer& check_restarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult) {
  EMBER_CHECK_VALUE(T_0 > 0, "Expected positive integer T_0, but got ", T_0);
  EMBER_CHECK_VALUE(T_mult >= 1, "Expected integer T_mult >= 1, but got ", T_mult);
  return optimizer;
}

// An epoch as Python prints it: integers without a fraction.
std::string epoch_repr(double epoch) {
  if (epoch == std::floor(epoch) && std::abs(epoch) < 1e15) {
    return std::to_string(static_cast<int64_t>(epoch));
  }
  return python_float_repr(epoch);
}
}  // namespace

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0,
                                                         int64_t T_mult, double eta_min,
                                                         int64_t last_epoch)
    : LRScheduler(check_restarts(optimizer, T_0, T_mult), last_epoch),
      T_0_(T_0),
      T_i_(T_0),
      T_mult_(T_mult),
      eta_min_(eta_min),
      T_cur_(static_cast<double>(last_epoch)) {
  initial_step();
}

std::vector<double> CosineAnnealingWarmRestarts::get_lr() {
  std::vector<double> lrs;
  for (double base : base_lrs_) {
    lrs.push_back(eta_min_ + (base - eta_min_) *
                                 (1 + std::cos(M_PI * T_cur_ / static_cast<double>(T_i_))) / 2);
  }
  return lrs;
}

void CosineAnnealingWarmRestarts::step_impl(const std::optional<double>& epoch_arg) {
  // PyTorch's own step(): no _step_count, T_cur moved by hand or derived
  // from the epoch given.
  std::optional<double> epoch = epoch_arg;
  if (!epoch && last_epoch_ < 0) epoch = 0;
  double e;
  if (!epoch) {
    e = static_cast<double>(last_epoch_ + 1);
    T_cur_ += 1;
    if (T_cur_ >= static_cast<double>(T_i_)) {
      T_cur_ -= static_cast<double>(T_i_);
      T_i_ *= T_mult_;
    }
  } else {
    e = *epoch;
    EMBER_CHECK_VALUE(e >= 0, "Expected non-negative epoch, but got ", epoch_repr(e));
    const double t0 = static_cast<double>(T_0_);
    if (e >= t0) {
      if (T_mult_ == 1) {
        T_cur_ = std::fmod(e, t0);
      } else {
        const double mult = static_cast<double>(T_mult_);
        const auto n = static_cast<int64_t>(std::log(e / t0 * (mult - 1) + 1) / std::log(mult));
        int64_t power = 1;
        for (int64_t i = 0; i < n; ++i) power *= T_mult_;
        T_cur_ = e - static_cast<double>(T_0_ * (power - 1)) / static_cast<double>(T_mult_ - 1);
        T_i_ = T_0_ * power;
      }
    } else {
      T_i_ = T_0_;
      T_cur_ = e;
    }
  }
  last_epoch_ = static_cast<int64_t>(std::floor(e));
  set_lrs(get_lr());
}

void CosineAnnealingWarmRestarts::visit(SchedulerVisitor& v) {
  v.field("T_0", T_0_);
  v.field("T_i", T_i_);
  v.field("T_mult", T_mult_);
  v.field("eta_min", eta_min_);
  v.field("T_cur", T_cur_);
  LRScheduler::visit(v);
}

// --- CyclicLR ----------------------------------------------------------------------

namespace {
// PyTorch's checks and its writes to the groups, before the base class's
// initial step.
Optimizer& prepare_cyclic(Optimizer& optimizer, const CyclicLROptions& o) {
  auto& groups = optimizer.param_groups();
  const std::vector<double> base_lrs = detail::per_group(o.base_lr(), "base_lr", groups.size());
  detail::per_group(o.max_lr(), "max_lr", groups.size());
  EMBER_CHECK_VALUE(o.mode() == "triangular" || o.mode() == "triangular2" ||
                        o.mode() == "exp_range" || o.scale_fn(),
                    "mode is invalid and scale_fn is None");
  std::vector<double> base_momentums;
  if (o.cycle_momentum()) {
    EMBER_CHECK_VALUE(has_momentum(optimizer.defaults(), false), kNoMomentum);
    base_momentums = detail::per_group(o.base_momentum(), "base_momentum", groups.size());
    detail::per_group(o.max_momentum(), "max_momentum", groups.size());
  }
  if (o.last_epoch() == -1) {
    for (size_t i = 0; i < groups.size(); ++i) {
      groups[i].options().set_lr(base_lrs[i]);
      if (o.cycle_momentum()) set_momentum(groups[i].options(), false, base_momentums[i]);
    }
  }
  return optimizer;
}
}  // namespace

CyclicLR::CyclicLR(Optimizer& optimizer, const CyclicLROptions& o)
    : LRScheduler(prepare_cyclic(optimizer, o), o.last_epoch()),
      max_lrs_(o.max_lr().values(optimizer.param_groups().size())),
      mode_(o.mode()),
      gamma_(o.gamma()),
      scale_fn_(o.scale_fn()),
      cycle_momentum_(o.cycle_momentum()) {
  const auto up = static_cast<double>(o.step_size_up());
  const double down = o.step_size_down() ? static_cast<double>(*o.step_size_down()) : up;
  total_size_ = up + down;
  step_ratio_ = up / total_size_;
  // The built-in policies fix the scale mode; a custom scale_fn takes the
  // one given.
  if (scale_fn_) {
    scale_mode_ = o.scale_mode();
  } else {
    scale_mode_ = mode_ == "exp_range" ? "iterations" : "cycle";
  }
  if (cycle_momentum_) {
    for (auto& g : optimizer.param_groups()) {
      base_momentums_.push_back(get_momentum(g.options(), false));
    }
    max_momentums_ = o.max_momentum().values(optimizer.param_groups().size());
  }
  initial_step();
  base_lrs_ = o.base_lr().values(optimizer.param_groups().size());
}

double CyclicLR::scale(double x) const {
  if (scale_fn_) return scale_fn_(x);
  if (mode_ == "triangular2") return 1 / std::pow(2., x - 1);
  if (mode_ == "exp_range") return std::pow(gamma_, x);
  return 1.;
}

std::vector<double> CyclicLR::get_lr() {
  const double e = static_cast<double>(last_epoch_);
  const double cycle = std::floor(1 + e / total_size_);
  const double x = 1. + e / total_size_ - cycle;
  const double scale_factor = x <= step_ratio_ ? x / step_ratio_ : (x - 1) / (step_ratio_ - 1);
  const double s = scale(scale_mode_ == "cycle" ? cycle : e);
  std::vector<double> lrs;
  for (size_t i = 0; i < base_lrs_.size() && i < max_lrs_.size(); ++i) {
    const double base_height = (max_lrs_[i] - base_lrs_[i]) * scale_factor;
    lrs.push_back(base_lrs_[i] + base_height * s);
  }
  if (cycle_momentum_) {
    auto& groups = optimizer_.param_groups();
    for (size_t i = 0; i < groups.size() && i < base_momentums_.size(); ++i) {
      const double base_height = (max_momentums_[i] - base_momentums_[i]) * scale_factor;
      set_momentum(groups[i].options(), false, max_momentums_[i] - base_height * s);
    }
  }
  return lrs;
}

void CyclicLR::visit(SchedulerVisitor& v) {
  v.field("max_lrs", max_lrs_);
  v.field("total_size", total_size_);
  v.field("step_ratio", step_ratio_);
  v.field("mode", mode_);
  v.field("gamma", gamma_);
  v.field("scale_mode", scale_mode_);
  v.field("cycle_momentum", cycle_momentum_);
  v.field("base_momentums", base_momentums_);  // empty without cycle_momentum
  v.field("max_momentums", max_momentums_);
  LRScheduler::visit(v);
}

// --- OneCycleLR --------------------------------------------------------------------

namespace {
int64_t checked_total_steps(const OneCycleLROptions& o) {
  if (o.total_steps()) {
    EMBER_CHECK_VALUE(*o.total_steps() > 0, "Expected positive integer total_steps, but got ",
                      *o.total_steps());
    return *o.total_steps();
  }
  EMBER_CHECK_VALUE(o.epochs() && o.steps_per_epoch(),
                    "You must define either total_steps OR (epochs AND steps_per_epoch)");
  EMBER_CHECK_VALUE(*o.epochs() > 0, "Expected positive integer epochs, but got ", *o.epochs());
  EMBER_CHECK_VALUE(*o.steps_per_epoch() > 0,
                    "Expected positive integer steps_per_epoch, but got ", *o.steps_per_epoch());
  return *o.epochs() * *o.steps_per_epoch();
}

// PyTorch's checks and its writes to the groups, before the base class's
// initial step.
Optimizer& prepare_one_cycle(Optimizer& optimizer, const OneCycleLROptions& o) {
  checked_total_steps(o);
  EMBER_CHECK_VALUE(o.pct_start() >= 0 && o.pct_start() <= 1,
                    "Expected float between 0 and 1 pct_start, but got ",
                    python_float_repr(o.pct_start()));
  EMBER_CHECK_VALUE(o.anneal_strategy() == "cos" || o.anneal_strategy() == "linear",
                    "anneal_strategy must by one of 'cos' or 'linear', instead got ",
                    o.anneal_strategy());
  auto& groups = optimizer.param_groups();
  const std::vector<double> max_lrs = detail::per_group(o.max_lr(), "max_lr", groups.size());
  if (o.last_epoch() == -1) {
    for (size_t i = 0; i < groups.size(); ++i) groups[i].initial_lr = max_lrs[i] / o.div_factor();
  }
  if (o.cycle_momentum()) {
    const bool momentum = has_momentum(optimizer.defaults(), false);
    const bool betas = has_momentum(optimizer.defaults(), true);
    EMBER_CHECK_VALUE(momentum || betas, kNoMomentum);
    const auto max_m = detail::per_group(o.max_momentum(), "max_momentum", groups.size());
    detail::per_group(o.base_momentum(), "base_momentum", groups.size());
    if (o.last_epoch() == -1) {
      for (size_t i = 0; i < groups.size(); ++i) set_momentum(groups[i].options(), betas, max_m[i]);
    }
  }
  return optimizer;
}
}  // namespace

OneCycleLR::OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& o)
    : LRScheduler(prepare_one_cycle(optimizer, o), o.last_epoch()),
      total_steps_(checked_total_steps(o)),
      anneal_strategy_(o.anneal_strategy()),
      cycle_momentum_(o.cycle_momentum()) {
  const double total = static_cast<double>(total_steps_);
  if (o.three_phase()) {
    phase_ends_ = {o.pct_start() * total - 1, 2 * o.pct_start() * total - 2, total - 1};
  } else {
    phase_ends_ = {o.pct_start() * total - 1, total - 1};
  }
  const size_t n = optimizer.param_groups().size();
  max_lrs_ = o.max_lr().values(n);
  for (double max_lr : max_lrs_) min_lrs_.push_back(max_lr / o.div_factor() / o.final_div_factor());
  if (cycle_momentum_) {
    use_beta1_ = has_momentum(optimizer.defaults(), true);
    max_momentums_ = o.max_momentum().values(n);
    base_momentums_ = o.base_momentum().values(n);
  }
  initial_step();
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (anneal_strategy_ == "linear") return (end - start) * pct + start;
  const double cos_out = std::cos(M_PI * pct) + 1;
  return end + (start - end) / 2.0 * cos_out;
}

std::vector<double> OneCycleLR::get_lr() {
  const int64_t step_num = last_epoch_;
  EMBER_CHECK_VALUE(step_num <= total_steps_, "Tried to step ", step_num + 1,
                    " times. The specified number of total steps is ", total_steps_);
  auto& groups = optimizer_.param_groups();
  std::vector<double> lrs;
  for (size_t g = 0; g < groups.size() && g < max_lrs_.size(); ++g) {
    // Each phase's (start, end) lr and momentum: PyTorch's 'start_lr',
    // 'end_lr', 'start_momentum', 'end_momentum' keys of the group.
    const double initial = groups[g].initial_lr.value_or(max_lrs_[g]);
    const double max_m = cycle_momentum_ ? max_momentums_[g] : 0;
    const double base_m = cycle_momentum_ ? base_momentums_[g] : 0;
    std::vector<std::pair<double, double>> phase_lrs, phase_momentums;
    if (phase_ends_.size() == 3) {
      phase_lrs = {{initial, max_lrs_[g]}, {max_lrs_[g], initial}, {initial, min_lrs_[g]}};
      phase_momentums = {{max_m, base_m}, {base_m, max_m}, {max_m, max_m}};
    } else {
      phase_lrs = {{initial, max_lrs_[g]}, {max_lrs_[g], min_lrs_[g]}};
      phase_momentums = {{max_m, base_m}, {base_m, max_m}};
    }
    double start_step = 0, lr = 0, momentum = 0;
    for (size_t i = 0; i < phase_ends_.size(); ++i) {
      const double end_step = phase_ends_[i];
      if (static_cast<double>(step_num) <= end_step || i == phase_ends_.size() - 1) {
        const double pct = (static_cast<double>(step_num) - start_step) / (end_step - start_step);
        lr = anneal(phase_lrs[i].first, phase_lrs[i].second, pct);
        momentum = anneal(phase_momentums[i].first, phase_momentums[i].second, pct);
        break;
      }
      start_step = end_step;
    }
    lrs.push_back(lr);
    if (cycle_momentum_) set_momentum(groups[g].options(), use_beta1_, momentum);
  }
  return lrs;
}

void OneCycleLR::visit(SchedulerVisitor& v) {
  v.field("total_steps", total_steps_);
  v.field("_schedule_phases", phase_ends_);
  v.field("anneal_strategy", anneal_strategy_);
  v.field("cycle_momentum", cycle_momentum_);
  v.field("use_beta1", use_beta1_);
  v.field("max_lrs", max_lrs_);
  v.field("min_lrs", min_lrs_);
  v.field("max_momentums", max_momentums_);  // empty without cycle_momentum
  v.field("base_momentums", base_momentums_);
  LRScheduler::visit(v);
}

}  // namespace optim
}  // namespace ember
