#include "optim/reduce_lr_on_plateau.h"

#include <algorithm>
#include <limits>

namespace ember {
namespace optim {

namespace {
// PyTorch's _init_is_better: the modes' checks and the worst value.
double mode_worse_of(const std::string& mode, const std::string& threshold_mode) {
  EMBER_CHECK_VALUE(mode == "min" || mode == "max", "mode ", mode, " is unknown!");
  EMBER_CHECK_VALUE(threshold_mode == "rel" || threshold_mode == "abs", "threshold mode ",
                    threshold_mode, " is unknown!");
  const double inf = std::numeric_limits<double>::infinity();
  return mode == "min" ? inf : -inf;
}
}  // namespace

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, const ReduceLROnPlateauOptions& o)
    : optimizer_(optimizer) {
  EMBER_CHECK_VALUE(o.factor() < 1.0, "Factor should be < 1.0.");
  const size_t groups = optimizer.param_groups().size();
  EMBER_CHECK_VALUE(!o.min_lr().is_list() || o.min_lr().size() == groups, "expected ", groups,
                    " min_lrs, got ", o.min_lr().size());
  s_.factor = o.factor();
  s_.min_lrs = o.min_lr().values(groups);
  s_.patience = o.patience();
  s_.cooldown = o.cooldown();
  s_.mode = o.mode();
  s_.threshold = o.threshold();
  s_.threshold_mode = o.threshold_mode();
  s_.eps = o.eps();
  s_.mode_worse = mode_worse_of(s_.mode, s_.threshold_mode);
  s_.best = s_.mode_worse;
  for (const auto& g : optimizer.param_groups()) s_.last_lr.push_back(g.options().get_lr());
}

bool ReduceLROnPlateau::is_better(double a, double best) const {
  if (s_.mode == "min" && s_.threshold_mode == "rel") return a < best * (1. - s_.threshold);
  if (s_.mode == "min") return a < best - s_.threshold;
  if (s_.threshold_mode == "rel") return a > best * (s_.threshold + 1.);
  return a > best + s_.threshold;
}

void ReduceLROnPlateau::step(double metric) {
  s_.last_epoch += 1;
  if (is_better(metric, s_.best)) {
    s_.best = metric;
    s_.num_bad_epochs = 0;
  } else {
    s_.num_bad_epochs += 1;
  }
  if (in_cooldown()) {
    s_.cooldown_counter -= 1;
    s_.num_bad_epochs = 0;  // bad epochs in cooldown do not count
  }
  if (s_.num_bad_epochs > s_.patience) {
    reduce_lr();
    s_.cooldown_counter = s_.cooldown;
    s_.num_bad_epochs = 0;
  }
  s_.last_lr.clear();
  for (const auto& g : optimizer_.param_groups()) s_.last_lr.push_back(g.options().get_lr());
}

void ReduceLROnPlateau::reduce_lr() {
  auto& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size(); ++i) {
    const double old_lr = groups[i].options().get_lr();
    const double min_lr = i < s_.min_lrs.size() ? s_.min_lrs[i] : 0.0;
    const double new_lr = std::max(old_lr * s_.factor, min_lr);
    if (old_lr - new_lr > s_.eps) groups[i].options().set_lr(new_lr);
  }
}

void ReduceLROnPlateau::State::visit(SchedulerVisitor& v) {
  v.field("factor", factor);
  v.field("min_lrs", min_lrs);
  v.field("patience", patience);
  v.field("cooldown", cooldown);
  v.field("cooldown_counter", cooldown_counter);
  v.field("mode", mode);
  v.field("threshold", threshold);
  v.field("threshold_mode", threshold_mode);
  v.field("best", best);
  v.field("num_bad_epochs", num_bad_epochs);
  v.field("mode_worse", mode_worse);
  v.field("eps", eps);
  v.field("last_epoch", last_epoch);
  v.field("_last_lr", last_lr);
}

NamedTensors ReduceLROnPlateau::state_dict() {
  return detail::save_fields([this](SchedulerVisitor& v) { s_.visit(v); });
}

void ReduceLROnPlateau::load_state_dict(const NamedTensors& state_dict) {
  State loaded = s_;
  detail::load_fields(state_dict, [&loaded](SchedulerVisitor& v) { loaded.visit(v); });
  // As PyTorch's load, which re-runs _init_is_better.
  loaded.mode_worse = mode_worse_of(loaded.mode, loaded.threshold_mode);
  s_ = std::move(loaded);
}

}  // namespace optim
}  // namespace ember
