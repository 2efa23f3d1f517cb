#include "optim/composite_schedulers.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace ember {
namespace optim {

namespace {

constexpr char kChildren[] = "_schedulers.";

// The composite's own fields, then each child's under "_schedulers.<i>.".
NamedTensors save_composite(NamedTensors own,
                            const std::vector<std::shared_ptr<LRScheduler>>& children) {
  for (size_t i = 0; i < children.size(); ++i) {
    for (auto& kv : children[i]->state_dict()) {
      own.emplace_back(absl::StrCat(kChildren, i, ".", kv.first), std::move(kv.second));
    }
  }
  return own;
}

// Splits a composite's state dict into its own entries and each child's.
std::pair<NamedTensors, std::vector<NamedTensors>> split_composite(const NamedTensors& sd,
                                                                   size_t children) {
  NamedTensors own;
  std::vector<NamedTensors> parts(children);
  for (const auto& kv : sd) {
    if (kv.first.rfind(kChildren, 0) != 0) {
      own.push_back(kv);
      continue;
    }
    std::vector<std::string> pieces =
        absl::StrSplit(kv.first.substr(sizeof(kChildren) - 1), absl::MaxSplits('.', 1));
    size_t index = 0;
    EMBER_CHECK_VALUE(pieces.size() == 2 && absl::SimpleAtoi(pieces[0], &index) &&
                          index < children,
                      "unexpected key '", kv.first, "' in a scheduler state dict");
    parts[index].emplace_back(pieces[1], kv.second);
  }
  return {std::move(own), std::move(parts)};
}

Optimizer& check_sequential(Optimizer& optimizer,
                            const std::vector<std::shared_ptr<LRScheduler>>& schedulers,
                            const std::vector<int64_t>& milestones) {
  for (size_t i = 0; i < schedulers.size(); ++i) {
    EMBER_CHECK_VALUE(&schedulers[i]->optimizer() == &optimizer,
                      "Sequential Schedulers expects all schedulers to belong to the same "
                      "optimizer, but got schedulers at index ", i,
                      " to be different than the optimizer passed in.");
  }
  EMBER_CHECK_VALUE(milestones.size() + 1 == schedulers.size(),
                    "Sequential Schedulers expects number of schedulers provided to be one more "
                    "than the number of milestone points, but got number of schedulers ",
                    schedulers.size(), " and the number of milestones to be equal to ",
                    milestones.size());
  return optimizer;
}

Optimizer& check_chained(const std::vector<std::shared_ptr<LRScheduler>>& schedulers) {
  EMBER_CHECK_VALUE(!schedulers.empty(), "ChainedScheduler expects at least one scheduler");
  for (size_t i = 1; i < schedulers.size(); ++i) {
    EMBER_CHECK_VALUE(&schedulers[i]->optimizer() == &schedulers[0]->optimizer(),
                      "ChainedScheduler expects all schedulers to belong to the same optimizer, "
                      "but got schedulers at index 0 and ", i, " to be different");
  }
  return schedulers[0]->optimizer();
}

}  // namespace

// --- SequentialLR --------------------------------------------------------------------

SequentialLR::SequentialLR(Optimizer& optimizer,
                           std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones, int64_t last_epoch)
    : LRScheduler(check_sequential(optimizer, schedulers, milestones), last_epoch + 1,
                  Composite{}),
      schedulers_(std::move(schedulers)),
      milestones_(std::move(milestones)) {
  // Back to the initial lrs, the children's construction steps undone, and
  // the first child's initial step done again.
  for (auto& g : optimizer.param_groups()) {
    EMBER_CHECK(g.initial_lr.has_value(), "SequentialLR: a param group has no 'initial_lr'");
    g.options().set_lr(*g.initial_lr);
  }
  for (auto& s : schedulers_) --s->last_epoch_;
  schedulers_[0]->initial_step();
  last_lr_ = schedulers_[0]->get_last_lr();
}

void SequentialLR::step_impl(const std::optional<double>& epoch) {
  EMBER_CHECK_TYPE(!epoch, "SequentialLR.step() takes no epoch");
  ++last_epoch_;
  const size_t idx = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) -
                     milestones_.begin();
  LRScheduler& scheduler = *schedulers_[idx];
  if (idx > 0 && milestones_[idx - 1] == last_epoch_) {
    scheduler.step(0.0);
  } else {
    scheduler.step();
  }
  last_lr_ = scheduler.get_last_lr();
}

void SequentialLR::visit(SchedulerVisitor& v) {
  v.field("_milestones", milestones_);
  v.field("last_epoch", last_epoch_);
  v.field("_last_lr", last_lr_);
}

NamedTensors SequentialLR::state_dict() {
  return save_composite(LRScheduler::state_dict(), schedulers_);
}

void SequentialLR::load_state_dict(const NamedTensors& state_dict) {
  auto parts = split_composite(state_dict, schedulers_.size());
  LRScheduler::load_state_dict(parts.first);
  for (size_t i = 0; i < schedulers_.size(); ++i) schedulers_[i]->load_state_dict(parts.second[i]);
}

// --- ChainedScheduler ----------------------------------------------------------------

ChainedScheduler::ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers)
    : LRScheduler(check_chained(schedulers), 0, Composite{}), schedulers_(std::move(schedulers)) {
  last_lr_ = current_lrs();
}

void ChainedScheduler::step_impl(const std::optional<double>& epoch) {
  EMBER_CHECK_TYPE(!epoch, "ChainedScheduler.step() takes no epoch");
  for (auto& s : schedulers_) s->step();
  last_lr_ = current_lrs();
}

void ChainedScheduler::visit(SchedulerVisitor& v) { v.field("_last_lr", last_lr_); }

NamedTensors ChainedScheduler::state_dict() {
  return save_composite(LRScheduler::state_dict(), schedulers_);
}

void ChainedScheduler::load_state_dict(const NamedTensors& state_dict) {
  auto parts = split_composite(state_dict, schedulers_.size());
  LRScheduler::load_state_dict(parts.first);
  for (size_t i = 0; i < schedulers_.size(); ++i) schedulers_[i]->load_state_dict(parts.second[i]);
}

}  // namespace optim
}  // namespace ember
